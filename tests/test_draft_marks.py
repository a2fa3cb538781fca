"""A writer's drafts and a note app's exports as their reader sees them: CriticMarkup read as accepted, TK
placeholders, Fountain notes and boneyard, Logseq's NOW tasks and trailing tags, Dataview's inline fields,
a Notion page's properties and a fan-fiction chapter's author's notes (real runs, real index)."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main
from batchsum.index.search import search
from batchsum.readers.note_syntax import note_syntax_as_text
from tests.test_search_phrases import indexed_corpus

DRAFT = """# Chapter Five

The inspector arrived at the lighthouse a little after nine, {--wearing a grey coat--}{++in a coat the colour \
of wet slate++}, and stood a long time at the bottom of the stair before he climbed it.

Agnes watched him from the kitchen window. [TK: describe the inspector's face] He carried a leather case under \
his arm, and he did not look up at the lamp once.

{>>Editor: too many "and"s in this paragraph. Cut?<<}

Samuel met him at the door of the lamp room. The two men spoke for {~~ten~>twenty~~} minutes, and when the \
inspector came down again his case was lighter by one envelope.

"Your father is a stubborn man, Miss Tremayne," he said. {==He did not smile.==}{>>Is this too on the nose?<<}

TK TK — add the letter from Thomas here?
"""

SCREENPLAY = """INT. VAULT - NIGHT

The alarm is silent. LENA (30s) kneels before the safe, a stethoscope pressed to the dial.

[[Is the stethoscope too cliché? Replace with an app on her phone.]]

LENA
Three clicks left. Two right. It's the old Mosler lock, same as in Prague.

McCLANE
(over the radio)
You have ninety seconds before the guard comes back round.

/*
LENA
I hate this job. I hate you. Cut this whole exchange, it's flat.
*/

LENA
Then stop talking and let me listen to the tumblers.

GUARD (O.S.)
Who's down there?

LENA
(whispering)
Nobody. Just the rats.
"""

FANFIC = """# After the Storm — Chapter 1

**Warnings:** Mild peril.

A/N: Hi everyone!! This is my first fic so please be nice lol. Reviews make me update faster!!!

Hermione had not expected to find the lighthouse lit. The island had been abandoned for forty years.

A/N: the ferryman is an OC, sorry!

"Someone's up there," said Ron, shading his eyes. They climbed the cliff path in silence.

Author's Note: Cliffhanger, sorry not sorry! Please leave a review!!
"""


def _run(tmp_path: Path, files: dict[str, str]) -> str:
    """The index and digest pages a real run writes for ``files`` (what reads the summaries: a note kept whole
    is its own final, as written), their front matter left out."""
    src = tmp_path / "src"
    for name, text in files.items():
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        (src / name).write_text(text, encoding="utf-8")
    out = tmp_path / "out"
    res = CliRunner().invoke(main, ["run", str(src), "--out", str(out), "--no-index", "-q"])
    assert res.exit_code == 0, res.output
    pages = [p.read_text(encoding="utf-8") for p in [out / "index.md", *sorted((out / "digests").rglob("*.md"))]]
    return "\n".join(re.sub(r"\A---\n.*?\n---\n", "", p, flags=re.S) for p in pages)


def test_critic_markup_reads_as_accepted_and_tk_placeholders_go(tmp_path: Path) -> None:
    shown = note_syntax_as_text(DRAFT)
    assert "in a coat the colour of wet slate," in shown and "spoke for twenty minutes" in shown, shown
    assert "he said. He did not smile." in shown, shown
    for unseen in ("grey coat", "ten~", "Editor", "on the nose", "TK", "{", "}"):
        assert unseen not in shown, unseen
    written = _run(tmp_path, {"ch5.md": DRAFT, "ch6.md": DRAFT.replace("Five", "Six")})
    assert not re.search(r"\{[-+~=>]|TK|grey coat|on the nose", written), written


def test_a_draft_comment_is_not_searchable(tmp_path: Path) -> None:
    cfg = indexed_corpus(tmp_path, {"ch5.md": DRAFT, "dog.md": "The dog pressed its nose against the cold glass."})
    hits = search(cfg, "nose", k=5, warn=False)
    assert hits and hits[0].source_path == "dog.md", [(h.source_path, h.snippet) for h in hits]
    assert not any("nose" in h.snippet for h in hits if h.source_path == "ch5.md"), hits


def test_fountain_notes_and_boneyard_are_left_out_wikilinks_stay() -> None:
    shown = note_syntax_as_text(SCREENPLAY)
    assert "cliché" not in shown and "Replace with" not in shown and "hate" not in shown, shown
    assert "listen to the tumblers" in shown and "ninety seconds" in shown, shown
    # A wikilink is a page's name, shown as it was: "[[Page Name]]", "[[Page|alias]]", "[[St. Ives]]".
    links = note_syntax_as_text("Met [[Ana Ribeiro]] about [[Project Alpha|Alpha]] in [[St. Ives]].")
    assert links == "Met Ana Ribeiro about Alpha in St. Ives.", links
    # "/* ... */" outside a screenplay is someone's text (a C comment quoted in a note).
    assert "/* keep */" in note_syntax_as_text("The header says /* keep */ at the top.")


def test_a_screenplays_boneyard_is_not_searchable(tmp_path: Path) -> None:
    cfg = indexed_corpus(tmp_path, {"heist.txt": SCREENPLAY, "diary.md": "I hate mornings and I hate rain."})
    hits = search(cfg, "hate", k=5, warn=False)
    assert hits and hits[0].source_path == "diary.md", [(h.source_path, h.snippet) for h in hits]
    assert not any("hate" in h.snippet for h in hits if h.source_path == "heist.txt"), hits


def test_logseq_now_tasks_and_a_trailing_tag(tmp_path: Path) -> None:
    journal = (
        "- NOW Call the plumber about the kitchen drain\n"
        "- LATER Renew the domain\n"  # a Logseq page's evidence: NOW is a marker only there
        "- NOW is the time to act, said nobody.\n"
        "- Running a three-node k3s cluster on old ThinkPads in the cupboard. #homelab\n"
        "\t- Node one has 16 GB of memory and hosts the Postgres database.\n"
    )
    shown = note_syntax_as_text(journal)
    assert "- ☐ Call the plumber" in shown and "- NOW is the time" in shown, shown
    assert "homelab" not in shown and "cupboard.\n" in shown, shown
    written = _run(tmp_path, {"journals/2024_03_12.md": journal, "journals/2024_03_13.md": journal})
    assert "plumber" not in written and "NOW is the time to act" in written, written  # a task is a facet
    assert "homelab" not in written, written


def test_dataview_inline_fields_read_as_their_values() -> None:
    shown = note_syntax_as_text("Woke up feeling [mood:: rested] after (sleep:: nine hours).\nenergy:: high\n")
    assert shown.startswith("Woke up feeling rested after nine hours.\n") and "high" not in shown, shown


def test_a_notion_pages_properties_are_no_text(tmp_path: Path) -> None:
    page = (
        "# Garden Shed\n\nStatus: In progress\nBudget: 400\nOwner: Me\nCreated: March 14, 2024 9:41 PM\n\n"
        "The shed project moved here from Obsidian. The main risk is the permit: sheds above 2.5 metres need one.\n"
    )
    shown = note_syntax_as_text(page)
    assert "Status" not in shown and "Budget" not in shown and "The shed project" in shown, shown
    written = _run(tmp_path, {"Garden Shed 8e7d6c5b4a39281706f5e4d3c2b1a098.md": page, "other.md": page})
    assert "In progress" not in written.split("# Summaries", 1)[-1], written
    # A standup's fields or a chat's turns under a title are the text.
    standup = "# Standup\n\nYesterday: fixed the bug\nToday: review the PR\n\nMore later.\n"
    chat = "# Call\n\nAna: Are you there?\nBob: Yes, go on.\n"
    assert note_syntax_as_text(standup) == standup and note_syntax_as_text(chat) == chat


def test_author_notes_are_no_story(tmp_path: Path) -> None:
    shown = note_syntax_as_text(FANFIC)
    for apparatus in ("Warnings", "Mild peril", "A/N", "Reviews", "OC, sorry", "Cliffhanger"):
        assert apparatus not in shown, apparatus
    assert "Hermione had not expected" in shown and "said Ron" in shown, shown
    written = _run(tmp_path, {"ch1.md": FANFIC, "ch2.md": FANFIC.replace("Chapter 1", "Chapter 2")})
    assert not re.search(r"A/N|Reviews|review!|Warnings|peril", written), written
    # A meeting's "Notes: ..." line is its text.
    meeting = "Notes: we agreed to ship on Friday.\n\nAna will write the release notes.\n"
    assert note_syntax_as_text(meeting) == meeting
