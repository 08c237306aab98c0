"""The bot's cogs, one an area: the economy, governance, admin and setup, help, and gateway events."""
