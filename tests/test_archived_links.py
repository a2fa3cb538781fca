"""A page a soft delete moves into ``<relpath>/deleted/<stamp>/`` (two folders deeper) kept its relative links as
written for its old place: an archived final's Source link "../../../../../journal/2024/2024-02-10.md" reached
nothing. Its links are now rewritten for where it is (the source link names where the deleted source was), and
the pages that stay (the earlier final copied to history/) follow the parts that moved."""

from __future__ import annotations

import os
import re
from pathlib import Path
from urllib.parse import unquote

from click.testing import CliRunner

from batchsum.cli import main

_LINK = re.compile(r"\]\(<([^>]*)>\)|\]\(([^)<\s]+)\)")
ENTRY = "Went to the market with Ana on {day}. We bought apples and bread. Later we walked by the river.\n"
LONG = " ".join(f"Sentence {i} tells about the garden and the {w} we planted." for i, w in enumerate(["roses"] * 48))


def _run(src: Path, out: Path, *options: str) -> None:
    got = CliRunner().invoke(main, ["run", str(src), "--out", str(out), "--no-index", "-q", *options])
    assert got.exit_code == 0, got.output


def _targets(page: Path) -> list[Path]:
    """Where each relative link of ``page`` leads."""
    text = page.read_text(encoding="utf-8")
    links = [m.group(1) or m.group(2) for m in _LINK.finditer(text)]
    return [Path(os.path.normpath(page.parent / unquote(link.split("#")[0]))) for link in links if "://" not in link]


def _archived(out: Path) -> list[Path]:
    return sorted(p for p in out.rglob("*.md") if "deleted" in p.parts or "history" in p.parts)


def test_an_archived_final_links_the_deleted_source_where_it_was(tmp_path: Path) -> None:
    src, out = tmp_path / "journal", tmp_path / "out"
    (src / "2024").mkdir(parents=True)
    for day in ("2024-02-10", "2024-02-11", "2024-02-12"):
        (src / "2024" / f"{day}.md").write_text(ENTRY.format(day=day), encoding="utf-8")
    _run(src, out, "--type", "journal")
    gone = src / "2024" / "2024-02-10.md"
    gone.unlink()
    _run(src, out)
    pages = [p for p in _archived(out) if "deleted" in p.parts]
    assert pages, sorted(out.rglob("*.md"))
    for page in pages:
        targets = _targets(page)
        assert Path(os.path.normpath(gone)) in targets, (page, targets)
        assert all(t.exists() for t in targets if t != Path(os.path.normpath(gone))), (page, targets)


def test_parts_moved_aside_and_the_pages_linking_them_still_link_each_other(tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    notes = src / "notes.md"
    notes.write_text(LONG + "\n", encoding="utf-8")
    chunked = ("--type", "document", "--thresholds", "10,20,100,15000", "--chunk-size", "60", "--chunk-overlap", "0")
    _run(src, out, *chunked)
    notes.write_text("Short note about roses. We planted them near the fence.\n", encoding="utf-8")
    _run(src, out)  # its chunks are stale now: moved to deleted/, the earlier final copied to history/
    pages = _archived(out)
    assert any("deleted" in p.parts for p in pages) and any("history" in p.parts for p in pages)
    for page in pages:
        assert all(t.exists() for t in _targets(page)), (page, _targets(page))
    notes.unlink()
    _run(src, out)  # the whole tree moves aside: the earlier archived pages' links to it follow
    for page in _archived(out):
        assert all(t.exists() for t in _targets(page) if t != notes), (page, _targets(page))
