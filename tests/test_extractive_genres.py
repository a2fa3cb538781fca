"""Per-genre properties of the extractive summarizer on small hand-made texts.

A diary, a paper with sections, a meeting transcript and a book with layout noise: every level fills
its budget with whole sentences, and headings, separators, contents, index entries, page headers,
licence text, filler turns and sentences that lean on missing context are never picked.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from batchsum.backends.extractive import summarize_text
from batchsum.backends.noise import (
    entry_date,
    is_footnote,
    is_fragment,
    is_heading,
    is_index_block,
    line_kind,
    needs_context,
    repeated_lines,
    section_role,
)
from batchsum.backends.units import units_from_text
from batchsum.model import ContentType, PromptKind
from batchsum.text import parse_speaker_line, split_sentences
from batchsum.tokens import Tokenizer, get_tokenizer

DIARY = """## 2024-03-02

Today I finally finished the third chapter of the novel I have been writing since January.
The ending of the chapter took me four drafts, because the sister kept sounding like a stranger.
Partly, I was a little too far beyond the press.
In the afternoon the Faculty meeting dragged on for three hours about the new grading rules.
I argued that the exam weight should drop, and most of my colleagues agreed with me in the end.
Anna came to visit in the evening, and we walked along the river until it was dark.
She told me she is moving to Lisbon in May for a new job at the museum.
I felt happy for her, but I will miss our long Sunday walks very much.
Tomorrow I want to start the fourth chapter early, before the house wakes up.
I also need to call my mother about the trip to the coast in April.
"""

PAPER = """Effects of sleep on memory in older adults

ABSTRACT
We studied whether a short afternoon nap improves word recall in adults over sixty-five years old.

BACKGROUND
Memory decline is common in older adults and sleep is known to support memory consolidation.
Few studies have tested whether short naps help older adults remember new words.

METHODS
participants and design
Eighty adults over sixty-five were randomly assigned to a nap group or a rest group.
Each participant learned a list of forty words before a ninety minute break.
statistical analysis
Recall scores were compared with a two-sided t test at the five percent level.

RESULTS
The nap group recalled on average six more words than the rest group after the break.
The benefit of the nap was largest for participants who slept more than twenty minutes.
Participants in the rest group reported feeling more tired in the evening.

CONCLUSIONS
A short afternoon nap improves word recall in older adults and could support memory training.
Future work should test longer periods of daily naps over several months.

REFERENCES
Smith J, Jones K. Sleep and memory in aging. Journal of Sleep Research, 2019, 12, 45-67.
Brown A. Naps and recall in the elderly. Memory Studies, 2020, 3, 101-110.
"""

TRANSCRIPT = """Project Manager: Okay.
Marketing: Yeah.
Project Manager: So today we have to decide the battery type for the new remote control.
Industrial Designer: Um.
Industrial Designer: I looked at the costs and lithium cells are twice as expensive as alkaline cells.
Marketing: Mm-hmm.
Marketing: Our survey shows that users care more about the battery lasting a year than about the price.
Project Manager: Right.
Project Manager: Then we decide on lithium cells, and the design team will make the case a bit larger.
User Interface: Okay, okay.
User Interface: I will draw the new button layout for the larger case by next Tuesday.
Marketing: Yeah, yeah.
Project Manager: Good, the next meeting will review the button layout and the final price.
Industrial Designer: Sure.
"""

BOOK = """The Project Gutenberg eBook of Winter Letters, by A. Writer
This eBook is for the use of anyone anywhere at no cost and with almost no restrictions.

CONTENTS
Chapter I. The Farm ........ 1
Chapter II. The Storm ........ 17
Chapter III. The Letter ........ 33

CHAPTER I

The farm stood at the end of the valley, where the road turned into a narrow path.
Every winter the snow closed the path and the family lived alone for three months.
The eldest daughter kept a journal of those months, and she wrote in it every night.

* * * * *

WINTER LETTERS 17

The great storm came in January and buried the barn up to its roof.
The daughter dug a tunnel to the barn every morning to feed the cows.
Her father praised her courage, and the journal records the pride she felt that night.

* * * * *

WINTER LETTERS 33

In March a letter arrived from the city, offering the daughter a place at the school.
She left the farm in April, and the journal ends with her first night in the city.

* * * * *

WINTER LETTERS 41

INDEX
Barn, 17, 18, 25
Courage, 21, 24
Farm, 1, 3-5, 33
Storm, 17-19, 22
"""


@pytest.fixture(scope="module")
def tok() -> Tokenizer:
    return get_tokenizer()


def summarize(
    text: str, tok: Tokenizer, kind: PromptKind, ctype: ContentType, ratio: float, *, parts: list[str] | None = None
) -> tuple[str, int]:
    """Summary at ``ratio`` of the input, with the pipeline's cap rule; returns (summary, target)."""
    source_tokens = tok.count(text)
    target = max(16, round(ratio * source_tokens))
    out = summarize_text(
        text,
        target_tokens=target,
        max_tokens=min(target, source_tokens - 1),
        kind=kind,
        content_type=ctype,
        tokenizer=tok,
        parts=parts,
    )
    assert tok.count(out) <= target
    return out, target


