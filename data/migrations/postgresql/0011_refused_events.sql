-- PostgreSQL's form of ../0011_refused_events.sql.

CREATE TABLE refused_events (
    guild_id    TEXT COLLATE "C" NOT NULL,
    event_id    TEXT COLLATE "C" NOT NULL,
    at          TEXT COLLATE "C" NOT NULL,
    source_line BIGINT,
    PRIMARY KEY (guild_id, event_id)
);

CREATE INDEX refused_events_at ON refused_events (guild_id, at);
