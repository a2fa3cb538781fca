"""Front matter escaping, atomic writes and tree iteration."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from batchsum.tree import iter_tree, node_path, parse_markdown, read_node, render_markdown, write_node

HOSTILE = [
    "---",
    "title: injected\n---\nbody",
    "key: value",
    "'quoted' \"double\" `tick`",
    "# not a comment",
    "emoji 🙂 and \u2028 line separator",
    "&anchor *alias !!python/object",
    "tab\tand\r\ncarriage",
    "null",
    "yes",
    "",
]


@pytest.mark.parametrize("value", HOSTILE)
def test_front_matter_round_trips_hostile_strings(tmp_path: Path, value: str) -> None:
    meta = {"id": f"{value}:summary:L3:final", "source_path": value, "title": value, "level": 3}
    p = tmp_path / "x.md"
    write_node(p, meta, f"Body with {value}")
    got, body = read_node(p)
    assert got == meta
    assert value.strip() in body or not value.strip() or "\r" in value
    # And any YAML parser reads the same front matter.
    raw = p.read_text(encoding="utf-8")
    front = raw[len("---\n") : raw.index("\n---\n", 3) + 1]
    assert yaml.safe_load(front) == meta


def test_parse_rejects_missing_front_matter() -> None:
    with pytest.raises(ValueError):
        parse_markdown("no front matter")


def test_render_then_parse() -> None:
    meta, body = parse_markdown(render_markdown({"a": 1}, "hello\n\n---\n\nworld"))
    assert meta == {"a": 1}
    assert body == "hello\n\n---\n\nworld"


def test_write_is_atomic_no_temp_left(tmp_path: Path) -> None:
    p = node_path(tmp_path, "docs/a.md", 1, 0)
    write_node(p, {"id": "x"}, "one")
    write_node(p, {"id": "x"}, "two")
    assert read_node(p)[1] == "two"
    assert [f.name for f in p.parent.iterdir()] == ["chunk_0.md"]


def test_iter_tree_skips_state_deleted_history(tmp_path: Path) -> None:
    write_node(node_path(tmp_path, "a.md", 3, None), {"id": "a"}, "A")
    write_node(tmp_path / "a.md" / "deleted" / "x" / "summaries" / "L3" / "final.md", {"id": "old"}, "old")
    write_node(tmp_path / "a.md" / "summaries" / "history" / "t.md", {"id": "h"}, "h")
    write_node(tmp_path / ".batchsum" / "x" / "summaries" / "L3" / "final.md", {"id": "s"}, "s")
    assert [n.meta["id"] for n in iter_tree(tmp_path)] == ["a"]
