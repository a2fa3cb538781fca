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


# Characters that matter to a YAML scanner or resolver: indicators, quotes, escapes, line breaks of
# every kind, non-printables, a BOM, non-ASCII letters and an astral emoji.
_ALPHABET = [
    *"aZ09 _-.:,#&*!|>'\"%@`?[]{}=~+/()\\\t\n\r\x00\x07\x1b\x7f\x85\xa0·é中",
    "\u2028",
    "\u2029",
    "\ufeff",
    "\U0001f642",
]
_TRICKY = [
    "yes",
    "No",
    "ON",
    "off",
    "null",
    "Null",
    "~",
    "true",
    "1.0",
    "1e3",
    "0x1F",
    "1:20",
    "2026-11-26",
    "2026-11-26T02:05:20Z",
    ".inf",
    ".NaN",
    "<<",
    "=",
    "-",
    "- a",
    "a: b",
    "a #b",
    "a:",
    "a ",
    " a",
    "",
    "'",
    "val_ES2006a.txt:summary:L1:1",
    "val_ES2006a · chunk 1",
    "speaker turns (279/279 lines)",
]


def test_front_matter_emitter_round_trips_through_safe_load() -> None:
    """Every flat value the emitter writes itself reads back equal (and typed) with any YAML parser."""
    import random

    from batchsum.tree import dump_front_matter

    rng = random.Random(7)
    values: list[object] = list(_TRICKY)
    values += ["".join(rng.choice(_ALPHABET) for _ in range(rng.randint(1, 12))) for _ in range(3000)]
    values += [0, -3, 10**20, True, False, None, 0.0, 0.0291, -2.5, 1e-7, 1e22, 123456.789, float("inf"), float("nan")]
    for i in range(0, len(values), 7):
        chunk = values[i : i + 7]
        meta: dict[str, object] = {f"k{j}": v for j, v in enumerate(chunk)}
        meta["span"] = [v for v in chunk if not isinstance(v, float) or v == v]
        meta["empty"] = []
        got = yaml.safe_load(dump_front_matter(meta))
        if any(isinstance(v, float) and v != v for v in chunk):  # NaN never equals itself
            assert all(got[k] != got[k] or got[k] == meta[k] for k in meta)
            continue
        assert got == meta, dump_front_matter(meta)
        assert [type(got[k]) for k in meta] == [type(v) for v in meta.values()]


def test_front_matter_emitter_hands_nested_values_and_odd_keys_to_pyyaml() -> None:
    from batchsum.tree import dump_front_matter

    meta = {
        "id": "a",
        "facets": {"summary": "s", "key_points": ["x: y", "z"], "action_items": [{"owner": None, "task": "t"}]},
        "on": 1,  # a key YAML 1.1 would read as a bool
        "with space": "v",
        "pairs": [[1, 2]],
        "level": 3,
    }
    text = dump_front_matter(meta)
    assert yaml.safe_load(text) == meta
    assert list(yaml.safe_load(text)) == list(meta)  # the order is kept
    assert dump_front_matter({}) == "{}\n" and yaml.safe_load(dump_front_matter({})) == {}


def test_front_matter_is_readable_yaml() -> None:
    """Plain words stay unquoted, so a person (or a notes app) reads the front matter as written."""
    from batchsum.tree import dump_front_matter

    text = dump_front_matter({"id": "notes/a.md:summary:L1:1", "title": "a · chunk 1", "span": [3, 9], "ok": True})
    assert text == "id: notes/a.md:summary:L1:1\ntitle: a · chunk 1\nspan:\n- 3\n- 9\nok: true\n"
