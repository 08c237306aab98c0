"""The picture of a Sardini table, drawn with Pillow: the public table only, never a hand.

The shown Tricks side by side as cards (their code, name and Moves, the Moves done in the attempt
under way ticked), and one line per performer: cards in hand (a count), pile and status.
"""

from __future__ import annotations

from PIL import Image, ImageDraw

from games.sardini.state import Phase, SardiniState
from games.sardini.texts import t, tn
from games.sardini.tricks import TRICKS
from games.tables.pictures import BACKGROUND, TEXT, fit, font, png

CARD_W = 170
CARD_H = 150
GAP = 8
MARGIN = 10
ROW_H = 18
SUIT_COLOURS = ((150, 110, 230), (190, 190, 205), (225, 185, 60), (120, 170, 190))
"""Wands, Top Hats, Stars, Smoke."""
PANEL = (32, 34, 37)
MUTED = (150, 153, 158)
DONE = (70, 160, 90)
DEAD = (180, 45, 55)


def _wrap(text: str, width: int) -> list[str]:
    lines: list[str] = []
    line = ""
    for word in text.split():
        if len(line) + len(word) + 1 > width and line:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    if line:
        lines.append(line)
    return lines


def _card(draw: ImageDraw.ImageDraw, state: SardiniState, slot: int, x: int, y: int) -> None:
    card = state.board()[slot]
    if card is None:  # a Trick just performed: its place waits for the next one
        draw.rounded_rectangle([x, y, x + CARD_W, y + CARD_H], radius=8, outline=MUTED, width=1)
        draw.text((x + 8, y + 6), f"T{slot + 1}", font=font(13), fill=MUTED)
        for n, part in enumerate(_wrap(t("en", "picture.vacant"), 26)[:3]):
            draw.text((x + 8, y + 46 + 13 * n), part, font=font(10), fill=MUTED)
        return
    trick = TRICKS[card]
    suit = trick.card // 10
    draw.rounded_rectangle([x, y, x + CARD_W, y + CARD_H], radius=8, fill=PANEL, outline=SUIT_COLOURS[suit], width=3)
    draw.text((x + 8, y + 6), f"T{slot + 1} · {trick.code}", font=font(13), fill=TEXT)
    draw.text((x + 8, y + 24), fit(trick.name, 24), font=font(12), fill=SUIT_COLOURS[suit])
    attempt = state.attempt
    done = attempt.done_moves() if attempt is not None and attempt.trick == trick.card else frozenset()
    row = y + 46
    for k, move in enumerate(trick.moves):
        for n, part in enumerate(_wrap(move.text(), 26)[:2]):
            mark = ("✓ " if k in done else f"{k + 1}. ") if n == 0 else "   "
            draw.text((x + 8, row), fit(mark + part, 30), font=font(10), fill=DONE if k in done else TEXT)
            row += 13
        if row > y + CARD_H - 14:
            break


def render_sardini(state: SardiniState) -> bytes:
    """The shown Tricks and the performers of a Sardini table."""
    board = state.board()
    n = max(len(board), 1)
    width = max(MARGIN * 2 + n * CARD_W + (n - 1) * GAP, 420)
    height = MARGIN * 3 + CARD_H + ROW_H * (len(state.seats) + 1)
    image = Image.new("RGB", (width, height), BACKGROUND)
    draw = ImageDraw.Draw(image)
    for slot in range(len(board)):
        _card(draw, state, slot, MARGIN + slot * (CARD_W + GAP), MARGIN)
    if not board:
        draw.text((MARGIN, MARGIN + 60), t("en", "board.no_tricks"), font=font(13), fill=MUTED)
    y = MARGIN * 2 + CARD_H
    if state.phase is Phase.OVER:
        head = tn("en", "picture.head_over", state.turn)
    else:
        head = t("en", "picture.head", turn=state.turn, seat=fit(state.seats[state.current], 20), deck=len(state.deck))
    draw.text((MARGIN, y), head, font=font(12), fill=TEXT)
    for i, seat in enumerate(state.seats):
        y += ROW_H
        alive = state.alive[i]
        line = t("en", "picture.seat", seat=fit(seat, 20), hand=len(state.hands[i]), pile=len(state.piles[i]))
        if not alive:
            line += " · " + t("en", "board.eliminated")
        draw.text((MARGIN, y), line, font=font(11), fill=TEXT if alive else DEAD)
    return png(image)
