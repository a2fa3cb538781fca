"""Notes from Obsidian and Logseq read as their reader sees them: no wikilink brackets, hidden comment,
property, macro or front matter in a summary, a digest, index.md or a snippet; tasks are the facets'."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from batchsum.backends.units import units_from_text
from batchsum.cli import main
from batchsum.digest_pages import digest_body
from batchsum.periods import FileFacts, Period, one_line
from batchsum.readers.note_syntax import note_syntax_as_text

OBSIDIAN = """---
tags: [daily, work]
mood: ok
---
# Wednesday, 13 March 2024

## Tasks
- [x] standup notes
- [ ] review Tom's PR #42 📅 2024-03-14

## Log
Standup with [[Ana Ribeiro|Ana]] about [[Project Alpha]], see ![[diagram.png]]. Tom is blocked on the
staging server and ==the demo may slip== by a week.[^1] I promised to review his pull request by
tomorrow. %%he seemed annoyed, talk to him 1:1%%

> [!note] Staging
> The staging server needs a new disk before Friday. #ops #[[house keeping]]

[^1]: The demo is on the 20th.
"""

LOGSEQ = """- type:: decision
  project:: [[Project Alpha]]
- **Decision**: PostgreSQL 16 for [[Project Alpha]], the MongoDB prototype is archived
  id:: 65f0a1b2-2222-4c3d-9e8f-0123456789ab
  - Reason: reporting needs joins across stations, tides and maintenance logs
  - DONE architecture review
  - TODO write ADR-007
    DEADLINE: <2024-03-19 Tue>
  - {{embed ((65f0a1b2-2222-4c3d-9e8f-0123456789ab))}}
- #+BEGIN_QUERY
  {:title "Open tasks" :query [:find (pull ?b [*]) :where [?b :block/marker "TODO"]]}
  #+END_QUERY
