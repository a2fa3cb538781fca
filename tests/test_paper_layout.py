"""A paper's layout never read as its findings: a chunk of nothing but its references, a caption's every sentence,
a footnote at a page's foot, a title wrapped over two lines, its authors' affiliations and e-mails."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from batchsum.backends.units import units_from_text
from batchsum.cli import main
from batchsum.tree import read_node
from batchsum.walk import SourceRef, read_document

_FINDINGS = [
    f"In experiment {i} we measured how evening light changed sleep latency in a cohort of {20 + i} volunteers, "
    f"and latency rose by {i % 7 + 1} minutes on average."
    for i in range(1, 13)
]
_REFERENCES = "\n".join(
    f"[{i}] Walker MP, Tononi G, Born J. Sleep latency in young adults: cohort {i}. Sleep. "
    f"20{10 + i % 10};{10 + i}({i % 12 + 1}):{100 + i}–{115 + i}. doi:10.1093/sleep/zs{i:04d}"
    for i in range(1, 61)
)
_CITATION = re.compile(r"doi:|\d{4};\d+\(\d+\):\d+|Walker MP|cohort \d+\.")


def _run(tmp_path: Path, name: str, text: str, *args: str) -> tuple[Path, str]:
    """The final summary of one file run alone (``args``: the run's options), and the output folder."""
    corpus, out = tmp_path / "in", tmp_path / "out"
    corpus.mkdir()
    (corpus / name).write_text(text, encoding="utf-8")
    res = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--no-index", "-q", *args])
    assert res.exit_code == 0, res.output
    _, body = read_node(out / name / "summaries" / "L3" / "final.md")
    return out, body.split("\n<!-- batchsum:links -->")[0]


def test_chunks_of_a_reference_list_give_no_summary_and_no_citation_reaches_the_final(tmp_path: Path) -> None:
    """Chunks past the "References" heading have no heading left to say what they are: each had been "summarized"
    as its citations quoted raw, and the final had ended on "Sleep latency in young adults: cohort 47."."""
    text = "Results\n\n" + " ".join(_FINDINGS) + "\n\nReferences\n\n" + _REFERENCES + "\n"
    out, final = _run(tmp_path, "paper.txt", text, "--chunk-size", "600")
    chunks = sorted((out / "paper.txt" / "summaries" / "L1").glob("chunk_*.md"))
    assert len(chunks) >= 4  # most of them hold references only
    for chunk in chunks:
        _, body = read_node(chunk)
        assert not _CITATION.search(body.split("<!-- batchsum:links -->")[0]), (chunk.name, body)
    assert "In experiment" in final, final
    assert not _CITATION.search(final), final


def test_every_sentence_of_a_caption_is_layout() -> None:
    """A caption's paragraph is apparatus as a whole: its second and third sentences had stayed candidates, and
    "Table 1." split off its caption had left "Characteristics of the ..." one."""
    text = (
        "Mood scores fell by 18% between October and January and recovered by April.\n\n"
        "Figure 2: Mean mood score by month and desk position. Error bars show 95% confidence intervals. "
        "Dashed lines mark the equinoxes.\n\n"
        "Table 1. Characteristics of the 212 participants at baseline. Values are means with standard "
        "deviations in parentheses.\n\n"
        "Workers with desks near windows showed a decline of only 7%.\n"
    )
    picked = [u.text for u in units_from_text(text, "document") if u.candidate]
    assert len(picked) == 2, picked
    assert all(s.startswith(("Mood scores", "Workers with")) for s in picked), picked


_DAYLIGHT = (
    "Effects of Daylight on Mood in Office Workers\n\nMethods\n\n"
    "We recruited 212 office workers in Oslo and followed them for one year. Participants completed a mood "
    "questionnaire every month. The analysis was carried out in R version 4.2 with\n"
    "†This work was supported by the Norwegian Research Council (grant 2020-01234).\n\n3\n"
    "\fJOURNAL OF OCCUPATIONAL HEALTH\n\n"
    "the lme4 package and random intercepts for each participant. Mood scores fell by 18% between October and "
    "January and recovered by April. Workers with desks near windows showed a decline of only 7%.\n"
)


def test_a_footnote_at_a_pages_foot_is_left_out_and_the_sentence_read_whole(tmp_path: Path) -> None:
    """pdftotext puts a page's footnote between the halves of the sentence a page break cuts: the unit had read
    "... R version 4.2 with †This work was supported by ...", and "the lme4 package ..." had been another."""
    path = tmp_path / "daylight.txt"
    path.write_text(_DAYLIGHT, encoding="utf-8")
    doc = read_document(SourceRef(path, path.name, tmp_path))
    shown = [u.text for u in units_from_text(doc.text, "document") if u.candidate]
    assert not any("Norwegian Research Council" in s for s in shown), shown
    assert any("R version 4.2 with the lme4 package and random intercepts" in s for s in shown), shown


def test_a_footnote_line_ends_the_paragraph_above_it() -> None:
    """Without a page break to read it by, a footnote's line under a paragraph is still no part of its sentence."""
    text = (
        "We recruited 212 office workers in Oslo and followed them for one year.\n‡ Both authors contributed equally.\n"
    )
    shown = [u.text for u in units_from_text(text, "document")]
    assert shown == ["We recruited 212 office workers in Oslo and followed them for one year."], shown
    # A book's pilcrow marks a paragraph, no footnote.
    pilcrow = "¶ Mr. Wells has also written the following novels of the future.\n"
    assert [u.candidate for u in units_from_text(pilcrow, "document")] == [True]


_FRONT = (
    "Evening Light Delays Sleep Onset\n"
    "in Office Workers: A Cohort Study\n\n"
    "Anna Berg1,*, Jonas Lund2\n\n"
    "1 Department of Psychology, University of Lund, Box 117, 221 00 Lund, Sweden\n"
    "2 Institute for Occupational Health, Main Street 4, 0150 Oslo, Norway\n"
    "* Corresponding author: anna.berg@psy.lu.se; jonas.lund@stami.no\n\n"
    "Abstract\n"
    "We followed 212 office workers for a year. Those exposed to bright evening light fell asleep 14 minutes\n"
    "later on average than those who were not.\n"
)


def test_a_wrapped_title_and_the_authors_affiliations_are_no_sentences() -> None:
    """A title wrapped over two lines had been two sentences ("... Delays Sleep Onset." and "in Office Workers: A
    Cohort Study."), and the affiliations and the corresponding author's line candidates."""
    picked = [u.text for u in units_from_text(_FRONT, "document") if u.candidate]
    assert picked == [
        "We followed 212 office workers for a year.",
        "Those exposed to bright evening light fell asleep 14 minutes later on average than those who were not.",
    ], picked


def test_a_short_summary_of_a_papers_first_page_is_a_finding(tmp_path: Path) -> None:
    """The brief summary of a paper's first page: its title had taken it over."""
    _, final = _run(tmp_path, "berg.txt", _FRONT, "--thresholds", "10,20,3000,15000")
    assert final.strip().startswith(("We followed", "Those exposed")), final
