-- How far a replay of a scenario file (`python -m bot replay --db FILE`) got: the last line it
-- finished, whatever that line's outcome (accepted, refused or a question). The mark is written in
-- the same transaction as the next commit after the line, so no later commit (a phase change due
-- before the next line, say) is durable without it; resuming starts exactly after that line.

CREATE TABLE replay_progress (
    guild_id TEXT    PRIMARY KEY,
    line     INTEGER NOT NULL
) WITHOUT ROWID;
