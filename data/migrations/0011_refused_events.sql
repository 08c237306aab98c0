-- Commands the bot refused, by their source event (a Discord message or interaction id, a scenario
-- line's id): a redelivery of one changes nothing and gets no second answer, even once the command
-- could be carried out (a bid refused before the auction and delivered again in it). Accepted
-- actions need no row here: their logs hold their event ids. `source_line`: the scenario line a
-- replay refused (the line is finished). Rows older than a redelivery can come are pruned as new
-- ones are written.

CREATE TABLE refused_events (
    guild_id    TEXT    NOT NULL,
    event_id    TEXT    NOT NULL,
    at          TEXT    NOT NULL,
    source_line INTEGER,
    PRIMARY KEY (guild_id, event_id)
) WITHOUT ROWID;

CREATE INDEX refused_events_at ON refused_events (guild_id, at);
