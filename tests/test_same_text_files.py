"""Files with the same text in one run share their summaries: the run line counts them as such, never as
summaries restored from an earlier run's store (a brand-new output folder has none). Real runs."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main

TEXT = (
    "The harbour lantern was lit at dusk by the keeper, who then walked the quay twice and wrote down the tides "
    "in his book before supper. The boats came in late because the wind had turned to the east in the afternoon, "
    "and the fishermen complained about the price of ice at the market. On Sunday the keeper's daughter painted "
    "the door of the lighthouse a bright green, and the neighbours argued for a week about whether it suited the "
    "old stone. In the evening the tide gauge drifted again and had to be reset by hand.\n"
)


def _line(src: Path, out: Path, *extra: str) -> str:
    res = CliRunner().invoke(main, ["run", str(src), "--out", str(out), "--no-index", *extra])
    assert res.exit_code == 0, res.output
    return res.output.strip().splitlines()[-1]


def test_a_first_run_restores_nothing(tmp_path: Path) -> None:
    src = tmp_path / "notes"
    src.mkdir()
    for name in ("a.md", "copy of a.md", "another copy.md"):
        (src / name).write_text(TEXT)
    (src / "b.md").write_text(TEXT + "Something else happened later that week.\n")
    line = _line(src, tmp_path / "out")
    assert "restored" not in line
    assert "2 summarized, 2 the same text as another file" in line


def test_a_copied_folder_still_says_restored(tmp_path: Path) -> None:
    src = tmp_path / "notes"
    src.mkdir()
    (src / "a.md").write_text(TEXT)
    (src / "b.md").write_text(TEXT)
    out = tmp_path / "out"
    _line(src, out)
    for p in src.iterdir():  # touched: read again, every node found stored by the first run
        p.write_text(p.read_text())
    line = _line(src, out, "--language", "en")
    assert "the same text" not in line and "2 restored from stored summaries" in line
