"""Titles of files a notes app exported: the page's name as the app shows it (no Notion id, Logseq's
namespace "Recipes/Bread"), while every link still opens the file under its real name."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

from click.testing import CliRunner

from batchsum.cli import main
from batchsum.navigation import title_for

_FILES = {
    "Notion/Garden Shed 8e7d6c5b4a39281706f5e4d3c2b1a098.md": "We built the shed in May. The roof took two weekends.",
    "pages/Recipes___Lentil Soup.md": "Lentil soup needs red lentils, cumin and a lemon. Simmer for twenty minutes.",
    "pages/Recipes%2FBread.md": "The bread dough rises overnight in the fridge. Bake it for forty minutes.",
}
_LINK = re.compile(r"\[([^\]]*)\]\(<([^>]*)>\)")


def test_export_encodings_leave_the_titles_and_the_links_still_open_the_files(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    for rel, text in _FILES.items():
        (corpus / rel).parent.mkdir(parents=True, exist_ok=True)
        (corpus / rel).write_text(text + "\n", encoding="utf-8")
    out = tmp_path / "out"
    res = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--no-index", "--no-metrics", "-q"])
    assert res.exit_code == 0, res.output
    links = dict((target, label) for label, target in _LINK.findall((out / "index.md").read_text(encoding="utf-8")))
    for rel in _FILES:
        target = next(t for t in links if unquote(t) == f"{rel}/summaries/L3/final.md")
        assert (out / unquote(target)).is_file()  # the link opens the file's summary, under its real name
        label = links[target]
        assert not re.search(r"[0-9a-f]{32}|___|%2F", label), label
        assert label == title_for(rel)
    assert {links[t] for t in links if "summaries/L3" in t} >= {"Garden Shed", "Recipes/Lentil Soup", "Recipes/Bread"}


def test_names_no_export_encoded_keep_their_text() -> None:
    """The negative case: a percent sign, a short hex run or a double underscore of the name's own stays."""
    assert title_for("notes/Q1%2024 plan.md") == "Q1%2024 plan"
    assert title_for("notes/50% off.md") == "50% off"
    assert title_for("code/crypto__eps deadbeef.md") == "crypto__eps deadbeef"
    assert title_for("8e7d6c5b4a39281706f5e4d3c2b1a098.md") == "8e7d6c5b4a39281706f5e4d3c2b1a098"
    # A triple underscore is Logseq's namespace only in a graph's pages/ folder (an agent session's name, review).
    assert title_for("runs/install-1___install_from_source.md") == "install-1___install_from_source"
