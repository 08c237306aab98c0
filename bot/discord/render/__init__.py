"""What the Discord adapter shows: embeds that fit Discord's limits, and card pictures."""
