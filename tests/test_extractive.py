"""The embedded extractive backend: budgets, determinism, kinds, transcript handling."""

from __future__ import annotations

import asyncio
import dataclasses
import random
from pathlib import Path

import pytest

from batchsum.backends.extractive import ExtractiveBackend, summarize_text
from batchsum.backends.scorer import SCORER
from batchsum.model import ContentType, PromptKind, SummaryRequest
from batchsum.text import parse_speaker_line, split_sentences
from batchsum.tokens import Tokenizer, get_tokenizer

SAMPLE = Path(__file__).resolve().parent.parent / "sample_corpus"

TOPICS = {
    "battery": "battery charge cell voltage power drain lithium hours",
    "design": "design case shape rubber colour button layout prototype",
    "budget": "budget price cost euro margin profit sales market",
    "weather": "rain cloud storm wind forecast cold sunny temperature",
}


@pytest.fixture(scope="module")
def tok() -> Tokenizer:
    return get_tokenizer()


def sentence(rng: random.Random, topic: str, n: int | None = None) -> str:
    words = TOPICS[topic].split() + "the team said we will need a new plan for it and".split()
    body = " ".join(rng.choice(words) for _ in range(n or rng.randint(6, 22)))
    return body[0].upper() + body[1:] + rng.choice([".", ".", "!", "?"])


def random_text(rng: random.Random, sentences: int, conversation: bool = False) -> str:
    topics = list(TOPICS)
    lines = []
    for i in range(sentences):
        s = sentence(rng, rng.choice(topics))
        if conversation:
            speaker = rng.choice(["Ann", "Bob", "Project Manager", "Dr. Lee"])
            filler = rng.choice(["", " um", " {disfmarker}", " uh ,", ""])
            lines.append(f"{speaker}:{filler} {s}")
            if rng.random() < 0.3:
                lines.append(f"{rng.choice(['Ann', 'Bob'])}: {rng.choice(['Yeah .', 'Okay.', 'Mm-hmm .'])}")
        else:
            lines.append(s + ("\n\n" if i % 5 == 4 else " "))
    return ("\n" if conversation else "").join(lines)