def whole_sentences(out: str, source: str) -> list[str]:
    """The summary's sentences; each must be a whole sentence of the source (never cut)."""
    flat = " ".join(source.split())
    undated = re.sub(r"(?m)^\d{4}-\d{2}-\d{2}: ", "", out)  # journal entries are marked by their date
    sentences = [" ".join(s.text.split()) for s in split_sentences(undated)]
    for s in sentences:
        assert not s.endswith("…"), s
        assert s in flat, s
        assert re.search(r"[.!?][\"')\]]*$", s), f"cut mid-sentence: {s!r}"
    return sentences


# ----------------------------------------------------------------------------- a diary


def test_diary_brief_is_one_line_that_stands_alone(tok: Tokenizer) -> None:
    out, _ = summarize(DIARY, tok, "brief", "journal", 0.20)
    sentences = whole_sentences(out, DIARY)
    assert 1 <= len(sentences) <= 3 and "\n" not in out
    assert not any(needs_context(s) for s in sentences)
    assert "Partly" not in out
    assert "2024-03-02" not in out  # the dated heading is not a sentence


@pytest.mark.parametrize("ctype", ["journal", "document"])
def test_brief_of_short_sentences_fills_its_budget(tok: Tokenizer, ctype: ContentType) -> None:
    # The diary's sentences are far shorter than a fifth of it: one alone would leave the line half empty.
    out, target = summarize(DIARY, tok, "brief", ctype, 0.20)
    assert len(whole_sentences(out, DIARY)) >= 2
    assert 0.85 * target <= tok.count(out) <= target


@pytest.mark.parametrize("ratio", [0.12, 0.25, 0.4])
def test_diary_standard_fills_its_budget(tok: Tokenizer, ratio: float) -> None:
    out, target = summarize(DIARY, tok, "standard", "journal", ratio)
    whole_sentences(out, DIARY)
    assert tok.count(out) >= 0.75 * target
    # A sentence that leans on the one before it comes only after that one: it then has its context.
    assert "Partly" not in out or "like a stranger. Partly," in out, out
    assert "##" not in out and "2024-03-02" not in out  # one dated entry: its file gives the date


# ----------------------------------------------------------------------------- a paper


def test_paper_headings_and_references_are_never_sentences(tok: Tokenizer) -> None:
    for ratio in (0.2, 0.35):
        out, target = summarize(PAPER, tok, "standard", "document", ratio)
        sentences = whole_sentences(out, PAPER)
        assert tok.count(out) >= 0.75 * target
        for heading in ("ABSTRACT", "BACKGROUND", "METHODS", "RESULTS", "CONCLUSIONS", "REFERENCES"):
            assert heading not in out
        assert not any(s.startswith(("participants and design", "statistical analysis")) for s in sentences)
        assert "Journal of Sleep Research" not in out and "Memory Studies" not in out


def test_paper_prefers_abstract_and_conclusions_over_methods(tok: Tokenizer) -> None:
    out, _ = summarize(PAPER, tok, "standard", "document", 0.12)
    assert "nap" in out
    assert "two-sided t test" not in out


# ----------------------------------------------------------------------------- a transcript


def test_transcript_keeps_decisions_and_drops_filler_turns(tok: Tokenizer) -> None:
    out, target = summarize(TRANSCRIPT, tok, "standard", "conversation", 0.3)
    lines = [ln for ln in out.splitlines() if ln.strip()]
    assert lines
    assert tok.count(out) >= 0.6 * target
    for line in lines:
        body = line.split(": ", 1)[-1]
        assert len(body.split()) >= 5, f"filler turn picked: {line!r}"
        assert body.rstrip()[-1] in ".!?", f"cut mid-sentence: {line!r}"
    assert "lithium" in out


def test_transcript_brief_is_one_content_sentence(tok: Tokenizer) -> None:
    out, _ = summarize(TRANSCRIPT, tok, "brief", "conversation", 0.2)
    assert 1 <= len(split_sentences(out)) <= 3
    assert all(parse_speaker_line(ln)[0] for ln in out.splitlines()), out  # one line per turn, with its speaker
    assert not re.fullmatch(r"\W*(okay|yeah|mm-hmm|um|right|sure)\W*", out, re.IGNORECASE)


@pytest.mark.parametrize("kind", ["brief", "standard"])
def test_book_layout_noise_is_never_selected(tok: Tokenizer, kind: PromptKind) -> None:
    out, _ = summarize(BOOK, tok, kind, "document", 0.3)
    whole_sentences(out, BOOK)
    for noise in ("* *", "Gutenberg", "eBook", "........", "WINTER LETTERS", "CHAPTER", "INDEX", "Barn, 17"):
        assert noise not in out, noise
    assert "farm" in out or "storm" in out or "daughter" in out


def test_meta_over_noisy_parts_drops_noise(tok: Tokenizer) -> None:
    parts = [
        "* * * * *\nThe storm buried the barn up to its roof in January.",
        "The daughter left the farm for the city school in April.\n\nINDEX\nBarn, 17, 18, 25\nCourage, 21, 24",
    ]
    text = "\n\n".join(parts)
    out = summarize_text(
        text, target_tokens=40, max_tokens=40, kind="meta", content_type="document", tokenizer=tok, parts=parts
    )
    assert "storm" in out and "daughter" in out
    assert "*" not in out and "Barn, 17" not in out


