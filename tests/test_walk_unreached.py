"""Which recorded sources lie under a path the walk could not look into, at a cost that does not grow with
the number of such paths (a run asks once per deleted entry)."""

from __future__ import annotations

from batchsum.walk import WalkResult


class _Counted(str):
    """A path that counts the comparisons made against it."""

    compared = 0

    def __eq__(self, other: object) -> bool:
        _Counted.compared += 1
        return str.__eq__(self, other)

    __hash__ = str.__hash__


def test_unreached_covers_the_path_and_what_lies_under_it() -> None:
    walk = WalkResult()
    walk.cannot_look("/src/a/locked", "permission denied", "a/locked")
    assert walk.unreached("a/locked") and walk.unreached("a/locked/x/y.md")
    assert not walk.unreached("a/lockedx.md") and not walk.unreached("a/b.md") and not walk.unreached("a")
    walk.cannot_look("/src", "permission denied", "")
    assert walk.unreached("anything/at/all.md")


def test_unreached_costs_do_not_grow_with_unlisted_paths() -> None:
    walk = WalkResult()
    for i in range(2000):
        walk.cannot_look(f"/src/d{i}", "permission denied", _Counted(f"d{i}"))
    _Counted.compared = 0
    asked = [f"gone/{i}/note.md" for i in range(200)]
    assert not any(walk.unreached(rel) for rel in asked)
    assert walk.unreached("d1999/sub/note.md")
    assert _Counted.compared <= 4 * (len(asked) + 1)  # a few per path level, not one per unlisted path
