-- What the Discord adapter keeps per guild besides the round: which channel plays which role
-- (auctions, game-actions, proposals, judge-elections) and which role makes a member a moderator.
-- A role without a row here falls back to the channel named after it. No foreign key to guilds:
-- a server may be set up before its round starts.

CREATE TABLE guild_channels (
    guild_id   TEXT NOT NULL,
    role       TEXT NOT NULL,
    channel_id TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (guild_id, role)
) WITHOUT ROWID;

CREATE TABLE guild_settings (
    guild_id          TEXT PRIMARY KEY,
    moderator_role_id TEXT,
    updated_at        TEXT NOT NULL
);

-- Small facts about the process itself, e.g. the hash of the last globally synced command tree.
CREATE TABLE bot_meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