def test_line_kinds() -> None:
    assert line_kind("* * * * *") == "separator"
    assert line_kind("------------------") == "separator"
    assert line_kind("Chapter II. The Storm ........ 17") == "toc"
    assert line_kind("Abbotsford, 12, 45-47, 301") == "index"
    assert line_kind("CHAPTER IV") == "heading"
    assert line_kind("## Results") == "heading"
    assert line_kind("bac clone sequencing and annotation") == "short"
    assert line_kind("We walked to the river and talked until dark.") is None
    # Amounts and decimals are no page numbers: an earnings call's figures, a wrapped line of a journal.
    assert line_kind("Revenue was $1,234.5 million, up 3.5%, and EPS was $0.45, against $0.38.") is None
    assert line_kind("now to less than £60,000.") is None
    assert is_index_block(["Acland, Sir Thomas, ii. 163, 168.", "Barn, 17, 18, 25", "Farm, 1, 3-5, 33"])
    assert not is_index_block(["Sales rose 4.5, 6.1 and 7.2.", "We paid £1,000, £2,000.", "Costs: 3.5, 4.5; 7.5."])
    assert line_kind(
        "WINTER LETTERS 17", repeated_lines(["WINTER LETTERS 17", "WINTER LETTERS 33", "WINTER LETTERS 41"])
    )
    # A short unpunctuated line is a heading only when it opens a paragraph and is not wrapped prose.
    assert is_heading("statistical analysis", None, "Recall scores were compared with a two-sided t test here.")
    assert not is_heading("little--very little man. Less, I think, than", "It was a", "him in person; God knows")
    assert not is_heading("season. We had indeed met in public twenty", None, "years ago. There is a manly frank")
    # Chinese and Japanese: a line that ends on 。 is prose, and one Latin capital makes no all-caps heading.
    assert line_kind("Ｅ君に青山の小宮君の留守宅の様子を見に行ってもらった。") is None
    assert line_kind("今天一早坐高铁去了杭州。") is None


def test_a_chinese_or_japanese_sentence_of_a_few_characters_is_context_not_a_candidate() -> None:
    text = "月蝕の晩に皆で庭へ出て空を見上げた。一同で見物する。雲が厚くて月はとうとう見えなかったので残念である。"
    units = units_from_text(text, "journal", 5, language="ja")
    assert [u.candidate for u in units] == [True, False, True], [(u.text, u.candidate) for u in units]


def test_a_japanese_entry_keeps_its_first_paragraph_and_never_sums_up_as_its_date_note(tok: Tokenizer) -> None:
    text = (
        "Ｅ君に青山の小宮君の留守宅の様子を見に行ってもらった。帰っての話によると、地震の時長男が二階に居たら"
        "書棚が倒れて出口をふさいだので心配した、それだけで別に異状はなかったそうである。\n"
        "\u3000夜警で一緒になった人で地震当時前橋に行っていた人の話によると、一日の夜の東京の火事は丁度火柱の"
        "ように見えたので大島の噴火でないかという噂があったそうである。\n（昭和十年十月）\n"
    )
    units = units_from_text(text, "journal", 5, language="ja")
    assert units[0].text.startswith("Ｅ君に"), "the first paragraph is prose, not a heading"
    assert not any(u.candidate for u in units if u.text.startswith("（"))
    line = summarize_text(
        text, target_tokens=46, max_tokens=50, kind="brief", content_type="journal", tokenizer=tok, language="ja"
    )
    assert "昭和十年" not in line and line.endswith("。"), line


def test_section_roles_and_context_openers() -> None:
    assert section_role("ABSTRACT") == "lead"
    assert section_role("Conclusions") == "close"
    assert section_role("materials and methods") == "detail"
    assert section_role("References") == "skip"
    assert section_role("authors’ contributions") == section_role("Authors' contributions") == "skip"
    assert section_role("bac clone sequencing") is None
    assert section_role("Notes and references") == section_role("Table of Contents") == "skip"
    # A title that starts with a back-matter word is a part of the text: its sections had never been summarized.
    for title in ("References and Borrowing", "Notes from the harbour meeting", "Lab notes", "Indexing strategy"):
        assert section_role(title) is None, title
    assert needs_context("Partly, I was a little too far beyond the press.")
    assert needs_context("But then the rain came.")
    assert needs_context("This was the best day of the trip.")
    assert not needs_context("Today I finished the third chapter.")
    assert not needs_context("Thistles grew along the road.")


def test_a_chapter_titled_references_and_borrowing_is_summarized(tok: Tokenizer) -> None:
    """The Rust book's chapter section had been left out: its title read as a bibliography's heading."""
    text = "## Ownership\n\nEvery value has one owner. The value is dropped when its owner goes out of scope.\n\n"
    text += "## References and Borrowing\n\n" + "\n\n".join(
        f"A reference lets a function use value number {i} without taking ownership of it, and the borrow "
        f"checker makes sure that the reference {i} never outlives the value behind it."
        for i in range(12)
    )
    out = summarize_text(text, tokenizer=tok, target_tokens=60, max_tokens=80, kind="standard", content_type="document")
    assert "borrow checker" in out, out


