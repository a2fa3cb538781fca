"""A daily note of only its template's headings and empty tasks, or Logseq's empty journal page ("- "), holds
no text: skipped with its reason, never summarized, listed in index.md or counted in its month. A heading
over a sentence is a note."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main

EMPTY_DAILY = "---\ndate: 2024-03-22\ntags: daily\n---\n# Friday, March 22\n\n## Notes\n\n## Tasks\n- [ ] \n"
EMPTY_LOGSEQ = "- \n"
REAL = "# Thursday, March 21\n\nThe plumber fixed the leak under the kitchen sink and left a bill for sixty euros.\n"


def test_a_note_of_headings_and_empty_items_is_skipped(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    (vault / "journals").mkdir(parents=True)
    (vault / "2024-03-22.md").write_text(EMPTY_DAILY, encoding="utf-8")
    (vault / "journals" / "2024_03_23.md").write_text(EMPTY_LOGSEQ, encoding="utf-8")
    (vault / "2024-03-21.md").write_text(REAL, encoding="utf-8")
    out = tmp_path / "out"
    res = CliRunner().invoke(main, ["run", str(vault), "--out", str(out), "--no-index", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    files = {Path(f["relpath"]).name: f for f in data["files"]}
    assert files["2024-03-21.md"]["status"] == "done" and data["run"]["files_done"] == 1, files
    for name in ("2024-03-22.md", "2024_03_23.md"):
        assert files[name]["status"] == "skipped" and "nothing to summarize" in files[name]["error"], files[name]
    index = (out / "index.md").read_text(encoding="utf-8")
    assert "2024-03-21" in index and "2024-03-22" not in index and "2024_03_23" not in index
    month = next((out / "digests").rglob("2024-03.md")).read_text(encoding="utf-8")
    assert "plumber" in month and "Friday" not in month and "22 March" not in month
