"""What happened at a 關你核四 table, as typed values; ``text(lang)`` is the sentence the thread shows.

Events with an ``audience`` are for those seats only (a drawn card, a secret vote's receipt, which
cards a gift held); the framework never lets them reach the thread. Every other event is public and
never names a card that is still hidden: a vote is announced as "k of N", a placement by its count,
a gift by its count, a withdrawal by its count.
"""

from __future__ import annotations

from dataclasses import dataclass

from games.nuclear.cards import CARDS, Sym
from games.nuclear.state import ABSTAIN
from games.nuclear.texts import (
    EYE,
    SYMBOL,
    boxes_text,
    card_text,
    cards_list,
    cast_text,
    names,
    side_name,
    t,
    tn,
)
from games.tables.events import duration_text


@dataclass(frozen=True, slots=True)
class _Private:
    """An event for one seat only."""

    seat: str

    @property
    def audience(self) -> frozenset[str]:
        return frozenset({self.seat})


@dataclass(frozen=True, slots=True)
class RoundBegan:
    round: int
    speaker: str
    draws: tuple[tuple[str, int], ...]
    """Who drew how many (the speaker first)."""
    reshuffled: int
    """Cards of the discard pile shuffled into a new deck (0: none)."""

    def text(self, lang: str = "en") -> str:
        line = t(lang, "round.began", round=self.round, speaker=self.speaker)
        others = [(seat, k) for seat, k in self.draws if seat != self.speaker and k]
        spoken = [k for seat, k in self.draws if seat == self.speaker]
        parts = [line]
        if spoken:
            parts.append(tn(lang, "round.speaker_draws", spoken[0]))
        if others:
            each = t(lang, "list.sep").join(tn(lang, "round.refill_one", k, seat=seat) for seat, k in others)
            parts.append(t(lang, "round.refills", each=each))
        if self.reshuffled:
            parts.append(tn(lang, "round.reshuffled", self.reshuffled))
        return t(lang, "list.sentence").join(parts)


@dataclass(frozen=True, slots=True)
class CardsDrawn(_Private):
    cards: tuple[str, ...]

    def text(self, lang: str = "en") -> str:
        return t(lang, "round.you_drew", cards=cards_list(self.cards, lang))


@dataclass(frozen=True, slots=True)
class NothingToPropose:
    speaker: str

    def text(self, lang: str = "en") -> str:
        return t(lang, "round.no_card", speaker=self.speaker)


@dataclass(frozen=True, slots=True)
class Proposed:
    speaker: str
    card: str
    voters: tuple[str, ...]
    players: int
    swings: bool = False
    """The house rule by which bills and failed referendums move the indices (``swings``)."""

    def text(self, lang: str = "en") -> str:
        card = CARDS[self.card]
        lines = [
            t(lang, "propose.done", speaker=self.speaker, card=card_text(self.card, lang)),
            boxes_text(self.card, lang),
        ]
        if card.kind == "referendum":
            key = "propose.referendum" if self.swings else "propose.referendum_plain"
            lines.append(t(lang, key, n=self.players, other=side_name(card.no, lang)))
        elif card.kind == "gov_bill":
            key = "propose.bill" if self.swings else "propose.bill_plain"
            lines.append(t(lang, key, up=side_name(card.yes, lang), down=side_name(card.no, lang)))
        if self.voters:
            lines.append(t(lang, "propose.vote1", voters=names(lang, self.voters)))
        return "\n".join(lines)


@dataclass(frozen=True, slots=True)
class YourVote(_Private):
    cards: tuple[str, ...]
    proposal: str
    eye_votes: bool = False

    def text(self, lang: str = "en") -> str:
        if not self.cards:
            return t(lang, "vote1.you_abstain")
        cast = cast_text(self.cards[0], self.proposal, lang, eye_votes=self.eye_votes)
        return t(lang, "vote1.you_voted", card=card_text(self.cards[0], lang), cast=cast)


@dataclass(frozen=True, slots=True)
class VoteIn:
    seat: str
    done: int
    of: int

    def text(self, lang: str = "en") -> str:
        return t(lang, "vote1.in", seat=self.seat, done=self.done, of=self.of)


