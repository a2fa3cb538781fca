"""A run over several source folders finds a file of many days' entries again for its digest's day labels:
its relpath starts with its folder's name then, which is not a path under that folder."""

from __future__ import annotations

import re
from pathlib import Path

import batchsum
from tests.test_digest_entry_days import ENTRIES, _body, _labelled


def test_a_brief_month_file_keeps_its_days_labels_when_the_run_has_two_source_folders(tmp_path: Path) -> None:
    journal, other, out = tmp_path / "journal", tmp_path / "other", tmp_path / "out"
    journal.mkdir()
    other.mkdir()
    month = "# July 2025\n\n" + "".join(f"## {d} July 2025\n\n{words}\n\n" for d, words in ENTRIES.items())
    (journal / "2025-07.md").write_text(month, encoding="utf-8")
    (other / "note.md").write_text("A note about the garden shed and its new roof.\n", encoding="utf-8")
    batchsum.run([journal, other], out=out, content_type="journal", index=False, metrics=False)
    final = (out / "journal" / "2025-07.md" / "summaries" / "L3" / "final.md").read_text(encoding="utf-8")
    assert "summary_level: BRIEF" in final, final  # names none of its days: the digest reads them from the source
    body = _body(out / "digests" / "2025" / "2025-07.md")
    labelled = _labelled(body)
    assert labelled and "2025-07" not in body, body  # days' labels, not the file's name
    for label, words in labelled:
        day = int(label.split()[0])
        sentences = [s for s in re.split(r"(?<=\.) ", words.strip()) if s]
        assert all(s.rstrip(".") in ENTRIES[day] for s in sentences), (label, words)
