"""Sentence splitting, transcript cleanup and speaker-line parsing."""

from __future__ import annotations

import itertools
import random
import re

import pytest

from batchsum.cleanup import balance_quotes, clean_transcript, fix_spacing
from batchsum.text import is_backchannel, parse_speaker_line, split_sentences, word_count


def texts(source: str) -> list[str]:
    return [s.text for s in split_sentences(source)]


def test_offsets_point_back_into_the_source() -> None:
    source = "  First one here.  Second one?\n\nThird!  "
    spans = split_sentences(source)
    assert [s.text for s in spans] == ["First one here.", "Second one?", "Third!"]
    for s in spans:
        assert source[s.start : s.end] == s.text


def test_abbreviations_and_initials_do_not_split() -> None:
    assert texts("Dr. Smith met Mr. J. R. Jones at 5 p.m. on Friday. They talked.") == [
        "Dr. Smith met Mr. J. R. Jones at 5 p.m. on Friday.",
        "They talked.",
    ]
    assert texts("We compared e.g. apples and i.e. fruit. Then we ate.") == [
        "We compared e.g. apples and i.e. fruit.",
        "Then we ate.",
    ]


def test_a_full_stop_inside_an_italic_span_ends_no_sentence() -> None:
    assert texts("But I am begun _Nap. Bon._ again, which is always a change. Then more.") == [
        "But I am begun _Nap. Bon._ again, which is always a change.",
        "Then more.",
    ]
    assert texts("I wrote _Woodstock_. It sold well. The var my_var. Then x_y.") == [
        "I wrote _Woodstock_.",
        "It sold well.",
        "The var my_var.",
        "Then x_y.",
    ]


def test_titles_of_address_do_not_split() -> None:
    assert len(texts("I have understood that the Messrs. Hay Allan are young men of talent.")) == 1
    assert len(texts("We dined with Mme. Récamier and Mlle. Dupont.")) == 1


def test_soft_abbreviation_at_sentence_end_splits() -> None:
    assert texts("We bought pens, paper, etc. The shop closed.") == ["We bought pens, paper, etc.", "The shop closed."]


def test_decimals_and_versions_never_split() -> None:
    assert texts("The price rose 3.5 percent to $12.75 in v2.1.3 today. Next.") == [
        "The price rose 3.5 percent to $12.75 in v2.1.3 today.",
        "Next.",
    ]


def test_quotes_stay_with_their_sentence() -> None:
    assert texts('He said, "Stop." Then he left. "Go away!" she shouted. "Why?" Nobody knew.') == [
        'He said, "Stop."',
        "Then he left.",
        '"Go away!" she shouted.',
        '"Why?"',
        "Nobody knew.",
    ]


def test_lowercase_continuation_does_not_split() -> None:
    assert texts("Wait... and then what? he asked.") == ["Wait... and then what? he asked."]


def test_newlines_wrapped_prose_joins_but_blocks_split() -> None:
    source = (
        "The cell had been put\ntogether efficiently. It was small\n\n"
        "New paragraph without a stop\nAlice: hi there\nBob: hello"
    )
    assert texts(source) == [
        "The cell had been put\ntogether efficiently.",
        "It was small",
        "New paragraph without a stop",
        "Alice: hi there",
        "Bob: hello",
    ]


def test_a_hard_wrapped_script_keeps_each_turn_whole() -> None:
    # A play or dialogue set 70 columns wide: a turn's wrapped lines go on with its sentence.
    source = (
        "SOCRATES: Let us, Nicias and Laches, comply with the request of\n"
        "Lysimachus and Melesias. There will be no harm in asking ourselves\n"
        "the question which was first proposed to us.\n\n"
        "LACHES: Very true.\n"
        "NICIAS: Yes."
    )
    assert [" ".join(t.split()) for t in texts(source)] == [
        "SOCRATES: Let us, Nicias and Laches, comply with the request of Lysimachus and Melesias.",
        "There will be no harm in asking ourselves the question which was first proposed to us.",
        "LACHES: Very true.",
        "NICIAS: Yes.",
    ]


