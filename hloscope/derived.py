"""A read-only attribute worked out from its object each time it is read, written as one line
in a class body where several attributes share the same logic (``input_batch_dimension =
_LabelPosition("input", "b")``): what a row of ``@property`` methods that differ only in a
name or a filter would say, typed for mypy as the property's value.

A subclass says how the value is worked out (:meth:`Derived.of`); read off the class
(``help()``, documentation tools) the attribute is the descriptor itself, as a property is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Generic, TypeVar, overload

if TYPE_CHECKING:  # pragma: no cover
    from typing import Self

__all__ = ["Derived"]

_O = TypeVar("_O")
_T = TypeVar("_T")


class Derived(Generic[_O, _T]):
    """An attribute of an ``_O`` worked out as a ``_T`` by :meth:`of`."""

    __slots__ = ()

    def of(self, obj: _O) -> _T:
        raise NotImplementedError

    @overload
    def __get__(self, obj: None, owner: object = None) -> Self: ...
    @overload
    def __get__(self, obj: _O, owner: object = None) -> _T: ...
    def __get__(self, obj: _O | None, owner: object = None) -> _T | Self:
        return self if obj is None else self.of(obj)
