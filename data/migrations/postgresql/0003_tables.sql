-- PostgreSQL's form of ../0003_tables.sql.

CREATE TABLE game_tables (
    guild_id   TEXT COLLATE "C" NOT NULL,
    name       TEXT COLLATE "C" NOT NULL,
    game       TEXT COLLATE "C" NOT NULL,
    number     BIGINT NOT NULL,
    thread_id  TEXT,
    status     TEXT NOT NULL,
    seed       TEXT NOT NULL,
    seq        BIGINT NOT NULL,
    body       TEXT NOT NULL,
    opened_at  TEXT COLLATE "C" NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (guild_id, name),
    UNIQUE (guild_id, game, number)
);

CREATE UNIQUE INDEX game_tables_thread ON game_tables (guild_id, thread_id) WHERE thread_id IS NOT NULL;
CREATE INDEX game_tables_status ON game_tables (status, guild_id);

CREATE TABLE table_actions (
    guild_id    TEXT COLLATE "C" NOT NULL,
    table_name  TEXT COLLATE "C" NOT NULL,
    seq         BIGINT NOT NULL,
    event_id    TEXT   NOT NULL,
    at          TEXT   NOT NULL,
    actor       TEXT   NOT NULL,
    kind        TEXT   NOT NULL,
    body        TEXT   NOT NULL,
    source_line BIGINT,
    PRIMARY KEY (guild_id, table_name, seq),
    UNIQUE (guild_id, event_id),
    FOREIGN KEY (guild_id, table_name) REFERENCES game_tables (guild_id, name)
);
