"""A page a soft delete moves into ``<relpath>/deleted/<stamp>/`` (two folders deeper) kept its relative links as
written for its old place: an archived final's Source link "../../../../../journal/2024/2024-02-10.md" reached
nothing. Its links are now rewritten for where it is (the source link names where the deleted source was), and
the pages that stay (the earlier final copied to history/) follow the parts that moved."""

from __future__ import annotations

import os
import re
from pathlib import Path
from urllib.parse import unquote

import pytest
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


def _reads_update_atime(folder: Path) -> bool:
    """Whether reading a file whose access time is older than its change time updates it here (relatime)."""
    probe = folder / "probe.txt"
    probe.write_text("x", encoding="utf-8")
    os.utime(probe, (0, probe.stat().st_mtime))
    probe.read_text(encoding="utf-8")
    return probe.stat().st_atime != 0


def test_a_soft_delete_does_not_read_earlier_archived_pages_that_link_nothing_it_moves(tmp_path: Path) -> None:
    # Every soft delete read every page ever archived for the source: a nightly run of a daily-edited
    # journal paid for its whole history. Earlier archived chunks link the final, which stays here.
    if not _reads_update_atime(tmp_path):
        pytest.skip("this filesystem does not record reads (noatime)")
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    notes = src / "notes.md"
    sentences = [s + "." for s in LONG.split(". ") if s]
    chunked = ("--type", "document", "--thresholds", "10,20,100,15000", "--chunk-size", "60", "--chunk-overlap", "0")
    for count in (len(sentences), len(sentences) // 2):
        notes.write_text(" ".join(sentences[:count]) + "\n", encoding="utf-8")
        _run(src, out, *chunked)  # the second run moves the chunks past its last to deleted/
    earlier = [p for p in _archived(out) if "deleted" in p.parts]
    assert earlier, sorted(out.rglob("*.md"))
    before = {p: p.read_bytes() for p in earlier}
    for page in earlier:
        os.utime(page, (0, page.stat().st_mtime))
    notes.write_text(" ".join(sentences[: len(sentences) // 4]) + "\n", encoding="utf-8")
    _run(src, out, *chunked)  # fewer chunks again: more move aside, the final stays
    assert len([p for p in _archived(out) if "deleted" in p.parts]) > len(earlier)
    assert [p for p in earlier if p.stat().st_atime != 0] == []  # before reading them here
    assert all(p.read_bytes() == before[p] for p in earlier), earlier
    for page in _archived(out):
        assert all(t.exists() for t in _targets(page)), (page, _targets(page))


def test_an_archive_without_its_link_record_is_read_once_and_its_links_follow(tmp_path: Path) -> None:
    # A tree archived before the record existed, or whose record was lost: the archive is read to rebuild it.
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    notes = src / "notes.md"
    notes.write_text(LONG + "\n", encoding="utf-8")
    chunked = ("--type", "document", "--thresholds", "10,20,100,15000", "--chunk-size", "60", "--chunk-overlap", "0")
    _run(src, out, *chunked)
    notes.write_text("Short note about roses. We planted them near the fence.\n", encoding="utf-8")
    _run(src, out)
    record = out / "notes.md" / "deleted" / ".links.json"
    assert record.is_file()
    record.write_text("{not json", encoding="utf-8")
    notes.unlink()
    _run(src, out)  # the live tree moves: the archived parts that linked its final follow it
    assert [p for p in _archived(out) if any(t != notes and not t.exists() for t in _targets(p))] == []
