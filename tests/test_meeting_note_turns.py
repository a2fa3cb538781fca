"""A Markdown meeting note of ``**Name:**`` turns: its front matter stays front matter (left out of the
summary, its date read), and the items written under its headings merge with those the rules find."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main

BOLD_TURNS = (
    "---\ntitle: Sync\ndate: 2024-03-14\n---\n# Sync\n\n"
    "**Priya:** We decided to move the launch to April 3.\n"
    "**Dev:** I will prepare the release notes by Monday.\n"
    "**Priya:** Good, thanks.\n"
    "**Dev:** Fine.\n"
)


def _run(tmp_path: Path, name: str, text: str) -> tuple[str, str]:
    """The final summary and index.md of a run over one note."""
    src = tmp_path / "notes"
    src.mkdir()
    (src / name).write_text(text, encoding="utf-8")
    out = tmp_path / "out"
    r = CliRunner().invoke(main, ["run", str(src), "--out", str(out), "--no-index", "--json"])
    assert r.exit_code == 0 and json.loads(r.stdout)["run"]["files_done"] == 1, r.output
    final = (out / name / "summaries" / "L3" / "final.md").read_text(encoding="utf-8")
    return final, (out / "index.md").read_text(encoding="utf-8")


def test_front_matter_of_bold_speaker_turns_is_no_text_and_dates_the_note(tmp_path: Path) -> None:
    final, index = _run(tmp_path, "bold_turns.md", BOLD_TURNS)
    assert "date_source: front matter" in final
    assert "2024-03-14" in final.split("doc_date:", 1)[1].split("\n", 1)[0]
    # Kept whole, the note is its final as a plain-label note's is, without its own front matter (the final's
    # holds its date): never text ("--- title: Sync ...").
    assert "--- title" not in final and "title: Sync" not in final
    assert "\n\nPriya: We decided" in final
    entry = next(ln for ln in index.splitlines() if "bold_turns" in ln)
    assert entry.startswith("- 2024-03-14") and "title:" not in entry


WRITTEN_AND_SAID = (
    "# Launch sync\n\n"
    "Priya: We decided to launch on April 3.\n"
    "Dev: I will book the caterer by Friday.\n"
    "Priya: Good.\n"
    "Dev: Fine.\n\n"
    "## Decisions\n\n- Launch on April 3.\n\n"
    "## Action items\n\n- [ ] @Priya: book the venue\n"
)


def _listed(final: str, heading: str) -> list[str]:
    """The items under a heading of the final's facets (``**Decisions**``) or of the page's own lists (``##
    Decisions``: a facet the page lists already is not listed again)."""
    items: list[str] = []
    for mark in (f"**{heading}**", f"## {heading}"):
        for section in final.split(mark)[1:]:
            section = section.split("\n\n**", 1)[0].split("\n## ", 1)[0].split("<!--", 1)[0]
            items += [ln[2:] for ln in section.splitlines() if ln.startswith("- ")]
    return items


def test_written_items_merge_with_found_ones_and_an_at_label_names_the_owner(tmp_path: Path) -> None:
    final, _ = _run(tmp_path, "sync.md", WRITTEN_AND_SAID)
    decisions = _listed(final, "Decisions")
    assert len([d for d in decisions if "April 3" in d]) == 1, decisions
    actions = _listed(final, "Action items")
    venue = [a for a in actions if "venue" in a]
    # Once: the page's own item ("☐ @Priya: book the venue"), which the facets do not repeat as "Priya: ...".
    assert len(venue) == 1 and venue[0].lstrip("☐ @").startswith("Priya: "), actions
    assert any(a.startswith("Dev: I will book the caterer") for a in actions), actions