def test_a_wrapped_prose_line_that_looks_like_a_label_goes_on_with_its_sentence() -> None:
    source = (
        "Our solution to this problem is what we call stability without stagnation,\n"
        "and our guiding principle is this: you should never have to fear upgrading to a\n"
        "new version of stable Rust. Each upgrade should be painless."
    )
    assert [" ".join(t.split()) for t in texts(source)] == [
        "Our solution to this problem is what we call stability without stagnation, and our guiding "
        "principle is this: you should never have to fear upgrading to a new version of stable Rust.",
        "Each upgrade should be painless.",
    ]
    # A line its writer ended (it would have held the next word) is not joined to a turn.
    assert texts("Alice: hi there\nok so what\nBob: a much longer line than the others here") == [
        "Alice: hi there",
        "ok so what",
        "Bob: a much longer line than the others here",
    ]


def test_bullets_and_headings_are_their_own_sentences() -> None:
    source = "# Results\n- first item\n- second item. With more\n1. numbered"
    assert texts(source) == ["# Results", "- first item", "- second item.", "With more", "1. numbered"]


def test_empty_and_whitespace_input() -> None:
    assert split_sentences("") == []
    assert split_sentences(" \n\t\n ") == []
    assert clean_transcript("") == ""


def test_random_text_offsets_are_consistent() -> None:
    rng = random.Random(7)
    alphabet = ["word", "Word", ".", "!", "?", " ", " ", "\n", "\n\n", '"', "Dr.", "3.5", "e.g.", "…", ":", "Bob:"]
    for _ in range(300):
        source = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 60)))
        spans = split_sentences(source)
        last = 0
        for s in spans:
            assert s.text and s.text == source[s.start : s.end] and s.text == s.text.strip()
            assert s.start >= last
            last = s.end
        # Nothing but whitespace falls between sentences.
        covered = "".join(source[a.end : b.start] for a, b in itertools.pairwise(spans))
        assert covered.strip() == ""


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("Project Manager: Okay, let's start.", ("Project Manager", "Okay, let's start.")),
        (
            "The Chair (Hon. Anthony Rota (Nipissing, Lib.)): I call the meeting to order.",
            ("The Chair (Hon. Anthony Rota (Nipissing, Lib.))", "I call the meeting to order."),
        ),
        ("**Alice:** see you", ("Alice", "see you")),
        ("**Alice**: see you", ("Alice", "see you")),
        ("[00:01:02] Bob: hi", ("Bob", "hi")),
        ("Note: this is prose", (None, "Note: this is prose")),
        ("It was 10:30 when he left.", (None, "It was 10:30 when he left.")),
        ("no colon here", (None, "no colon here")),
        ("http://example.com is a link", (None, "http://example.com is a link")),
    ],
)
def test_parse_speaker_line(line: str, expected: tuple[str | None, str]) -> None:
    assert parse_speaker_line(line) == expected


def test_clean_transcript_removes_markers_fillers_and_spacing() -> None:
    raw = "Um so , this is uh the the first {disfmarker} meeting {vocalsound} , we 're on . Mm-hmm ."
    assert clean_transcript(raw) == "So, this is the first meeting, we're on."
    assert clean_transcript("I don 't know , [laughter] maybe .") == "I don't know, maybe."


def test_clean_transcript_drops_caption_cues() -> None:
    raw = "Welcome back (cheering) to the show. [click, TV static]\nThe boat hit the rock (water splashing)!"
    assert clean_transcript(raw).split("\n") == ["Welcome back to the show.", "The boat hit the rock!"]
    # A longer aside is speech, not a cue.
    assert clean_transcript("We met (in 2019, I think) there.") == "We met (in 2019, I think) there."


def test_clean_transcript_drops_cut_off_word_starts() -> None:
    assert clean_transcript("ho how it works for w we're done") == "How it works for we're done"
    # Real short words that happen to start the next word stay.
    assert clean_transcript("the theory is on one side") == "The theory is on one side"