def test_index_blocks_and_footnotes_without_a_heading_are_dropped(tok: Tokenizer) -> None:
    # A chunk cut from the end of a book: index entries and footnotes, no INDEX heading above them.
    chunk = (
        "Abbeville, i. 284, 300.\nAbbotsford labourers, i. 156.\nAbercorn, Lady, ii. 452.\n"
        "Acland, Sir Thomas, ii. 163, 168.\nAdam's class, High School, Edinburgh, ii. 274.\n\n"
        "[228] W. Scott, Esq., afterwards of Raeburn, the sheriff-substitute of the county.\n\n"
        "[Footnote 6: In a letter to Dr. Chenevix, Bishop of Waterford (dated May\n23rd, 1758), Lord "
        "Chesterfield speaks of the pamphlet.]\n\n"
        "       Large Crown 8vo.    │ Containing  │ Containing the whole\n"
        "                           │ 350 to 600  │of the text with some\n\n"
        "The storm in January buried the barn and the family dug a tunnel to reach the cows.\n"
        "In March a letter from the city offered the daughter a place at the school[12].\n"
    )
    out, _ = summarize(chunk, tok, "standard", "document", 0.4)
    assert "storm" in out and "letter" in out
    assert "Abbeville" not in out and "Acland" not in out and "Raeburn" not in out
    assert "Chenevix" not in out and "│" not in out and "Containing" not in out
    assert "[12]" not in out  # footnote markers are not summary text
    assert is_index_block(chunk.split("\n\n")[0].splitlines())
    assert is_footnote("[228] W. Scott, Esq., afterwards of Raeburn.")
    assert is_footnote("[Footnote 6: In a letter to Dr. Chenevix, Bishop of Waterford (dated May")
    assert line_kind("                           │ 350 to 600  │of the text with some") == "table"


def test_hierarchical_final_is_capped_at_a_human_length(tok: Tokenizer) -> None:
    import asyncio

    from batchsum.backends.extractive import ExtractiveBackend
    from batchsum.model import SummaryLevel, SummaryRequest

    nouns = (
        "river market court church harbour garden library castle bridge forest village meadow tavern abbey "
        "mill orchard school theatre quarry chapel barracks ferry lighthouse vineyard brewery museum"
    ).split()
    entries = [
        f"_March_ {d}.--I walked to the {nouns[d % 26]} with {name} and we talked about the {nouns[(d * 7) % 26]} "
        f"and the {nouns[(d * 11 + 3) % 26]} until {hour} o'clock."
        for d in range(1, 29)
        for name, hour in (("Anne", 2), ("Cadell", 4), ("Lockhart", 6))
    ]
    parts = [" ".join(entries[i : i + 20]) for i in range(0, len(entries), 20)]
    text = "\n\n".join(parts)

    def final(backend: ExtractiveBackend, level: SummaryLevel) -> str:
        request = SummaryRequest(
            node_id="diary:summary:L3:final",
            kind="meta",
            content_type="journal",
            text=text,
            input_tokens=tok.count(text),
            target_tokens=3000,
            max_tokens=3000,
            parts=parts,
            summary_level=level,
        )
        return asyncio.run(backend.summarize(request)).text

    capped = final(ExtractiveBackend(tok, final_words=100), SummaryLevel.HIERARCHICAL)
    assert 0.85 * 130 <= tok.count(capped) <= 130
    # Journals keep their sequence: the picked entries come out in source order.
    days = [int(m) for m in re.findall(r"_March_ (\d+)", capped)]
    assert days == sorted(days)
    assert tok.count(final(ExtractiveBackend(tok, final_words=0), SummaryLevel.HIERARCHICAL)) > 130
    assert tok.count(final(ExtractiveBackend(tok, final_words=100), SummaryLevel.DETAILED)) > 130
    # The cap is in words: a text of short, common words (about one token a word) stays within it too.
    plain = [
        f"On day {d} we walked to the {nouns[d % 26]} and the {nouns[(d * 7) % 26]} with our old friend {name} "
        f"and we came home at dusk to eat and rest by the fire."
        for d in range(1, 29)
        for name in ("Anne", "Tom", "Kate")
    ]
    parts = [" ".join(plain[i : i + 20]) for i in range(0, len(plain), 20)]
    text = "\n\n".join(parts)
    assert tok.count(text) < 1.2 * len(text.split())
    assert 85 <= len(final(ExtractiveBackend(tok, final_words=100), SummaryLevel.HIERARCHICAL).split()) <= 100


