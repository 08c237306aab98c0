"""Card pictures drawn with Pillow: a member's hand and the lot board, as small PNG files.

Suits are drawn as shapes rather than font glyphs, so the pictures look the same on a machine
without any font that has ♠♥♣♦. Fonts are loaded once per size.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass

from PIL import Image, ImageDraw

from games.nomic.cards import Card, Suit
from games.tables.pictures import font

CARD_W, CARD_H = 48, 68
GAP = 6
MARGIN = 10
RED = (200, 30, 45)
BLACK = (25, 25, 30)
BACKGROUND = (47, 49, 54)
"""Discord's dark theme, so the cards stand out and the edges do not."""
TEXT = (230, 232, 235)
CARD_FACE = (250, 250, 247)
CARD_EDGE = (150, 150, 150)
MAX_CARDS = 60
"""A hand larger than this is drawn up to here and says how many more there are."""

def _suit(draw: ImageDraw.ImageDraw, suit: Suit, cx: float, cy: float, r: float) -> None:
    """A suit symbol centred on (cx, cy), about 2r wide."""
    colour = RED if suit in (Suit.HEARTS, Suit.DIAMONDS) else BLACK
    if suit is Suit.DIAMONDS:
        draw.polygon([(cx, cy - r), (cx + 0.75 * r, cy), (cx, cy + r), (cx - 0.75 * r, cy)], fill=colour)
        return
    if suit is Suit.CLUBS:
        lobe = 0.45 * r
        for dx, dy in ((0.0, -0.5 * r), (-0.5 * r, 0.15 * r), (0.5 * r, 0.15 * r)):
            draw.ellipse([cx + dx - lobe, cy + dy - lobe, cx + dx + lobe, cy + dy + lobe], fill=colour)
        draw.polygon([(cx, cy), (cx - 0.35 * r, cy + r), (cx + 0.35 * r, cy + r)], fill=colour)
        return
    lobe = 0.5 * r
    if suit is Suit.HEARTS:
        for dx in (-0.48 * r, 0.48 * r):
            draw.ellipse([cx + dx - lobe, cy - 0.75 * r, cx + dx + lobe, cy + 0.25 * r], fill=colour)
        draw.polygon([(cx - 0.97 * r, cy - 0.15 * r), (cx + 0.97 * r, cy - 0.15 * r), (cx, cy + r)], fill=colour)
        return
    # spades: a heart upside down, on a stem
    for dx in (-0.48 * r, 0.48 * r):
        draw.ellipse([cx + dx - lobe, cy - 0.2 * r, cx + dx + lobe, cy + 0.8 * r], fill=colour)
    draw.polygon([(cx - 0.97 * r, cy + 0.25 * r), (cx + 0.97 * r, cy + 0.25 * r), (cx, cy - r)], fill=colour)
    draw.polygon([(cx, cy + 0.3 * r), (cx - 0.35 * r, cy + r), (cx + 0.35 * r, cy + r)], fill=colour)


def draw_card(draw: ImageDraw.ImageDraw, card: Card, x: int, y: int) -> None:
    draw.rounded_rectangle([x, y, x + CARD_W, y + CARD_H], radius=6, fill=CARD_FACE, outline=CARD_EDGE, width=1)
    colour = RED if card.suit in (Suit.HEARTS, Suit.DIAMONDS) else BLACK
    draw.text((x + 5, y + 3), card.rank_name, font=font(16), fill=colour)
    _suit(draw, card.suit, x + CARD_W / 2, y + CARD_H * 0.62, CARD_W * 0.26)


def _png(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.quantize(colors=64).save(out, format="PNG", optimize=True)
    return out.getvalue()


def render_hand(cards: Sequence[Card], *, per_row: int = 10) -> bytes:
    """The cards in rows of ``per_row``; an empty hand is a small picture saying so."""
    shown = list(cards[:MAX_CARDS])
    rows = max(1, -(-len(shown) // per_row))
    columns = max(1, min(per_row, len(shown)))
    extra = len(cards) - len(shown)
    width = MARGIN * 2 + columns * CARD_W + (columns - 1) * GAP
    height = MARGIN * 2 + rows * CARD_H + (rows - 1) * GAP + (20 if extra or not shown else 0)
    if not shown:
        width = 160
    image = Image.new("RGB", (width, height), BACKGROUND)
    draw = ImageDraw.Draw(image)
    for index, card in enumerate(shown):
        row, column = divmod(index, per_row)
        draw_card(draw, card, MARGIN + column * (CARD_W + GAP), MARGIN + row * (CARD_H + GAP))
    if not shown:
        draw.text((MARGIN, MARGIN), "no cards", font=font(14), fill=TEXT)
    elif extra:
        draw.text((MARGIN, height - MARGIN - 14), f"and {extra} more", font=font(13), fill=TEXT)
    return _png(image)


@dataclass(frozen=True)
class BoardLot:
    number: int
    cards: tuple[Card, ...]
    high_bid: str
    """What to print under the cards, e.g. ``30 - alice`` or ``no bid``."""


def _fit(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def render_board(lots: Sequence[BoardLot], *, per_row: int = 3) -> bytes:
    """The lots side by side, each with its number, its cards and its highest valid bid."""
    widest = max((len(lot.cards) for lot in lots), default=2)
    cell_w = max(2, widest) * (CARD_W + GAP) - GAP + 2 * GAP
    cell_h = 18 + CARD_H + 20
    columns = max(1, min(per_row, len(lots)))
    rows = max(1, -(-len(lots) // per_row))
    width = MARGIN * 2 + columns * cell_w
    height = MARGIN * 2 + rows * cell_h + (rows - 1) * GAP
    image = Image.new("RGB", (width if lots else 200, height if lots else 40), BACKGROUND)
    draw = ImageDraw.Draw(image)
    if not lots:
        draw.text((MARGIN, MARGIN), "no lots", font=font(14), fill=TEXT)
        return _png(image)
    for index, lot in enumerate(lots):
        row, column = divmod(index, per_row)
        x = MARGIN + column * cell_w
        y = MARGIN + row * (cell_h + GAP)
        draw.text((x, y), f"Lot {lot.number}", font=font(14), fill=TEXT)
        for position, card in enumerate(lot.cards):
            draw_card(draw, card, x + position * (CARD_W + GAP), y + 18)
        draw.text((x, y + 18 + CARD_H + 3), _fit(lot.high_bid, 18), font=font(12), fill=TEXT)
    return _png(image)