@dataclass(frozen=True, slots=True)
class FirstVoteRevealed:
    entries: tuple[tuple[str, str], ...]
    """(seat, card or ``ABSTAIN``) of every voter."""
    proposal: str
    yes: int
    no: int
    eye_votes: bool = False

    def text(self, lang: str = "en") -> str:
        if not self.entries:
            return t(lang, "vote1.nobody")
        lines = [t(lang, "vote1.revealed")]
        for seat, card in self.entries:
            if card == ABSTAIN:
                lines.append(t(lang, "vote1.entry_abstain", seat=seat))
            else:
                cast = cast_text(card, self.proposal, lang, eye_votes=self.eye_votes)
                lines.append(t(lang, "vote1.entry", seat=seat, card=card_text(card, lang), cast=cast))
        lines.append(t(lang, "vote1.tally", yes=self.yes, no=self.no))
        return "\n".join(lines)


@dataclass(frozen=True, slots=True)
class TalkOpened:
    speaker: str
    seconds: int

    def text(self, lang: str = "en") -> str:
        return t(lang, "talk.opened", speaker=self.speaker, time=duration_text(self.seconds, lang))


@dataclass(frozen=True, slots=True)
class GiftSeen:
    """What everyone learns of a gift: who gave whom how many cards, never which."""

    giver: str
    receiver: str
    count: int

    def text(self, lang: str = "en") -> str:
        return tn(lang, "talk.gave", self.count, giver=self.giver, receiver=self.receiver)


@dataclass(frozen=True, slots=True)
class GiftCards:
    """Which cards a gift held: for the giver and the receiver only."""

    giver: str
    receiver: str
    cards: tuple[str, ...]

    @property
    def audience(self) -> frozenset[str]:
        return frozenset({self.giver, self.receiver})

    def text(self, lang: str = "en") -> str:
        return t(lang, "talk.gave_cards", giver=self.giver, receiver=self.receiver, cards=cards_list(self.cards, lang))


@dataclass(frozen=True, slots=True)
class Transferred:
    giver: str
    receiver: str
    card: str

    def text(self, lang: str = "en") -> str:
        return t(lang, "talk.transferred", giver=self.giver, receiver=self.receiver, card=card_text(self.card, lang))


@dataclass(frozen=True, slots=True)
class Promised:
    giver: str
    receiver: str
    note: str

    def text(self, lang: str = "en") -> str:
        note = t(lang, "talk.note", note=self.note) if self.note else ""
        return t(lang, "talk.promised", giver=self.giver, receiver=self.receiver, note=note)


@dataclass(frozen=True, slots=True)
class TalkEnded:
    speaker: str
    placers: tuple[str, ...]
    timed_out: bool

    def text(self, lang: str = "en") -> str:
        head = t(lang, "talk.timed_out") if self.timed_out else t(lang, "talk.ended", speaker=self.speaker)
        if not self.placers:
            return head + t(lang, "list.sentence") + t(lang, "vote2.nobody")
        return head + "\n" + t(lang, "vote2.place", placers=names(lang, self.placers))


@dataclass(frozen=True, slots=True)
class YourPlacement(_Private):
    cards: tuple[str, ...]
    proposal: str
    eye_votes: bool = False

    def text(self, lang: str = "en") -> str:
        shown = t(lang, "list.cards").join(
            t(
                lang,
                "vote2.card_cast",
                card=card_text(c, lang),
                cast=cast_text(c, self.proposal, lang, eye_votes=self.eye_votes),
            )
            for c in self.cards
        )
        return t(lang, "vote2.you_placed", cards=shown)


@dataclass(frozen=True, slots=True)
class Placed:
    seat: str
    count: int
    done: int
    of: int

    def text(self, lang: str = "en") -> str:
        return tn(lang, "vote2.placed", self.count, seat=self.seat, done=self.done, of=self.of)


@dataclass(frozen=True, slots=True)
class AllPlaced:
    speaker: str

    def text(self, lang: str = "en") -> str:
        return t(lang, "vote2.all_placed", speaker=self.speaker)


@dataclass(frozen=True, slots=True)
class Counted:
    speaker: str
    seconds: int
    by_clock: bool

    def text(self, lang: str = "en") -> str:
        head = t(lang, "vote2.counted_by_clock") if self.by_clock else t(lang, "vote2.counted", speaker=self.speaker)
        return head + t(lang, "list.sentence") + t(lang, "vote2.window", time=duration_text(self.seconds, lang))


@dataclass(frozen=True, slots=True)
class YourChoice(_Private):
    choice: str
    cards: tuple[str, ...]

    def text(self, lang: str = "en") -> str:
        return t(lang, f"vote2.you_{self.choice}", cards=cards_list(self.cards, lang))


@dataclass(frozen=True, slots=True)
class Decided:
    seat: str
    done: int
    of: int

    def text(self, lang: str = "en") -> str:
        return t(lang, "vote2.decided", seat=self.seat, done=self.done, of=self.of)