- Felt relieved. Two weeks of back and forth are over.
"""

_MARKS = re.compile(r"\[\[|\]\]|%%|==|\[\^|\[!|::|\{\{|\(\(|#\+|\b(?:TODO|DONE)\b|\[[ x]\]|^---$|tags:", re.M)


@pytest.mark.parametrize("text", [OBSIDIAN, LOGSEQ], ids=["obsidian", "logseq"])
def test_marks_read_as_text(text: str) -> None:
    shown = note_syntax_as_text(text)
    assert _MARKS.search(shown) is None, _MARKS.search(shown)
    assert "annoyed" not in shown  # a hidden comment is never shown
    # Paragraphs stay where they were; a Logseq date line joins its task's line.
    assert text.count("\n") == shown.count("\n") + text.count("DEADLINE:") + text.count("SCHEDULED:")


def test_wikilinks_aliases_tasks_and_dates() -> None:
    shown = note_syntax_as_text(OBSIDIAN)
    assert "Standup with Ana about Project Alpha, see ." in shown and "the demo may slip by a week." in shown
    assert "- ☑ standup notes" in shown and "- ☐ review Tom's PR #42" in shown  # "#42" is no tag
    # A callout's title heads what it holds, its body is text (no "> " marks), a line of tags alone files
    # the note: headings, no sentences.
    assert "ops house keeping" in shown and "#### Staging\nThe staging server" in shown
    filed = note_syntax_as_text("She is careful with numbers.\n#person #work\nWent #kayaking today.\n")
    assert filed == "She is careful with numbers.\n#### person work\nWent kayaking today.\n"
    # Tags after a line's last sentence file that line: left out (as words they had joined the sentence, as a
    # heading they labelled the lines under it).
    trailing = note_syntax_as_text("The homelab runs k3s. #homelab #kubernetes\nC# and #42 stay.\n")
    assert trailing == "The homelab runs k3s.\nC# and #42 stay.\n"
    assert "- ☐ write ADR-007 📅 2024-03-19" in note_syntax_as_text(LOGSEQ)
    # DialogSum's speaker marks, a heading, code paths and "C#" are left alone.
    plain = "#Person1#: Hi.\n# Title\nI use C# and std::io and String::from daily, see page#part."
    assert note_syntax_as_text(plain) == plain


def test_tasks_are_no_summary_sentences() -> None:
    units = units_from_text(note_syntax_as_text(OBSIDIAN), "journal")
    assert not any(u.candidate for u in units if "☐" in u.text or "☑" in u.text)
    assert any(u.candidate and "staging server" in u.text for u in units)


def test_index_lines_and_digests_read_the_notes_as_text() -> None:
    assert one_line("Team: [[Ana Ribeiro]], [[Tom|Tommy]] and %%secret%% me.") == "Team: Ana Ribeiro, Tommy and me."
    # A final that ends without a stop ran into the next one's sentence, and the month lost every label.
    parts = ["Tom is blocked on the staging server {{query (todo)}}", "We walked to the harbour. The sea was calm."]
    owners = [
        FileFacts("d/2024-03-13.md", "k1", "2024-03-13", "", 9),
        FileFacts("d/2024-03-14.md", "k2", "2024-03-14", "", 9),
    ]
    body = digest_body(Period("month", "2024-03"), "\n\n".join(parts), parts, owners)
    assert body.startswith("**13 March.** ") and "**14 March.** We walked" in body, body


def test_a_vault_run_skips_templates_drawings_and_backups(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    (vault / "Templates").mkdir(parents=True)
    (vault / "Templates" / "Daily.md").write_text("# {{date:dddd}}\n\n## Tasks\n- [ ] \n", encoding="utf-8")
    (vault / "Drawing 2024-03-05.excalidraw.md").write_text(
        "---\nexcalidraw-plugin: parsed\n---\n==⚠ Switch to EXCALIDRAW VIEW in the MORE OPTIONS menu. ⚠==\n",
        encoding="utf-8",
    )
    (vault / "logseq" / "bak" / "pages").mkdir(parents=True)
    (vault / "logseq" / "bak" / "pages" / "Alpha.md").write_text("- Old backup of the page.\n", encoding="utf-8")
    (vault / "2024-03-13.md").write_text(OBSIDIAN, encoding="utf-8")
    # A note about templates is a note: "Mustache replaces {{title}} ..." outside a templates folder.
    (vault / "mustache.md").write_text("Mustache replaces {{title}} with the value of the title key. " * 8, "utf-8")
    (vault / "attachments").mkdir()
    for name in ("diagram.png", "photo.png", "schema.pdf"):
        (vault / "attachments" / name).write_bytes(b"\x89PNG\r\n")
    plan = CliRunner().invoke(main, ["plan", str(vault), "--out", str(tmp_path / "out")])
    assert "3 files of types batchsum does not read passed over: .png 2, .pdf 1" in plan.output, plan.output
    res = CliRunner().invoke(main, ["run", str(vault), "--out", str(tmp_path / "out"), "--no-index", "--json"])
    data = json.loads(res.stdout)
    assert any("passed over: .png 2, .pdf 1" in w for w in data["warnings"]), data["warnings"]
    assert res.exit_code == 0 and data["run"]["files_done"] == 2, res.output
    reasons = sorted(f["error"] for f in data["files"] if f["status"] == "skipped")
    assert [r.split(",")[0] for r in reasons] == [
        "a Logseq backup of a page",
        "a note template ({{date:dddd}} in a templates folder)",
        "an Excalidraw drawing",
    ], reasons
    # A run over part of the vault counts only the files of that part.
    part = CliRunner().invoke(main, ["plan", str(vault / "logseq"), "--out", str(tmp_path / "out")])
    assert "passed over" not in part.output, part.output
    index = (tmp_path / "out" / "index.md").read_text(encoding="utf-8").split("\n---\n", 1)[1]  # its own front matter
    assert _MARKS.search(index.replace("{{title}}", "")) is None and "annoyed" not in index, index


def test_a_folder_of_short_notes_digests_each_as_prose(tmp_path: Path) -> None:
    """Notes kept whole (too short to summarize) are read by their folder's digest as prose: no title
    heading, a list item a sentence of its own ("# Ana Ribeiro Backend engineer ... Birthday: 2 May
    Likes: climbing" had run together)."""
    people = tmp_path / "vault" / "People"
    people.mkdir(parents=True)
    (people / "Ana Ribeiro.md").write_text(
        "---\ntags: [person]\n---\n# Ana Ribeiro\n\nBackend engineer on [[Project Alpha]].\n\n"
        "- Birthday: 2 May\n- Likes: climbing, Lisbon\n",
        encoding="utf-8",
    )
    (people / "Tom.md").write_text("# Tom\n\nData engineer, owns the migration. See [[1-1 with Tom]].\n", "utf-8")
    out = tmp_path / "out"
    res = CliRunner().invoke(main, ["run", str(tmp_path / "vault"), "--out", str(out), "--no-index", "-q"])
    assert res.exit_code == 0, res.output
    digest = (out / "digests" / "folders" / "People.md").read_text(encoding="utf-8").split("\n---\n", 1)[1]
    assert "# Ana Ribeiro" not in digest and "[[" not in digest, digest
    assert "Birthday: 2 May. Likes: climbing, Lisbon." in digest, digest
