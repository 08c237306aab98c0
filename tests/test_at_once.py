"""``games.at_once.set_at_once``: the instances are those ``dataclass`` makes, only made faster."""

from __future__ import annotations

import dataclasses
import inspect
from dataclasses import dataclass, field

import pytest

from games.at_once import set_at_once


@dataclass(frozen=True)
class _Plain:
    text: str
    count: int = 0
    tags: tuple[str, ...] = ()
    kind: str = field(default="base", init=False)


@set_at_once
@dataclass(frozen=True)
class _Fast:
    text: str
    count: int = 0
    tags: tuple[str, ...] = ()
    kind: str = field(default="base", init=False)


def test_same_parameters_values_and_behaviour() -> None:
    assert str(inspect.signature(_Fast)) == str(inspect.signature(_Plain))
    fast, plain = _Fast("a", 2, tags=("x",)), _Plain("a", 2, tags=("x",))
    assert dataclasses.asdict(fast) == dataclasses.asdict(plain)
    assert repr(fast).removeprefix("_Fast") == repr(plain).removeprefix("_Plain")
    assert fast.kind == "base"
    assert fast == _Fast("a", 2, ("x",))
    assert hash(fast) == hash(_Fast("a", 2, ("x",)))
    assert dataclasses.replace(fast, count=3) == _Fast("a", 3, ("x",))
    with pytest.raises(dataclasses.FrozenInstanceError):
        fast.text = "b"  # type: ignore[misc]
    with pytest.raises(TypeError):
        _Fast()  # type: ignore[call-arg]


def test_a_default_factory_is_refused() -> None:
    with pytest.raises(TypeError, match="default factory"):

        @set_at_once
        @dataclass(frozen=True)
        class _Listed:
            items: list[int] = field(default_factory=list)
