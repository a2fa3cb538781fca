"""A file of many days' entries (a month's file, a week's, a one-file diary) has each of its lines under its own
day in the digests, whether its final is kept whole or BRIEF; a month's paragraphs follow the days written, not
the files' dates; a day's file is labelled by the day in its name, not by another month's heading."""

from __future__ import annotations

import re
from pathlib import Path

import batchsum

LABEL = re.compile(r"\*\*([^*]+?)\.?\*\* ")


def _run(tmp_path: Path, files: dict[str, str]) -> Path:
    src, out = tmp_path / "src", tmp_path / "out"
    for name, text in files.items():
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        (src / name).write_text(text, encoding="utf-8")
    batchsum.run([src], out=out, content_type="journal", index=False, metrics=False)
    return out


def _body(path: Path) -> str:
    """A digest's text: after its title, before its links."""
    return path.read_text(encoding="utf-8").split("\n# ", 1)[1].split("<!-- batchsum:links -->")[0]


def _labelled(body: str) -> list[tuple[str, str]]:
    """Each label of a digest's text with the words after it, up to the next label."""
    pieces = LABEL.split(body)
    return [(pieces[k], pieces[k + 1]) for k in range(1, len(pieces) - 1, 2)]


MONTH_FILE = (
    "# March 2024\n\n## 1 March 2024\n\nBought a new bike.\n\n## 12 March 2024\n\n"
    "Dentist at nine, then the train to Leeds.\n\n## 20 March 2024\n\nFinished the quarterly report.\n"
)
WEEK_FILE = (
    "# Week 10\n\n## Monday 4 March 2024\n\nRain all day; read in the kitchen.\n\n"
    "## Wednesday 6 March 2024\n\nCalled Mum about the party.\n"
)


def test_kept_whole_month_and_week_files_label_each_day_in_date_order(tmp_path: Path) -> None:
    out = _run(tmp_path, {"2024-03.md": MONTH_FILE, "2024-W10.md": WEEK_FILE})
    month = _body(out / "digests" / "2024" / "2024-03.md")
    words = {"1 March": "bike", "4 March": "Rain", "6 March": "Mum", "12 March": "Dentist", "20 March": "quarterly"}
    labelled = _labelled(month)
    assert [label for label, _ in labelled] == list(words), month  # each day once, in the days' order
    assert all(words[label] in text for label, text in labelled), month
    year = _body(out / "digests" / "2024.md")
    assert [label for label, _ in _labelled(year)] == list(words), year  # no "**March.** **2024-03.**"


def test_a_kept_whole_diary_has_each_entry_under_its_own_day_without_its_dateline(tmp_path: Path) -> None:
    diary = (
        "# Travel journal\n\n"
        "June 2, 2024.--Left Lisbon on the early train and reached Porto by noon.\n\n"
        "August 14, 2024.--Climbed to the old lighthouse with Marta.\n\n"
        "October 2, 2024.--Took the ferry to Vigo; the customs officer kept my umbrella.\n"
    )
    out = _run(tmp_path, {"travel.md": diary})
    for page in (out / "digests" / "2024" / "2024-06.md", out / "digests" / "2024.md"):
        body = _body(page)
        labelled = _labelled(body)
        assert [label for label, _ in labelled] == ["2 June", "14 August", "2 October"], body
        assert all(w in t for (_, t), w in zip(labelled, ["Lisbon", "lighthouse", "Vigo"], strict=True)), body
        assert ", 2024.--" not in body, body  # the label stands in its dateline's place


ENTRIES = {
    7: "We drove to the coast and rented a small cabin above the bay. The water was warm and the sand was white. "
    "In the evening we grilled fish on the porch and watched the boats come in. The neighbours lent us two bikes.",
    9: "Today I taught a class of seventh graders about writing letters to their future selves. They listened "
    "closely and asked good questions about stamps. One boy wrote four pages about his dog and his grandmother.",
    14: "My sister called to say the new job in Toronto starts in September and she is moving in August. We "
    "talked about the house, the cat and who keeps the piano. She sounded tired but happy about the change.",
    25: "The roof leaked again after the storm, so the plumber came at noon and replaced two tiles and a gutter. "
    "He charged less than we feared. Afterwards I painted the fence in the back garden until it was dark.",
}


def test_a_brief_month_file_labels_its_lines_by_the_entries_they_come_from(tmp_path: Path) -> None:
    text = "# July 2025\n\n" + "".join(f"## {d} July 2025\n\n{words}\n\n" for d, words in ENTRIES.items())
    out = _run(tmp_path, {"2025-07.md": text})
    final = (out / "2025-07.md" / "summaries" / "L3" / "final.md").read_text(encoding="utf-8")
    assert "kept_whole" not in final and "summary_level: BRIEF" in final, final
    month = _body(out / "digests" / "2025" / "2025-07.md")
    labelled = _labelled(month)
    assert labelled and "2025-07" not in month, month
    for label, words in labelled:
        day = int(label.split()[0])
        sentences = [s for s in re.split(r"(?<=\.) ", words.strip()) if s]
        assert all(s.rstrip(".") in ENTRIES[day] for s in sentences), (label, words)


def test_a_day_file_opening_with_another_months_heading_keeps_its_own_day(tmp_path: Path) -> None:
    out = _run(
        tmp_path,
        {
            "2023/2023-04-08.md": "Walked to the harbour and sketched the boats.\n",
            "2023/2023-04-10.md": "_December 10._--A stormy and rainy day. Walked through the rain to the Court.\n",
            "2023/2023-04-12.md": "Planted the tomatoes and the basil in the back garden.\n",
        },
    )
    for page in (out / "digests" / "2023" / "2023-04.md", out / "digests" / "2023.md"):
        body = _body(page)
        labels = [label for label, _ in _labelled(body)]
        assert labels == ["8 April", "10 April", "12 April"], body
