-- PostgreSQL's form of ../0010_guild_messages.sql.

CREATE TABLE guild_messages (
    guild_id   TEXT COLLATE "C" NOT NULL,
    role       TEXT COLLATE "C" NOT NULL,
    channel_id TEXT NOT NULL,
    message_id TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (guild_id, role)
);