def test_journal_output_keeps_dated_entries_in_order(tok: Tokenizer) -> None:
    entries = []
    for day, (place, event) in enumerate(
        [
            ("harbour", "the new battery for buoy three arrived and we installed it before the storm"),
            ("office", "the grant report was rejected and I rewrote the budget section twice"),
            ("river", "Anna told me she is moving to Lisbon for a job at the maritime museum"),
            ("workshop", "we calibrated the turbidity sensors against the reference probe all day"),
            ("beach", "the first swimmers of the year came and the dashboard finally felt useful"),
        ],
        start=1,
    ):
        entries.append(
            f"## 2025-03-0{day}\n\nIn the morning I went to the {place}. Later {event}. "
            f"I wrote notes about the {place} until late in the evening.\n"
        )
    text = "\n".join(entries)
    out, _target = summarize(text, tok, "standard", "journal", 0.4)
    lines = out.splitlines()
    dates = [ln.split(":", 1)[0] for ln in lines]
    assert len(lines) >= 2 and all(re.fullmatch(r"2025-03-0\d", d) for d in dates), out
    assert dates == sorted(set(dates))  # one line per entry, in the journal's order
    # The level above reads the dates back: a meta summary of these lines keeps them.
    meta = summarize_text(
        out, target_tokens=40, max_tokens=40, kind="meta", content_type="journal", tokenizer=tok, parts=lines
    )
    assert all(re.match(r"2025-03-0\d: ", ln) for ln in meta.splitlines()), meta
    assert entry_date("## 2025-03-02 (Sunday)") == "2025-03-02" and entry_date("Results") is None


def test_broken_off_sentences_are_fragments() -> None:
    assert is_fragment("So we go with the.")
    assert is_fragment("And I think that if we, and.")
    assert not is_fragment("We decided on lithium cells.")
    assert not is_fragment("That is what we talked about.")
    # What a story's speech tag ends on before the words it introduces: no sentence by itself.
    assert is_fragment("When Helen had departed on her errand, Mr. Sharp commenced,—")
    assert is_fragment("I was going to—") and is_fragment("Then he said;")
    assert not is_fragment("She had gone — and so had he.")
    # The last word is a whole word: "Nathe" is not "the"; quotes and brackets after it do not count.
    assert not is_fragment("We sailed with Nathe.") and not is_fragment("We met in 1826.")
    assert is_fragment('He pointed at the."') and is_fragment("We looked at the (")
    # "her" and "his" end many whole sentences as pronouns; "Q&A" ends on no article.
    assert not is_fragment("She didn't give ground, though; I'll say that for her.")
    assert not is_fragment("We will then open it up for Q&A.") and not is_fragment("The choice was his.")


def test_a_chunk_that_is_all_noise_still_gets_a_summary_not_an_empty_node(tmp_path: Path) -> None:
    """A chunk holding only footnotes (the tail of a journal entry) is summarized by its head: an empty
    node would count as a failed summary and mark an offline run degraded."""
    from click.testing import CliRunner

    from batchsum.cli import main

    tok = get_tokenizer()
    notes = "FOOTNOTES:\n\n" + "".join(
        f'[{i}] "When he was in Paris," Hazlitt writes of letter {i}, "he sat in the reading room all day."\n\n'
        for i in range(380, 420)
    )
    out = summarize_text(notes, target_tokens=60, max_tokens=80, kind="chunk", content_type="journal", tokenizer=tok)
    assert out.strip() and tok.count(out) <= 80
    entry = "_October_ 31.--At breakfast visited by M. Gallois, who spoke frankly about the museum. " * 150
    corpus = tmp_path / "in"
    corpus.mkdir()
    (corpus / "scott_1826-10-31.md").write_text(entry + "\n\n" + notes * 3)
    res = CliRunner().invoke(main, ["run", str(corpus), "--out", str(tmp_path / "out"), "--no-index", "--no-metrics"])
    assert res.exit_code == 0, res.output
    assert "DEGRADED" not in res.output


MARKDOWN_AND_SESSION = """# Setting up the harbor sensors

> The sensors must be cleaned every month, or the winter readings drift away from the weather station.

### Calibration

<span class="caption">Figure 2: the coated membrane</span> shows the salt crust after a month at sea.

```bash
$ sensorctl calibrate --port 3 --salt-water
```

(Open file: n/a) (Current directory: /harbor) bash-$ The calibration tool reads the port and writes the offsets.

The harbor team calibrates every sensor for salt water before it goes into the water, which takes an hour.
The offsets are stored on the sensor itself, so a sensor moved to another buoy keeps its calibration.
Cleaning visits are booked by the harbor office and logged in the maintenance sheet with the readings.
"""


@pytest.mark.parametrize("kind", ["brief", "standard"])
def test_markup_and_agent_chrome_never_become_sentences(tok: Tokenizer, kind: PromptKind) -> None:
    out, _ = summarize(MARKDOWN_AND_SESSION, tok, kind, "document", 0.5)
    assert out.strip()
    for noise in ("#", "<span", "</span>", "```", "bash-$", "(Open file", "$ sensorctl", "> "):
        assert noise not in out, (noise, out)


