"""A journal chunk that starts inside a fenced code block is dated as the text before the block dates it: the
block's rest, read apart, had been prose, and a shell comment "# 2019-05-01" in it a dated heading (a
reviewer's find: the chunk heads read 2024-03-01, 2019-05-01, 2024-03-02)."""

from __future__ import annotations

from batchsum.backends.units import entry_dates_at

BEFORE = "## 2024-03-01\nToday I wrote the backup script.\n\n```sh\n"
CODE = "# 2019-05-01\nrsync -a photos/ backup/\n```\n\nIt ran at once.\n\n"
AFTER = "## 2024-03-02\nMaria called about the garden.\n"
TEXT = BEFORE + CODE + AFTER


def test_a_start_inside_a_fenced_block_reads_no_code_as_a_heading() -> None:
    assert entry_dates_at(TEXT, [0, len(BEFORE), len(BEFORE + CODE)]) == ["", "2024-03-01", "2024-03-01"]
    # Cut at any line, no start is dated by the code, and each as a single cut there dates it.
    starts = [0] + [k + 1 for k, c in enumerate(TEXT) if c == "\n"]
    chained = entry_dates_at(TEXT, starts)
    assert "2019-05-01" not in chained
    assert chained == [entry_dates_at(TEXT, [start])[0] for start in starts]
    assert chained[-1] == "2024-03-02"


def test_an_unclosed_fence_opens_no_block() -> None:
    # A fence never closed opens no block (the reader reads on as text): its lines date as text does.
    unclosed = BEFORE + "## 2024-03-05\nThe script is unfinished.\n"
    assert entry_dates_at(unclosed, [len(unclosed) - 10])[0] == "2024-03-05"
