"""A year's page links its months by the titles their own pages show, in the entries' language."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main

ENTRIES = {
    "2024-05-03": "Приехали в Москву поздно вечером. Иван встретил нас на вокзале и отвёз домой.",
    "2024-06-04": "Обедали в грузинском ресторане с друзьями. Потом долго гуляли по набережной реки.",
}


def test_a_years_month_links_read_as_the_months_own_titles(tmp_path: Path) -> None:
    src = tmp_path / "journal"
    src.mkdir()
    for day, text in ENTRIES.items():
        (src / f"{day}.md").write_text(text + "\n", encoding="utf-8")
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["run", str(src), "--out", str(out), "--type", "journal", "--no-index", "-q"])
    assert result.exit_code == 0, result.output
    year = (out / "digests" / "2024.md").read_text(encoding="utf-8")
    months = next(line for line in year.splitlines() if line.startswith("Months: "))
    assert "[Май 2024]" in months and "[Июнь 2024]" in months, months
    assert (out / "digests" / "2024" / "2024-05.md").read_text(encoding="utf-8").count("# Май 2024") == 1