def test_clean_transcript_keeps_line_count() -> None:
    raw = "um\nokay so {gap} we start\n\n{vocalsound}\nuh the end"
    cleaned = clean_transcript(raw)
    assert cleaned.split("\n") == ["", "Okay so we start", "", "", "The end"]


def test_clean_transcript_keeps_real_words() -> None:
    # "umbrella", "human", "ahead" contain filler letters but are words.
    assert clean_transcript("The umbrella is ahead of the human.") == "The umbrella is ahead of the human."


@pytest.mark.parametrize("turn", ["Yeah.", "Okay, right.", "Mm-hmm.", "Thank you.", "Uh-huh .", "Oh, I see.", ""])
def test_backchannels(turn: str) -> None:
    assert is_backchannel(turn)


@pytest.mark.parametrize("turn", ["Yeah, the battery costs five euros.", "We decided on rubber."])
def test_not_backchannels(turn: str) -> None:
    assert not is_backchannel(turn)


def test_word_count() -> None:
    assert word_count("  one two\nthree  ") == 3
    assert word_count("") == 0


@pytest.mark.parametrize(
    "contraction",
    [
        "let's suppose",
        "don't think",
        "we're recording",
        "it's simple",
        "I'll look",
        "they've verified",
        "I'd decide",
        "I'm making",
        "can't tell",
        "she's sure",
        "that's settled",
    ],
)
def test_clean_transcript_keeps_contractions_before_a_word_with_the_same_letters(contraction: str) -> None:
    # The stutter rule must never read the clitic of a contraction as a false start of the next word.
    for line in (
        f"So {contraction} now.",
        f"{contraction} about it , uh , again.",
        f"Well {contraction} {{vocalsound}} ok",
    ):
        cleaned = clean_transcript(line)
        assert contraction.split()[0].lower() in cleaned.lower().split(), (line, cleaned)
        assert contraction.split()[1] in cleaned, (line, cleaned)


@pytest.mark.parametrize(
    ("spaced", "joined"),
    [
        ("I haven ' t had a cold", "haven't"),
        ("I ' Ve been there", "I've"),
        ("we 're here", "we're"),
        ("don ' t go", "don't"),
        ("it 's fine", "it's"),
        ("do n't go", "don't"),
        ("I didn't see the sign, Ma ' am.", "Ma'am"),
        ("until one o ' clock", "o'clock"),
    ],
)
def test_clean_transcript_rejoins_tokenizer_spaced_clitics(spaced: str, joined: str) -> None:
    for cleaned in (clean_transcript(spaced), fix_spacing(spaced)):
        assert joined.lower() in cleaned.lower(), cleaned
        assert " '" not in cleaned and "' " not in cleaned, cleaned


@pytest.mark.parametrize(
    ("spaced", "joined"),
    [("offline in about two hours ' time.", "two hours' time."), ("the customers ' needs", "customers' needs")],
)
def test_clean_transcript_rejoins_a_plurals_spaced_possessive(spaced: str, joined: str) -> None:
    for cleaned in (clean_transcript(spaced), fix_spacing(spaced)):
        assert joined in cleaned, cleaned


def test_clean_transcript_leaves_no_markup_or_spacing_on_random_transcripts() -> None:
    rng = random.Random(7)
    noise = ["{disfmarker}", "{vocalsound}", "{pause}", "[laughter]", "um", "uh ,", ",", "it 's", "do n't", "the the"]
    words = "we need to decide the remote design and budget so let's suppose it works don't worry".split()
    for _ in range(200):
        line = " ".join(rng.choice(words + noise) for _ in range(rng.randint(3, 25)))
        cleaned = clean_transcript(line)
        assert "{" not in cleaned and "[" not in cleaned, (line, cleaned)
        assert " ," not in cleaned and " ." not in cleaned and " 's" not in cleaned, (line, cleaned)


