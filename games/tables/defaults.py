"""What most games share, as a mix-in (``games.tables.engine`` re-exports ``EngineDefaults``)."""

from __future__ import annotations

import random
from typing import Any, Literal, get_args, get_origin

from pydantic import BaseModel

from games.tables.i18n import tr
from games.tables.values import (
    Control,
    FormField,
    GameEvent,
    MoveForm,
    PrivateWords,
    SetupText,
    Timer,
    typed_fields,
)


class EngineDefaults:
    """What most games share: mix it in and override what the game does differently.

    A turn game (one seat awaited, ``to_move``) with no deadlines of its own, no secret moves, no
    per-seat setup, English texts only and no board buttons of its own. A game that has a
    ``setup_model`` gets a join form of one field per model field (a menu for a ``Literal`` or a
    ``bool``, typed text otherwise) and its seats' setups shown to themselves only.
    """

    setup_model: type[BaseModel] | None = None
    languages: tuple[str, ...] = ("en",)

    def check_setup(self, setup: BaseModel, options: Any) -> None:
        del setup, options

    def describe_setup(self, setup: BaseModel, lang: str) -> SetupText:
        del lang
        words = " ".join(f"{key}:{_word(value)}" for key, value in setup.model_dump().items())
        return SetupText(public=None, private=words or None)

    def is_secret_setup(self, setup: BaseModel) -> bool:
        del setup
        return False

    def join_form(self, options: Any, lang: str) -> tuple[FormField, ...]:
        del options, lang
        model = self.setup_model
        if model is None:
            return ()
        fields: list[FormField] = []
        for key, info in typed_fields(model).items():
            annotation = info.annotation
            choices: tuple[tuple[str, str], ...] = ()
            if annotation is bool:
                choices = (("on", "on"), ("off", "off"))
            elif get_origin(annotation) is Literal:
                choices = tuple((str(v), str(v)) for v in get_args(annotation))
            default = None if info.is_required() else info.default
            fields.append(
                FormField(
                    key,
                    (info.description or key)[:45],
                    choices,
                    required=info.is_required(),
                    placeholder="" if default is None else _word(default),
                )
            )
        return tuple(fields[:5])

    def timers_text(self, options: Any, turn_seconds: int, lang: str) -> str | None:
        del options, turn_seconds, lang
        return None

    def private_words(self, lang: str) -> PrivateWords:
        return PrivateWords(tr(lang, "hand.name"), tr(lang, "hand.title"), tr(lang, "hand.button"))

    def move_forms(self, state: Any, seat: str, lang: str) -> tuple[MoveForm, ...]:
        del state, seat, lang
        return ()

    def lobby_note(self, options: Any, seats: int, lang: str) -> str | None:
        del options, seats, lang
        return None

    def late_text(self, state: Any, seat: str, lang: str) -> str | None:
        del state, seat, lang
        return None

    def to_move(self, state: Any) -> str | None:
        awaited = self.awaiting(state)
        return next(iter(awaited)) if len(awaited) == 1 else None

    def awaiting(self, state: Any) -> frozenset[str]:
        del state
        return frozenset()

    def referees(self, state: Any) -> frozenset[str]:
        del state
        return frozenset()

    def timers(self, state: Any) -> tuple[Timer, ...]:
        del state
        return ()

    def on_timeout(self, state: Any, timer: Timer, rng: random.Random) -> tuple[Any, tuple[GameEvent, ...]] | None:
        del state, timer, rng
        return None

    def is_secret(self, action: Any) -> bool:
        del action
        return False

    def secret_words(self) -> frozenset[str]:
        return frozenset()

    def controls(self, state: Any, lang: str) -> tuple[Control, ...]:
        del state, lang
        return ()

    def selfplay_stats(self, state: Any) -> dict[str, str | float | bool]:
        """Figures of one finished game that ``python -m bot selfplay`` sums up (a word, a number or a yes/no)."""
        del state
        return {}


def _word(value: object) -> str:
    """A value as ``key:value`` words write it (``on``/``off``, ``none``)."""
    if isinstance(value, bool):
        return "on" if value else "off"
    if value is None:
        return "none"
    return str(value)
