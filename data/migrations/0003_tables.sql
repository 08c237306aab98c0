-- Thread game tables: one row per table with its whole current state, and each table's action log.
-- A table's row and its log row are written in one transaction per action; the log's unique
-- (guild_id, event_id) makes a redelivered Discord event (or a scheduled timeout applied twice)
-- change nothing. The seed in the row (also in the log's first entry) makes the game repeatable.

CREATE TABLE game_tables (
    guild_id   TEXT    NOT NULL,
    name       TEXT    NOT NULL,  -- GAME-N, e.g. wikipedia-1: the thread's name
    game       TEXT    NOT NULL,
    number     INTEGER NOT NULL,  -- N: counts the game's tables in the guild
    thread_id  TEXT,              -- the Discord thread, once the adapter created it
    status     TEXT    NOT NULL,  -- lobby, playing, won, lost, finished, abandoned
    seed       TEXT    NOT NULL,
    seq        INTEGER NOT NULL,  -- log entries applied
    body       TEXT    NOT NULL,  -- games.tables.lobby.Table as JSON (seats, timers, the game's state)
    opened_at  TEXT    NOT NULL,
    updated_at TEXT    NOT NULL,
    PRIMARY KEY (guild_id, name),
    UNIQUE (guild_id, game, number)
) WITHOUT ROWID;

CREATE UNIQUE INDEX game_tables_thread ON game_tables (guild_id, thread_id) WHERE thread_id IS NOT NULL;
CREATE INDEX game_tables_status ON game_tables (status, guild_id);

CREATE TABLE table_actions (
    guild_id    TEXT    NOT NULL,
    table_name  TEXT    NOT NULL,
    seq         INTEGER NOT NULL,
    event_id    TEXT    NOT NULL,
    at          TEXT    NOT NULL,
    actor       TEXT    NOT NULL,
    kind        TEXT    NOT NULL,
    body        TEXT    NOT NULL,  -- games.tables.lobby.TableAction as JSON
    source_line INTEGER,
    PRIMARY KEY (guild_id, table_name, seq),
    UNIQUE (guild_id, event_id),
    FOREIGN KEY (guild_id, table_name) REFERENCES game_tables (guild_id, name)
) WITHOUT ROWID;
