"""Files are listed as a file manager lists them, numbers by their value: a novel's chapters had read ch1,
ch10, ch11, ch12, ch2 in its folder's digest and in index.md."""

from __future__ import annotations

from pathlib import Path

import batchsum
from batchsum.periods import path_order


def test_numbers_sort_by_value() -> None:
    names = ["novel/ch10.md", "novel/ch2.md", "novel/ch1.md", "novel/Ch3.md", "novel/ch2b.md"]
    assert sorted(names, key=path_order) == ["novel/ch1.md", "novel/ch2.md", "novel/ch2b.md", "novel/Ch3.md",
                                             "novel/ch10.md"]  # fmt: skip


def test_a_folders_digest_and_index_read_chapter_by_chapter(tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    (src / "novel").mkdir(parents=True)
    for n in (1, 2, 10, 11):
        text = f"Chapter {n} opens at the harbour, where Anna waits for the ferry number {n} in the rain.\n"
        (src / "novel" / f"ch{n}.md").write_text(text, encoding="utf-8")
    batchsum.run([src], out=out, index=False, metrics=False)
    digest = (out / "digests" / "folders" / "novel.md").read_text(encoding="utf-8")
    order = [digest.index(f"**ch{n}.**") for n in (1, 2, 10, 11)]
    assert order == sorted(order), digest
    index = (out / "index.md").read_text(encoding="utf-8")
    lines = [index.index(f"[ch{n}]") for n in (1, 2, 10, 11)]
    assert lines == sorted(lines), index
