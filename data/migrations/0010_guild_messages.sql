-- Messages the bot keeps editing in a guild (the lot board, role 'board'): which channel and message,
-- so a restart edits the same one instead of posting another. Keyed by guild like every table, so
-- export and import move it with the guild.

CREATE TABLE guild_messages (
    guild_id   TEXT NOT NULL,
    role       TEXT NOT NULL,
    channel_id TEXT NOT NULL,
    message_id TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (guild_id, role)
) WITHOUT ROWID;
