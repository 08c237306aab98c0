-- The card library of each server (ICTC): designs, copies, play decks, guilds, first meetings,
-- contests and members' names, one row per value, plus the library's own row (its options,
-- counters and glossary) and its action log. An action writes the rows it changed, its library row
-- (whose seq it raises by one, guarded by the seq it read) and its log row in one transaction; the
-- log's unique (guild_id, event_id) makes a redelivered event change nothing. A trade of the round
-- that moves card copies writes the copies' rows inside the round's own transaction.

CREATE TABLE card_libraries (
    guild_id   TEXT    PRIMARY KEY,
    seq        INTEGER NOT NULL,  -- actions applied
    body       TEXT    NOT NULL,  -- games.ictc.state.Meta as JSON
    updated_at TEXT    NOT NULL
);

CREATE TABLE card_rows (
    guild_id   TEXT NOT NULL,
    collection TEXT NOT NULL,  -- designs, copies, decks, guilds, meetings, contests, members
    key        TEXT NOT NULL,  -- a design's or copy's number, a deck's owner and name...
    owner_id   TEXT,           -- a copy's owner: a trade moves the copy only from the owner it read
    body       TEXT NOT NULL,  -- the value as JSON (games.ictc.state)
    PRIMARY KEY (guild_id, collection, key)
) WITHOUT ROWID;

CREATE INDEX card_rows_owner ON card_rows (guild_id, collection, owner_id) WHERE owner_id IS NOT NULL;

CREATE TABLE card_actions (
    guild_id    TEXT    NOT NULL,
    seq         INTEGER NOT NULL,
    event_id    TEXT    NOT NULL,
    at          TEXT    NOT NULL,
    actor       TEXT    NOT NULL,
    kind        TEXT    NOT NULL,
    body        TEXT    NOT NULL,  -- the action and who did it, as JSON
    source_line INTEGER,
    PRIMARY KEY (guild_id, seq),
    UNIQUE (guild_id, event_id)
) WITHOUT ROWID;
