-- Which process may write a guild: its epoch goes up by one each time a process takes the guild's
-- lock (PostgreSQL, data/ownership.py), and a guild's writes commit only while the epoch is still the
-- one their process took it at, so a process that lost the guild without noticing yet writes nothing.
-- A SQLite file has one process: the table stays empty there and nothing checks it.

CREATE TABLE guild_owners (
    guild_id TEXT    PRIMARY KEY,
    epoch    INTEGER NOT NULL,
    taken_at TEXT    NOT NULL
) WITHOUT ROWID;
