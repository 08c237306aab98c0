"""Frozen value classes that cost little to create at import and to make.

``@dataclass(frozen=True)`` compiles six methods per class (``__init__``, ``__repr__``, ``__eq__``,
``__hash__``, ``__setattr__``, ``__delattr__``), each in its own ``exec``, and asks ``inspect`` for a
signature when the class has no docstring: some 3.3 M instructions a class, of which reading its fields is
0.25 M, and a replay's start-up makes some eighty of them. ``@valueclass`` makes the same dataclass
(``dataclasses.fields``, ``replace``, ``asdict``, ``is_dataclass``, ``__match_args__``, pickling, ``copy``,
and subclassing by or of real frozen dataclasses unchanged) with one compile, of ``__init__``, which sets
two values or more as the instance's ``__dict__`` in one step (a post of fifteen: 2.8 -> 1.2 µs).
``__eq__`` and ``__hash__`` are compiled when first called; ``__repr__`` and the frozen
``__setattr__``/``__delattr__`` are shared functions closed over the class and the names of its fields.

Fields are read as ``dataclass`` reads them (its own ``_get_field``: defaults, ``field(...)``, ``ClassVar``,
mutable defaults refused). ``InitVar`` and keyword-only fields are refused rather than half supported.
"""

from __future__ import annotations

import abc
import dataclasses
from _thread import get_ident
from collections.abc import Callable
from dataclasses import MISSING, Field, FrozenInstanceError, field
from inspect import formatannotation, get_annotations
from types import FunctionType
from typing import Any, TypeVar, dataclass_transform

T = TypeVar("T")

_internals = vars(dataclasses)
"""What a real dataclass is made of and ``dataclasses`` keeps to itself (the same from 3.11 to 3.13)."""
_FIELD = _internals["_FIELD"]
_FIELD_CLASSVAR = _internals["_FIELD_CLASSVAR"]
_HAS_DEFAULT_FACTORY = _internals["_HAS_DEFAULT_FACTORY"]
_get_field: Callable[[type, str, Any, bool], Field[Any]] = _internals["_get_field"]
_PARAMS = _internals["_DataclassParams"](
    **{
        name: value
        for name, value in {
            "init": True,
            "repr": True,
            "eq": True,
            "order": False,
            "unsafe_hash": False,
            "frozen": True,
            "match_args": True,
            "kw_only": False,
            "slots": False,
            "weakref_slot": False,
        }.items()
        if name in _internals["_DataclassParams"].__init__.__code__.co_varnames
    }
)
"""What ``@dataclass(frozen=True)`` records of itself (its parameters: six in 3.11, ten from 3.12), read by
``dataclass`` when it makes a subclass."""

_AT_ONCE = 2
"""From this many values an instance's ``__dict__`` is set in one step (the values then live in that dict);
a lone value is set with ``object.__setattr__``, which keeps it in the instance. Instructions to make an
instance, by values (``dataclass`` / one each / at once): 1: 3,534 / 3,246 / 3,830; 2: 4,893 / 4,429 /
4,094; 4: 7,719 / 6,756 / 4,792; 6: 10,604 / 9,288 / 5,580. A value in the dict costs some 18 more to read
(102 against 84)."""


@dataclass_transform(frozen_default=True, field_specifiers=(field, Field))
def valueclass(cls: type[T], /) -> type[T]:
    """``@dataclass(frozen=True)`` without ``slots``: the same class, made with one compile."""
    fields = _fields(cls)
    real = [f for f in fields.values() if f._field_type is _FIELD]  # type: ignore[attr-defined]
    params = [f for f in real if f.init]
    class_hash = cls.__dict__.get("__hash__", MISSING)
    explicit_hash = not (class_hash is MISSING or (class_hash is None and "__eq__" in cls.__dict__))
    _set_new(cls, "__init__", _init(cls, real, params, self_is_field="self" in fields))
    _set_new(cls, "__repr__", _repr(tuple(f.name for f in real if f.repr)))
    _set_new(cls, "__eq__", _compiled_when_called(cls, "__eq__", tuple(f.name for f in real if f.compare)))
    for method in _frozen(cls, tuple(f.name for f in real)):
        if _set_new(cls, method.__name__, method):
            raise TypeError(f"Cannot overwrite attribute {method.__name__} in class {cls.__name__}")
    if not explicit_hash:
        hashed = tuple(f.name for f in real if (f.compare if f.hash is None else f.hash))
        setattr(cls, "__hash__", _named(cls, _compiled_when_called(cls, "__hash__", hashed)))  # noqa: B010
    if not cls.__doc__:
        cls.__doc__ = cls.__name__ + _text_signature(params).replace(" -> None", "")
    _set_new(cls, "__match_args__", tuple(f.name for f in params))
    abc.update_abstractmethods(cls)
    return cls


