"""What every game's picture shares: the dark background, the text colour, a font, PNG bytes.

Pictures show the public table only: a drawer gets the state and must never draw a hidden card.
"""

from __future__ import annotations

import io
from functools import lru_cache

from PIL import Image, ImageFont

BACKGROUND = (47, 49, 54)
"""Discord's dark theme, so the picture's edges do not show."""
TEXT = (230, 232, 235)

_FONT_FILES = ("DejaVuSans-Bold.ttf", "DejaVuSans.ttf", "LiberationSans-Bold.ttf", "Arial.ttf")

Font = ImageFont.FreeTypeFont | ImageFont.ImageFont


@lru_cache(maxsize=8)
def font(size: int) -> Font:
    """A bold sans-serif font of ``size`` pixels; Pillow's own font when none is installed."""
    for name in _FONT_FILES:
        try:
            return ImageFont.truetype(name, size)
        except OSError:
            continue
    return ImageFont.load_default(size)


def png(image: Image.Image, colours: int = 48) -> bytes:
    out = io.BytesIO()
    image.quantize(colors=colours).save(out, format="PNG", optimize=True)
    return out.getvalue()


def fit(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
