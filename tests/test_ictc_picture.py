"""The card's picture: every starter card and awkward ones draw as a 5 by 3 PNG without error."""

from __future__ import annotations

import io

from PIL import Image

from games.ictc.picture import HEIGHT, WIDTH, approvals_line, middle_lines, render_card
from games.ictc.starter import initial_state

from .ictc_support import Lib, approved, new_soldier


def size(data: bytes) -> tuple[int, int]:
    with Image.open(io.BytesIO(data)) as image:
        assert image.format == "PNG"
        return image.size


def test_every_starter_card_draws() -> None:
    state = initial_state()
    for design in state.designs.values():
        assert size(render_card(design, design.current, state.name_of)) == (WIDTH, HEIGHT)


def test_the_middle_zone_starts_with_the_cr_then_keywords_text_and_restrictions() -> None:
    lib = Lib()
    number = new_soldier(lib, "alice", "Fire Imp", keywords="Haste, Armor 2", restrictions="Cannot block")
    version = lib.state.designs[number].current
    assert [line for line, _ in middle_lines(version)] == [
        "CR 2",
        "Haste, Armor 2",
        version.fields.text,
        "Restriction: Cannot block",
    ]


def test_long_text_emoji_and_many_colours_still_draw() -> None:
    lib = Lib()
    text = ("Every word here is long: Supercalifragilisticexpialidocious 🐉 " * 10)[:350]
    number = new_soldier(
        lib, "alice", "A Name Of Forty Characters For Drawing X", text=text, cost="2R+2K+2W+2B+2P+2G+X"
    )
    design = lib.state.designs[number]
    assert size(render_card(design, design.current, lib.state.name_of)) == (WIDTH, HEIGHT)


def test_the_bottom_zone_says_who_approved() -> None:
    lib = Lib()
    number = approved(lib, "alice", "Fire Imp")
    design = lib.state.designs[number]
    assert approvals_line(design, design.current, lib.state.name_of, 2) == "Approved: bob, carol"
    cold = new_soldier(lib, "alice", "Ice Imp", text="Cold.")
    draft = lib.state.designs[cold]
    assert approvals_line(draft, draft.current, lib.state.name_of, 2).startswith("Draft")
