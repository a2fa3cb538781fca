"""Where the digests go when a source folder is named ``digests``: ``batchsum-digests/``, and they stay
there after that folder is deleted, since its soft-deleted tree still lies in the output's ``digests/``."""

from __future__ import annotations

import shutil
from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main
from batchsum.periods import DIGESTS_DIR_ALT


def _run(src: Path, out: Path) -> str:
    res = CliRunner().invoke(main, ["run", str(src), "--out", str(out)], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return res.output


def _entry(day: int, text: str) -> str:
    return f"# 1825-11-{day}\n\n{text}\n"


def test_digests_stay_in_their_folder_after_the_source_folder_named_digests_goes(tmp_path: Path) -> None:
    src, out = tmp_path / "journal", tmp_path / "out"
    (src / "digests").mkdir(parents=True)
    (src / "scott_1825-11-24.md").write_text(
        _entry(24, "Walked to Abbotsford in the rain. The new roof of the library is finished at last."),
        encoding="utf-8",
    )
    (src / "digests" / "1825.md").write_text(
        _entry(27, "Letters from Constable about the bills. Worked all morning on the life of Napoleon."),
        encoding="utf-8",
    )
    _run(src, out)
    assert (out / DIGESTS_DIR_ALT / "1825" / "1825-11.md").is_file()

    shutil.rmtree(src / "digests")
    for night in range(2):
        if night:
            with (src / "scott_1825-11-24.md").open("a", encoding="utf-8") as f:
                f.write("Dined with the Fergusons.\n")
        output = _run(src, out)
        assert "digests not updated" not in output
        index = (out / "index.md").read_text(encoding="utf-8")
        assert f"<{DIGESTS_DIR_ALT}/1825/1825-11.md>" in index
        assert "folders/digests.md" not in index  # that folder is gone, and so is its digest
        assert not (out / DIGESTS_DIR_ALT / "folders" / "digests.md").exists()
        # No second digests folder: nothing of the digests was written among the deleted tree.
        assert not (out / "digests" / "1825").exists()
        digest = (out / DIGESTS_DIR_ALT / "1825" / "1825-11.md").read_text(encoding="utf-8")
        assert "Napoleon" not in digest
    assert "Fergusons" in (out / DIGESTS_DIR_ALT / "1825" / "1825-11.md").read_text(encoding="utf-8")
