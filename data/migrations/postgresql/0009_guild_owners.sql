-- PostgreSQL's form of ../0009_guild_owners.sql.

CREATE TABLE guild_owners (
    guild_id TEXT COLLATE "C" PRIMARY KEY,
    epoch    BIGINT NOT NULL,
    taken_at TEXT NOT NULL
);
