"""A file batchsum did not write where its index page or a digest goes is left as it is: batchsum writes
its page under the name it takes when a source owns the name (batchsum-index.md, batchsum-digests/) and
warns naming the file (both were silently overwritten)."""

from __future__ import annotations

from pathlib import Path

import batchsum

ENTRIES = {
    "2025-03-14.md": "Mended the tapir fence by the north paddock; the posts had rotted at the base.",
    "2025-03-15.md": "Short note about the tapir fence: it holds after the night's storm.",
    "2025-04-02.md": "Fed the tapirs early and walked the river path to check the flood markers.",
}


def _journal(tmp_path: Path) -> Path:
    src = tmp_path / "journal"
    src.mkdir()
    for name, text in ENTRIES.items():
        (src / name).write_text(text + "\n", encoding="utf-8")
    return src


def _run(src: Path, out: Path) -> list[str]:
    return batchsum.run([src], out=out, index=False, metrics=False).warnings


def test_a_foreign_index_and_digest_page_are_left_and_batchsum_writes_beside_them(tmp_path: Path) -> None:
    src, out = _journal(tmp_path), tmp_path / "foreign"
    (out / "digests").mkdir(parents=True)
    (out / "index.md").write_text("MY PRECIOUS NOTES\n", encoding="utf-8")
    (out / "digests" / "2025.md").write_text("mine\n", encoding="utf-8")
    warnings = _run(src, out)
    assert (out / "index.md").read_text(encoding="utf-8") == "MY PRECIOUS NOTES\n"
    assert (out / "digests" / "2025.md").read_text(encoding="utf-8") == "mine\n"
    assert any(str(out / "index.md") in w and "batchsum-index.md" in w for w in warnings)
    assert any(str(out / "digests" / "2025.md") in w and "batchsum-digests" in w for w in warnings)
    index = (out / "batchsum-index.md").read_text(encoding="utf-8")
    assert "batchsum-digests/2025.md" in index
    assert "role: digest" in (out / "batchsum-digests" / "2025.md").read_text(encoding="utf-8")
    # The next run finds its own pages where it put them, and still leaves the others alone.
    (src / "2025-04-03.md").write_text("The flood markers were dry again.\n", encoding="utf-8")
    _run(src, out)
    assert (out / "index.md").read_text(encoding="utf-8") == "MY PRECIOUS NOTES\n"
    assert (out / "digests" / "2025.md").read_text(encoding="utf-8") == "mine\n"
    assert "2025-04-03.md" in (out / "batchsum-index.md").read_text(encoding="utf-8")
    # Once those files are gone, the pages go back to their own names and leave no second copy.
    (out / "index.md").unlink()
    (out / "digests" / "2025.md").unlink()
    (src / "2025-04-04.md").write_text("Rain all day.\n", encoding="utf-8")
    assert not _run(src, out)
    assert "role: digest" in (out / "digests" / "2025.md").read_text(encoding="utf-8")
    assert "digests/2025.md" in (out / "index.md").read_text(encoding="utf-8")
    assert not (out / "batchsum-index.md").exists() and not list((out / "batchsum-digests").rglob("*.md"))


def test_a_digest_page_replaced_by_ones_own_notes_is_never_removed(tmp_path: Path) -> None:
    src, out = _journal(tmp_path), tmp_path / "out"
    assert not _run(src, out)
    assert "role: digest" in (out / "digests" / "2025.md").read_text(encoding="utf-8")
    (out / "digests" / "2025.md").write_text("my own year notes\n", encoding="utf-8")
    (src / "2025-04-03.md").write_text("The flood markers were dry again.\n", encoding="utf-8")
    warnings = _run(src, out)
    assert (out / "digests" / "2025.md").read_text(encoding="utf-8") == "my own year notes\n"
    assert any("digests" in w and "not written by batchsum" in w for w in warnings)
    assert (out / "batchsum-digests" / "2025.md").is_file()
    # batchsum's own pages moved with the folder; it never leaves a stale one of its own behind.
    assert not [p for p in (out / "digests").rglob("*.md") if p.name != "2025.md"]
