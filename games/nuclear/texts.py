"""How the game says things, in Traditional Chinese and English: the catalogue and its shared phrases.

Every sentence is a key of ``locales/LANG.toml``; the helpers here put a card, a side or a vote into
words the same way in the board, the hands and the events.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from games.nuclear.cards import CARDS, Sym, VoteCard
from games.tables.i18n import Catalogue, join_names

TEXTS = Catalogue(Path(__file__).parent / "locales")
SYMBOL: dict[Sym, str] = {"pro": "⬜", "anti": "🟩"}
"""A side's symbol: grey (shown white) for pro, light green for anti, as the cards' frames."""
EYE = "👁"


def t(lang: str, key: str, **fields: object) -> str:
    return TEXTS.text(lang, key, **fields)


def tn(lang: str, key: str, n: int, **fields: object) -> str:
    return TEXTS.plural(lang, key, n, **fields)


def side_name(side: Sym | str, lang: str) -> str:
    return t(lang, f"side.{side}")


def names(lang: str, seats: Sequence[str]) -> str:
    return join_names(lang, list(seats))


def symbols(side: Sym, n: int) -> str:
    return SYMBOL[side] * n


def vote_box(card: VoteCard) -> str:
    """The top-right vote box: its symbols and the eye."""
    return "".join(SYMBOL[s] for s in card.votes) + (EYE if card.eye else "")


def card_text(cid: str, lang: str, *, title: bool = True) -> str:
    """A card as every message shows it: id, title, frame and symbols, vote box and score."""
    card = CARDS[cid]
    if card.kind == "gov_bill":
        frame = t(lang, "card.gov")
    elif card.kind == "referendum":
        frame = t(lang, "card.referendum", side=side_name(card.side, lang), symbols=symbols(card.yes, card.opinion))
    else:
        frame = t(lang, "card.frame", side=side_name(card.side, lang), symbols=symbols(card.yes, card.opinion))
    facts = t(lang, "card.facts", frame=frame, votes=vote_box(card), score=card.score)
    if not title:
        return f"{cid} {facts}"
    return t(lang, "card.line", id=cid, title=card.title(lang), facts=facts)


def cast_text(cid: str, proposal: str, lang: str, *, eye_votes: bool = False) -> str:
    """What ``cid`` casts on ``proposal``: ``贊成 ×2``, ``no ×1 + 👁``."""
    card = CARDS[cid]
    yes, no = card.casts(CARDS[proposal], eye_votes=eye_votes)
    parts = []
    if yes:
        parts.append(t(lang, "cast.yes", n=yes))
    if no:
        parts.append(t(lang, "cast.no", n=no))
    text = t(lang, "list.and").join(parts) or t(lang, "cast.nothing")
    return text + (f" + {EYE}" if card.eye and not eye_votes else "")


def boxes_text(cid: str, lang: str) -> str:
    """A proposal's symbol boxes: which vote symbol is a yes, which a no."""
    card = CARDS[cid]
    return t(
        lang,
        "card.boxes",
        yes=SYMBOL[card.yes],
        yes_side=side_name(card.yes, lang),
        no=SYMBOL[card.no],
        no_side=side_name(card.no, lang),
    )


def cards_list(cards: Sequence[str], lang: str) -> str:
    return t(lang, "list.cards").join(card_text(c, lang) for c in cards) if cards else t(lang, "list.no_cards")