def test_parse_speaker_line_reads_dialogsum_labels_but_not_headings() -> None:
    assert parse_speaker_line("#Person1#: Hello, how are you?") == ("Person1", "Hello, how are you?")
    assert parse_speaker_line("## Results: the numbers") == (None, "## Results: the numbers")


def test_a_turn_of_several_speakers_names_them_all_and_a_lead_in_with_a_comma_is_no_label() -> None:
    from batchsum.backends.units import units_from_text

    assert parse_speaker_line("SAM, LAURA: What a day.") == ("SAM, LAURA", "What a day.")
    assert parse_speaker_line("TRAVIS, MARISHA and SAM: We agree.") == ("TRAVIS, MARISHA and SAM", "We agree.")
    for prose in ("Well, I think: this is it.", "YES, SIR: the report is ready.", "Excitement, Enjoyment: sounds."):
        assert parse_speaker_line(prose) == (None, prose)
    text = (
        "MATT: Make a perception check on the wall over there.\n"
        "SAM, LAURA: We both rolled really well on that one, twenty-two.\n"
        "TRAVIS: Water is coming in from under the door!\n"
    )
    turns = [(u.speaker, u.body) for u in units_from_text(text, "conversation")]
    assert ("SAM, LAURA", "We both rolled really well on that one, twenty-two.") in turns
    assert not any("LAURA:" in body for _, body in turns)  # not glued into the game master's turn


def test_a_long_sentence_is_not_split_after_a_title() -> None:
    from batchsum.backends.units import units_from_text

    # Long sentences run together in lower-cased text are split at ". a"; never after "Mr." or "Dr.".
    long = (
        "“Oh then, if we’ve felt that the child, dear little angel, has judged us and how he regards us, and we "
        "haven’t been betrayed, he must have guessed—and in short it’s general!” an inference that rather stirred "
        "up Mr. and Mrs. Moreen, as Pemberton had desired it should, and Dr. and Mrs. Bell too."
    )
    assert [u.text for u in units_from_text(long, "document")] == [long]


def test_cleaning_keeps_a_numbers_digits_and_joins_spelled_out_letters() -> None:
    # A stutter goes ("the the", "one one implication"); digits read one by one are the number.
    assert clean_transcript("Grad A: Four two zero zero one seven .") == "Grad A: Four two zero zero one seven."
    assert clean_transcript("Ben: the the one one implication of 1 1 4 4") == "Ben: the one implication of 1 1 4 4"
    # The AMI corpus spells letters out: "V_C_R_" is VCR.
    assert clean_transcript("Marketing: a V_C_R_ , D_V_D_ player and an L_C_D_ screen .") == (
        "Marketing: a VCR, DVD player and an LCD screen."
    )


def test_wrapped_lines_that_open_with_chapter_or_listing_words_go_on_with_their_sentence() -> None:
    from batchsum.backends.units import units_from_text

    page = (
        "In cases when many types are possible, such as when we converted a `String` using `parse` in the\n"
        "[guessing game][guess]<!-- ignore --> section in\n"
        "Chapter 2, we must add a type annotation to the variable.\n\n"
        "So, what happens if we try to modify something we are borrowing? Try the code in\n"
        "Listing 4-6. Spoiler alert: It does not work at all!\n\n"
        "> The Rust team has been focusing on enabling great IDE support. See [Appendix D][devtools]<!-- ignore -->\n"
        "> for more details about the tools.\n"
    )
    shown = [u.text for u in units_from_text(page, "document")]
    assert shown == [
        "In cases when many types are possible, such as when we converted a `String` using `parse` in the guessing "
        "game section in Chapter 2, we must add a type annotation to the variable.",
        "So, what happens if we try to modify something we are borrowing?",
        "Try the code in Listing 4-6.",
        "Spoiler alert: It does not work at all!",
        "The Rust team has been focusing on enabling great IDE support.",
        "See Appendix D for more details about the tools.",
    ], shown


