"""``batchsum watch`` starts no run for a write the run would not read: inside a dot folder (an app's
``.obsidian/`` settings, its ``.trash/``) or a path ``--ignore`` or ``.batchsumignore`` leaves out."""

from __future__ import annotations

import os
from pathlib import Path

from tests.test_watch import TEXT, Watching


def test_writes_a_run_ignores_start_no_run(tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    for folder in (".obsidian", ".trash", "drafts", "private/deep", "notes"):
        (src / folder).mkdir(parents=True)
    (src / ".batchsumignore").write_text("private/\n", encoding="utf-8")
    (src / "a.md").write_text("# Pier\n\n" + TEXT, encoding="utf-8")
    w = Watching(src, out, "--ignore", "drafts/")
    try:
        w.expect("watching")
        ignored = [".obsidian/workspace.json", ".trash/Lawnmower.md", "drafts/plan.md", "private/deep/diary.md"]
        for name in ignored:
            (src / name).write_text("# Ignored\n\n" + TEXT, encoding="utf-8")
        # Written after them: had any of them counted, a burst naming it is reported first or with this one.
        (src / "notes" / "b.md").write_text("# Ferry\n\n" + TEXT.replace("pier", "ferry"), encoding="utf-8")
        line = w.expect("changed: ")
        assert line.endswith(f"1 changed: {os.path.relpath(src / 'notes' / 'b.md')}"), w.seen
        assert not [s for s in w.seen if any(Path(name).name in s for name in ignored)]
    finally:
        w.proc.kill()
        w.proc.wait()
