"""A card drawn as an index card (Pillow), in the seed's three zones.

Top: the cost (upper left, a pip a colour), the type (upper right) and the name. Middle: the CR
first for a Soldier (the output for a Power card), the keywords, what the card does and its
restrictions. Bottom: the approvals, and the card's number, version and maker. The colours are the
server's palette; a band down the left edge shows the card's own colours. 640 by 384 pixels, a
5 by 3 card, with text no smaller than 15 pixels (a cost pip's aside) so it stays readable at
Discord's preview size.
"""

from __future__ import annotations

from collections.abc import Callable

from PIL import Image, ImageDraw

from games.ictc.cards import CardType
from games.ictc.cost import Cost
from games.ictc.palette import RGB
from games.ictc.state import STARTER, Design, DesignStatus, Version
from games.tables.pictures import BACKGROUND, Font, font, png

WIDTH, HEIGHT = 640, 384
MARGIN = 8
FACE = (250, 248, 240)
INK = (30, 30, 35)
MUTED = (105, 105, 112)
RULE = (200, 196, 185)
GENERIC = (150, 150, 155)
BAND = 12
TOP_H = 100
BOTTOM_H = 52
PAD = 18
SMALLEST = 15


def _luminance(colour: tuple[int, int, int]) -> float:
    r, g, b = colour
    return 0.299 * r + 0.587 * g + 0.114 * b


def _pip(draw: ImageDraw.ImageDraw, x: int, y: int, colour: tuple[int, int, int], text: str) -> int:
    """A filled circle with ``text`` in it; returns the x after it."""
    size = 34
    draw.ellipse([x, y, x + size, y + size], fill=colour, outline=INK, width=1)
    ink = INK if _luminance(colour) > 140 else (250, 250, 250)
    face = font(20 if len(text) < 2 else 16 if len(text) < 3 else 13)
    width = draw.textlength(text, font=face)
    draw.text((x + (size - width) / 2, y + 5), text, font=face, fill=ink)
    return x + size + 4


def _cost(draw: ImageDraw.ImageDraw, cost: Cost, x: int, y: int) -> None:
    if cost.total == 0 and cost.x is None:
        _pip(draw, x, y, GENERIC, "0")
        return
    for letter, count in cost.coloured:
        x = _pip(draw, x, y, RGB.get(letter, GENERIC), f"{count}{letter}" if count > 1 else letter)
    if cost.generic:
        x = _pip(draw, x, y, GENERIC, str(cost.generic))
    if cost.x is not None:
        _pip(draw, x, y, RGB.get(cost.x, GENERIC) if cost.x else GENERIC, "X")


def _wrap(draw: ImageDraw.ImageDraw, text: str, face: Font, width: int) -> list[str]:
    lines: list[str] = []
    for paragraph in text.split("\n"):
        line = ""
        for word in paragraph.split():
            trial = f"{line} {word}".strip()
            if draw.textlength(trial, font=face) <= width:
                line = trial
                continue
            if line:
                lines.append(line)
            rest = word
            while draw.textlength(rest, font=face) > width and len(rest) > 1:
                cut = len(rest)
                while cut > 1 and draw.textlength(rest[:cut], font=face) > width:
                    cut -= 1
                lines.append(rest[:cut])
                rest = rest[cut:]
            line = rest
        lines.append(line)
    return lines


def _lock(draw: ImageDraw.ImageDraw, x: int, y: int) -> None:
    draw.arc([x + 3, y, x + 13, y + 11], start=180, end=360, fill=INK, width=2)
    draw.rectangle([x + 3, y + 5, x + 4, y + 8], fill=INK)
    draw.rectangle([x + 12, y + 5, x + 13, y + 8], fill=INK)
    draw.rounded_rectangle([x, y + 8, x + 16, y + 19], radius=2, fill=INK)


def middle_lines(version: Version) -> list[tuple[str, bool]]:
    """The middle zone as (line, strong) pairs before wrapping: CR or output, keywords, text, restrictions."""
    f = version.fields
    lines: list[tuple[str, bool]] = []
    if f.type is CardType.SOLDIER:
        lines.append((f"CR {f.cr}", True))
    if f.output is not None:
        lines.append((f"Makes {f.output.text()}", True))
    if f.keywords:
        lines.append((", ".join(f.keywords), True))
    lines.append((f.text, False))
    lines.extend((f"Restriction: {r}", False) for r in f.restrictions)
    if f.script is not None:
        lines.append((f"Script: {f.script}", False))
    return lines