def test_a_spaced_ellipsis_is_one_mark() -> None:
    # As printed books set it: a lower-case word after it goes on with the sentence.
    assert texts("He paused . . . and then he spoke. It was over . . . . The end came.") == [
        "He paused . . . and then he spoke.",
        "It was over . . . .",
        "The end came.",
    ]
    # Shown as an ellipsis, not cut to one period ("He paused. and then he spoke.").
    assert fix_spacing("He paused . . . and then he spoke.") == "He paused... and then he spoke."
    assert clean_transcript("Ann: well . . . maybe we go .") == "Ann: well... maybe we go."


def test_fix_spacing_undoes_tokenizer_spacing_in_prose() -> None:
    from batchsum.backends.units import units_from_text
    from batchsum.cleanup import fix_spacing

    spaced = re.compile(r"\w [,.;:!?](?=\s|$)|\w '(?:s|t|re|ve|ll|d|m)\b")
    text = "Gee , I thought excitedly , this is one big ship ! We 're sure it ca n't land . The run (n = 3 ) ended ."
    for u in units_from_text(text, "document"):
        assert not spaced.search(u.text), u.text
    # Words with an apostrophe of their own stay as written.
    assert fix_spacing("It was three o'clock by the fo'c'sle clock .") == "It was three o'clock by the fo'c'sle clock."
    # A quotation mark spaced off the sentence it opens or closes (as some stories are typed).
    assert fix_spacing('" I had no trouble," Nagurski said.') == '"I had no trouble," Nagurski said.'
    assert fix_spacing('" Die now—die now—die now —"') == '"Die now—die now—die now —"'


def test_speakers_at_names_the_turn_a_position_falls_inside() -> None:
    from batchsum.text import speakers_at

    text = "Luis: We should go to Porto. It is cheaper.\nMaria: I agree.\nno label here, then more"
    positions = [0, text.index("It is"), text.index("Maria"), text.index("agree"), text.index("then")]
    # The start; inside Luis's turn; a line start (the line names its own speaker); inside Maria's
    # turn; inside a line with no label.
    assert speakers_at(text, positions) == [None, "Luis", None, "Maria", None]
    long_turn = "Ana: " + "and then we talked about the harbour " * 20_000  # one 740,000-character line
    cuts = list(range(1000, len(long_turn), 3000))
    assert speakers_at(long_turn, cuts) == ["Ana"] * len(cuts)


def test_hard_wrapped_markdown_quotes_and_list_items_are_joined() -> None:
    quote = (
        "> Note: This book assumes the command line. Rust makes\n"
        "> no demands about your editor, so\n"
        "> use your favorite IDE.\n"
        "Plain text after the quote."
    )
    assert texts(quote) == [
        "> Note: This book assumes the command line.",
        "Rust makes\n> no demands about your editor, so\n> use your favorite IDE.",
        "Plain text after the quote.",
    ]
    items = (
        "- Custom macros that specify code added with the attribute\n"
        "  used on structs and enums\n"
        "- Function-like macros that look like function calls\n"
        "Then a paragraph."
    )
    assert texts(items) == [
        "- Custom macros that specify code added with the attribute\n  used on structs and enums",
        "- Function-like macros that look like function calls",
        "Then a paragraph.",
    ]


def test_tokenized_quotes_close_on_their_words_and_empty_ones_go() -> None:
    tokenized = (
        'Grad C: so the person says , " um yeah I wanted to go shopping " and " maybe eat here " , right .\n'
        "Professor C: build a system that said , \" whenever you got a question I 've got three answers .\n"
        'PhD A: you get some speech and then a " {vocalsound} " , and some more speech .'
    )
    assert clean_transcript(tokenized).split("\n") == [
        'Grad C: so the person says, "yeah I wanted to go shopping" and "maybe eat here", right.',
        "Professor C: build a system that said, \"whenever you got a question I've got three answers.",
        "PhD A: you get some speech and then a, and some more speech.",
    ]
    # Quotes already against their words are left alone, in tokenized text or not.
    assert clean_transcript('MATT: He goes, "Thank you." "Of course."') == 'MATT: He goes, "Thank you." "Of course."'


