"""Everything that talks to Discord: the client, its cogs, views, boards and renderings."""
