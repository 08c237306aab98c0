-- PostgreSQL's form of ../0006_card_library.sql.

CREATE TABLE card_libraries (
    guild_id   TEXT COLLATE "C" PRIMARY KEY,
    seq        BIGINT NOT NULL,
    body       TEXT   NOT NULL,
    updated_at TEXT   NOT NULL
);

CREATE TABLE card_rows (
    guild_id   TEXT COLLATE "C" NOT NULL,
    collection TEXT COLLATE "C" NOT NULL,
    key        TEXT COLLATE "C" NOT NULL,
    owner_id   TEXT,
    body       TEXT NOT NULL,
    PRIMARY KEY (guild_id, collection, key)
);

CREATE INDEX card_rows_owner ON card_rows (guild_id, collection, owner_id) WHERE owner_id IS NOT NULL;

CREATE TABLE card_actions (
    guild_id    TEXT COLLATE "C" NOT NULL,
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
