"""A period after an abbreviation or a name's initials ends no sentence: the transcript cleaner leaves the
word after it as it was ("Apple Inc. reported", "flat vs. last year"), and the splitter keeps "J.P. Morgan"
and "Banco S.A." whole, so a summary never shows half a sentence."""

from __future__ import annotations

import json
import re
from pathlib import Path

from click.testing import CliRunner

from batchsum.backends.units import units_from_text
from batchsum.cleanup import clean_transcript
from batchsum.cli import main
from batchsum.speaker_labels import parse_speaker_line
from batchsum.text import split_sentences

CALL = (
    "Operator: Good morning and welcome to the Acme Corp. third quarter earnings call.\n"
    "Jane Doe: Apple Inc. reported net income of $3 million, approx. $1 a share, i.e. growth of 5%.\n"
    "John Roe: U.S. pricing added 3.5 points and shares of Alphabet Inc. rose 3% vs. peers.\n"
    "Karen Liu: Europe was flat vs. last year at $210 million.\n"
)
# An abbreviation's period, then the word after it as the speaker said it.
_AFTER_ABBREVIATION = re.compile(r"\b(?:Corp|Inc|approx|i\.e|U\.S|vs)\. (\w)")


def test_the_word_after_an_abbreviation_keeps_its_case() -> None:
    cleaned = clean_transcript(CALL)
    after = _AFTER_ABBREVIATION.findall(cleaned)
    assert len(after) == len(_AFTER_ABBREVIATION.findall(CALL)), cleaned
    assert after == _AFTER_ABBREVIATION.findall(CALL), cleaned


def test_a_sentence_still_opens_in_capitals_after_a_stop() -> None:
    cleaned = clean_transcript("we stopped. then we went home.\nso did I. then we left.")
    assert "We stopped. Then we went" in cleaned and "So did I. Then" in cleaned, cleaned


def test_each_turn_of_one_sentence_is_one_unit() -> None:
    units = units_from_text(CALL, "conversation")
    assert len(units) == len(CALL.splitlines()), [u.text for u in units]
    assert units[0].body.endswith("third quarter earnings call."), units[0].text


def test_a_summary_line_reads_as_it_was_said(tmp_path: Path) -> None:
    src = tmp_path / "calls"
    src.mkdir()
    (src / "call.txt").write_text(CALL, encoding="utf-8")
    out = tmp_path / "out"
    r = CliRunner().invoke(
        main, ["run", str(src), "--out", str(out), "--no-index", "--json", "--thresholds", "20,30,40,15000"]
    )
    assert r.exit_code == 0 and json.loads(r.stdout)["run"]["files_done"] == 1, r.output
    final = (out / "call.txt" / "summaries" / "L3" / "final.md").read_text(encoding="utf-8")
    body = final.split("\n---\n", 1)[1].split("<!--", 1)[0]
    assert body.strip(), final
    for word in _AFTER_ABBREVIATION.findall(body):
        assert word.islower() or word.isdigit(), body
    assert not re.search(r"\b(?:Corp|Inc)\.$", body, re.MULTILINE), body


def test_initials_joined_by_dots_end_no_sentence() -> None:
    for text, firm in [
        ("Our next question comes from Tom Lee with J.P. Morgan. Please go ahead.", "J.P. Morgan."),
        ("The loan came from Banco S.A. Santander in May. It was repaid.", "Banco S.A. Santander"),
        ("Philips N.V. Eindhoven and Siemens A.G. Munich signed. The deal closed.", "Siemens A.G. Munich"),
    ]:
        sentences = [s.text for s in split_sentences(text)]
        assert len(sentences) == 2 and firm in sentences[0], sentences


def test_known_abbreviations_and_stops_split_as_before() -> None:
    # "U.S." ends a sentence before a sentence starter only (test_noun_abbreviation_ends), "p.m." before a capital.
    assert len(split_sentences("Sales grew in the U.S. Army sales were flat.")) == 1
    assert len(split_sentences("It was 5 p.m. The call ended.")) == 2
    assert len(split_sentences("We ran app.py. Then v1.2. Then we stopped.")) == 3
    # Initials before a word no name holds end one: "D.C." is no name's start there.
    assert len(split_sentences("They flew to Washington, D.C. Then they met the lawyers.")) == 2


def test_a_question_from_a_firm_with_initials_is_one_unit_and_a_label_with_them_a_speaker() -> None:
    call = "Operator: Our next question comes from Tom Lee with J.P. Morgan. Please go ahead.\nTom Lee: Thanks."
    units = units_from_text(call, "conversation")
    assert [u.body for u in units][:2] == ["Our next question comes from Tom Lee with J.P. Morgan.", "Please go ahead."]
    assert parse_speaker_line("A.G. Rota: The motion carries.")[0] == "A.G. Rota"
