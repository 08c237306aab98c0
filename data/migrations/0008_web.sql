-- The round's public web record: each guild's moderators may list it (on), leave it out of the
-- site's index while its pages stay reachable by their link (hidden), or turn its pages off (off).

ALTER TABLE guild_settings ADD COLUMN web TEXT NOT NULL DEFAULT 'on';
