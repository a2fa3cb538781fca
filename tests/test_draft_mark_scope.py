"""A draft's and an export's marks are read away only on the evidence of their own format: an ordinary note's
"Notes:" list, a standup's turns, a "TK:" speaker, an abbreviated wikilink, C++ paths, shell globs and a
"NOW" in prose are its text, in what is summarized and in the index (real runs, real index)."""

from __future__ import annotations

from pathlib import Path

from batchsum.index.search import search
from batchsum.readers.note_syntax import draft_marks_blanked, note_syntax_as_text
from tests.test_search_phrases import indexed_corpus

GLOBS = (
    "PLAN\nMount the share at /mnt/* on each node.\n\n"
    "BACKUP\nRestic copies the volumes every night.\nSync /srv/*/data nightly.\n"
)
TK_SPEAKER = "TK: I finished the migration.\nAna: I reviewed the PR.\n"


def test_a_notes_list_and_a_warning_are_a_notes_text() -> None:
    sprint = (
        "# Sprint review\n\nWe shipped the importer.\n\n"
        "Notes:\n- Follow up with Ana about pricing\n- Send the deck to Ben\n"
    )
    assert "Follow up with Ana" in note_syntax_as_text(sprint) and "deck" in note_syntax_as_text(sprint)
    backup = "# Backup\n\nCopies home to the NAS.\n\nWarning: it deletes snapshots after 30 days.\n"
    assert "deletes snapshots" in note_syntax_as_text(backup)
    # "AN:" alone is no fan-fiction evidence.
    short = "# Plan\n\nWe meet on Monday.\n\nAN: bring the contracts.\n"
    assert "contracts" in note_syntax_as_text(short)


def test_a_standups_turns_under_a_title_are_no_notion_properties() -> None:
    standup = "# Standup\n\nAna: Finished the API migration\nBen: Still on the UI bug\nAna: OK\n"
    shown = note_syntax_as_text(standup)
    assert "API migration" in shown and "UI bug" in shown, shown


def test_a_speaker_called_tk_is_no_placeholder(tmp_path: Path) -> None:
    for read in (note_syntax_as_text, draft_marks_blanked):
        assert "finished the migration" in read(TK_SPEAKER), read
    assert note_syntax_as_text("TK.\nShe left.\n").strip() == "She left."  # a placeholder line alone still goes
    cfg = indexed_corpus(tmp_path, {"call.txt": TK_SPEAKER * 3, "other.md": "We walked to the harbour."})
    hits = search(cfg, "migration", k=5, warn=False)
    assert any(h.source_path == "call.txt" for h in hits), hits


def test_wikilinks_with_an_abbreviation_stay_names() -> None:
    shown = note_syntax_as_text("Reading [[Mrs. Dalloway]], then [[Prof. Smith notes]].\n")
    assert "Mrs. Dalloway" in shown and "Prof. Smith notes" in shown, shown
    # A sentence in double brackets outside a screenplay is a wikilink's text too.
    assert "Cut it" in note_syntax_as_text("See [[Is this too cliché? Cut it.]] for the list.\n")


def test_rust_and_cpp_paths_are_no_dataview_fields() -> None:
    code = "Use `(std::string)` and call it (see Foo::bar) later.\n"
    assert note_syntax_as_text(code) == code
    assert "`[key:: value]`" in note_syntax_as_text("Write `[key:: value]` for a field.\n")


def test_a_glob_in_a_note_opens_no_boneyard(tmp_path: Path) -> None:
    for read in (note_syntax_as_text, draft_marks_blanked):
        assert "copies the volumes" in read(GLOBS), read
    cfg = indexed_corpus(tmp_path, {"ops.txt": GLOBS * 2, "other.md": "We walked to the harbour."})
    hits = search(cfg, "volumes", k=5, warn=False)
    assert any(h.source_path == "ops.txt" for h in hits), hits


def test_now_in_prose_is_no_logseq_task() -> None:
    prose = "- NOW I see why we lost the client.\n"
    assert note_syntax_as_text(prose) == prose
