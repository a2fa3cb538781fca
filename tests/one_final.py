"""A `batchsum run` over a folder holding one file, and that file's final: what most tests of a reading or a
summarizing rule look at (the real CLI, a fresh output folder)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from click.testing import CliRunner

from batchsum.cli import main
from batchsum.tree import parse_markdown, strip_links


def final_text(tmp_path: Path, name: str, text: str, *options: str) -> str:
    """The whole final (front matter and body) of a run with ``options`` over a folder holding ``name``."""
    src, out = tmp_path / "src", tmp_path / "out"
    (src / name).parent.mkdir(parents=True, exist_ok=True)
    (src / name).write_text(text, encoding="utf-8")
    r = CliRunner().invoke(main, ["run", str(src), "--out", str(out), "--no-index", "-q", *options])
    assert r.exit_code == 0, r.output
    return (out / name / "summaries" / "L3" / "final.md").read_text(encoding="utf-8")


def final_node(tmp_path: Path, name: str, text: str, *options: str) -> tuple[dict[str, Any], str]:
    """That final's front matter and summary text, its navigation links left out (as ``read_node`` reads it)."""
    meta, body = parse_markdown(final_text(tmp_path, name, text, *options))
    return meta, strip_links(body)
