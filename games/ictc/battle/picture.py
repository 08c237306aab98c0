"""The picture of a battle, drawn with Pillow: the public table only, never a hand or a deck's order.

Two rows, one per player (the player whose turn it is at the bottom): health, the hidden cards as
counts, and the cards in play as small index cards in their colour (a Soldier with its CR and
damage, a Power card with what it makes), tapped ones turned on their side.
"""

from __future__ import annotations

from PIL import Image, ImageDraw

from games.ictc.battle.state import BattleState, Permanent
from games.ictc.battle.table import cr_of, is_soldier
from games.ictc.palette import RGB
from games.tables.pictures import BACKGROUND, TEXT, fit, font, png

CARD_W = 74
CARD_H = 100
GAP = 6
MARGIN = 10
HEADER = 22
ROW_H = HEADER + CARD_H + 2 * GAP
MAX_CARDS = 12
PAPER = (238, 234, 222)
INK = (40, 40, 44)
MUTED = (150, 153, 158)
HURT = (190, 50, 55)


def _card(draw: ImageDraw.ImageDraw, state: BattleState, perm: Permanent, x: int, y: int) -> None:
    fields = state.defn(perm.card).fields
    colour = RGB.get(fields.colours[0], MUTED) if fields.colours else MUTED
    box = [x, y + CARD_H - CARD_W, x + CARD_H, y + CARD_H] if perm.tapped else [x, y, x + CARD_W, y + CARD_H]
    draw.rounded_rectangle(box, radius=6, fill=PAPER, outline=colour, width=3)
    left, top = box[0] + 5, box[1] + 4
    draw.text((left, top), fit(fields.name, 11), font=font(10), fill=INK)
    draw.text((left, top + 14), f"#{perm.card}", font=font(10), fill=MUTED)
    if is_soldier(state, perm.card):
        draw.text((left, top + 30), f"CR {cr_of(state, perm.card)}", font=font(14), fill=INK)
        if perm.damage:
            draw.text((left, top + 48), f"-{perm.damage}", font=font(13), fill=HURT)
    elif fields.output is not None:
        draw.text((left, top + 30), fields.output.text(), font=font(14), fill=colour)


def render_battle(state: BattleState) -> bytes | None:
    """The public table as a PNG."""
    if not state.turn:
        return None
    width = MARGIN * 2 + MAX_CARDS * (CARD_W + GAP) + CARD_H
    image = Image.new("RGB", (width, MARGIN * 2 + 2 * ROW_H), BACKGROUND)
    draw = ImageDraw.Draw(image)
    for row, seat in enumerate((1 - state.active, state.active)):
        side = state.sides[seat]
        y = MARGIN + row * ROW_H
        head = (
            f"{fit(state.seats[seat], 20)}  ♥ {side.health}   hand {len(side.hand)}   deck {len(side.deck)}"
            f"   grave {len(side.grave)}"
        )
        draw.text((MARGIN, y), head, font=font(14), fill=TEXT)
        x = MARGIN
        shown = sorted(side.play, key=lambda p: (not is_soldier(state, p.card), p.card))[:MAX_CARDS]
        for perm in shown:
            _card(draw, state, perm, x, y + HEADER)
            x += (CARD_H if perm.tapped else CARD_W) + GAP
    return png(image)