def run(
    text: str,
    tok: Tokenizer,
    kind: PromptKind = "standard",
    ctype: ContentType = "document",
    target: int | None = None,
    max_tokens: int | None = None,
    **kw: object,
) -> str:
    n = tok.count(text)
    t = target if target is not None else max(1, int(0.12 * n))
    m = max_tokens if max_tokens is not None else max(1, min(t, max(128, n // 2)))
    return summarize_text(text, target_tokens=t, max_tokens=m, kind=kind, content_type=ctype, tokenizer=tok, **kw)  # type: ignore[arg-type]


def sample_texts() -> list[tuple[str, str]]:
    out = []
    for path in sorted(SAMPLE.rglob("*")):
        if path.is_file() and path.suffix in {".md", ".txt"}:
            # The runner never hands one node more than a ~3000-token chunk; keep the test fast.
            out.append((path.name, path.read_text(encoding="utf-8")[:15000]))
    return out


def test_budget_never_exceeded_and_shorter_than_input(tok: Tokenizer) -> None:
    rng = random.Random(11)
    kinds: list[PromptKind] = ["brief", "standard", "chunk", "meta"]
    ctypes: list[ContentType] = ["document", "conversation", "journal"]
    for trial in range(60):
        ctype = ctypes[trial % 3]
        text = random_text(rng, rng.randint(1, 60), conversation=ctype == "conversation")
        n = tok.count(text)
        for kind in kinds:
            target = rng.randint(1, max(2, n))
            max_tokens = rng.randint(1, target)
            parts = [p for p in text.split("\n\n") if p.strip()] if kind == "meta" else None
            out = run(text, tok, kind, ctype, target, max_tokens, parts=parts)
            assert tok.count(out) <= max_tokens, (trial, kind)
            # Shorter than its text, unless the text already fits its target: then it comes back whole.
            assert tok.count(out) < n or out == "" or (kind != "meta" and n <= target), (trial, kind)
            if n > 1 and max_tokens >= 3:
                assert out.strip(), (trial, kind, text)


def test_real_texts_respect_budget_and_are_deterministic(tok: Tokenizer) -> None:
    samples = sample_texts()
    assert samples, "sample_corpus is missing"
    for name, text in samples:
        if not text.strip():
            continue
        n = tok.count(text)
        ctype: ContentType = "conversation" if "meeting" in name or "channel" in name else "document"
        for kind in ("brief", "standard", "chunk"):
            target = max(1, int(0.12 * n))
            first = run(text, tok, kind, ctype, target)  # type: ignore[arg-type]
            again = run(text, tok, kind, ctype, target)  # type: ignore[arg-type]
            assert first == again, name
            assert tok.count(first) <= max(1, min(target, max(128, n // 2))), name
            assert tok.count(first) < n, name


def test_tiny_inputs(tok: Tokenizer) -> None:
    assert run("", tok) == ""
    assert run("   \n\t ", tok) == ""
    one = "The battery lasted nine hours in the cold field test near the lake."
    out = run(one, tok, "brief", target=10, max_tokens=10)
    assert out and tok.count(out) < tok.count(one)
    assert out.split()[0] == "The"


@pytest.mark.parametrize("kind", ["brief", "standard", "chunk"])
def test_a_text_that_fits_its_target_comes_back_whole(tok: Tokenizer, kind: PromptKind) -> None:
    for text in ("The cat sat on the mat.", "Budget approved at 18,400 euros.", "Hi"):
        assert run(text, tok, kind, target=50, max_tokens=50) == text


@pytest.mark.parametrize(
    ("kw", "named"),
    [({"kind": "bogus"}, "kind"), ({"content_type": "memo"}, "content_type"), ({"target_tokens": -5}, "target_tokens")],
)
def test_summarize_text_refuses_arguments_it_does_not_know(tok: Tokenizer, kw: dict[str, object], named: str) -> None:
    args: dict[str, object] = {"target_tokens": 50, "max_tokens": 50, "kind": "standard", "content_type": "document"}
    with pytest.raises(ValueError, match=named):
        summarize_text("The cat sat on the mat.", tokenizer=tok, **{**args, **kw})  # type: ignore[arg-type]


def test_brief_is_one_line_of_whole_sentences(tok: Tokenizer) -> None:
    rng = random.Random(3)
    text = random_text(rng, 30)
    out = run(text, tok, "brief", target=60, max_tokens=60)
    sentences = split_sentences(out)
    assert 1 <= len(sentences) <= SCORER.brief_max  # short sentences join the line up to brief_max
    assert "\n" not in out
    assert all(s.text in text for s in sentences)  # whole sentences of the source, never cut
    # Another sentence only while the line is still well below the budget.
    if len(sentences) > 1:
        rest = tok.count(out) - max(tok.count(s.text) for s in sentences)
        assert rest < 0.9 * 60 + 2
    long_sentence = " ".join(["the battery and the design, and the price"] * 30) + "."
    # No candidate fits: a shorter whole sentence is the line; only with none is the best one cut.
    assert run(long_sentence + " Short one here today.", tok, "brief", target=20, max_tokens=20) == (
        "Short one here today."
    )
    trimmed = run(long_sentence + " Yes.", tok, "brief", target=20, max_tokens=20)
    assert tok.count(trimmed) <= 20
    assert len(split_sentences(trimmed)) == 1
    assert trimmed.endswith("…")


def test_brief_picks_the_central_sentence(tok: Tokenizer) -> None:
    text = (
        "The new remote control needs a long battery life and a rubber case. "
        "Lunch was served at noon. "
        "Battery life matters most for the remote control, said the team. "
        "The rubber case makes the remote control easy to hold. "
        "Someone mentioned the weather."
    )
    out = run(text, tok, "brief", target=30, max_tokens=30)
    assert "remote control" in out


def test_conversation_cleanup_and_backchannels(tok: Tokenizer) -> None:
    lines = []
    for i in range(12):
        lines.append(
            f"Project Manager: So um we {{disfmarker}} we need the the battery to last {i + 2} days , uh , okay ."
        )
        lines.append("Marketing: Yeah .")
        lines.append(f"Industrial Designer: The rubber case {{vocalsound}} costs {i + 3} euro and it 's cheaper .")
        lines.append("User Interface: Mm-hmm .")
    text = "\n".join(lines)
    out = run(text, tok, "standard", "conversation", target=80, max_tokens=80)
    assert out
    for noise in ("{disfmarker}", "{vocalsound}", " um ", " uh", "the the", " ,", "it 's"):
        assert noise not in out
    assert "Yeah." not in out.split("\n")
    assert "Mm-hmm" not in out


def test_speaker_aware_selection(tok: Tokenizer) -> None:
    # One speaker repeats near-identical content many times; the others each raise a distinct point.
    lines = [
        f"Ann: The battery price of the remote control is {i} euro and the battery price matters." for i in range(20)
    ]
    lines += [
        "Bob: The rubber case design needs a strong colour and a soft shape for the remote control.",
        "Cid: The market survey says young users want a remote control with speech recognition.",
        "Dee: The deadline for the prototype of the remote control is the next meeting on Friday.",
    ]
    out = run("\n".join(lines), tok, "standard", "conversation", target=90, max_tokens=90)
    anns = sum(1 for s in split_sentences(out) if "battery price" in s.text)
    others = sum(w in out for w in ("rubber case", "speech recognition", "deadline"))
    assert others >= 2
    assert anns <= 2


def test_speaker_fair_share_follows_talk_time(tok: Tokenizer) -> None:
    # Turns of made-up words share no word, so nothing but the opening prior and the speaker penalty
    # (made dominant here) tells them apart: each speaker's lines then follow their talk time. The
    # narrator holds 3 of every 4 turns, all turns equally long, so about 3/4 of the lines.
    rng = random.Random(5)

    def word() -> str:
        return "".join(rng.choice("bcdfghklmnprstvz") + rng.choice("aeiou") for _ in range(3))

    lines = []
    for i in range(48):
        speaker = "MATT" if i % 4 != 3 else ["LAURA", "SAM", "TRAVIS"][i // 4 % 3]
        lines.append(f"{speaker}: " + " ".join(word() for _ in range(12)).capitalize() + ".")
    params = dataclasses.replace(SCORER, speaker_w=5.0)
    out = run("\n".join(lines), tok, "standard", "conversation", target=700, max_tokens=700, params=params)
    picked = [line for line in out.splitlines() if line.strip()]
    assert len(picked) >= 12
    share = sum(line.startswith("MATT:") for line in picked) / len(picked)
    assert 0.7 <= share <= 0.8


def test_meta_draws_from_several_parts(tok: Tokenizer) -> None:
    parts = [
        "The battery study found a nine hour runtime in cold weather. Lithium cells held their voltage.",
        "The design review chose a rubber case with large buttons. The colour will be yellow.",
        "The budget allows twelve euro per unit. Sales expect a margin of forty percent.",
    ]
    joined = "\n\n".join(parts)
    out = run(joined, tok, "meta", target=60, max_tokens=60, parts=parts)
    assert tok.count(out) <= 60
    hits = sum(any(s.text in out for s in split_sentences(p)) for p in parts)
    assert hits >= 2
    for s in split_sentences(out):
        assert any(s.text in p for p in parts)  # extractive: every sentence comes from a child


GAME_STORY = [
    "MATT: The ship drifts into the harbour of Nicodranas as the storm finally breaks over the grey cliffs.",
    "LAURA: Jester wants to find her mother at the Lavish Chateau before anyone else sees the captain.",
    "TRAVIS: Fjord ties the boat to the dock and asks the harbour master about the missing crew.",
    "MATT: The harbour master says the crew was taken by pirates who sailed north toward the Cyrios islands.",
    "LIAM: Caleb studies the map and suggests they hire a faster ship before the pirates reach the islands.",
    "MARISHA: Beau wants to question the pirates' contact who drinks every night at the Wet Dog tavern.",
    "SAM: Nott sneaks into the tavern and steals a letter from the contact's coat pocket.",
    "MATT: The letter names a buyer in the Menagerie Coast who pays gold for captured sailors.",
    "TALIESIN: Molly reads the cards and warns the group that the buyer is a member of the Myriad.",
    "ASHLEY: Yasha agrees to guard the ship while the others follow the contact through the market.",
]
# Short turns that differ only in a number: by their rare words (the numbers) they look unrelated.
DAMAGE_TURNS = [
    f"{who}: That's {n} points of damage."
    for who, n in zip(
        ("TALIESIN", "TRAVIS", "MARISHA", "LIAM", "SAM", "ASHLEY"),
        ("nine", "ten", "eleven", "twelve", "seven", "eight"),
        strict=True,
    )
]


@pytest.mark.parametrize("target", [80, 120, 160])
def test_near_duplicate_turns_are_kept_once(tok: Tokenizer, target: int) -> None:
    parts = ["\n".join(GAME_STORY[:5] + DAMAGE_TURNS[:3]), "\n".join(GAME_STORY[5:] + DAMAGE_TURNS[3:])]
    whole = run("\n".join(parts), tok, "standard", "conversation", target=target, max_tokens=target)
    meta = run("", tok, "meta", "conversation", target=target, max_tokens=target, parts=parts)
    for out in (whole, meta):
        lines = out.split("\n")
        assert sum("points of damage" in line for line in lines) <= 1, out
        assert sum(line in GAME_STORY for line in lines) >= 2, out


def test_rolling_keeps_a_relevant_prior_sentence(tok: Tokenizer) -> None:
    prior = (
        "The team chose lithium batteries for the remote control after the field test. "
        "The old office coffee machine was replaced in March."
    )
    new_parts = [
        "The lithium batteries of the remote control lasted nine hours in the second field test. "
        "The team will order lithium batteries for the remote control prototype next week.",
        "Sales asked whether the remote control batteries can be recharged by the customer.",
    ]
    out = summarize_text(
        "\n\n".join(new_parts),
        target_tokens=60,
        max_tokens=60,
        kind="rolling",
        content_type="document",
        tokenizer=tok,
        parts=new_parts,
        prior_context=prior,
    )
    assert out.startswith("The team chose lithium batteries")  # carried forward, first
    assert "coffee machine" not in out
    assert any(s.text in out for p in new_parts for s in split_sentences(p))
    assert tok.count(out) <= 60
    again = summarize_text(
        "\n\n".join(new_parts),
        target_tokens=60,
        max_tokens=60,
        kind="rolling",
        content_type="document",
        tokenizer=tok,
        parts=new_parts,
        prior_context=prior,
    )
    assert again == out


def test_document_profile_prefers_findings_over_boilerplate(tok: Tokenizer) -> None:
    text = (
        "Produced by the Online Distributed Proofreading Team at www.example.org today.\n\n"
        "We measured the battery runtime of forty remote controls in a field study. "
        "The study found that lithium cells last twice as long as alkaline cells. "
        "We conclude that lithium cells are the better choice for the remote control. "
        "The weather was mild during the study weeks."
    )
    out = run(text, tok, "standard", "document", target=45, max_tokens=45)
    assert "Produced by" not in out
    assert "lithium" in out


def test_backend_protocol(tok: Tokenizer) -> None:
    backend = ExtractiveBackend(tok)
    rng = random.Random(5)
    text = random_text(rng, 40)
    n = tok.count(text)
    request = SummaryRequest(
        node_id="doc.md:summary:L3:final",
        kind="standard",
        content_type="document",
        text=text,
        input_tokens=n,
        target_tokens=int(0.12 * n),
        max_tokens=min(int(0.12 * n), max(128, n // 2)),
    )

    async def go() -> tuple[str, str, int, int]:
        out = await backend.summarize(request)
        await backend.aclose()
        return out.text, out.backend, out.llm_calls, out.completion_tokens

    text_out, name, calls, completion = asyncio.run(go())
    assert name == "extractive" and calls == 0
    assert text_out and completion == tok.count(text_out) <= request.max_tokens
    assert backend.name == "extractive" and backend.model is None


MEETING = "\n".join(
    [
        "Luis: Okay , so we 're recording {disfmarker} let's start with the venue question.",
        "Ana: Yeah .",
        "Luis: I looked at Lisbon first , but the hotels there are fully booked for the conference week.",
        "Ana: So what do you propose instead ?",
        "Luis: So I looked elsewhere , and I want to propose Porto because flights and rooms are cheaper there.",
        "Ana: Mm-hmm . I don't think the budget allows more than two nights anyway , and the landmark - iness cor",
        "Kim: The train from Porto to the venue takes three hours , which is a problem for the speakers.",
        "Ana: We decided last week that speakers get their travel refunded , so the train is fine.",
        "Kim: Let's suppose we go with Porto , then I will book the rooms by Friday.",
        "Luis: Okay .",
    ]
)


@pytest.mark.parametrize("kind", ["brief", "standard", "chunk"])
def test_conversation_lines_name_their_speaker_and_are_whole(tok: Tokenizer, kind: PromptKind) -> None:
    text = "\n".join([MEETING] * (3 if kind == "chunk" else 1))
    out = run(text, tok, kind, "conversation", target=90 if kind != "brief" else 60, max_tokens=120)
    lines = [ln for ln in out.splitlines() if ln.strip()]
    assert len(lines) >= 2, out  # turns are not merged into one line
    for ln in lines:
        speaker, body = ln.split(": ", 1)
        assert speaker in {"Luis", "Ana", "Kim"}, ln
        assert body.rstrip()[-1] in ".!?", ln  # a whole sentence, never a broken-off one
        assert "{" not in body and " ," not in body and " 're" not in body and "let'suppose" not in body, ln


def test_dialogsum_turns_keep_one_line_per_turn(tok: Tokenizer) -> None:
    dialogue = "\n".join(
        [
            "#Person1#: Hello, how are you doing today?",
            "#Person2#: I ' Ve been having trouble breathing lately.",
            "#Person1#: Have you had any type of cold lately?",
            "#Person2#: No, I haven ' t had a cold. I just have a heavy feeling in my chest when I try to breathe.",
            "#Person1#: I am going to send you to a pulmonary specialist who can run tests on you for asthma.",
            "#Person2#: Thank you for your help, doctor.",
        ]
    )
    out = run(dialogue, tok, "brief", "conversation", target=60, max_tokens=66)
    lines = out.splitlines()
    assert len(lines) >= 2, out
    assert all(ln.startswith(("Person1: ", "Person2: ")) for ln in lines), out
    assert "' " not in out and " '" not in out, out


def test_a_paragraph_that_ends_without_a_stop_never_runs_into_the_next_pick(tok: Tokenizer) -> None:
    text = (
        "The kinetics of the enzyme were measured in three cell lines over forty hours of culture and the "
        "results for every line are reported in additional file 6\n\n"
        "To test this hypothesis, we examined the binding of the enzyme to its target in all three lines.\n\n"
        "The binding was strongest in the line with the highest expression of the target protein."
    )
    out = summarize_text(
        text, target_tokens=200, max_tokens=200, kind="standard", content_type="document", tokenizer=tok
    )
    assert "additional file 6. To test" in out, out


def test_a_sentence_from_inside_a_plays_turn_names_its_speaker(tok: Tokenizer) -> None:
    import textwrap

    turns = {
        "LYSIMACHUS": "I very much approve of the words of Socrates, my friends. You must determine whether you "
        "will be questioned about the education of our sons. The matter is of great importance to us.",
        "NICIAS": "To me, to be cross-examined by Socrates is neither unusual nor unpleasant. I knew that the "
        "argument would soon pass from our sons to ourselves. I am willing to discourse with Socrates about courage.",
        "LACHES": "I have but one feeling about discussions of courage, or perhaps two. The scythe was caught in "
        "the rigging of the other ship. The two ships were passing one another while the crew laughed at him.",
    }
    intro = "The dialogue is about courage and about the education of the young men of Athens in the art of war."
    text = (
        textwrap.fill(intro, 70)
        + "\n\n"
        + "\n\n".join(textwrap.fill(f"{who}: {said}", 70) for who, said in turns.items())
    )
    out = summarize_text(
        text, target_tokens=150, max_tokens=150, kind="standard", content_type="document", tokenizer=tok
    )
    said_by = {s.text: who for who, said in turns.items() for s in split_sentences(said)}
    named = 0
    for line in out.splitlines():
        who, rest = parse_speaker_line(line)
        for sent in split_sentences(rest):
            if sent.text in said_by:  # every sentence of a turn is on a line naming its own speaker
                assert who == said_by[sent.text], (line, out)
                named += 1
    assert named >= 3, out


def test_a_number_read_out_digit_by_digit_is_never_picked(tok: Tokenizer) -> None:
    turns = [
        "Grad A: Four two zero zero one seven.",
        "Grad B: Three three one nine eight eight two.",
        "Professor: The recognizer still confuses the digits in the noisy recordings from the far microphone.",
        "Grad A: We should train the back-end on the close-talking data and test it on the far microphone.",
    ]
    out = summarize_text(
        "\n".join(turns), target_tokens=60, max_tokens=60, kind="standard", content_type="conversation", tokenizer=tok
    )
    assert out and "zero zero" not in out and "one nine" not in out, out


def test_an_email_disclaimer_is_boilerplate() -> None:
    from batchsum.backends.noise import is_boilerplate

    assert is_boilerplate("This email and any attachments are confidential and intended solely for the addressee.")
    assert is_boilerplate("If you are not the intended recipient, please delete this message.")
    assert not is_boilerplate("Please send the renewal terms by next week so we can sign before June.")


def test_a_sponsors_read_is_never_picked_despite_its_figures(tok: Tokenizer) -> None:
    turns = [
        "MATT: Tome of Foes is also in the legendary bundle, which is still 25% off using the code 826LA this month.",
        "MATT: The ogre bodyguard stands, turns back and kicks Thed in the chest, and Thed falls to his back leg.",
        "LAURA: I cast a spell on the ogre and hold him in place while the others get the cart and the horses out.",
        "SAM: Today's episode is brought to you by a backup service with 40% off for the first 12 months of 2019.",
        "TRAVIS: We pay the ogre the 10,000 gold we promised and we ride back to the rest of the group on the cart.",
        "MATT: The goblin runs off, spooks the horses, and they pull the cart another ten feet before they slow down.",
    ]
    out = summarize_text(
        "\n".join(turns), target_tokens=90, max_tokens=90, kind="standard", content_type="conversation", tokenizer=tok
    )
    assert out and "code 826LA" not in out and "brought to you by" not in out, out


def test_dialogsum_style_files_are_conversations(tmp_path: Path) -> None:
    from batchsum.walk import detect_type

    text = "\n".join(f"#Person{1 + i % 2}#: Line number {i} of a short talk about the weather." for i in range(6))
    assert detect_type(tmp_path / "dev_1.txt", text, "dev_1.txt")[0] == "conversation"


@pytest.mark.parametrize(
    ("folder", "kind"),
    [
        ("journal", "journal"),
        ("diaries", "journal"),
        ("Logbooks", "journal"),
        ("work_journals", "journal"),
        ("team-meetings", "conversation"),
        ("meetingNotes", "conversation"),
        ("sales-calls", "conversation"),
        # A keyword inside another word says nothing: the file's own shape decides.
        ("dialogsum", "conversation"),
        ("blog", "conversation"),
        ("catalog", "conversation"),
        ("recall", "conversation"),
    ],
)
def test_a_folder_name_types_its_files_by_its_words_not_its_letters(tmp_path: Path, folder: str, kind: str) -> None:
    from batchsum.walk import detect_type

    text = "\n".join(f"#Person{1 + i % 2}#: Line number {i} of a short talk about the weather." for i in range(6))
    got, reason = detect_type(tmp_path / "dev_1.txt", text, f"{folder}/dev_1.txt")
    assert got == kind, reason


def test_a_screenplay_is_a_conversation(tmp_path: Path) -> None:
    from batchsum.walk import detect_type

    scenes = "\n\n".join(
        f"                    {who}\n          Line number {i}, said the way people talk in a kitchen at night."
        for i, who in enumerate(["MARY", "JOHN (O.S.)", "MARY", "JOHN", "EDDIE"])
    )
    text = "INT. KITCHEN - NIGHT\n\nThe room is dark.\n\n" + scenes
    kind, reason = detect_type(tmp_path / "ep1.txt", text, "ep1.txt")
    assert kind == "conversation" and reason.startswith("screenplay cues"), reason
    # A book's chapter headings above their titles are no screenplay.
    book = "\n\n".join(f"CHAPTER {n}\nIn Which We Meet\n\n" + "It was a long day at sea. " * 20 for n in "IVX")
    assert detect_type(tmp_path / "b.txt", book, "b.txt")[0] == "document"


def test_picked_list_items_keep_lines_of_their_own(tok: Tokenizer) -> None:
    page = (
        "Macros are a way of writing code that writes other code, which is known as metaprogramming. "
        "Rust has declarative macros and three kinds of procedural macros:\n\n"
        "- Custom derive macros that specify code added with the derive attribute\n"
        "  used on structs and enums\n"
        "- Attribute-like macros that define custom attributes usable on any item\n"
        "- Function-like macros that look like function calls but operate on the tokens\n"
        "  specified as their argument\n\n"
        "Procedural macros accept some code as an input, operate on that code, and produce some code as an "
        "output. Declarative macros match the code against patterns, and each of the macros writes code. "
        "A macro is expanded before the compiler interprets the meaning of the code."
    )
    summary = summarize_text(
        page, target_tokens=120, max_tokens=120, kind="standard", content_type="document", tokenizer=tok
    )
    items = [line for line in summary.split("\n") if line.startswith("- ")]
    assert items, summary
    for item in items:  # each item whole, its wrapped line joined, and nothing after it on its line
        assert item.endswith(("enums", "any item", "their argument")), summary
    assert "\n\n- " in summary and not summary.startswith("\n")


def test_picked_list_items_keep_their_lists_heading(tok: Tokenizer) -> None:
    # "- Corrections of past readings." alone reads as a plan; under "Non-goals" it says the opposite.
    goals = [
        "A client that polls regularly ends up with every reading exactly once.",
        "A new client can fetch the full history from the beginning.",
    ]
    non_goals = [
        "Filtering and aggregation of readings on the server.",
        "Corrections of past readings after calibration.",
    ]
    note = (
        "# Design note\n\nClients need every reading exactly once, without gaps or duplicates in the readings.\n\n"
        "## Goals\n\n"
        + "".join(f"- {g}\n" for g in goals)
        + "\n## Non-goals\n\n"
        + "".join(f"- {g}\n" for g in non_goals)
        + "\nOther notes:\n- Readings of a buoy arrive late when its radio link is poor.\n"
    )
    source_of = {f"- {g}": "Goals" for g in goals} | {f"- {g}": "Non-goals" for g in non_goals}
    source_of["- Readings of a buoy arrive late when its radio link is poor."] = "Other notes"

    def check(summary: str) -> int:
        label, seen = None, 0
        for line in summary.split("\n"):
            if line.startswith("- "):
                assert label == source_of[line], summary
                seen += 1
            elif line:
                label = line[:-1] if line.endswith(":") else None
        return seen

    summary = summarize_text(
        note, target_tokens=90, max_tokens=90, kind="standard", content_type="document", tokenizer=tok
    )
    assert check(summary) >= 2, summary
    # A level above reads the label as the lead-in of the items under it and keeps it.
    top = summarize_text(
        "",
        parts=[summary, "The endpoint ships by 30 October and the CSV stops at the end of the year."],
        target_tokens=70,
        max_tokens=70,
        kind="meta",
        content_type="document",
        tokenizer=tok,
    )
    assert check(top) >= 1, top


def test_a_list_label_is_the_headings_words() -> None:
    from batchsum.backends.units import units_from_text

    page = "## **Risks:** ##\n\n- The radio link fails in a storm and readings arrive a day late.\n"
    items = [u for u in units_from_text(page, "document") if u.text.startswith("- ")]
    assert [u.heading for u in items] == ["Risks"]
    long = "## What we will not build this year, whatever the council asks of us\n\n- A mobile app for the buoys.\n"
    assert [u.heading for u in units_from_text(long, "document") if u.text.startswith("- ")] == [""]


def test_a_brief_line_holds_list_items_inline_after_their_label(tok: Tokenizer) -> None:
    note = (
        "# Packing list for the field trip\n\n"
        "We leave on Friday at seven and come back on Sunday evening, so pack for two nights on the island.\n\n"
        "## Bring\n\n- A warm jacket and a rain coat for the boat.\n- Sturdy shoes that can get wet on the rocks.\n"
        "- A water bottle and lunch for Saturday.\n\n"
        "## Do not bring\n\n- Phones or tablets, the island has no signal.\n- Glass bottles of any kind.\n"
    )
    for target in (20, 45, 60):
        line = summarize_text(note, target_tokens=target, max_tokens=target + 10, kind="brief",
                              content_type="document", tokenizer=tok)  # fmt: skip
        assert "\n" not in line and " - " not in line and not line.startswith("- "), line
        picked = [
            item for item in ("A warm jacket", "Sturdy shoes", "A water bottle", "Phones", "Glass") if item in line
        ]
        assert picked, line
        for item in picked:  # every item is read under its own list's label
            label = "Do not bring: " if item in ("Phones", "Glass") else "Bring: "
            assert line.rfind(label, 0, line.index(item)) >= 0, line
    # An item that is no sentence ends before the next one's label: "Postgres 16. Postgres 16 migration: ..."
    notes = (
        "## Agenda\n- Q2 migration to Postgres 16\n- On-call rotation changes\n\n"
        "## Postgres 16 migration\n- Tom reported that the staging cutover finished on Friday with little downtime.\n"
    )
    line = summarize_text(notes, target_tokens=40, max_tokens=44, kind="brief", content_type="document", tokenizer=tok)
    assert "Postgres 16 Postgres" not in line and "Postgres 16. Postgres" in line, line


def test_a_date_heading_labels_no_list(tok: Tokenizer) -> None:
    """An entry's date heading above lines opening with a dash (Russian dialogue) is no list's label: it
    had been put before every picked line ("Понедельник, 25 марта 2024: - Что, сударь, ...")."""
    text = (
        "# Понедельник, 25 марта 2024\n\n"
        "- Что, сударь, к тетеньке не изволите ездить? - спросил он, подавая мне шинель.\n"
        "- Нет, не изволю, - отвечал я сердито и вышел на улицу.\n"
        "Вечером я долго сидел у окна и думал о своей жизни, о службе и о тех, кого потерял.\n"
    ) * 3
    out = summarize_text(
        text, target_tokens=80, max_tokens=80, kind="standard", content_type="journal", tokenizer=tok, language="ru"
    )
    assert out and "2024" not in out, out


def test_a_digest_quotes_every_entry_a_shorter_pick_elsewhere_makes_room_for() -> None:
    """A month whose entries are peers: an entry about a one-off event (one long sentence, the least
    central) is quoted once the other entries give up a long sentence for a shorter one of theirs, when
    the budget can hold one sentence of each (budgeted maximum coverage): it had been left out."""
    from batchsum.tokens import get_tokenizer

    tok = get_tokenizer()
    long_and_short = [
        (
            "The reading group met in the seminar room and we argued about the sparse attention paper for hours.",
            "It rained all day long.",
        ),
        (
            "Tomasz and I worked on the reading group's paper about sparse attention until late in the office.",
            "I bought bread at noon.",
        ),
        (
            "The reading group moved to a bigger room because the paper on attention drew eleven people tonight.",
            "I slept badly last night.",
        ),
        (
            "In the office we rewrote the attention paper's evaluation for the reading group's next session.",
            "I called Mum after lunch.",
        ),
        (
            "The reading group discussed the attention paper again and Greta brought her own results along.",
            "I ran eight km today.",
        ),
        (
            "After the reading group Tomasz sent the revised attention paper to the workshop before midnight.",
            "I fixed the old bike.",
        ),
        (
            "The office was cold, so the reading group met at the library and read the attention paper aloud.",
            "We cooked lentils for dinner.",
        ),
        (
            "We finished the attention paper's figures for the reading group and sent them to Greta at noon.",
            "I watered the fig tree.",
        ),
    ]
    routine = [f"{long} {short}" for long, short in long_and_short]
    death = (
        "Bad news this morning: Onkel Werner died last night in the hospital in Stralsund, after the second "
        "stroke, and the funeral will be on Friday."
    )
    parts = [*routine[:4], death, *routine[4:]]
    shortest = sum(tok.count(short) + 1 for _, short in long_and_short) + tok.count(death) + 1
    out = summarize_text(
        "", target_tokens=shortest + 20, max_tokens=shortest + 20, kind="meta", content_type="journal",
        tokenizer=tok, parts=parts, peers=True,
    )  # fmt: skip
    assert "Werner" in out, out
    assert all(long in out or short in out for long, short in long_and_short), out
    # A file too long to quote in any case reserves nothing: the others are still all quoted.
    endless = "The minutes of the whole season were read aloud " + ", ".join(["and then the lists"] * 80) + "."
    out = summarize_text(
        "", target_tokens=shortest + 20, max_tokens=shortest + 20, kind="meta", content_type="journal",
        tokenizer=tok, parts=[*parts, endless], peers=True,
    )  # fmt: skip
    assert "Werner" in out, out
