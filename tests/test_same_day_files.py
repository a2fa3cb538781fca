"""Two files of one day ("2024-03-04.md" and "2024-03-04-evening.md", or "2024-03-04 lunch.md") are told apart
in their month's digest, "**4 March (evening).**" after "**4 March.**": both had been labelled "**4 March.**",
and a reader could not tell the entries apart. The year's digest, which reads a month's labels to write each
day's words after its own, reads these too; a day of one file keeps its label."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from batchsum.cli import main
from batchsum.digest_pages import split_day_label
from batchsum.tree import parse_markdown

# Each file's sentences name its own place, so every sentence tells which file it came from.
ENTRIES = {
    "en": {
        "2024-03-04.md": "Walked to the harbour at dawn and counted the boats. The harbour master waved from "
        "his window. The harbour cafe was still closed.",
        "2024-03-04-evening.md": "Dinner at the lighthouse with Mara and her brother. The lighthouse keeper told "
        "stories of the storm. We left the lighthouse after midnight.",
        "2024-03-04 lunch.md": "Lunch at the market hall with the whole team. The market hall was loud and "
        "crowded. Nobody at the market hall had heard of our project.",
        "2024-03-09.md": "Spent the day in the orchard pruning the old trees. The orchard smelled of rain. "
        "By evening the orchard looked tidy again.",
    },
    "de": {
        "2024-03-04.md": "Heute früh bin ich zum Hafen gelaufen und habe die Boote gezählt. Der Hafenmeister "
        "winkte aus seinem Fenster am Hafen. Das Café am Hafen hatte noch geschlossen.",
        "2024-03-04-abends.md": "Abendessen beim Leuchtturm mit Mara und ihrem Bruder. Der Wärter am Leuchtturm "
        "erzählte vom Sturm. Wir verließen den Leuchtturm erst nach Mitternacht.",
        "2024-03-04 mittags.md": "Mittagessen in der Markthalle mit dem ganzen Team. In der Markthalle war es "
        "laut und voll. Niemand in der Markthalle kannte unser Projekt.",
        "2024-03-09.md": "Den ganzen Tag im Obstgarten die alten Bäume geschnitten. Der Obstgarten roch nach "
        "Regen. Am Abend sah der Obstgarten wieder ordentlich aus.",
    },
}
DAY = {"en": ("**4 March.**", "**9 March.**"), "de": ("**4. März**", "**9. März**")}


def _run(src: Path, out: Path, year_words: int) -> tuple[str, str]:
    args = ["run", str(src), "--out", str(out), "--type", "journal", "--no-index", "-q"]
    got = CliRunner().invoke(main, [*args, "--year-words", str(year_words)])
    assert got.exit_code == 0, got.output
    _, month = parse_markdown((out / "digests" / "2024" / "2024-03.md").read_text(encoding="utf-8"))
    _, year = parse_markdown((out / "digests" / "2024.md").read_text(encoding="utf-8"))
    return month.split("<!--")[0], year.split("<!--")[0]


def _by_label(text: str) -> list[tuple[str, str]]:
    """(label, the words after it up to the next label) of a digest's text."""
    pieces = re.split(r"(\*\*[^*\n]+\*\*) ", text.split("\n", 1)[1])
    return list(zip(pieces[1::2], pieces[2::2], strict=True))


@pytest.mark.parametrize("language", sorted(ENTRIES))
@pytest.mark.parametrize("year_words", [25, 600])
def test_files_of_one_day_have_labels_of_their_own_in_the_month_and_the_year(
    tmp_path: Path, language: str, year_words: int
) -> None:
    src = tmp_path / "journal"
    src.mkdir()
    for name, text in ENTRIES[language].items():
        (src / name).write_text(text + "\n", encoding="utf-8")
    month, year = _run(src, tmp_path / "out", year_words)
    labels = [label for label, _ in _by_label(month)]
    # One paragraph per file, each under a label of its own; the day's own file and a day alone as before.
    assert len(labels) == len(set(labels)) == len(ENTRIES[language]), month
    plain, alone = DAY[language]
    assert plain in labels and alone in labels, month
    told = [label for label in labels if label not in (plain, alone)]
    assert all(label.startswith(plain.rstrip(".*")) and "(" in label for label in told), month
    # Each label is a day label the year's digest reads, and stands over its own file's words only.
    for text in (month, year):
        for label, words in _by_label(text):
            assert split_day_label(f"{label} {words}")[0], (label, text)
            day = int(re.match(r"\*\*(\d+)", label).group(1))  # type: ignore[union-attr]
            rest = label.split("(")[-1].rstrip(".*)") if "(" in label else ""
            name = next(n for n in ENTRIES[language] if (rest in n if rest else n == f"2024-03-{day:02d}.md"))
            source = ENTRIES[language][name]
            sentences = [s for s in re.split(r"(?<=[.!?])\s+", words.strip()) if s]
            assert sentences and all(s in source for s in sentences), (label, words, text)
    assert len(_by_label(year)) == len({label for label, _ in _by_label(year)}), year


def test_files_of_one_day_that_open_with_their_own_day_heading_are_told_apart(tmp_path: Path) -> None:
    """A diary's day heading ("_December_ 12.--") is written as its day's label: the second file of that day
    (Scott's "scott_1825-12-12_2.md") keeps what tells it apart."""
    src = tmp_path / "journal"
    src.mkdir()
    (src / "scott_1825-12-12.md").write_text("_December_ 12.--Dined at home and wrote till late.\n", "utf-8")
    (src / "scott_1825-12-12_2.md").write_text("_December_ 12.--An odd optical delusion has amused me.\n", "utf-8")
    got = CliRunner().invoke(main, ["run", str(src), "--out", str(tmp_path / "out"), "--type", "journal", "-q"])
    assert got.exit_code == 0, got.output
    _, month = parse_markdown((tmp_path / "out" / "digests" / "1825" / "1825-12.md").read_text(encoding="utf-8"))
    labels = [label for label, _ in _by_label(month.split("<!--")[0])]
    assert labels == ["**12 December.**", "**12 December (2).**"], month


def test_a_long_name_with_marks_to_escape_still_reads_as_its_days_label(tmp_path: Path) -> None:
    # "<" is "&lt;" in a page: cut before escaping, a label of five such words had grown past what the patterns
    # that read labels back accept, and the year's digest then saw no day there (review).
    src = tmp_path / "notes"
    src.mkdir()
    files = dict(ENTRIES["en"])
    files["2024-03-04 re <acme> <q1> <budget> <hr> <ops> plan.md"] = files.pop("2024-03-04 lunch.md")
    for name, text in files.items():
        (src / name).write_text(text, encoding="utf-8")
    month, _ = _run(src, tmp_path / "out", 600)
    labels = [label for label, _ in _by_label(month)]
    assert any(label.startswith("**4 March (re") for label in labels), labels
    for paragraph in filter(None, (p.strip() for p in month.split("\n\n")[1:])):
        label, _rest = split_day_label(paragraph)
        assert label, paragraph
