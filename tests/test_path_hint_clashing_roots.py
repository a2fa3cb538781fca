"""Two corpus roots of the same folder name ("home/notes", "work/notes") carry the names the walk gave them
("home-notes/", "work-notes/"): a --path that matches nothing is told those names, and an absolute path under
one of the roots selects that root's sources."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from batchsum.cli import main

FILES = {
    "home/notes/2024-03-05.md": "Met Ana about the garden budget and planned the spring planting.\n",
    "home/notes/todo.md": "Buy seeds for the garden and fix the fence.\n",
    "work/notes/todo.md": "Send the garden budget to Jonas before the review meeting.\n",
}


def _invoke(*args: str) -> tuple[int, str, str]:
    res = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return res.exit_code, res.stdout, res.stderr


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("clash")
    for rel, text in FILES.items():
        (base / rel).parent.mkdir(parents=True, exist_ok=True)
        (base / rel).write_text(text, encoding="utf-8")
    out = base / "out"
    assert _invoke("run", str(base / "home/notes"), str(base / "work/notes"), "--out", str(out), "--quiet")[0] == 0
    return base, out


def test_the_hint_names_the_prefix_the_sources_carry(corpus: tuple[Path, Path]) -> None:
    _, out = corpus
    _, stdout, stderr = _invoke("search", "-o", str(out), "garden budget", "--path", "2024-03-05.md")
    said = stdout + stderr
    assert "matches no source" in said, said
    # Each root by the prefix its sources carry (the example's too), not by the folder name they share.
    assert "home-notes/ for" in said and "work-notes/ for" in said, said


def test_an_absolute_path_under_a_clashing_root_selects_its_source_only(corpus: tuple[Path, Path]) -> None:
    base, out = corpus
    path = str(base / "work/notes/todo.md")
    code, stdout, stderr = _invoke("search", "-o", str(out), "garden", "--path", path, "--json")
    found = {hit["source_path"] for hit in json.loads(stdout)} if code == 0 else set()
    assert found == {"work-notes/todo.md"}, stdout + stderr
