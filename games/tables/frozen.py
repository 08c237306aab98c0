"""Frozen pydantic values for a game's state, which its rules copy at every change.

``model_copy`` is pydantic's, without its general path: the same unvalidated copy (fields, and the
set of fields set, shared while it does not change, for nothing changes one) in a third of the
time. What a ``functools.cached_property`` of the copied value worked out stays behind: a copy
works it out again from its own fields.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property
from typing import Any, ClassVar, Self

from pydantic import BaseModel, ConfigDict

_SET = object.__setattr__


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    _cached: ClassVar[tuple[str, ...]] = ()
    """The names of the class's cached properties."""

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        cls._cached = tuple(
            {name for klass in cls.__mro__ for name, value in vars(klass).items() if isinstance(value, cached_property)}
        )

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        cls = type(self)
        if deep:
            copied = super().model_copy(update=update, deep=True)
            for name in cls._cached:
                copied.__dict__.pop(name, None)
            return copied
        values = self.__dict__.copy()
        if len(values) > len(cls.__pydantic_fields__):
            for name in cls._cached:
                values.pop(name, None)
        fields_set = self.__pydantic_fields_set__
        if update:
            values.update(update)
            if not fields_set.issuperset(update):
                fields_set = fields_set.union(update)
        copied = cls.__new__(cls)
        _SET(copied, "__dict__", values)
        _SET(copied, "__pydantic_extra__", None)
        _SET(copied, "__pydantic_fields_set__", fields_set)
        _SET(copied, "__pydantic_private__", None)
        return copied