def approvals_line(design: Design, version: Version, name_of: Callable[[str], str], needed: int) -> str:
    others = [name_of(m) for m in version.approvals if m != design.owner]
    if version.approved_by is not None:
        by = version.approved_by
        if by.startswith("guild:"):
            return f"Approved by the guild {by.removeprefix('guild:')}"
        if by == "players":
            return "Approved: " + ", ".join(others)
        return f"Approved by {by}"
    if design.status is DesignStatus.DRAFT:
        return "Draft: not shown to anyone yet"
    if design.status is DesignStatus.BLOCKED:
        return "Blocked by a moderator's ruling"
    return f"Waiting: {len(others)} of {needed} approvals" + (f" ({', '.join(others)})" if others else "")


def render_card(design: Design, version: Version, name_of: Callable[[str], str], *, approvals_needed: int = 2) -> bytes:
    """The card as a PNG."""
    f = version.fields
    image = Image.new("RGB", (WIDTH, HEIGHT), BACKGROUND)
    draw = ImageDraw.Draw(image)
    left, top, right, bottom = MARGIN, MARGIN, WIDTH - MARGIN, HEIGHT - MARGIN
    draw.rounded_rectangle([left, top, right, bottom], radius=14, fill=FACE, outline=RULE, width=2)
    colours = [RGB.get(c, GENERIC) for c in f.colours] or [GENERIC]
    band_h = (bottom - top - 28) / len(colours)
    for i, colour in enumerate(colours):
        y0 = top + 14 + i * band_h
        draw.rectangle([left + 4, y0, left + 4 + BAND, y0 + band_h], fill=colour)
    x0 = left + BAND + PAD
    x1 = right - PAD
    # top zone: cost upper left, type upper right, the name below
    _cost(draw, f.cost, x0, top + 12)
    kind = f.type.display.upper()
    type_font = font(22)
    draw.text((x1 - draw.textlength(kind, font=type_font), top + 16), kind, font=type_font, fill=INK)
    name_font = font(26)
    name = f.name
    while draw.textlength(name, font=name_font) > x1 - x0 and len(name) > 4:
        name = name[:-2] + "…"
    draw.text((x0, top + 54), name, font=name_font, fill=INK)
    draw.line([x0, top + TOP_H, x1, top + TOP_H], fill=RULE, width=2)
    # middle zone: shrink the text until it fits
    middle_top = top + TOP_H + 10
    middle_bottom = bottom - BOTTOM_H - 8
    lines = middle_lines(version)
    for size in range(22, SMALLEST - 1, -1):
        face = font(size)
        wrapped = [(w, strong) for text, strong in lines for w in _wrap(draw, text, face, x1 - x0)]
        step = size + 5
        if len(wrapped) * step <= middle_bottom - middle_top:
            break
    y = middle_top
    for text, strong in wrapped:
        if y + step > middle_bottom + 2:
            draw.text((x0, y - step + 2), "…", font=face, fill=MUTED)
            break
        draw.text((x0, y), text, font=face, fill=INK if strong or not text.startswith("Restriction") else MUTED)
        y += step
    # bottom zone: approvals; the card's number, version and maker
    line_y = bottom - BOTTOM_H
    draw.line([x0, line_y, x1, line_y], fill=RULE, width=2)
    small = font(16)
    said = approvals_line(design, version, name_of, approvals_needed)
    while draw.textlength(said, font=small) > (x1 - x0) * 0.62 and len(said) > 8:
        said = said[:-2] + "…"
    draw.text((x0, line_y + 14), said, font=small, fill=INK)
    maker = "starter set" if design.owner == STARTER else name_of(design.owner)
    mark = f"#{design.id} v{version.number} · {maker}"
    while draw.textlength(mark, font=small) > (x1 - x0) * 0.36 and len(mark) > 8:
        mark = mark[:-2] + "…"
    width = draw.textlength(mark, font=small)
    draw.text((x1 - width, line_y + 14), mark, font=small, fill=MUTED)
    if design.protected:
        _lock(draw, int(x1 - width - 26), line_y + 12)
    return png(image, colours=96)
