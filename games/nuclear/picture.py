"""The picture of a 關你核四 table, drawn with Pillow: the public table only, never a hand or a hidden vote.

Two public-opinion tracks (grey for pro up to 12, light green for anti up to 18) filled to their
indices, and the proposal's card id with its yes and no boxes. It uses digits, card ids and colours
only, so it reads the same at a table of either language (and needs no Chinese font).
"""

from __future__ import annotations

from PIL import Image, ImageDraw

from games.nuclear.cards import CARDS, Sym
from games.nuclear.state import ANTI_TARGET, PRO_TARGET, NuclearState, Phase
from games.tables.pictures import BACKGROUND, TEXT, font, png

CELL = 22
GAP = 3
MARGIN = 12
LABEL_W = 40
COLOURS: dict[Sym, tuple[int, int, int]] = {"pro": (170, 172, 176), "anti": (120, 200, 140)}
EMPTY = (64, 67, 72)
GOAL = (212, 175, 55)


def _track(draw: ImageDraw.ImageDraw, y: int, side: Sym, value: int, target: int) -> None:
    colour = COLOURS[side]
    draw.rounded_rectangle([MARGIN, y, MARGIN + LABEL_W - 8, y + CELL], radius=4, fill=colour)
    draw.text((MARGIN + 4, y + 4), f"{value}", font=font(13), fill=BACKGROUND)
    for k in range(target):
        x = MARGIN + LABEL_W + k * (CELL + GAP)
        filled = k < value
        outline = GOAL if k == target - 1 else None
        draw.rounded_rectangle([x, y, x + CELL, y + CELL], radius=3, fill=colour if filled else EMPTY, outline=outline)
        if (k + 1) % 3 == 0 or k == target - 1:
            draw.text((x + 4, y + 5), str(k + 1), font=font(10), fill=BACKGROUND if filled else TEXT)


def render_nuclear(state: NuclearState) -> bytes:
    """Both indices and the proposal under vote, if any."""
    width = MARGIN * 2 + LABEL_W + ANTI_TARGET * (CELL + GAP)
    height = MARGIN * 2 + 2 * (CELL + 8) + 30
    image = Image.new("RGB", (width, height), BACKGROUND)
    draw = ImageDraw.Draw(image)
    _track(draw, MARGIN, "pro", min(state.pro, PRO_TARGET), PRO_TARGET)
    _track(draw, MARGIN + CELL + 8, "anti", min(state.anti, ANTI_TARGET), ANTI_TARGET)
    y = MARGIN + 2 * (CELL + 8) + 4
    status = f"R{state.round}"
    if state.phase is Phase.OVER:
        status += "  ·  " + {"pro": "12", "anti": "18", "cap": "="}.get(state.ending or "", "")
    draw.text((MARGIN, y), status, font=font(14), fill=TEXT)
    if state.proposal is not None:
        card = CARDS[state.proposal]
        x = MARGIN + 90
        draw.text((x, y), card.id, font=font(14), fill=TEXT)
        for k, side in enumerate((card.yes, card.no)):
            bx = x + 50 + k * 70
            draw.rounded_rectangle([bx, y, bx + 16, y + 16], radius=3, fill=COLOURS[side])
            draw.text((bx + 22, y), "+" if k == 0 else "-", font=font(14), fill=TEXT)
    return png(image)