def test_words_broken_off_in_a_tokenized_meeting_go_and_short_words_stay() -> None:
    meeting = (
        "Professor C: We m We may wind up with the de the details , et cetera .\n"
        "Grad B: It 's a m pragmatic approach , oh , and an ad push is x times cheaper .\n"
    )
    assert clean_transcript(meeting).split("\n") == [
        "Professor C: We may wind up with the details, et cetera.",
        "Grad B: It's a pragmatic approach, oh, and an ad push is x times cheaper.",
        "",
    ]
    # Untokenized text (a chat) keeps its short words: "u" and "r" are words there.
    assert clean_transcript("Ana: r u coming to the harbour tonight?") == "Ana: r u coming to the harbour tonight?"


def test_you_know_and_i_mean_go_only_as_fillers() -> None:
    lines = [
        "Luis: So, as some of you know, the Lisbon venue has doubled its price.",
        "Ana: Do you know the way to the harbour?",
        "Ben: That is what I mean by a warning.",
        "Maya: So, you know, we should go. It is , you know , fine .",
        "Jonas: I mean, the buoy is fine.",
    ]
    assert clean_transcript("\n".join(lines)).split("\n") == [
        *lines[:3],
        "Maya: So, we should go. It is, fine.",
        "Jonas: the buoy is fine.",
    ]


def test_cleaning_capitalizes_words_not_file_names() -> None:
    cleaned = clean_transcript("um so we start\npyproject.toml\nazure-pipelines.yml\nok.\nso-called fixes")
    assert cleaned.split("\n") == ["So we start", "pyproject.toml", "azure-pipelines.yml", "Ok.", "So-called fixes"]


def test_an_agent_tool_record_is_one_unit_not_cut_at_its_periods() -> None:
    from batchsum.backends.units import units_from_text

    record = "[✓ edit: File: fields.py | Last: File updated. Edit the file again if necessary. If it didn't, fix it.]"
    text = f"Assistant: We should round the value instead of truncating it.\n\nTool: {record}\n"
    units = units_from_text(text, "conversation")
    assert [u.body for u in units if u.speaker == "Tool"] == [record]
    assert [u.speaker for u in units] == ["Assistant", "Tool"]


def test_markdown_reads_as_its_rendered_text() -> None:
    from batchsum.backends.units import units_from_text

    page = (
        "<!-- Old headings. Do not remove or links may break. -->\n"
        '<a id="creating-a-project"></a>\n\n'
        "> Note: Rust makes no specific demands about your editing or tooling, so\n"
        "> use any editor. See [Appendix D][devtools]<!-- ignore --> for more details.\n\n"
        "Open the file and enter the code in [Listing 1-1](ch01.html#listing), as the picture shows.\n"
        "![A terminal window](img/terminal.png)\n\n"
        "```rust\nfn main() {\n    // Prints a greeting. It is the first program of the book.\n}\n```\n\n"
        "[devtools]: appendix-04-useful-development-tools.html\n"
    )
    bodies = [u.body for u in units_from_text(page, "document")]
    assert bodies == [
        "Note: Rust makes no specific demands about your editing or tooling, so use any editor.",
        "See Appendix D for more details.",
        "Open the file and enter the code in Listing 1-1, as the picture shows.",
    ]