def _fields(cls: type) -> dict[str, Field[Any]]:
    """The class's fields, its bases' first, and its defaults set as ``dataclass`` sets them."""
    fields: dict[str, Field[Any]] = {}
    any_frozen_base = has_dataclass_bases = False
    for base in cls.__mro__[-1:0:-1]:
        base_fields = getattr(base, "__dataclass_fields__", None)
        if base_fields is not None:
            has_dataclass_bases = True
            fields.update((f.name, f) for f in base_fields.values())
            if base.__dataclass_params__.frozen:  # type: ignore[attr-defined]
                any_frozen_base = True
    annotations = get_annotations(cls)
    for name, kind in annotations.items():
        if kind is dataclasses.KW_ONLY or (isinstance(kind, str) and "KW_ONLY" in kind):
            raise TypeError(f"{cls.__name__}.{name}: keyword-only fields are not supported by @valueclass")
        f = _get_field(cls, name, kind, False)  # noqa: FBT003 - its default_kw_only, positional there
        if f._field_type is not _FIELD and f._field_type is not _FIELD_CLASSVAR:  # type: ignore[attr-defined]
            raise TypeError(f"{cls.__name__}.{name}: an InitVar is not supported by @valueclass")
        if f.kw_only is True:
            raise TypeError(f"{cls.__name__}.{name}: keyword-only fields are not supported by @valueclass")
        fields[name] = f
        if isinstance(getattr(cls, name, None), Field):
            if f.default is MISSING:
                delattr(cls, name)
            else:
                setattr(cls, name, f.default)
    for name, attribute in cls.__dict__.items():
        if isinstance(attribute, Field) and name not in annotations:
            raise TypeError(f"{name!r} is a field but has no type annotation")
    if has_dataclass_bases and not any_frozen_base:
        raise TypeError("cannot inherit frozen dataclass from a non-frozen one")
    setattr(cls, "__dataclass_params__", _PARAMS)  # noqa: B010
    setattr(cls, "__dataclass_fields__", fields)  # noqa: B010
    return fields


def _init(cls: type, real: list[Field[Any]], params: list[Field[Any]], *, self_is_field: bool) -> Callable[..., None]:
    """The one method compiled when the class is made: the dataclass's parameters and defaults.

    Unlike ``dataclass``, it sets a field that is not a parameter on the instance too (``dataclass`` leaves it
    to the class's attribute): reading it is then a hit in the instance's ``__dict__``, 8.6 ns against 16 (an
    event's channel, read for every event); only ``vars()`` of an instance shows the difference."""
    seen_default = False
    for f in params:
        if f.default is not MISSING or f.default_factory is not MISSING:
            seen_default = True
        elif seen_default:
            raise TypeError(f"non-default argument {f.name!r} follows default argument")
    me = "__dataclass_self__" if self_is_field else "self"
    namespace: dict[str, Any] = {"__name__": cls.__module__, "__valueclass_setattr__": object.__setattr__}
    values: list[tuple[str, str]] = []
    for f in real:
        if f.default_factory is not MISSING:
            namespace[f"_dflt_{f.name}"] = f.default_factory
            call = f"_dflt_{f.name}()"
            values.append((f.name, f"{call} if {f.name} is _HAS_DEFAULT_FACTORY else {f.name}" if f.init else call))
            namespace["_HAS_DEFAULT_FACTORY"] = _HAS_DEFAULT_FACTORY
        elif f.init:
            values.append((f.name, f.name))
        elif f.default is not MISSING:
            namespace[f"_dflt_{f.name}"] = f.default
            values.append((f.name, f"_dflt_{f.name}"))
    lines = [f"def __init__({', '.join([me, *(f.name for f in params)])}):"]
    if len(values) >= _AT_ONCE:
        given = ", ".join(f"{name!r}: {made}" for name, made in values)
        lines.append(f"    __valueclass_setattr__({me}, '__dict__', {{{given}}})")
    else:
        lines += [f"    __valueclass_setattr__({me}, {name!r}, {made})" for name, made in values]
    if hasattr(cls, "__post_init__"):
        lines.append(f"    {me}.__post_init__()")
    if len(lines) == 1:
        lines.append("    pass")
    exec("\n".join(lines), namespace)  # noqa: S102
    init: Callable[..., None] = namespace["__init__"]
    defaults = [f.default if f.default_factory is MISSING else _HAS_DEFAULT_FACTORY for f in params]
    init.__defaults__ = tuple(d for d in defaults if d is not MISSING) or None
    init.__annotations__ = {f.name: f.type for f in params} | {"return": None}
    return init


