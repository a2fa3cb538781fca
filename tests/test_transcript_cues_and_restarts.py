"""Transcript cleanup on real runs: a unit or an acronym spelled like a filler stays ("3 mm", "2 Ah", "the
ER report"), a caption tool's cues go with their timestamps ("[inaudible 00:00:32]", "(laughs)") from the
summary and the search snippet, lost words leaving "…", and restarts go from a kept-whole final ("the cha
the channel", "can be can be", "Y Hard", "an and")."""

from __future__ import annotations

from pathlib import Path

from batchsum.cleanup import clean_transcript
from batchsum.index.search import search
from batchsum.index.snippets import clean_text
from tests.test_search_phrases import indexed_corpus

CHAT = (
    '{"role":"user","content":"The bracket gap measured 3 mm after the fix, um, down from 12 mm yesterday."}\n'
    '{"role":"assistant","content":"Good: we ship the 2 Ah pack on Friday, per the ER report."}\n'
)
CALL = """WEBVTT

1
00:00:01.000 --> 00:00:05.000
Julia Novak: Did the landlord sign the lease for the new office?

2
00:00:05.100 --> 00:00:09.000
Omar Haddad: [inaudible 00:00:32]...the movers. (laughs)

3
00:00:09.100 --> 00:00:14.000
Julia Novak: [crosstalk 00:01:02] The trucks come on Tuesday (inaudible) with the desks.
"""
DESIGN = (
    "Industrial Designer: Those are the the cha the channel buttons of course ?\n"
    "User Interface: Well something fancy looking can be can be easy to use .\n"
    "Industrial Designer: Well yeah . Y Hard plastic is of course pretty tough , but it does n't look tough .\n"
    "Marketing: I think it should be hard an and strong looking .\n"
)


def _final(out: Path, name: str) -> str:
    """The body of ``name``'s final summary (front matter and link block left out)."""
    text = (out / name / "summaries" / "L3" / "final.md").read_text(encoding="utf-8")
    return text.split("\n---\n", 1)[1].split("<!-- batchsum:links -->")[0]


def test_units_and_acronyms_spelled_like_fillers_stay(tmp_path: Path) -> None:
    cfg = indexed_corpus(tmp_path, {"chat.jsonl": CHAT})
    final = _final(cfg.out, "chat.jsonl")
    assert "3 mm after" in final and "12 mm" in final and "2 Ah pack" in final, final
    assert "ER report" in final and "um" not in final.split(), final
    cleaned = clean_transcript("The cell holds 5 Ah, the gap is 3 mm wide, um, per the ER report. Uh, er, fine.")
    assert all(w in cleaned for w in ("5 Ah", "3 mm", "ER report")), cleaned
    assert not {"um", "Uh", "er"} & set(cleaned.replace(",", " ").split()), cleaned


def test_caption_cues_with_timestamps_go_and_lost_words_leave_an_ellipsis(tmp_path: Path) -> None:
    cfg = indexed_corpus(tmp_path, {"2026-11-16-call.vtt": CALL})
    final = _final(cfg.out, "2026-11-16-call.vtt")
    assert not any(cue in final for cue in ("[", "(laughs)", "(inaudible)", "00:0")), final
    assert "Omar Haddad: …the movers." in final, final  # the lost words at the turn's start
    assert "Tuesday … with" in final, final
    hits = search(cfg, "the movers", k=5, warn=False)
    assert hits and "movers" in hits[0].snippet and not any(c in hits[0].snippet for c in "[("), hits
    source = clean_text(CALL)  # a snippet from the source passage reads it so
    assert "Omar Haddad: …the movers." in source and "laughs" not in source and "00:00:32" not in source, source
    # At the start of a sentence the hole stands before its first word: no lower-case fragment reads whole.
    assert clean_transcript("Lena: [inaudible] the cluster is on the old certificate.").startswith("Lena: …the")


def test_restarts_go_from_a_kept_whole_final(tmp_path: Path) -> None:
    cfg = indexed_corpus(tmp_path, {"2026-11-20-design.txt": DESIGN})
    final = _final(cfg.out, "2026-11-20-design.txt")
    assert "cha the" not in final and "the channel buttons" in final, final
    assert "can be can be" not in final and "can be easy" in final, final
    assert "Y Hard" not in final and "Hard plastic" in final, final
    assert "an and" not in final and "hard and strong" in final, final
    # Said twice on purpose, or a letter that is a word: kept.
    kept = clean_transcript(
        "Marketing: the code is one two one two , on and on and on .\nPM: A Team meeting , plan B Now ."
    )
    assert "one two one two" in kept and "on and on and on" in kept and "A Team" in kept and "B Now" in kept, kept
