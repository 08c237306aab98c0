"""``games.values.valueclass``: a class made with it behaves as its twin made with ``@dataclass(frozen=True)``.

The property tests make both twins from one drawn shape (fields with or without defaults, factories,
``init``/``compare``/``hash``/``repr`` flags, a ``ClassVar``, a field named ``self``) under the same name, so
that everything observable of them (signature, docstring, fields, construction and its errors, ``repr``,
equality, hash, ``replace``, ``asdict``, pickling, copies, frozen errors, pattern matching, subclasses
both ways) can be compared as it is, message for message.
"""

from __future__ import annotations

import copy
import dataclasses
import inspect
import pickle
import sys
from collections.abc import Callable
from dataclasses import InitVar, dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Generic, TypeVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import games.values
from games.values import valueclass

T = TypeVar("T")
Decorator = Callable[[type[Any]], type[Any]]
FROZEN: Decorator = dataclass(frozen=True)
NAMES = ("a", "b", "c", "self", "d")
"""Field names drawn from (``self`` too: ``dataclass`` then names the instance otherwise in ``__init__``)."""
ANNOTATIONS = ("int", "str | None", "tuple[int, ...]", int, tuple[int, ...], "Any")
VALUES = st.one_of(
    st.integers(-3, 3), st.text(max_size=2), st.none(), st.floats(allow_nan=True), st.tuples(st.integers())
)
"""Field values; NaN among them, so that equality's identity-first tuple comparison shows."""


@st.composite
def shapes(draw: st.DrawFn) -> list[dict[str, Any]]:
    names = draw(st.lists(st.sampled_from(NAMES), unique=True, max_size=len(NAMES)))
    shape = []
    for name in names:
        default = draw(st.sampled_from(["none", "value", "value", "factory", "list factory", "field value"]))
        shape.append(
            {
                "name": name,
                "annotation": draw(st.sampled_from(ANNOTATIONS)),
                "default": default,
                "value": draw(VALUES),
                "init": draw(st.sampled_from([True, True, False])),
                "compare": draw(st.booleans()),
                "hash": draw(st.sampled_from([None, None, True, False])),
                "repr": draw(st.booleans()),
            }
        )
    if draw(st.booleans()):  # most shapes valid: the parameters without a default first
        shape.sort(key=lambda f: f["default"] != "none" or not f["init"])
    if draw(st.booleans()):
        shape.insert(draw(st.integers(0, len(shape))), {"name": "counter", "classvar": True})
    return shape


def namespace(shape: list[dict[str, Any]]) -> dict[str, Any]:
    """A class body as the twins' decorators receive it."""
    body: dict[str, Any] = {"__annotations__": {}, "__module__": __name__, "__qualname__": "Shape"}
    for f in shape:
        name = f["name"]
        if f.get("classvar"):
            body["__annotations__"][name] = ClassVar[int]
            body[name] = 7
            continue
        body["__annotations__"][name] = f["annotation"]
        flags = {"init": f["init"], "compare": f["compare"], "hash": f["hash"], "repr": f["repr"]}
        plain = flags == {"init": True, "compare": True, "hash": None, "repr": True}
        if f["default"] == "value" and plain:
            body[name] = f["value"]
        elif f["default"] in ("value", "field value"):
            body[name] = field(default=f["value"], **flags)
        elif f["default"] == "factory":
            body[name] = field(default_factory=lambda v=f["value"]: (v,), **flags)
        elif f["default"] == "list factory":
            body[name] = field(default_factory=list, **flags)
        elif not plain:
            body[name] = field(**flags)
    return body


def outcome(action: Callable[[], Any]) -> Any:
    """What an action gives, or the error it raises (type and message): both are compared."""
    try:
        return ("gives", action())
    except Exception as error:  # noqa: BLE001 - the error is what is compared
        return ("raises", type(error).__name__, str(error))


