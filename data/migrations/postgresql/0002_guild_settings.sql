-- PostgreSQL's form of ../0002_guild_settings.sql.

CREATE TABLE guild_channels (
    guild_id   TEXT COLLATE "C" NOT NULL,
    role       TEXT COLLATE "C" NOT NULL,
    channel_id TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (guild_id, role)
);

CREATE TABLE guild_settings (
    guild_id          TEXT COLLATE "C" PRIMARY KEY,
    moderator_role_id TEXT,
    updated_at        TEXT NOT NULL
);

CREATE TABLE bot_meta (
    key   TEXT COLLATE "C" PRIMARY KEY,
    value TEXT NOT NULL
);
