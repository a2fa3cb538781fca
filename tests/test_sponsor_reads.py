"""A sponsor's read is a segment: from the sentence that names the sponsor, every sentence that goes on about it
(names it, gives its address or an offer, points back at it) is the ad's, in a transcript of one segment per line
as in a host's single turn, and none of it reaches a summary. A Keep a Changelog preamble is the template's."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from batchsum.backends.adverts import advert_segments
from batchsum.backends.extractive import summarize_text
from batchsum.backends.noise import is_boilerplate
from batchsum.backends.units import units_from_text
from batchsum.cli import main
from batchsum.tokens import Tokenizer, get_tokenizer
from batchsum.tree import node_path, read_node

AD = [
    "Today's episode is supported by Brightwave.",
    "Brightwave makes the quietest noise-cancelling headphones I have ever worn, and I take them on every field trip.",
    "They last forty hours on a single charge and fold flat into a jacket pocket.",
    "Head over to brightwave.com/harbor to get twenty percent off your first pair.",
]
SHOW_BEFORE = [
    "Welcome back to Harbor Talk, the show about people who work on the water.",
    "I grew up in a fishing town where the harbor silted up every winter.",
    "Later I found that dredging schedules were set by habit rather than by measurement.",
]
SHOW_AFTER = [
    "So tell us about the buoy network you built.",
    "We put nine sensors across the harbor mouth to measure the water every ten minutes.",
    "It showed that two storms a year move more sediment than all the ordinary tides combined.",
    "Dredging right after those storms cut the town's costs by a third.",
]
# Whisper's output: one segment a line, a music cue where the ad ends.
WHISPER = "\n".join(["[Music]", *SHOW_BEFORE, "[Music]", *AD, *SHOW_AFTER, "(upbeat music)"]) + "\n"
# A diarized transcript: the host reads the ad as one turn.
TURNS = "\n".join(
    [
        *(f"[00:0{i}:00] Host: {s}" for i, s in enumerate(SHOW_BEFORE[:2])),
        f"[00:02:10] Guest: {SHOW_BEFORE[2]}",
        "[00:03:00] Host: " + " ".join(AD),
        f"[00:04:00] Host: {SHOW_AFTER[0]}",
        *(f"[00:0{5 + i}:00] Guest: {s}" for i, s in enumerate(SHOW_AFTER[1:])),
    ]
)
NEWSLETTER = "\n\n".join(
    [
        "# The Harbor Letter",
        " ".join(SHOW_BEFORE[1:]),
        "This issue is sponsored by Brightwave. " + " ".join(AD[1:]),
        " ".join(SHOW_AFTER[1:]),
    ]
)


@pytest.fixture(scope="module")
def tok() -> Tokenizer:
    return get_tokenizer()


@pytest.mark.parametrize(
    "sentence",
    [
        AD[0],
        AD[3],
        "Thanks to Squarespace for sponsoring this episode.",
        "This episode is brought to you by our friends at Brightwave.",
        "All notable changes to this project will be documented in this file.",
        "The format is based on Keep a Changelog, and this project adheres to Semantic Versioning.",
    ],
)
def test_a_sponsors_opener_its_offer_and_a_changelog_template_are_boilerplate(sentence: str) -> None:
    assert is_boilerplate(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "The claim is supported by Smith's measurements of the harbor mouth.",
        "Dredging right after those storms cut the town's costs by twenty percent.",
        "Thanks to the new sensors, we could see the storms move the sediment.",
        "The changes to the dredging schedule were documented in a report to the council.",
        "We'll use the code in Listing 12-24 to change how error messages are printed.",
    ],
)
def test_a_show_sentence_with_an_ads_words_is_not(sentence: str) -> None:
    assert not is_boilerplate(sentence)


def test_an_ad_runs_from_its_sponsor_over_what_goes_on_about_it_to_the_first_sentence_that_does_not() -> None:
    sentences = [*SHOW_BEFORE, *AD, *SHOW_AFTER]
    ads = advert_segments(sentences, [i > 0 for i in range(len(sentences))])
    assert {sentences[i] for i in ads} == set(AD)


def test_a_word_of_a_sponsors_name_or_an_its_does_not_carry_an_ad_on() -> None:
    sentences = [
        "Thanks to D&D Beyond for sponsoring the live show.",
        "It's been a while since Travis was here, and the dragon went beyond the mountains.",
    ]
    assert advert_segments(sentences, [False, True]) == {0}


def test_a_change_of_voice_ends_an_ad() -> None:
    sentences = [AD[0], AD[2], AD[3]]
    assert advert_segments(sentences, [False, True, True]) == {0, 1, 2}
    # another speaker's "They ..." is not the ad's; the offer is an ad of its own
    assert advert_segments(sentences, [False, False, True]) == {0, 2}


@pytest.mark.parametrize(
    ("text", "content_type"), [(WHISPER, "conversation"), (TURNS, "conversation"), (NEWSLETTER, "document")]
)
def test_no_sentence_of_an_ad_is_a_candidate_and_the_shows_are(text: str, content_type: str) -> None:
    units = units_from_text(text, content_type)  # type: ignore[arg-type]
    ad_units = [u for u in units if any(u.body.startswith(a[:30]) or a.startswith(u.body[:30]) for a in AD[1:])]
    assert len(ad_units) == 3
    assert not any(u.candidate or u.whole for u in ad_units)
    show = {u.body for u in units if u.candidate}
    assert set(SHOW_AFTER[1:]) <= show


def _final(tmp_path: Path, name: str, text: str) -> str:
    corpus, out = tmp_path / "c", tmp_path / "o"
    corpus.mkdir()
    (corpus / name).write_text(text, encoding="utf-8")
    r = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--no-index"])
    assert r.exit_code == 0, r.output
    _, body = read_node(node_path(out, name, 3, None))
    return body.split("<!--")[0].split("## Facets")[0]


@pytest.mark.parametrize(
    ("text", "content_type"), [(WHISPER, "conversation"), (TURNS, "conversation"), (NEWSLETTER, "document")]
)
def test_no_part_of_a_sponsors_read_reaches_a_summary_with_room_for_every_sentence(
    tok: Tokenizer, text: str, content_type: str
) -> None:
    out = summarize_text(
        text, target_tokens=400, max_tokens=400, kind="standard", content_type=content_type, tokenizer=tok
    )
    assert "sediment" in out and "sensors" in out, out
    assert "brightwave" not in out.lower() and "forty hours" not in out, out


def test_a_changelogs_final_is_its_changes_not_the_templates_preamble(tmp_path: Path) -> None:
    changelog = (
        "# Changelog\n\nAll notable changes to this project will be documented in this file.\n\n"
        "The format is based on [Keep a Changelog](https://keepachangelog.com/en/1.1.0/),\n"
        "and this project adheres to [Semantic Versioning](https://semver.org/spec/v2.0.0.html).\n\n"
        "## [3.0.0] - 2024-06-01\n\n### Removed\n- The GraphQL gateway. Clients must use the REST endpoints.\n\n"
        "### Changed\n- `reconcile()` now returns a `ReconReport` object instead of a dict.\n"
        "- Minimum Python version is now 3.11.\n"
    )
    final = _final(tmp_path, "CHANGELOG.md", changelog)
    assert "Python version" in final or "REST endpoints" in final, final
    assert "notable changes" not in final and "Keep a Changelog" not in final and "Semantic" not in final, final


def test_a_streams_numbered_sponsor_opens_its_read() -> None:
    """ "Our second sponsor for the evening is Backblaze!" names its sponsor as "X is our sponsor" does."""
    said = [
        "Yes, our second sponsor for the evening is Backblaze!",
        "If you guys don't know Backblaze, it is unlimited cloud backup for Macs and PCs for just $5 a month.",
        "The ogre bodyguard stands and turns back toward the door.",
    ]
    assert advert_segments(said, [True] * len(said)) == frozenset({0, 1})
