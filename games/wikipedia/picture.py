"""The picture of a Wikipedia table, drawn with Pillow: the public table only, never a hand.

The four articles side by side: their grade and protection, one bar a section (its heading) and,
below, one red bar a problem lying across the article.
"""

from __future__ import annotations

from PIL import Image, ImageDraw

from games.tables.pictures import BACKGROUND, TEXT, fit, font, png
from games.wikipedia.cards import CARDS
from games.wikipedia.state import Grade, Outcome, Page, Protection, WikipediaState

COLUMN_W = 150
GAP = 8
MARGIN = 10
HEADER_H = 40
ROW_H = 17
FOOTER_H = 22
MAX_ROWS = 9
"""Sections or problems drawn per article; more are summed up in one line."""

PANEL = (32, 34, 37)
SECTION = (46, 125, 70)
PROBLEM = (180, 45, 55)
MUTED = (150, 153, 158)
GRADE_COLOURS = {Grade.FEATURED: (212, 175, 55), Grade.GOOD: (70, 160, 90), Grade.DRAFT: (110, 113, 118)}
LOCK_COLOURS = {Protection.SEMI: (170, 180, 190), Protection.FULL: (212, 175, 55)}


def _lock(draw: ImageDraw.ImageDraw, x: int, y: int, colour: tuple[int, int, int]) -> None:
    """A padlock about 12 x 14 pixels, its top left at (x, y)."""
    draw.arc([x + 2, y, x + 10, y + 9], start=180, end=360, fill=colour, width=2)
    draw.rectangle([x + 2, y + 4, x + 3, y + 6], fill=colour)
    draw.rectangle([x + 9, y + 4, x + 10, y + 6], fill=colour)
    draw.rounded_rectangle([x, y + 6, x + 12, y + 14], radius=2, fill=colour)


def _bar(draw: ImageDraw.ImageDraw, x: int, y: int, colour: tuple[int, int, int], text: str) -> None:
    draw.rounded_rectangle([x, y, x + COLUMN_W - 12, y + ROW_H - 3], radius=3, fill=colour)
    draw.text((x + 4, y + 1), fit(text, 22), font=font(11), fill=TEXT)


def _article(draw: ImageDraw.ImageDraw, page: Page, x: int, y: int, height: int) -> None:
    draw.rounded_rectangle([x, y, x + COLUMN_W, y + height], radius=6, fill=PANEL)
    draw.text((x + 6, y + 5), page.article.label, font=font(14), fill=TEXT)
    grade = page.grade
    badge = {Grade.FEATURED: "FA", Grade.GOOD: "GA", Grade.DRAFT: "draft"}[grade]
    draw.rounded_rectangle([x + 6, y + 23, x + 46, y + 36], radius=3, fill=GRADE_COLOURS[grade])
    draw.text((x + 10, y + 23), badge, font=font(11), fill=TEXT)
    if page.protection is not Protection.NONE:
        _lock(draw, x + 52, y + 22, LOCK_COLOURS[page.protection])
        draw.text((x + 68, y + 23), page.protection.value, font=font(11), fill=MUTED)
    row_y = y + HEADER_H
    rows: list[tuple[tuple[int, int, int], str]] = [(SECTION, CARDS[s.fact].heading) for s in page.sections]
    rows += [(PROBLEM, CARDS[c].as_problem()) for c in page.problems]
    shown = rows if len(rows) <= MAX_ROWS else rows[: MAX_ROWS - 1]
    for colour, text in shown:
        _bar(draw, x + 6, row_y, colour, text)
        row_y += ROW_H
    if len(shown) < len(rows):
        draw.text((x + 8, row_y), f"and {len(rows) - len(shown)} more", font=font(11), fill=MUTED)
    if not rows:
        draw.text((x + 8, row_y), "no sections yet", font=font(11), fill=MUTED)


def render_wikipedia(state: WikipediaState) -> bytes:
    """The four articles of a Wikipedia table and one line of where the game stands."""
    rows = max((len(p.sections) + len(p.problems) for p in state.pages), default=0)
    rows = max(1, min(rows, MAX_ROWS))
    column_h = HEADER_H + rows * ROW_H + 6
    width = MARGIN * 2 + len(state.pages) * COLUMN_W + (len(state.pages) - 1) * GAP
    height = MARGIN * 2 + column_h + FOOTER_H
    image = Image.new("RGB", (width, height), BACKGROUND)
    draw = ImageDraw.Draw(image)
    for index, page in enumerate(state.pages):
        _article(draw, page, MARGIN + index * (COLUMN_W + GAP), MARGIN, column_h)
    if state.outcome is Outcome.WON:
        status = f"Won on turn {state.turn}"
    elif state.outcome is Outcome.LOST:
        status = f"Lost after {state.turn - 1} turns"
    else:
        hours = f"{state.hours} hour{'' if state.hours == 1 else 's'}"
        status = f"Turn {state.turn}: {fit(state.seats[state.current], 24)} to play, {hours} left"
    footer = f"{status}   ·   deck {len(state.deck)}   ·   discard {len(state.discard)}"
    draw.text((MARGIN, MARGIN + column_h + 5), footer, font=font(12), fill=TEXT)
    return png(image)