@dataclass(frozen=True, slots=True)
class SecondVoteRevealed:
    entries: tuple[tuple[str, bool, tuple[str, ...], bool], ...]
    """(seat, revealed, cards placed, chose by default) of every placer; withdrawn cards are never shown."""
    proposal: str
    eye_votes: bool = False

    def text(self, lang: str = "en") -> str:
        lines = [t(lang, "vote2.revealed")]
        for seat, shown, cards, defaulted in self.entries:
            if shown:
                each = t(lang, "list.cards").join(
                    t(
                        lang,
                        "vote2.card_cast",
                        card=card_text(c, lang),
                        cast=cast_text(c, self.proposal, lang, eye_votes=self.eye_votes),
                    )
                    for c in cards
                )
                lines.append(t(lang, "vote2.entry_reveal", seat=seat, cards=each))
            else:
                key = "vote2.entry_default" if defaulted else "vote2.entry_withdraw"
                lines.append(tn(lang, key, len(cards), seat=seat))
        return "\n".join(lines)


@dataclass(frozen=True, slots=True)
class Effect:
    """One change of an index: ``why`` is proposal, referendum, referendum_failed, bill, eye or eye_capped."""

    side: Sym
    delta: int
    value: int
    why: str


@dataclass(frozen=True, slots=True)
class Resolved:
    proposal: str
    speaker: str
    first: tuple[int, int]
    second: tuple[int, int]
    passed: bool
    effects: tuple[Effect, ...]
    pro: int
    anti: int
    players: int
    counts_first: bool = True
    turnout: bool = True

    def text(self, lang: str = "en") -> str:
        yes, no = self.first[0] + self.second[0], self.first[1] + self.second[1]
        card = CARDS[self.proposal]
        parts = t(lang, "resolve.parts", y1=self.first[0], n1=self.first[1], y2=self.second[0], n2=self.second[1])
        if not self.counts_first:
            parts = t(lang, "resolve.second_only")
        verdict = t(lang, "resolve.passed" if self.passed else "resolve.failed")
        lines = [t(lang, "resolve.tally", yes=yes, no=no, parts=parts, verdict=verdict)]
        if card.kind == "referendum" and not self.passed and yes > no and self.turnout:
            lines.append(t(lang, "resolve.turnout", yes=yes, n=self.players))
        if self.passed:
            lines.append(t(lang, "resolve.kept", card=self.proposal, speaker=self.speaker, score=card.score))
        for effect in self.effects:
            target = 12 if effect.side == "pro" else 18
            fields = {
                "side": side_name(effect.side, lang),
                "symbol": SYMBOL[effect.side],
                "value": effect.value,
                "target": target,
                "eye": EYE,
            }
            if effect.why == "eye_capped":
                lines.append(t(lang, "resolve.eye_capped", **fields))
            else:
                sign = f"+{effect.delta}" if effect.delta > 0 else str(effect.delta)
                lines.append(t(lang, f"resolve.{effect.why}", delta=sign, **fields))
        lines.append(t(lang, "resolve.indices", pro=self.pro, anti=self.anti))
        return "\n".join(lines)


@dataclass(frozen=True, slots=True)
class GameOver:
    ending: str
    scores: tuple[tuple[str, int, int], ...]
    """(seat, score, points the doubling added)."""
    winners: tuple[str, ...]

    def text(self, lang: str = "en") -> str:
        lines = [t(lang, f"end.{self.ending}")]
        shown = []
        for seat, score, extra in sorted(self.scores, key=lambda s: -s[1]):
            shown.append(
                t(lang, "end.score_doubled", seat=seat, score=score, extra=extra)
                if extra
                else t(lang, "end.score", seat=seat, score=score)
            )
        lines.append(t(lang, "end.scores", scores=t(lang, "list.sep").join(shown)))
        key = "end.winner" if len(self.winners) == 1 else "end.winners"
        lines.append(t(lang, key, winners=names(lang, self.winners)))
        return "\n".join(lines)


NuclearEvent = (
    RoundBegan
    | CardsDrawn
    | NothingToPropose
    | Proposed
    | YourVote
    | VoteIn
    | FirstVoteRevealed
    | TalkOpened
    | GiftSeen
    | GiftCards
    | Transferred
    | Promised
    | TalkEnded
    | YourPlacement
    | Placed
    | AllPlaced
    | Counted
    | YourChoice
    | Decided
    | SecondVoteRevealed
    | Resolved
    | GameOver
)
