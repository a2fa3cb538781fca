"""A text without letter case (a scraped paper, lower-cased throughout) carries no case information: its
lower-case sentence starts are read as its capitalised copy's capitals are, so it is cut into the same
sentences and summarized the same, modulo case, as a whole text and as a meta node's parts."""

from __future__ import annotations

import pytest

from batchsum.backends.extractive import summarize_text
from batchsum.backends.units import units_from_text
from batchsum.tokens import get_tokenizer

# Every sentence opens on a word the tokenizer counts the same in either case, so the budget cannot tell
# the two copies apart either.
_CASED = (
    "We grew twelve strains of the soil bacterium in a rich broth for two days. The fastest strain doubled in "
    "two hours. The growth stopped in every strain at high salt. We then sequenced the whole genomes of all "
    "twelve strains. The slow strains all carried a broken copy of the pump gene. The counts are given in "
    "table 3. A second pump gene was intact in every strain we sequenced. The salt tolerance therefore needs "
    "the first pump."
)
_SPLIT = _CASED.index("We then")
_PARTS = [_CASED[:_SPLIT].strip(), _CASED[_SPLIT:]]  # two chunks' summaries, the first under 40 words


def _summary(text: str, tokens: int, parts: list[str] | None = None) -> str:
    return summarize_text(
        text,
        parts=parts,
        target_tokens=tokens,
        max_tokens=tokens,
        kind="meta" if parts else "standard",
        content_type="document",
        tokenizer=get_tokenizer(),
    )


def test_a_caseless_text_is_cut_into_its_capitalised_copys_sentences() -> None:
    """ "... given in table 3. a second pump ..." had been one candidate: a lower-case word after a lone digit's
    period went on the sentence, as it may where the text shows case."""
    cased = [u.text.lower() for u in units_from_text(_CASED, "document", language="en")]
    caseless = [u.text for u in units_from_text(_CASED.lower(), "document", language="en")]
    assert caseless == cased
    assert "the counts are given in table 3." in caseless


@pytest.mark.parametrize("tokens", [25, 35, 50, 60, 75, 85])
def test_a_caseless_meta_node_picks_its_capitalised_copys_sentences(tokens: int) -> None:
    """A lower-cased paper's final re-reads its chunks' summaries: a short one (under 40 words) had stayed one
    candidate, its picks glued together, where the capitalised copy offers each sentence."""
    cased = _summary("", tokens, _PARTS)
    caseless = _summary("", tokens, [p.lower() for p in _PARTS])
    assert caseless == cased.lower()


@pytest.mark.parametrize("tokens", [40, 75, 85])
def test_a_caseless_text_is_summarized_as_its_capitalised_copy(tokens: int) -> None:
    assert _summary(_CASED.lower(), tokens) == _summary(_CASED, tokens).lower()


def test_a_cased_text_keeps_its_lower_case_continuations() -> None:
    """Where the text shows case, a lower-case word after a period still goes on a short sentence: an initial
    or an abbreviation's period ("Fig. 3. b shows ...", "Lupinus spp. are ...")."""
    text = (
        "The pods of Lupinus spp. are shown in Fig. 3. b shows the seeds. The crop grows well on sand. It needs "
        "little water. Its roots fix nitrogen. Farmers sow it in spring."
    )
    sentences = [u.text for u in units_from_text(text, "document", language="en")]
    assert sentences[0].startswith("The pods of Lupinus spp. are shown in Fig. 3. b shows the seeds.")