def test_agent_tool_records_reach_the_summarizer_verbatim() -> None:
    """Every record ``digest_agent_transcript`` writes stays one unit, untouched by the speech cleaner:
    brackets, braces, repeated numbers and spaced punctuation in tool output are the program's own."""
    from batchsum.agent_transcript import digest_agent_transcript
    from batchsum.backends.units import units_from_text

    outputs = [
        ("python exploit.py", "[*] Opening connection\n[16] Got random number: 1364650861\n[*] Closed connection"),
        ("set_cursors 1475 1475", "1574:        result[keys[k]] = v\n(422 more lines below)"),
        ("./rock", "EXECUTION TIMED OUT"),
        ("file release", "release: ELF 64-bit LSB executable, x86-64, version 1 (SYSV), dynamically linked"),
        ("decompile rock", "int main() {\n  do { step(); } while( true );\n}"),
    ]
    parts = ["### user\n\nThe exploit fails. Find out why and get the flag."]
    for command, output in outputs:
        parts.append(f"### assistant\n\nLet me try the next step of the exploit.\n```\n{command}\n```")
        parts.append(f"### user\n\n{output}\n(Current directory: /ctf)\nbash-$")
    digest = digest_agent_transcript("\n\n".join(parts) + "\n")
    records = [line.removeprefix("Tool: ") for line in digest.text.split("\n") if line.startswith("Tool: [")]
    assert len(records) == len(outputs)
    assert any("[*]" in r for r in records) and any("{" in r for r in records)
    units = units_from_text(digest.text, "conversation")
    assert [u.body for u in units if u.speaker == "Tool"] == records


def test_a_sentence_cut_from_a_quotation_gets_its_missing_mark() -> None:
    from batchsum.cleanup import balance_quotes

    assert balance_quotes('Are you sure?" he asked.') == '"Are you sure?" he asked.'
    assert balance_quotes('"An old man stood waiting.') == '"An old man stood waiting."'
    assert balance_quotes("He said “yes and went.") == "He said “yes and went.”"
    assert balance_quotes("you went back to your room——”") == "“you went back to your room——”"
    assert balance_quotes("「これは社交ではありません。") == "「これは社交ではありません。」"
    assert balance_quotes("よろしい」と彼は言った。") == "「よろしい」と彼は言った。"
    for whole in ('A 12" pipe burst.', "“a” and “b”.", "No quotation here.", '"Done," she said.'):
        assert balance_quotes(whole) == whole


def test_a_sentence_cut_from_an_italic_passage_gets_its_missing_mark() -> None:
    # Project Gutenberg's italics run over several sentences: a picked one shows no stray "_".
    assert balance_quotes("_George Dolan had four problems.") == "_George Dolan had four problems._"
    assert balance_quotes("and his life._ He left at dawn.") == "_and his life._ He left at dawn."
    for whole in ("He read _Woodstock_ twice.", "Call snake_case and __init__ here.", "_Abbotsford_, _May_ 16."):
        assert balance_quotes(whole) == whole


def test_a_few_spaced_marks_do_not_make_a_text_tokenized() -> None:
    """One "it , once" in an agent session had made the whole text a tokenized transcript, whose
    one- and two-letter non-words are words broken off: "chall.py" lost its "py"."""
    from batchsum.cleanup import clean_transcript

    text = "The chall.py file encrypts one message. We looked at setup.py too. Then we ran it , once."
    assert "chall.py" in clean_transcript(text) and "setup.py" in clean_transcript(text)
    assert clean_transcript("So we m we may go there . It is the the best , I think .") == (
        "So we may go there. It is the best, I think."
    )


def test_in_an_e_mail_thread_the_sender_speaks() -> None:
    """A message's "Good news: ..." or "So the plan: ..." is its sender's sentence: they had been two
    more participants of the thread."""
    from batchsum.text import conversation_lines

    thread = (
        "From: Helen Carter <helen@example.org>\nTo: Committee <c@example.org>\n"
        "Date: Mon, 3 Feb 2025 09:12:44 +0100\nSubject: Venue\n\nHi all,\n\n"
        "Good news: Lindenhof has 19-20 June free.\n\nSo the plan: Lindenhof, 19-20 June.\n\n---\n\n"
        "From: Mei Tanaka <mei@example.org>\nTo: Committee <c@example.org>\n"
        "Date: Tue, 4 Feb 2025 08:05:19 +0100\nSubject: Re: Venue\n\nAgreed, I will book the hotel blocks.\n"
    )
    lines = conversation_lines(thread)
    assert {who for who, _ in lines if who} == {"Helen Carter", "Mei Tanaka"}, lines
    assert ("Helen Carter", "Good news: Lindenhof has 19-20 June free.") in lines