def test_a_hard_wrapped_script_read_as_a_conversation_keeps_whole_turns(tok: Tokenizer) -> None:
    import textwrap

    turns = [
        (
            "SOCRATES",
            "Let us, Nicias and Laches, comply with the request of Lysimachus and Melesias. "
            "There will be no harm in asking ourselves the question which was first proposed to us.",
        ),
        (
            "LACHES",
            "Very true, Socrates; and I would gladly hear what Nicias has to say about the training "
            "of the young men in fighting with heavy armour.",
        ),
        (
            "NICIAS",
            "I think the art of fighting in armour gives a young man strength and courage, and it "
            "prepares him for the order of battle, where the knowledge will be most useful to him.",
        ),
        (
            "SOCRATES",
            "Then must we not first know the nature of courage before we advise anyone how "
            "the young men may attain it by the help of studies and pursuits?",
        ),
    ] * 3
    # A play set 70 columns wide: each turn wrapped onto lines of its own, a blank line between turns.
    script = "\n\n".join(textwrap.fill(f"{who}: {said}", 70) for who, said in turns)
    out, _ = summarize(script, tok, "standard", "conversation", 0.4)
    lines = out.splitlines()
    assert lines
    for line in lines:
        who, _, said = line.partition(": ")
        assert who in {"SOCRATES", "LACHES", "NICIAS"}, line  # every line names its speaker
        assert said[-1] in ".?!", line  # and is made of whole sentences
        assert any(said in s for w, s in turns if w == who), line  # of that speaker's own turn


def test_a_citation_placeholder_is_left_out_not_its_sentence() -> None:
    # Scraped papers (SumPubMed) write each citation as "<cit>": the sentence is the paper's, the mark is not.
    text = (
        "Resection is often impossible due to the tumor's intimate association with peripheral nerves <cit>. "
        "The treatment of choice remains complete surgical excision with wide margins <cit> <cit>."
    )
    units = units_from_text(text, "document")
    assert [u.candidate for u in units] == [True, True]
    assert all("<cit>" not in u.text and "cit" not in u.text.split() for u in units)
    assert units[0].text.endswith("peripheral nerves.")


SCREENPLAY = """INT. KITCHEN - NIGHT

The room is dark except for the glow of the refrigerator. MARY (40s, tired) stands at the counter,
sorting a stack of unpaid bills.

                              JOHN (O.S.)
               Are you still up?

                              MARY
               The bank called again today. They
               want the whole payment by Friday or
               they take the house.

                              JOHN
                    (quietly)
               We can sell the truck. I talked to
               Eddie, he said he would give us four
               thousand for it.

She pushes the bills toward him. He picks one up, reads it, and sits down heavily.
"""


def test_a_screenplay_read_as_a_conversation_names_who_speaks(tok: Tokenizer) -> None:
    from batchsum.readers.screenplay import screenplay_turn

    assert screenplay_turn("  JOHN (O.S.)\n     Are you still up?") == ("JOHN", "Are you still up?")
    assert screenplay_turn("INT. KITCHEN - NIGHT\nThe room is dark.") is None  # a scene heading
    assert screenplay_turn("CHAPTER ONE\nTHE BEGINNING") is None  # two lines of capitals
    assert screenplay_turn("OK\nsure thing, see you at the harbour") is None  # a word said, not a name
    units = units_from_text(SCREENPLAY, "conversation")
    said = {u.body: u.speaker for u in units}
    assert said["The bank called again today."] == "MARY"
    assert said["We can sell the truck."] == "JOHN"  # the "(quietly)" direction left out
    # The wrapped stage direction is one sentence, not a line of its own.
    assert "MARY (40s, tired) stands at the counter, sorting a stack of unpaid bills." in said
    assert not any("KITCHEN" in u.text for u in units)  # the scene heading is layout
    out, _ = summarize(SCREENPLAY, tok, "standard", "conversation", 0.5)
    assert any(line.startswith(("MARY: ", "JOHN: ")) for line in out.splitlines()), out


EMAIL_THREAD = """From: Priya Raman <priya@example.org>
Sent: Tuesday, March 4, 2025 9:12 AM
To: Luis Ortega <luis@example.org>
Subject: RE: Lisbon venue

Hi Luis,

Thanks for the quick turnaround. I looked at the two quotes and the Porto option is about 20% cheaper
for the same dates, and the hotel can hold 40 rooms until Friday.

Best,
Priya

-----Original Message-----
From: Luis Ortega <luis@example.org>
Sent: Monday, March 3, 2025 5:40 PM
Subject: Lisbon venue

Priya, the Lisbon venue cancelled our booking this morning because of a double reservation.
"""


def test_an_email_thread_names_each_message_writer_and_drops_its_headers() -> None:
    from batchsum.text import email_sender

    assert email_sender(["From: Priya Raman <priya@example.org>", "To: Luis"]) == "Priya Raman"
    assert email_sender(["From: the top of the hill, we could see", "the whole valley below."]) is None
    said = {u.body: u.speaker for u in units_from_text(EMAIL_THREAD, "conversation")}
    assert said["Thanks for the quick turnaround."] == "Priya Raman"
    assert said["Priya, the Lisbon venue cancelled our booking this morning because of a double reservation."] == (
        "Luis Ortega"
    )
    for ctype in ("conversation", "document"):
        texts = [u.text for u in units_from_text(EMAIL_THREAD, ctype)]
        assert not any("Sent:" in t or "@" in t or "Subject:" in t for t in texts), texts


