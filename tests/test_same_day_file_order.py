"""Files of one day come in a file manager's order, the day's own file first: "2024-03-05-abend.md" had come
before "2024-03-05.md" in the month's digest and in index.md (the whole name compared, and "-" sorts before
".")."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main
from batchsum.periods import path_order
from batchsum.tree import parse_markdown


def test_a_stem_sorts_before_a_longer_stem_whatever_its_extension() -> None:
    names = ["j/2024-03-05-abend.md", "j/2024-03-05.txt", "j/2024-03-05.md", "j/2024-03-05_2.md", "j/2024-03-04.md"]
    ordered = sorted(names, key=path_order)
    assert ordered[0] == "j/2024-03-04.md"
    assert set(ordered[1:3]) == {"j/2024-03-05.md", "j/2024-03-05.txt"}, ordered


def test_a_days_own_file_comes_first_in_its_month_and_in_the_index(tmp_path: Path) -> None:
    src, out = tmp_path / "journal", tmp_path / "out"
    src.mkdir()
    (src / "2024-03-05-abend.md").write_text("Abends waren wir am Leuchtturm und aßen Fisch.\n", encoding="utf-8")
    (src / "2024-03-05.md").write_text("Morgens liefen wir zum Hafen und zählten die Boote.\n", encoding="utf-8")
    got = CliRunner().invoke(main, ["run", str(src), "--out", str(out), "--type", "journal", "--no-index", "-q"])
    assert got.exit_code == 0, got.output
    meta, _ = parse_markdown((out / "digests" / "2024" / "2024-03.md").read_text(encoding="utf-8"))
    assert [Path(f).parts[-4] for f in meta["finals"]] == ["2024-03-05.md", "2024-03-05-abend.md"], meta
    index = (out / "index.md").read_text(encoding="utf-8")
    assert index.index("[2024-03-05]") < index.index("[2024-03-05-abend]"), index
