-- PostgreSQL's form of ../0004_archive.sql.

CREATE TABLE archive (
    guild_id    TEXT COLLATE "C" NOT NULL REFERENCES guilds (guild_id),
    kind        TEXT COLLATE "C" NOT NULL,
    number      BIGINT NOT NULL,
    seq         BIGINT NOT NULL,
    archived_at TEXT   NOT NULL,
    body        TEXT   NOT NULL,
    PRIMARY KEY (guild_id, kind, number)
);
