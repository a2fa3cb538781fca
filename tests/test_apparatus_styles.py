"""A paper's apparatus in the styles most papers use, and a book's catalogue priced in any currency: APA, Harvard and
author-year reference lists under "Literature Cited" (or cut off their heading by a chunk's start), captions labelled
in any case with any separator, inline TeX with an operator or a lone variable, a catalogue priced in shillings and
pence, and a book's illustration mark glued to its line's text."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from batchsum.backends.apparatus import is_caption_line, is_reference, is_tex_math
from batchsum.backends.extractive import summarize_text
from batchsum.backends.noise import is_back_matter, markdown_as_text, section_role
from batchsum.backends.units import units_from_text
from batchsum.tokens import get_tokenizer
from tests.one_final import final_node

_PROSE = [
    "Seagrass meadows in the lagoon declined by forty percent between 1990 and 2010.",
    "We tested whether keeping sea urchins out of the meadows lets them recover.",
    "Exclusion cages doubled the shoot density within two years at every site.",
    "Divers counted shoots and urchins every two months until the end of the study.",
    "Grazing by urchins was enough to prevent recovery even where the water had cleared.",
    "Managers who restore seagrass should therefore protect the predators of urchins.",
]
_TITLES = ["Seagrass decline in estuaries", "Urchin grazing and meadow collapse", "Restoration of eelgrass"]
_JOURNALS = ["Journal of Ecology", "Marine Ecology Progress Series", "Limnology and Oceanography"]


def _apa(i: int) -> str:
    return (
        f"Khan, G. {chr(65 + i % 20)}., and Lindqvist, I. ({1990 + i}). {_TITLES[i % 3]}. "
        f"{_JOURNALS[i % 3]}, {20 + i}({1 + i % 9}), {100 + i}–{150 + i}."
    )


# An entry's pieces as the sentence splitter leaves them: its authors and year, its journal's volume and pages.
_ENTRY_PIECE = re.compile(r"\(\d{4}\)|\d+\(\d\), \d+–\d+|" + "|".join(_TITLES))


@pytest.mark.parametrize("heading", ["Literature Cited", "Works Cited", "Cited Literature", "References"])
def test_an_author_year_reference_list_reaches_no_final(tmp_path: Path, heading: str) -> None:
    """Entries one a paragraph under "## Literature Cited": the final ended with their titles."""
    entries = "\n\n".join(_apa(i) for i in range(40))
    text = "# Urchins and seagrass\n\n## Abstract\n\n" + " ".join(_PROSE) + f"\n\n## {heading}\n\n{entries}\n"
    _, body = final_node(tmp_path, "seagrass.md", text)
    assert "Exclusion cages" in body or "Seagrass meadows" in body, body
    assert not _ENTRY_PIECE.search(body), body
    assert section_role(heading) == "skip"


def test_a_chunk_that_starts_inside_the_list_has_no_candidate() -> None:
    """No heading above it: each entry is known by its own shape, the first one cut after its authors too."""
    text = "(1989). Seagrass decline in estuaries. Journal of Ecology, 12(3), 45–67.\n\n"
    text += "\n\n".join(_apa(i) for i in range(12)) + "\n"
    assert not [u.text for u in units_from_text(text, "document") if u.candidate]
    out = summarize_text(
        text, target_tokens=60, max_tokens=120, kind="chunk", content_type="document", tokenizer=get_tokenizer()
    )
    assert out == "", out


@pytest.mark.parametrize(
    "entry",
    [
        "Author, A. B., & Author, C. (2006). Title of the paper. Journal of Things, 56(12), 987–996.",
        "Author, A. (2006) Title of the paper. Journal of Things 56: 987-996",
    ],
)
def test_apa_and_harvard_entries_are_references(entry: str) -> None:
    assert is_reference(entry)


@pytest.mark.parametrize(
    "sentence",
    [
        "We read it on 12 May, 2019, and left for the coast.",
        "The team met at Station 5: 10-12 people came.",
        "Smith, our diver, counted 45 shoots (about half) in 2019.",
        "FROM THURSDAY JANUARY 18, TO THURSDAY JANUARY 25, 1710-11.",
    ],
)
def test_prose_with_numbers_is_no_reference(sentence: str) -> None:
    assert not is_reference(sentence)


@pytest.mark.parametrize(
    "caption",
    [
        "FIGURE 3. Shoot density rose.",
        "Fig 5: Seasonal change was 25 percent.",
        "Figure 1 | Layout of cages.",
        "Figure 4 — Mean shoot length was 32 cm.",
        "Figure 6 – Urchins per plot.",
        "Supplementary Figure S2. Site map.",
        "table 2: Shoot counts.",
    ],
)
def test_captions_in_any_style_are_captions(caption: str) -> None:
    assert is_caption_line(caption)


def test_captions_are_no_candidates_but_prose_about_a_figure_is() -> None:
    text = (
        "FIGURE 3. Shoot density rose in every cage.\n\nFig 5: Seasonal change was 25 percent.\n\n"
        "Figure 1 | Layout of cages.\n\nFigure 4 — Mean shoot length was 32 cm.\n\n"
        "Figure 3 shows that shoot density rose in every cage over two years.\n"
    )
    picked = [u.text for u in units_from_text(text, "document") if u.candidate]
    assert picked == ["Figure 3 shows that shoot density rose in every cage over two years."], picked


def test_inline_math_with_an_operator_or_a_lone_variable_is_no_candidate_but_money_is() -> None:
    text = (
        "The primary outcome was recall accuracy $A = c / n$, where $c$ is the number of recalled items.\n\n"
        "Recall fell by 12 percent after restricted sleep (95% CI 8.1 to 16.7 percent, $p < 0.001$).\n\n"
        "We analysed $CI$ with a linear mixed model of condition and period.\n\n"
        "Each participant was paid $5 and $10 for the two nights in the laboratory.\n"
    )
    picked = [u.text for u in units_from_text(text, "document") if u.candidate]
    assert not any("$A" in t or "$p" in t or "$CI" in t for t in picked), picked
    assert any("$5 and $10" in t for t in picked), picked
    assert is_tex_math("$x$ and $y$") and not is_tex_math("It cost $5, or $6 for two.")


_CATALOGUE = [
    "=62.--Parish and District Councils: What they are and what they can do.= 1d. each; or 9d. per doz.",
    "=17.--Reform of the Poor Law.= By SIDNEY WEBB. 20 pp., 1d.; 9d. per doz.",
    "Cheap Edition, Paper cover, 1/-; plain cloth, 2/-.",
    "Boxes for set of Tracts 1s., post free 1s. 3d.",
    "The set in six volumes, 6 vols., £2 2s.",
]


@pytest.mark.parametrize("line", _CATALOGUE)
def test_a_catalogue_priced_in_any_currency_is_back_matter(line: str) -> None:
    assert is_back_matter(line)


@pytest.mark.parametrize(
    "sentence",
    [
        "It cost 6s. at the fair, and she never wore it.",
        "He read 16 pp. that night.",
        "About 2/3 of the crop failed.",
        "It doesn't sell: the whole 24 vols. in this country amounts to about £25 a year.",
    ],
)
def test_a_price_or_a_page_count_alone_is_prose(sentence: str) -> None:
    assert not is_back_matter(sentence)


def test_a_books_catalogue_and_glued_illustration_reach_no_summary() -> None:
    story = [
        "The miller rose before dawn and walked down to the river to look at the wheel.",
        "The flood had carried away half of the weir in the night and the wheel stood still.",
        "He sent his son to the village to fetch the carpenter and two strong men with ropes.",
        "By evening the weir was mended and the wheel turned again as it had for fifty years.",
    ]
    tail = "\n\n".join(_CATALOGUE) + "\n\n[Illustration: (pointing finger)] =The Set post free 2/3. Bound in\n"
    text = "\n\n".join(story) + "\n\nFABIAN TRACTS.\n\n" + tail + "Buckram post free for 3/9.=\n"
    assert "Illustration" not in markdown_as_text(text)
    picked = " ".join(u.text for u in units_from_text(text, "document") if u.candidate)
    assert "The miller rose" in picked, picked
    assert not re.search(r"\d[sd]\.|\d/[-\d]|Illustration|=\d+\.--", picked), picked