def test_an_email_is_dated_by_its_date_header(tmp_path: Path) -> None:
    from batchsum.periods import real_date
    from batchsum.walk import dated

    mtime = 1_800_000_000 * 10**9  # 2027: when the file was copied, not written
    rfc = "From: Dana Whitfield <dana@example.com>\nTo: Karl\nDate: Tue, 2 Apr 2024 10:14:00 +0200\n\nHi Karl,"
    outlook = "From: Karl Brandt\nSent: Tuesday, April 2, 2024 10:14 AM\nTo: Dana\n\nHi Dana,"
    for text in (rfc, outlook):
        day, source = dated(tmp_path / "renewal.txt", text, mtime)
        assert (day, source) == ("2024-04-02", "e-mail header") and real_date(day, source) == day
    # A "Date:" line without a header block is no e-mail's.
    assert dated(tmp_path / "note.txt", "Date: Tue, 2 Apr 2024 10:14:00 +0200\nNotes.", mtime)[1] == "mtime"


def test_indented_code_is_never_a_sentence_and_indented_verse_stays(tok: Tokenizer) -> None:
    note = (
        "The endpoint returns every reading with a sequence number greater than the cursor it is given.\n\n"
        "    GET /v1/readings?after=48213&limit=10000 returns lines of newline delimited JSON objects\n\n"
        "Each reading line carries the buoy number, the time it was measured, the tide and the temperature.\n\n"
        '    {"seq": 48214, "buoy": 7, "measured at": "2026-10-08 03:05", "tide m": 2.41, "temp c": 16.8}\n'
        '    {"seq": 48215, "buoy": 8, "measured at": "2026-10-08 03:05", "tide m": 2.38, "temp c": 16.9}\n\n'
        "A client stores the cursor after it has safely written the page, and asks again with the cursor.\n"
    )
    units = units_from_text(note, "document")
    assert len(units) == 3 and not any('"seq"' in u.text or "GET" in u.text for u in units), [u.text for u in units]
    out = summarize_text(note, target_tokens=60, max_tokens=60, kind="standard", content_type="document", tokenizer=tok)
    assert out and "{" not in out and "GET" not in out, out
    # A book indents its verse and letters the same way; lines that end as prose does stay text.
    verse = "She sang softly to herself.\n\n    Over the hills and far away,\n    Down by the river we go.\n"
    assert any("Over the hills" in u.text for u in units_from_text(verse, "document"))


def test_html_images_and_html_block_lines_are_never_sentences() -> None:
    page = (
        "Ownership is a set of rules that govern how a Rust program manages its memory.\n\n"
        '<img alt="Three tables: s1 and s2 on the stack, both pointing to the same string data.\n'
        'Table s1 is grayed out because s1 is no longer valid." src="img/trpl04-04.svg" class="center" />\n\n'
        '<Listing number="10-8" file-name="src/main.rs" caption="A `Point<T, U>` generic over two types">\n\n'
        "You can use as many generic type parameters in a definition as you want to use.\n\n"
        "</Listing>\n\n"
        '<span class="caption">Listing 4-1: A variable and the scope in which it is valid</span>\n\n'
        "The drop function is called automatically at the closing curly bracket of the scope.\n"
    )
    texts = [u.text for u in units_from_text(page, "document")]
    assert texts == [
        "Ownership is a set of rules that govern how a Rust program manages its memory.",
        "You can use as many generic type parameters in a definition as you want to use.",
        "The drop function is called automatically at the closing curly bracket of the scope.",
    ], texts
    # A scraped paper's number placeholder on a line of its own is part of its sentence.
    paper = "We enrolled\n <dig> \npatients with asthma in the study over two years.\n"
    assert "<dig>" in units_from_text(paper, "document")[0].text


def test_an_inline_comment_and_a_wrapped_link_keep_their_sentence_whole() -> None:
    page = (
        "In the [“Implementing a Trait on a Type”][impl]<!--\nignore --> section in Chapter 10, we mentioned the rule\n"
        "that says we may implement a trait on a type only when one of them is local to our crate. (We covered\n"
        "them in the [“Creating Different Types with\nTuple Structs”][tuple-structs] section in Chapter 5.)\n"
    )
    texts = [u.text for u in units_from_text(page, "document")]
    assert texts[0].startswith("In the “Implementing a Trait on a Type” section in Chapter 10, we mentioned"), texts
    assert texts[0].endswith("local to our crate."), texts
    assert "[" not in " ".join(texts) and "“Creating Different Types with Tuple Structs” section" in texts[1], texts


