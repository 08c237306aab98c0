-- PostgreSQL's form of ../0005_replay_progress.sql.

CREATE TABLE replay_progress (
    guild_id TEXT COLLATE "C" PRIMARY KEY,
    line     BIGINT NOT NULL
);
