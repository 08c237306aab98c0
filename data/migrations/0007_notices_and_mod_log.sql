-- The moderators' log: every !admin correction, /setup change and ruleset change a moderator made,
-- with who, when and what. An !admin action's row is written in the transaction that logs the action
-- (so a redelivered command adds none); a setup change's row with the change itself.

CREATE TABLE mod_log (
    guild_id       TEXT    NOT NULL,
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    at             TEXT    NOT NULL,
    moderator      TEXT    NOT NULL,  -- the member's id
    moderator_name TEXT    NOT NULL,
    kind           TEXT    NOT NULL,  -- admin_give, admin_take, admin_lot, admin_set, admin_sync, setup
    what           TEXT    NOT NULL
);

CREATE INDEX mod_log_guild ON mod_log (guild_id, id);

-- Private notices (an outbid notice, a personal reminder) the bot could not send by DM because the
-- member's DMs are closed: kept until the member's next answer that only they see, which carries them.

CREATE TABLE held_notices (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    guild_id  TEXT    NOT NULL,
    member_id TEXT    NOT NULL,
    at        TEXT    NOT NULL,
    text      TEXT    NOT NULL
);

CREATE INDEX held_notices_member ON held_notices (guild_id, member_id, id);
