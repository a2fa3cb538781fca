"""fast_dataclass behaves like a plain @dataclass: same __init__, repr, equality and hashability."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import pytest

from batchsum.fastdc import fast_dataclass
from batchsum.model import FileRecord


@dataclass
class Std:
    name: str
    count: int = 0
    tags: list[str] = field(default_factory=list)
    secret: str = field(default="", repr=False)
    seen_at: float = field(default=0.0, compare=False)


@fast_dataclass
class Fast:
    name: str
    count: int = 0
    tags: list[str] = field(default_factory=list)
    secret: str = field(default="", repr=False)
    seen_at: float = field(default=0.0, compare=False)


def test_repr_matches_the_stdlib() -> None:
    kw = {"name": "a.md", "count": 3, "tags": ["x"], "secret": "s", "seen_at": 1.5}
    assert repr(Fast(**kw)) == repr(Std(**kw)).replace("Std(", "Fast(", 1)


def test_equality_and_hashing_match_the_stdlib() -> None:
    # repr=False fields are still compared; compare=False fields are not (as in the stdlib).
    assert Fast("a", 1, ["x"], "s1", 1.0) != Fast("a", 1, ["x"], "s2", 1.0)
    assert Fast("a", 1, ["x"], "s", 1.0) == Fast("a", 1, ["x"], "s", 9.0)
    assert Fast("a", 1) != Fast("a", 2)
    assert Fast("a") != Std("a")  # another class is never equal, as with the stdlib
    with pytest.raises(TypeError):
        hash(Fast("a"))


def test_dataclass_helpers_still_work() -> None:
    f = Fast("a", tags=["t"])
    assert dataclasses.asdict(f) == {"name": "a", "count": 0, "tags": ["t"], "secret": "", "seen_at": 0.0}
    assert dataclasses.replace(f, count=2).count == 2
    assert Fast("b").tags is not Fast("c").tags  # default_factory per instance
    rec = FileRecord(run_id="r", relpath="x.md")
    assert rec == FileRecord(run_id="r", relpath="x.md") and "relpath='x.md'" in repr(rec)
