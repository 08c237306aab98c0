"""Read-only answers rendered from the state, in the same words on every adapter."""

from __future__ import annotations

from games.nomic.common import highest_bid, member_label
from games.nomic.errors import NotAPlayerError
from games.nomic.events import cards_text
from games.nomic.ruleset import Ruleset
from games.nomic.state import RoundState, TradeStatus


def inventory(state: RoundState, player_id: str, *, asking_self: bool) -> str:
    player = state.players.get(player_id)
    if player is None:
        if asking_self:
            raise NotAPlayerError("you are not a player; use `!join` in #game-actions to become one")
        raise NotAPlayerError(f"{member_label(player_id)} is not a player")
    lines = [
        f"{player.name}: {player.points} point{'s' if player.points != 1 else ''}",
        f"Cards ({len(player.cards)}): {cards_text(player.cards)}",
        f"Standard Proposal-Makers: {player.spm}",
    ]
    hand = state.hands.get(player_id)
    if hand is not None:
        lines.append(f"Presented this week: {cards_text(hand.cards)}")
    return "\n".join(lines)


def lots(state: RoundState) -> str:
    limit = state.ruleset.auction.lots_per_auction
    if not state.lots:
        return f"There are no lots yet (an auction holds {limit}). Players generate them outside the auction phase."
    out = [f"Lots ({len(state.lots)} of {limit}):"]
    for number in sorted(state.lots):
        lot = state.lots[number]
        high = highest_bid(state, lot)
        if high is None:
            bid = "no valid bid"
        else:
            who = state.players[high.player].name if high.player in state.players else high.player
            bid = f"highest valid bid {high.amount} by {who}"
        out.append(f"Lot {number}: {cards_text(lot.cards)} - {bid}")
    return "\n".join(out)


def trades(state: RoundState, player_id: str) -> str:
    mine = [
        t
        for t in state.trades.values()
        if t.status is TradeStatus.OPEN and player_id in (t.offerer, t.target)
    ]
    if not mine:
        return "You have no open trade offers."
    out = ["Open trade offers:"]
    for t in sorted(mine, key=lambda t: t.number):
        offerer = state.players[t.offerer].name if t.offerer in state.players else t.offerer
        target = state.players[t.target].name if t.target in state.players else t.target
        out.append(f"Trade {t.number}: {offerer} gives {t.give.describe()} to {target} for {t.get.describe()}")
    return "\n".join(out)


_PART_TITLES = {
    "calendar": "The week",
    "auction": "Auctions",
    "hands": "Hands and placements",
    "proposals": "Proposals",
    "judge": "The judge",
}


def ruleset(state: RoundState) -> str:
    """Every option with its value and what it means, under the version in force."""
    current = state.ruleset_versions[-1] if state.ruleset_versions else None
    made = f", made by {current.by}" if current is not None else ""
    out = [f"Ruleset `{state.ruleset.name}`, version {state.ruleset_version}{made}."]
    out.extend(option_lines(state.ruleset))
    out.append("Change an option with a passed amendment or `!admin set OPTION VALUE`.")
    return "\n".join(out)


def option_lines(rules: Ruleset) -> list[str]:
    out: list[str] = []
    section = ""
    for path, value in rules.option_paths().items():
        part = path.split(".", 1)[0]
        if part != section:
            section = part
            out.append(f"__{_PART_TITLES.get(part, part)}__")
        shown = ", ".join(str(v) for v in value) if isinstance(value, tuple) else str(value)
        shown = shown.lower() if isinstance(value, bool) else shown
        out.append(f"- `{path}` = {shown}: {rules.describe(path)}")
    return out