def _compiled_when_called(cls: type, name: str, names: tuple[str, ...]) -> Callable[..., Any]:
    """``__eq__`` or ``__hash__`` as ``dataclass`` writes it (the fields read inline: ``operator.attrgetter``
    would make them twice as slow), compiled the first time it is called, and then in the class's place.

    Values are made at every command but rarely compared or hashed (none is in a replayed week), so that
    start-up compiles one method a class, not three."""

    def first(self: Any, *other: Any) -> Any:
        mine = f"({''.join(f'self.{n},' for n in names)})"
        if name == "__eq__":
            theirs = f"({''.join(f'other.{n},' for n in names)})"
            lines = [
                "def __eq__(self, other):",
                "    if other.__class__ is self.__class__:",
                f"        return {mine} == {theirs}",
                "    return NotImplemented",
            ]
        else:
            lines = ["def __hash__(self):", f"    return hash({mine})"]
        namespace: dict[str, Any] = {"__name__": cls.__module__}
        exec("\n".join(lines), namespace)  # noqa: S102
        method = _named(cls, namespace[name])
        if cls.__dict__.get(name) is first:
            setattr(cls, name, method)
        return method(self, *other)

    first.__name__ = name
    return first


def _text_signature(params: list[Field[Any]]) -> str:
    """``str(inspect.signature(cls))`` of a class whose ``__init__`` takes these fields, without asking it."""
    shown = []
    for f in params:
        default = _HAS_DEFAULT_FACTORY if f.default_factory is not MISSING else f.default
        text = f"{f.name}: {formatannotation(f.type)}"
        shown.append(text if default is MISSING else f"{text} = {default!r}")
    return f"({', '.join(shown)}) -> None"


def _repr(names: tuple[str, ...]) -> Callable[[Any], str]:
    running: set[tuple[int, int]] = set()

    def __repr__(self: Any) -> str:  # noqa: N807 - the name the method shows, as dataclass's does
        key = id(self), get_ident()
        if key in running:
            return "..."
        running.add(key)
        try:
            return f"{self.__class__.__qualname__}({', '.join([f'{n}={getattr(self, n)!r}' for n in names])})"
        finally:
            running.discard(key)

    return __repr__


def _frozen(
    cls: type[Any], names: tuple[str, ...]
) -> tuple[Callable[[Any, str, Any], None], Callable[[Any, str], None]]:
    def __setattr__(self: Any, name: str, value: Any) -> None:  # noqa: N807
        if type(self) is cls or name in names:
            raise FrozenInstanceError(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)

    def __delattr__(self: Any, name: str) -> None:  # noqa: N807
        if type(self) is cls or name in names:
            raise FrozenInstanceError(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)

    return __setattr__, __delattr__


def _named(cls: type, method: Callable[..., Any]) -> Callable[..., Any]:
    method.__qualname__ = f"{cls.__qualname__}.{method.__name__}"
    return method


def _set_new(cls: type, name: str, attribute: Any) -> bool:
    """Set a method the class does not define itself; True when it does (as ``dataclass`` does)."""
    if name in cls.__dict__:
        return True
    if isinstance(attribute, FunctionType):
        _named(cls, attribute)
    setattr(cls, name, attribute)
    return False