def shown(value: Any) -> Any:
    """A comparable form of a value: instances of the twins differ by class, so they are shown by ``repr``."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return ("instance", outcome(lambda: repr(value)))
    if isinstance(value, tuple) and len(value) == 2 and value[0] == "gives":
        return ("gives", shown(value[1]))
    return value


def pickled(cls: type[Any], instance: Any) -> Any:
    """A pickling round trip: the class is found by its name in this module while it is pickled."""
    setattr(sys.modules[__name__], "Shape", cls)  # noqa: B010
    try:
        again = pickle.loads(pickle.dumps(instance))  # noqa: S301 - our own bytes
        return (repr(again), again == instance, type(again) is cls)
    finally:
        delattr(sys.modules[__name__], "Shape")


def matched(cls: type[Any], instance: Any) -> Any:
    match instance:
        case cls(first, second):  # type: ignore[misc]
            return ("two", first, second)
        case cls(first):  # type: ignore[misc]
            return ("one", first)
        case cls():  # type: ignore[misc]
            return ("none",)
    return "no match"


def observe(
    base: Decorator, sub: Decorator, shape: list[dict[str, Any]], calls: list[tuple[tuple[Any, ...], dict[str, Any]]]
) -> list[Any]:
    """Everything observable of a class made by ``base`` from ``shape``, and of one ``sub`` makes on top of it."""
    seen: list[Any] = []
    made = outcome(lambda: base(type("Shape", (), namespace(shape))))
    if made[0] == "raises":
        return [made]
    cls = made[1]
    fields = dataclasses.fields(cls)
    seen += [
        str(inspect.signature(cls)),
        cls.__doc__,
        cls.__match_args__,
        repr(cls.__dataclass_params__),
        dataclasses.is_dataclass(cls),
        cls.__hash__ is None,
        [(f.name, f.type, f.default, f.init, f.repr, f.hash, f.compare, f.kw_only) for f in fields],
        [f.default_factory is dataclasses.MISSING for f in fields],
        list(cls.__dataclass_fields__),
        {name: repr(getattr(cls, name, "(none)")) for name in (*NAMES, "counter")},
        [cls.__init__.__qualname__, cls.__repr__.__qualname__, cls.__eq__.__qualname__, cls.__setattr__.__qualname__],
    ]
    instances = []
    for args, kwargs in calls:
        got = outcome(lambda args=args, kwargs=kwargs: cls(*args, **kwargs))
        seen.append(shown(got))
        if got[0] == "gives":
            instances.append(got[1])
    plain = type("Plain", (cls,), {"__module__": __name__})
    instances.append(outcome(lambda: plain(*calls[0][0], **calls[0][1]))[-1])
    for one in instances:
        if not isinstance(one, cls):
            continue
        seen += [
            outcome(lambda one=one: repr(one)),
            outcome(lambda one=one: hash(one)),
            outcome(lambda one=one: dataclasses.asdict(one)),
            outcome(lambda one=one: dataclasses.astuple(one)),
            outcome(lambda one=one: pickled(cls, one)),
            outcome(lambda one=one: repr(copy.copy(one))),
            outcome(lambda one=one: repr(copy.deepcopy(one))),
            outcome(lambda one=one: matched(cls, one)),
            one.__eq__(object()) is NotImplemented,
            outcome(lambda one=one: one == (1, 2)),
            [outcome(lambda one=one, other=other: (one == other, one != other)) for other in instances],
        ]
        for f in fields:
            seen.append(outcome(lambda one=one, f=f: getattr(one, f.name)))
            seen.append(shown(outcome(lambda one=one, f=f: dataclasses.replace(one, **{f.name: 5}))))
        for name in (*NAMES, "other"):
            seen.append(outcome(lambda one=one, name=name: setattr(one, name, 1)))
            seen.append(outcome(lambda one=one, name=name: delattr(one, name)))
        seen.append(shown(outcome(lambda one=one: dataclasses.replace(one))))
    extra = {"__annotations__": {"extra": "int"}, "extra": 0, "__module__": __name__, "__qualname__": "Sub"}
    for deco in (sub, dataclass):
        subclass = outcome(lambda deco=deco: deco(type("Sub", (cls,), dict(extra))))
        seen.append(shown(subclass) if subclass[0] == "raises" else str(inspect.signature(subclass[1])))
        if subclass[0] == "gives":
            args, kwargs = calls[0]
            made_sub = subclass[1]
            seen.append(shown(outcome(lambda args=args, kwargs=kwargs, s=made_sub: s(*args, **kwargs, extra=2))))
            seen.append([f.name for f in dataclasses.fields(made_sub)])
    return seen


ARGUMENTS = st.tuples(
    st.lists(VALUES, max_size=len(NAMES) + 1).map(tuple),
    st.dictionaries(st.sampled_from((*NAMES, "counter", "zz", "__dataclass_self__")), VALUES, max_size=3),
)


@settings(max_examples=300, deadline=None)
@given(shapes(), st.lists(ARGUMENTS, min_size=1, max_size=3))
def test_a_valueclass_behaves_as_its_frozen_dataclass_twin(
    shape: list[dict[str, Any]], calls: list[tuple[tuple[Any, ...], dict[str, Any]]]
) -> None:
    calls.append(calls[0])  # the same values again: equal instances (NaN included, by identity)
    twin = observe(FROZEN, FROZEN, shape, calls)
    assert observe(valueclass, FROZEN, shape, calls) == twin
    assert observe(FROZEN, valueclass, shape, calls) == twin
    assert observe(valueclass, valueclass, shape, calls) == twin


@settings(max_examples=100, deadline=None)
@given(st.lists(VALUES, min_size=3, max_size=3))
def test_equal_instances_of_twin_shapes_hash_alike_and_compare_as_tuples(values: list[Any]) -> None:
    def made(deco: Decorator) -> type[Any]:
        @deco
        class Three:
            a: Any
            b: Any = field(compare=False)
            c: Any = field(default=None, hash=False)

        return Three

    twin, value = made(FROZEN), made(valueclass)
    for args in (values, values[:2], values[::-1]):
        assert hash(value(*args)) == hash(twin(*args))
        assert (value(*args) == value(*values)) == (twin(*args) == twin(*values))


@valueclass
class Node:
    name: str
    children: list[Any] = field(default_factory=list, compare=False, hash=False)


def test_a_recursive_repr_shows_dots_as_dataclass_does() -> None:
    @dataclass(frozen=True)
    class Node:  # the twin, of the same name
        name: str
        children: list[Any] = field(default_factory=list, compare=False, hash=False)

    mine, twin = globals()["Node"]("root"), Node("root")
    mine.children.append(mine)
    twin.children.append(twin)
    assert repr(mine) == repr(twin).replace("test_a_recursive_repr_shows_dots_as_dataclass_does.<locals>.", "")
    assert repr(mine) == "Node(name='root', children=[...])"


def test_a_factory_is_called_for_each_instance() -> None:
    assert Node("a").children is not Node("a").children
    assert Node("a") == Node("a", [1])
    assert hash(Node("a")) == hash(Node("a", [1]))


@valueclass
class Holder(Generic[T]):
    """A generic value class, as ``Archive`` is."""

    kept: tuple[T, ...] = ()
    total: int = 0


def test_a_generic_class_keeps_its_docstring_and_subscription() -> None:
    assert Holder[int]((1,), 1) == Holder((1,), 1)
    assert Holder.__doc__ == "A generic value class, as ``Archive`` is."
    assert pickle.loads(pickle.dumps(Holder((1,), 1))) == Holder((1,), 1)  # noqa: S301


def test_own_methods_and_a_post_init_are_kept() -> None:
    @valueclass
    class Own:
        a: int
        b: int = 0

        def __post_init__(self) -> None:
            object.__setattr__(self, "b", self.a * 2)

        def __repr__(self) -> str:
            return "own"

        def __eq__(self, other: object) -> bool:
            return True

        def __hash__(self) -> int:
            return 3

    assert Own(2).b == 4
    assert (repr(Own(1)), Own(1) == 5, hash(Own(1))) == ("own", True, 3)


def test_an_eq_of_its_own_without_a_hash_gets_the_fields_hash_as_dataclass_gives() -> None:
    def made(deco: Decorator) -> Any:
        @deco
        class Own:  # noqa: PLW1641 - no hash of its own: the decorator gives it one
            a: int

            def __eq__(self, other: object) -> bool:
                return False

        return Own(1)

    assert hash(made(valueclass)) == hash(made(FROZEN)) == hash((1,))
    assert made(valueclass) != made(valueclass)


@pytest.mark.parametrize(
    ("body", "error"),
    [
        ({"__annotations__": {"a": "list[int]"}, "a": []}, ValueError),
        ({"__annotations__": {"a": "int"}, "b": field(default=1)}, TypeError),
        ({"__annotations__": {"a": "int", "b": "int"}, "a": 1}, TypeError),
        ({"__annotations__": {"a": "int"}, "__setattr__": lambda self, name, value: None}, TypeError),
        ({"__annotations__": {"c": "ClassVar[int]"}, "c": field(default_factory=int)}, TypeError),
    ],
)
def test_a_class_dataclass_refuses_is_refused_with_the_same_words(body: dict[str, Any], error: type) -> None:
    with pytest.raises(error) as twin:
        FROZEN(type("Bad", (), dict(body, __module__=__name__)))
    with pytest.raises(error) as mine:
        valueclass(type("Bad", (), dict(body, __module__=__name__)))
    assert str(mine.value) == str(twin.value)


def test_a_frozen_valueclass_over_a_plain_dataclass_is_refused_as_dataclass_refuses_it() -> None:
    @dataclass
    class Loose:
        a: int

    with pytest.raises(TypeError, match="cannot inherit frozen dataclass from a non-frozen one"):
        valueclass(type("Tight", (Loose,), {"__annotations__": {"b": "int"}, "b": 0}))
    with pytest.raises(TypeError, match="cannot inherit non-frozen dataclass from a frozen one"):
        dataclass(type("Loose", (Node,), {}))


def test_what_it_does_not_support_is_refused_rather_than_half_made() -> None:
    with pytest.raises(TypeError, match="InitVar"):
        valueclass(type("Bad", (), {"__annotations__": {"a": InitVar[int]}, "__module__": __name__}))
    with pytest.raises(TypeError, match="keyword-only"):
        valueclass(type("Bad", (), {"__annotations__": {"a": "int"}, "a": field(kw_only=True)}))
    with pytest.raises(TypeError, match="keyword-only"):
        valueclass(type("Bad", (), {"__annotations__": {"_": "KW_ONLY", "a": "int"}}))


def test_a_class_is_made_with_one_compile_and_compares_with_one_more(monkeypatch: pytest.MonkeyPatch) -> None:
    """The point of the decorator: ``dataclass`` compiles six times a class, at import."""
    compiled: list[str] = []

    def counted(source: str, namespace: dict[str, Any]) -> None:
        compiled.append(source.partition("(")[0])
        exec(source, namespace)  # noqa: S102

    monkeypatch.setattr(games.values, "exec", counted, raising=False)
    many = valueclass(type("Many", (), {"__annotations__": {"a": "int", "b": "str", "c": "int"}, "c": 0}))
    valueclass(type("Empty", (), {}))
    assert compiled == ["def __init__", "def __init__"]
    assert many(1, "b") == many(1, "b") != many(2, "b")
    assert hash(many(1, "b")) == hash(many(1, "b")) == hash((1, "b", 0))
    assert compiled == ["def __init__", "def __init__", "def __eq__", "def __hash__"]


def test_mypy_types_a_valueclass_as_a_frozen_dataclass(tmp_path: Path) -> None:
    """A wrong constructor call, an assignment to a field, a wrong ``replace``: each is an error to mypy."""
    mypy_api = pytest.importorskip("mypy.api")
    checked = tmp_path / "checked.py"
    checked.write_text(
        "from dataclasses import field, replace\n"
        "from games.values import valueclass\n"
        "@valueclass\n"
        "class Point:\n"
        "    x: int\n"
        "    y: int = 0\n"
        "    label: str = field(default='p', init=False)\n"
        "p = Point(1, y=2)\n"
        "p.x = 3\n"  # line 9
        "Point('a')\n"  # line 10
        "Point(1, label='q')\n"  # line 11
        "Point()\n"  # line 12
        "replace(p, z=5)\n"  # line 13
        "q: Point = replace(p, y=5)\n"
    )
    out, _, status = mypy_api.run(
        ["--strict", "--no-error-summary", "--cache-dir", str(tmp_path / "cache"), str(checked)]
    )
    flagged = sorted({int(line.split(":")[1]) for line in out.splitlines() if ": error:" in line})
    assert (status, flagged) == (1, [9, 10, 11, 12, 13]), out


def test_a_field_that_is_not_a_parameter_is_kept_on_the_instance_too() -> None:
    """The one difference from ``dataclass``, seen only by ``vars()``: an event's channel is read for every
    event, from the instance's ``__dict__`` rather than through it to the class."""

    @valueclass
    class Event:
        name: str
        channel: str = field(default="auctions", init=False)

    assert vars(Event("a")) == {"name": "a", "channel": "auctions"}
    assert Event.channel == "auctions"
