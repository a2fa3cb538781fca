"""``dataclass`` with a shared ``__repr__`` and ``__eq__`` instead of generated ones.

The stdlib writes and compiles source for each generated method of each dataclass at import.
Creating the 16 classes an unchanged nightly re-run loads took ~20 ms with them, ~10 ms without,
of a ~150 ms run. Only ``__init__`` is still generated; the shared methods behave like the generated ones
(field order, ``repr=False`` and ``compare=False`` fields honoured, same class required for ==).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, TypeVar, dataclass_transform

T = TypeVar("T")


def _repr(self: Any) -> str:
    inner = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in fields(self) if f.repr)
    return f"{type(self).__qualname__}({inner})"


def _eq(self: Any, other: Any) -> bool:
    if other.__class__ is not self.__class__:
        return NotImplemented
    return all(getattr(self, f.name) == getattr(other, f.name) for f in fields(self) if f.compare)


@dataclass_transform()
def fast_dataclass(cls: type[T], /) -> type[T]:
    """Like a plain ``@dataclass`` (mutable, unhashable, compared by value) at a fraction of the import cost."""
    c = dataclass(cls, repr=False, eq=False)
    c.__repr__ = _repr  # type: ignore[assignment]
    c.__eq__ = _eq  # type: ignore[assignment,method-assign]
    c.__hash__ = None  # type: ignore[assignment]  # as eq=True does for a mutable dataclass
    return c
