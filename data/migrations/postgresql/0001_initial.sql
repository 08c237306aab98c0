-- PostgreSQL's form of ../0001_initial.sql (same tables, same keys; see there for what they hold).
-- Text is TEXT as in SQLite (instants as ISO-8601 text), whole numbers BIGINT. Keys that are sorted
-- use the "C" collation, so rows come back in the order SQLite gives them, whatever the database's locale.

CREATE TABLE guilds (
    guild_id   TEXT COLLATE "C" PRIMARY KEY,
    seed       TEXT NOT NULL,
    created_at TEXT NOT NULL
);

CREATE TABLE actions (
    guild_id    TEXT COLLATE "C" NOT NULL REFERENCES guilds (guild_id),
    seq         BIGINT NOT NULL,
    event_id    TEXT   NOT NULL,
    at          TEXT   NOT NULL,
    actor       TEXT   NOT NULL,
    kind        TEXT   NOT NULL,
    body        TEXT   NOT NULL,
    source_line BIGINT,
    PRIMARY KEY (guild_id, seq),
    UNIQUE (guild_id, event_id)
);

CREATE TABLE snapshots (
    guild_id TEXT COLLATE "C" PRIMARY KEY REFERENCES guilds (guild_id),
    seq      BIGINT NOT NULL,
    taken_at TEXT   NOT NULL,
    body     TEXT   NOT NULL
);
