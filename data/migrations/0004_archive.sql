-- Records the round is done with (decided proposals, settled rulings, earlier ruleset versions),
-- moved out of the state at a week's start and written in the same transaction as that tick.
-- Read back by !proposals, !rulings, !ruleset history and the simulator's state document.

CREATE TABLE archive (
    guild_id    TEXT    NOT NULL REFERENCES guilds (guild_id),
    kind        TEXT    NOT NULL,
    number      INTEGER NOT NULL,
    seq         INTEGER NOT NULL,
    archived_at TEXT    NOT NULL,
    body        TEXT    NOT NULL,
    PRIMARY KEY (guild_id, kind, number)
) WITHOUT ROWID;
