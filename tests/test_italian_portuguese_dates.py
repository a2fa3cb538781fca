"""Italian and Portuguese journals get dates, day labels and month titles of their own, as French and Spanish ones
do: "## 5 marzo 2024" and "## 5 de março de 2024" dated nothing (Italian "marzo" only as Spanish's), a month of
Italian files was titled and labelled in another language ("5 de marzo")."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from batchsum.cli import main
from batchsum.digest_pages import split_day_label
from batchsum.doc_dates import dated
from batchsum.periods import label_language
from batchsum.tree import parse_markdown

COPIED = 1_800_000_000 * 10**9  # an mtime in 2027: when the file was copied, not written

ENTRIES = {
    "it": (
        "Stamattina sono andato al mercato con mia sorella. Abbiamo comprato frutta, verdura e pane, e poi siamo "
        "tornati a casa a piedi lungo il fiume.",
        "Ho letto tutto il pomeriggio un romanzo di Calvino. La pioggia batteva sulle finestre e la città sembrava "
        "addormentata sotto un cielo grigio.",
    ),
    "pt": (
        "Hoje de manhã fui ao mercado com a minha irmã. Comprámos fruta, legumes e pão, e depois voltámos para "
        "casa a pé ao longo do rio.",
        "Passei a tarde inteira a ler um romance de Saramago. A chuva batia nas janelas e a cidade parecia "
        "adormecida debaixo de um céu cinzento.",
    ),
}
# Each language's month title and its day labels, as it writes them: a month in lower case in running text.
WRITTEN = {
    "it": ("Aprile 2024", "**5 aprile**", "**12 aprile**"),
    "pt": ("Abril de 2024", "**5 de abril**", "**12 de abril**"),
}


@pytest.mark.parametrize(
    "heading",
    ["## 5 aprile 2024", "## venerdì 5 aprile 2024", "## 5 de abril de 2024", "## sexta-feira, 5 de abril de 2024"],
)
def test_an_italian_or_portuguese_day_heading_dates_its_file(tmp_path: Path, heading: str) -> None:
    text = f"{heading}\n\n{ENTRIES['it'][0]}\n"
    assert dated(tmp_path / "diario.md", text, COPIED) == ("2024-04-05", "first entry")


@pytest.mark.parametrize(
    ("heading", "day"),
    [
        ("## 5 maggio 2024", "2024-05-05"),
        ("## 5 de maio de 2024", "2024-05-05"),
        ("## 5 de março de 2024", "2024-03-05"),
    ],
)
def test_months_no_other_language_writes_date_a_file(tmp_path: Path, heading: str, day: str) -> None:
    assert dated(tmp_path / "diario.md", f"{heading}\n\n{ENTRIES['pt'][0]}\n", COPIED) == (day, "first entry")


@pytest.mark.parametrize("language", sorted(ENTRIES))
def test_a_month_of_italian_or_portuguese_files_is_titled_and_labelled_in_its_language(
    tmp_path: Path, language: str
) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    for day, text in zip(("05", "12"), ENTRIES[language], strict=True):
        (src / f"2024-04-{day}.md").write_text(text + "\n", encoding="utf-8")
    got = CliRunner().invoke(main, ["run", str(src), "--out", str(out), "--type", "journal", "--no-index", "-q"])
    assert got.exit_code == 0, got.output
    meta, body = parse_markdown((out / "digests" / "2024" / "2024-04.md").read_text(encoding="utf-8"))
    title, *labels = WRITTEN[language]
    assert meta["language"] == language and meta["title"] == title, meta
    text = body.split("<!--")[0]
    assert all(label in text for label in labels), text
    for paragraph in filter(None, (p.strip() for p in text.split("\n\n")[1:])):
        label, _ = split_day_label(paragraph)
        assert label.strip("* ") and label_language(label.strip("* ")) in (language, None), paragraph