def test_a_sentence_cut_from_a_longer_quotation_shows_whole_quotation_marks(tok: Tokenizer) -> None:
    story = (
        'The Wizard paced the laboratory behind the throne room. "Where is everybody? Are you sure you told '
        'them tonight?" he asked the maid who was setting the long table near the fire. She nodded firmly. '
        '"An old man with white hair stood waiting for us in the kitchen. Two stalwart youths guarded the door '
        'with their axes," said the captain to the crowd in the square. “I have been to the lawyer about the '
        "family matters. We talked of the loss of the great yellow diamond,” Franklin told the sergeant. "
        'A 12" pipe had burst under the floor of the old kitchen in the night.'
    )
    texts = [u.text for u in units_from_text(story, "document")]
    assert 'A 12" pipe had burst under the floor of the old kitchen in the night.' in texts  # inches, as they were
    for text in texts[:-1]:
        assert text.count('"') % 2 == 0 and text.count("“") == text.count("”"), text
    assert (
        '"Are you sure you told them tonight?" he asked the maid who was setting the long table near the fire.' in texts
    )
    assert '"An old man with white hair stood waiting for us in the kitchen."' in texts
    quoted = story.rsplit("A 12", 1)[0]
    out = summarize_text(
        quoted, target_tokens=60, max_tokens=60, kind="standard", content_type="document", tokenizer=tok
    )
    assert out.count('"') % 2 == 0 and out.count("“") == out.count("”"), out


def test_a_journal_of_several_entries_dates_its_lines_and_one_entry_does_not(tok: Tokenizer) -> None:
    second = DIARY.replace("## 2024-03-02", "## 2024-03-05").replace("third chapter", "fourth chapter")
    two = DIARY + "\n" + second.replace("Anna came", "Paul came").replace("Lisbon", "Porto")
    out, _ = summarize(two, tok, "standard", "journal", 0.3)
    dated = re.findall(r"(?m)^(\d{4}-\d{2}-\d{2}): ", out)
    assert dated and set(dated) <= {"2024-03-02", "2024-03-05"}, out
    one, _ = summarize(DIARY, tok, "standard", "journal", 0.3)
    assert not re.search(r"\d{4}-\d{2}-\d{2}", one), one


@pytest.mark.parametrize(
    "text, kept",
    [
        ('If `&"hi"[0]` were valid code that returned the byte value, it would return `104`.', '`&"hi"[0]`'),
        ("To work on it, run `pip install -e .[dev]` from the folder of the clone.", "`pip install -e .[dev]`"),
        (
            "User: Please install it.\n"
            "Tool: [✓ shell: Command: pip install -e .[dev] | Output: 3 lines]\n"
            "Assistant: Done.",
            "pip install -e .[dev]",
        ),
    ],
)
def test_code_is_quoted_as_written(text: str, kept: str) -> None:
    """Footnote marks and tokenizer spacing are taken out of prose, not out of code: `&"hi"[0]` had
    lost its index (and the sentence its meaning), `-e .[dev]` its space."""
    assert any(kept in u.text for u in units_from_text(text, "document")), units_from_text(text, "document")


def test_a_journal_of_one_file_dates_its_entries_under_their_year() -> None:
    """A diary printed as one file names its year on a line of its own and each day alone on its line
    ("_August_ 25."): every entry's sentences carry that date, so a summary keeps them in time."""
    entries = {
        "_January_ 3.": "Am writing an essay on the life-history of insects and have abandoned the cats.",
        "_January_ 17.": "Went with L. out catapult shooting and saw a Goldfinch down by the main road.",
        "_August_ 25.": "Had quite an adventure to-day when we cycled out to the Lighthouse on the sands.",
    }
    text = "Selected entries of a young naturalist.\n\n1903\n\n" + "".join(
        f"{day}\n\n{body}\n\n" for day, body in entries.items()
    )
    dates = {u.date for u in units_from_text(text, "journal") if u.candidate}
    assert {"1903-01-03", "1903-01-17", "1903-08-25"} <= dates, dates
    from batchsum.backends.noise import entry_date

    assert entry_date("_February_ 30.", 1903) is None  # no such day


def test_captions_go_and_wrapped_compounds_stay_whole() -> None:
    """A picture's caption ("{How dare I, Mrs. Reed? ...: p30.jpg}") is no sentence of the text, and a
    compound hard-wrapped at its hyphen reads "high-backed", not "high- backed"."""
    text = (
        "I said nothing at all to her that day, in the high-\nbacked chair by the fire.\n\n"
        "{How dare I, Mrs. Reed?  How dare I?  Because it is the truth: p30.jpg}\n\n"
        "The next morning came bright and clear over the moor, and we set out early."
    )
    shown = [u.text for u in units_from_text(text, "document")]
    assert not any("p30.jpg" in t or "Mrs. Reed" in t for t in shown), shown
    assert any("high-backed chair" in t for t in shown), shown


def test_a_list_is_labelled_by_the_lead_in_just_before_it() -> None:
    """A lead-in ending in a colon, a blank line, then the list: the list is the lead-in's, not its
    section's ("Using Threads to Run Code Simultaneously:" above "- Race conditions ..." read as a way
    to use threads)."""
    text = (
        "## Using Threads to Run Code Simultaneously\n\n"
        "Splitting the computation into threads can improve performance. This can lead to problems, such as:\n\n"
        "- Race conditions, in which threads are accessing data in an inconsistent order\n"
        "- Deadlocks, in which two threads are waiting for each other\n\n"
        "Rust attempts to mitigate the negative effects of using threads."
    )
    items = [u for u in units_from_text(text, "document") if u.text.startswith("- ")]
    assert items and all(u.heading == "This can lead to problems, such as" for u in items), items
