-- The round's durable record: each guild's seed, its action log, and snapshots of its state.
-- The state is the latest snapshot plus the actions logged after it, replayed through the rules.

CREATE TABLE guilds (
    guild_id   TEXT PRIMARY KEY,
    seed       TEXT NOT NULL,
    created_at TEXT NOT NULL
);

CREATE TABLE actions (
    guild_id    TEXT    NOT NULL REFERENCES guilds (guild_id),
    seq         INTEGER NOT NULL,
    event_id    TEXT    NOT NULL,
    at          TEXT    NOT NULL,
    actor       TEXT    NOT NULL,
    kind        TEXT    NOT NULL,
    body        TEXT    NOT NULL,
    source_line INTEGER,
    PRIMARY KEY (guild_id, seq),
    UNIQUE (guild_id, event_id)
) WITHOUT ROWID;

CREATE TABLE snapshots (
    guild_id TEXT    PRIMARY KEY REFERENCES guilds (guild_id),
    seq      INTEGER NOT NULL,
    taken_at TEXT    NOT NULL,
    body     TEXT    NOT NULL
);
