"""What a search shows: clean snippets, readable scores, inflections and other languages found, the same hits
from the command line and the library, and a Chroma collection other tools can read (real runs, real Chroma)."""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from batchsum.cli import main
from batchsum.config import RunConfig
from batchsum.index.search import MIN_RELEVANCE, search
from batchsum.index.snippets import make_snippet, markdown_window

REPO = Path(__file__).resolve().parent.parent

ENTRY = """---
title: A sad day
tags: [family]
---

_May_ 15.--Received the melancholy intelligence that all is over at Abbotsford.

_May_ 16.--She died at nine in the morning, after being very ill for two days, easy at last.
I arrived here late last night. Anne is worn out, and has had hysterics, which returned on my arrival.
"""
SEASON = "_March_ 2.--The budget season begins again; the printers want their money and I have none to give."
MEETING = "\n".join(
    [
        "Anna: Okay {vocalsound} so the first item is the budget for the new remote control.",
        "Ben: We looked at the {disfmarker} the numbers again last week.",
        "Anna: Right. So we decided to cut the budget for the case by ten percent {vocalsound} and keep the chip.",
        "Ben: And the marketing people agreed {gap} with the decision about the budget.",
        "Carl: Then the next item is the colour of the buttons, which should be yellow like a banana.",
    ]
    * 3
)
# Lu Xun, 狂人日记 (public domain), and Goethe, Werther (public domain).
CHINESE = (
    "今天晚上，很好的月光。我不见他，已是三十多年；今天见了，精神分外爽快。"
    "才知道以前的三十多年，全是发昏；然而须十分小心。"
)
GERMAN = (
    "Wie froh bin ich, daß ich weg bin! Bester Freund, was ist das Herz des Menschen! Dich zu verlassen, den "
    "ich so liebe, von dem ich unzertrennlich war, und froh zu sein! Ich weiß, du verzeihst mir's. Waren "
    "nicht meine übrigen Verbindungen recht ausgesucht vom Schicksal, um ein Herz wie das meine zu ängstigen?"
)


def _summarize(src: Path, out: Path) -> RunConfig:
    """``batchsum run SRC --out OUT -q``, which must succeed; the output folder as a config."""
    res = CliRunner().invoke(main, ["run", str(src), "--out", str(out), "-q"])
    assert res.exit_code == 0, res.output
    return RunConfig(paths=[], out=out)


@pytest.fixture(scope="module")
def output(tmp_path_factory: pytest.TempPathFactory) -> RunConfig:
    root = tmp_path_factory.mktemp("quality")
    src = root / "src"
    (src / "journal").mkdir(parents=True)
    (src / "journal" / "1826-05-15.md").write_text(ENTRY, encoding="utf-8")
    (src / "journal" / "1826-03-02.md").write_text(SEASON + "\n", encoding="utf-8")
    (src / "meeting.txt").write_text(MEETING + "\n", encoding="utf-8")
    (src / "kuangren.txt").write_text(CHINESE + "\n", encoding="utf-8")
    (src / "werther.txt").write_text(GERMAN + "\n", encoding="utf-8")
    out = root / "out"
    _summarize(src, out)
    return RunConfig(paths=[], out=out)


def test_snippets_are_clean_sentences(output: RunConfig) -> None:
    for query in ("when did she die", "budget decision", "buttons banana yellow", "melancholy intelligence"):
        hits = search(output, query, k=5)
        assert hits, query
        for h in hits:
            assert "<!--" not in h.snippet and "batchsum:links" not in h.snippet, h.snippet
            assert "{" not in h.snippet and "title:" not in h.snippet and "---" not in h.snippet, h.snippet


GUIDE = """# The guessing game

<a id="processing-a-guess"></a>

### Processing a guess

The first part of the guessing game asks for a guess, reads it and checks that the guess is a number.
Run the guessing game with cargo run and type a guess when the prompt asks for one.

```console
$ cargo run
   Compiling guessing_game v0.1.0
     Running `target/debug/guessing_game`
Guess the number!
Please input your guess.
```

| symbol | guess |
|---|---|
| `<` | the guess is too small |
| `>` | the guess is too big |

Each guess is compared with the secret number, and the game says whether the guess is too small or too big.
"""


def test_snippets_of_a_markdown_page_read_as_its_rendered_text(tmp_path: Path) -> None:
    src = tmp_path / "src"
    (src / "guide_book").mkdir(parents=True)
    (src / "guide_book" / "guessing_game.md").write_text(GUIDE * 3, encoding="utf-8")
    out = tmp_path / "out"
    _summarize(src, out)
    shown = 0
    for query in ("cargo run guessing game", "guess too small", "processing a guess", "guessing game secret"):
        for h in search(RunConfig(paths=[], out=out), query, k=5):
            shown += 1
            for mark in ("```", "<a ", "</a>", "#", "|", "**", "\\_", "<!--"):
                assert mark not in h.snippet, (query, mark, h.snippet)
    assert shown >= 4
    # A digest names its files in bold, Markdown-escaped ("**stand\\_up.**"): shown as the name.
    snippet, _ = make_snippet("**guessing\\_game.** Run the guessing game with cargo run.", [["guess"]])
    assert snippet == "guessing_game. Run the guessing game with cargo run.", snippet
    # Code keeps its angle brackets; a tokenized transcript reads as written prose; a footnote mark goes.
    text = "A `Vec<T>`, also known as a vector, grows. It 's the beginning of speech recognition , he said."
    snippet, _ = make_snippet(text, [["vector"], ["speech"]])
    assert snippet == "A `Vec<T>`, also known as a vector, grows. It's the beginning of speech recognition, he said."
    assert make_snippet("She died at nine.[442] It rained.", [["die"]])[0] == "She died at nine. It rained."
    assert make_snippet("[542] Among the letters Sir Walter kept.", [["letter"]])[0].startswith("Among the letters")
    # A page's title is no snippet; DialogSum's "#Person2#:" reads as a speaker label.
    assert make_snippet("# May 1826\n\n**3 May.** Lady Scott was ill.", [["may"]])[0] == "3 May. Lady Scott was ill."
    assert make_snippet("#Person2#: A ticket to Boston.", [["boston"]])[0] == "Person2: A ticket to Boston."
    # A digest's next paragraph is another file's: a snippet never runs on into it.
    # A lower-case word after a stop goes on with the sentence; so does a one-letter short form ("z. B.").
    assert make_snippet("Er kam. Ich höre z. B. in der Nacht die Glocke.", [["glocke"]])[0] == (
        "Er kam. Ich höre z. B. in der Nacht die Glocke."
    )
    french = make_snippet("Il vint. « Fichtre ! dit le dragon en riant. »", [["dragon"]])[0]
    assert "Fichtre" in french and "dragon" in french, french
    digest = "**a.** He could not bail him out.\n\n**30IQTZ.** The rent was due on Monday."
    assert make_snippet(digest, [["bail"]])[0] == "He could not bail him out."
    # An e-mail's quoted reply reads as its words.
    mail = "Hi Karl,\n\n> > Please send the renewal\n> > terms by next week.\n\nThanks."
    assert (
        make_snippet(markdown_window(mail, 0, len(mail)), [["renew"]])[0]
        == "Please send the renewal terms by next week."
    )

    # A title or an initial ends no sentence: "Mr." does not cut "Mr. Ballantyne" off its sentence.
    scott = "Much vexed. I borrowed from Mr. Ballantyne the sum of £500 for the term. Lord B. called."
    assert make_snippet(scott, [["ballantyn"]])[0].startswith("I borrowed from Mr. Ballantyne the sum of £500")
    assert make_snippet(scott, [["call"]])[0] == "Lord B. called."


def test_a_japanese_snippet_starts_at_its_quotation_and_runs_on_without_spaces() -> None:
    text = "彼は言った。「あなたは誰ですか。同じ人間です」と私は答えた。それから二人は黙った。"
    snippet, _ = make_snippet(text, [["人間"]])
    assert snippet.startswith("「あなたは誰ですか。同じ人間です」と私は答えた。") and " " not in snippet, snippet


def test_a_snippet_holds_the_rare_words_of_the_query() -> None:
    """Sentences are weighed by the idf of the query words they hold: "going" and a speaker's label
    count for less than "lighthouse"."""
    from batchsum.index.analysis import query_groups

    groups = query_groups("what is going on with the lighthouse", [None])
    text = "Project Manager: So what is going on today? Marketing: The lighthouse budget was cut in May."
    weights = [3.0 if any("lighthous" in t for t in g) else 0.2 for g in groups]
    assert make_snippet(text, groups, weights=weights)[0] == "Marketing: The lighthouse budget was cut in May."


def test_a_snippet_shows_the_last_sentence_of_a_source() -> None:
    """The newest line of a journal is often the answer: a window that reaches the end of its source keeps
    its last sentence; only a window cut short there drops it as likely cut."""
    window = "read in the evening. We walked by the river. Later Ingrid bought a blue kayak."
    assert make_snippet(window, [["kayak"]], cut_start=True)[0] == "Later Ingrid bought a blue kayak."
    assert "kayak" not in make_snippet(window, [["kayak"]], cut_start=True, cut_end=True)[0]


def test_inflections_meet(output: RunConfig) -> None:
    hits = search(output, "when did she die?", k=3)
    assert hits[0].source_path == "journal/1826-05-15.md"
    assert "died" in hits[0].snippet and "died" in hits[0].terms


def test_scores_are_readable(output: RunConfig) -> None:
    decided = search(output, "what did we decide about the budget?", k=5)
    assert decided[0].source_path == "meeting.txt"
    season = [h for h in decided if h.source_path == "journal/1826-03-02.md"]
    assert all(h.score < 0.9 for h in season)  # "budget season" holds one of the two words
    assert all(a.score >= b.score for a, b in itertools.pairwise(decided))
    exact = search(output, "She died at nine in the morning", k=1)
    assert exact[0].source_path == "journal/1826-05-15.md" and exact[0].score >= 0.9
    nonsense = search(output, "kubernetes cluster autoscaling yaml", k=5)
    assert nonsense == [] or max(h.score for h in nonsense) < MIN_RELEVANCE + 0.1


def test_other_languages_are_found(output: RunConfig) -> None:
    assert search(output, "精神分外", k=3)[0].source_path == "kuangren.txt"
    assert search(output, "三十多年", k=3)[0].source_path == "kuangren.txt"
    # "Herzen" is not in the text; its stem is ("Herz").
    assert search(output, "unzertrennlich Herzen", k=3)[0].source_path == "werther.txt"
    # German function words are no words of a German text: the text's "was ist das Herz" does not answer it.
    asked = search(output, "was ist das?", k=5)
    assert all(h.score < MIN_RELEVANCE + 0.1 for h in asked), [(h.score, h.source_path, h.snippet) for h in asked]


def test_cli_and_library_return_the_same_hits(output: RunConfig) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    for query in ("budget decision", "when did she die", "精神分外"):
        proc = subprocess.run(
            [sys.executable, "-m", "batchsum", "search", query, "--out", str(output.out), "--json", "-k", "5"],
            capture_output=True, text=True, env=env, check=True,
        )  # fmt: skip
        cli = [(h["node_id"], h["score"], h["snippet"]) for h in json.loads(proc.stdout)]
        lib = [(h.node_id, h.score, h.snippet) for h in search(output, query, k=5)]
        assert cli == lib and cli, query


def test_the_collection_is_usable_from_plain_chromadb(output: RunConfig) -> None:
    import chromadb

    from batchsum.index import embedding_function

    client = chromadb.PersistentClient(path=str(output.out / ".batchsum" / "chroma"))
    col = client.get_collection("batchsum", embedding_function=embedding_function())
    got = col.get(where={"is_final": True}, include=["documents", "metadatas"])
    assert got["documents"] and all(d for d in got["documents"])
    res = col.query(query_texts=["yellow banana buttons"], n_results=2, where={"is_final": True})
    assert res["metadatas"][0][0]["source_path"] == "meeting.txt"
    assert "remote control" in res["documents"][0][0]


def test_snippets_skip_mail_headers_and_end_a_chat_message_at_its_turn() -> None:
    """An e-mail's "Subject: Re: Venue for the June workshop" had been the snippet for "where will the
    June workshop be held?", and a chat message without a stop had run into the next speaker's."""
    mail = (
        "From: Helen Carter <helen@example.org>\nTo: Committee <c@example.org>\n"
        "Subject: Re: Venue for the June workshop\n\nSo the plan for the workshop: Lindenhof, 19-20 June."
    )
    snippet, _ = make_snippet(mail, [["workshop"], ["june"]])
    assert "Subject" not in snippet and "Lindenhof" in snippet, snippet
    chat = "Aisha: I count about 340 failed checkouts\nPriya: good question, let's ask Finance about refunds"
    snippet, _ = make_snippet(chat, [["checkout"]])
    assert "Priya" not in snippet, snippet


def test_hard_wrapped_prose_is_no_turn() -> None:
    """A wrapped line that opens with "report:" is prose going on, not a speaker's turn: the snippet had
    stopped at "in its"."""
    from batchsum.index.snippet_sentences import sentences

    assert sentences("The committee listed three points in its\nreport: the budget was cut and the hall closed.") == [
        "The committee listed three points in its report: the budget was cut and the hall closed."
    ]


def test_a_snippet_is_one_list_item_without_its_marker() -> None:
    """A meeting's notes are lists: "- We start the ISO audit (budget £18,000). - Pilot price quoted: ..."
    had been one snippet, markers and all, and a numbered goal had run on into the next ("Hire a data
    engineer. 4. Don't burn out.")."""
    notes = "## Decisions\n- We start the ISO 27001 audit (budget £18,000).\n- Pilot price quoted: £9,500 per month."
    assert make_snippet(notes, [["pilot"]])[0] == "Pilot price quoted: £9,500 per month."
    assert make_snippet(notes, [["budget"]])[0] == "We start the ISO 27001 audit (budget £18,000)."
    goals = "My goals:\n1. Ship the Team plan.\n2. Get the pilot signed.\n3. Hire a data engineer.\n4. Don't burn out."
    assert make_snippet(goals, [["hire"]])[0] == "Hire a data engineer."
    tasks = "- ☐ Kwame: profile the CSV export (FERN-412)\n- ☐ Tomasz: call the 2 churned customers"
    assert make_snippet(tasks, [["export"]])[0] == "☐ Kwame: profile the CSV export (FERN-412)"
    # A page's "Attendees:" line lists names without a stop: it is no part of the next line's sentence.
    notes = "Attendees: Priya, Ines, Marcus, Tomasz, Kwame\nQ4 churn 7.4% (11 of 148)."
    assert make_snippet(notes, [["churn"]])[0] == "Q4 churn 7.4% (11 of 148)."
    assert make_snippet(notes, [["kwame"]])[0] == "Attendees: Priya, Ines, Marcus, Tomasz, Kwame"
    wrapped = "The committee met and those\npresent: agreed to cut\nthe budget."
    assert make_snippet(wrapped, [["budget"]])[0] == "The committee met and those present: agreed to cut the budget."
    # One line of a summary that quotes a list: the numbers are no sentences.
    inline = "Ship the Team plan. 2. Get the pilot signed. 3. Hire a data engineer."
    assert make_snippet(inline, [["pilot"]])[0] == "Get the pilot signed. Hire a data engineer."


def test_a_year_digest_snippet_stays_within_its_day() -> None:
    """A year's digest runs a month's days on in one paragraph, each after its bold day label: the snippet
    had read "Q4 churn 7.4% (11 of 148). 9 January. Sent it to Ines ...", three files' words."""
    year = (
        "# 2025\n\n**8 January.** Q4 churn 7.4% (11 of 148). **9 January.** Sent it to Ines and Marcus for"
        " comments. **14 January.** Ines hated the Team plan name, but liked the sensor cap."
    )
    assert make_snippet(year, [["churn"]])[0] == "Q4 churn 7.4% (11 of 148)."
    assert make_snippet(year, [["ine"]])[0] == "Sent it to Ines and Marcus for comments."
    # Bold inside a sentence is no label: the sentence stays whole.
    assert make_snippet("Six named **price** as the reason. Three said the export.", [["price"]])[0] == (
        "Six named price as the reason. Three said the export."
    )


def test_italic_marks_are_not_shown() -> None:
    """Markdown's and Project Gutenberg's italics ("_Woodstock_", "*The Overstory*") read as their words;
    a word's own underscores and inline code stay."""
    scott = "[_Abbotsford_,] _May_ 16.--I hear that _Woodstock_ is sold. _N.B._ Send it."
    assert (
        make_snippet(scott, [["woodstock"]])[0] == "[Abbotsford,] May 16.--I hear that Woodstock is sold. N.B. Send it."
    )
    rust = "Go into the _hello_cargo_ directory, open *src/main.rs* and call `assert_eq!` or `__init__`, not do_it."
    assert make_snippet(rust, [["directori"]])[0] == (
        "Go into the hello_cargo directory, open src/main.rs and call `assert_eq!` or `__init__`, not do_it."
    )
    assert make_snippet("Read *The Overstory* twice; 2 * 3 * 4 is 24.", [["overstori"]])[0] == (
        "Read The Overstory twice; 2 * 3 * 4 is 24."
    )
    # A hard-wrapped book wraps a title onto the next line; a blank line ends any span.
    wrapped = "It came out as _Woodstock, or the Cavalier; a Tale of the Year Sixteen\nHundred and Fifty-one_ at last."
    assert make_snippet(wrapped, [["woodstock"]])[0] == (
        "It came out as Woodstock, or the Cavalier; a Tale of the Year Sixteen Hundred and Fifty-one at last."
    )
    assert make_snippet("A _first\n\nsecond_ word.", [["word"]])[0] == "second_ word."


def test_a_final_snippet_never_comes_from_its_extracted_facets() -> None:
    """A final's "## Facets (extracted)" section is not its summary (it is not indexed either); the snippet
    had been "Decisions" or "Entities: ISO, Thames Water" because the heading that marks the section was
    removed before the section was cut off."""
    from batchsum.index.snippets import node_body

    final = (
        "---\nid: m.md:summary:L3:final\nlevel: 3\n---\n\n# Flood alerts design review\nAttendees: Lucía, Priya\n"
        "Alerts go out by e-mail first.\n\n## Facets (extracted)\n\n_Picked by rules from the text._\n\n"
        "**Decisions**\n\n- Alerts by e-mail and push first.\n\n**Entities:** SMS, Thames Water\n\n"
        "<!-- batchsum:links -->\nSource: [m.md](<../m.md>)\n"
    )
    body = node_body(final)
    assert "Decisions" not in body and "Entities" not in body and "Picked" not in body, body
    assert body == "# Flood alerts design review\nAttendees: Lucía, Priya\nAlerts go out by e-mail first."
    assert make_snippet(body, [["decis", "decid"]])[0] != "Decisions"


def test_a_day_named_in_the_query_finds_its_entry(output: RunConfig) -> None:
    """A journal's day is said by its file name, not its words: "1826-03-02" had found nothing of that day,
    and "what happened on 2 March 1826?" the month's digest first (read as "March 1826")."""
    from batchsum.periods import days_named, only_a_day, periods_named

    assert days_named("what happened on 2 March 1826?") == ["1826-03-02"] == days_named("March 2nd, 1826")
    assert days_named("1826-03-02") == ["1826-03-02"] == days_named("2. März 1826") == days_named("1826年3月2日")
    assert days_named("what did I do on 14 February?") == ["--02-14"]  # that day of any year
    assert days_named("Q4 churn 7.4% (11 of 148) at 12:30") == [] == days_named("March 1826")
    # A month name that is also an everyday word names a day only when written as a month.
    assert days_named("top 10 may be wrong") == [] == days_named("patients over 30 may need a lower dose")
    assert days_named("we have 12 mars bars") == [] == days_named("the 2nd may be better")
    assert days_named("On May 10 we met") == ["--05-10"] == days_named("the 10th of may") == days_named("may 10")
    assert periods_named("what happened on 2 March 1826?") == [] and periods_named("March 1826") == ["1826-03"]
    assert only_a_day("2 March 1826") and not only_a_day("budget on 2 March 1826")

    exact = search(output, "1826-03-02", k=3)
    assert exact[0].source_path == "journal/1826-03-02.md" and exact[0].score == 1.0, exact
    asked = search(output, "what happened on 2 March 1826?", k=3)
    assert asked[0].source_path == "journal/1826-03-02.md", [h.source_path for h in asked]
    assert search(output, "March 2", k=1)[0].source_path == "journal/1826-03-02.md"
    # The filters still hold: a day's entry is a final, dated on that day.
    assert all(h.source_path != "journal/1826-03-02.md" for h in search(output, "1826-03-02", k=3, level=1))
    assert all(h.source_path != "journal/1826-03-02.md" for h in search(output, "1826-03-02", k=3, since="1826-04-01"))
    # Chroma (--chroma-host) and search's own copy of the vectors find the same entries.
    from batchsum.index.dense import ChromaVectors, open_dense
    from batchsum.index.embed import get_embedder
    from batchsum.index.lexical import LexFilter

    emb = get_embedder(output)
    for dense in (ChromaVectors(output, emb), open_dense(output, emb)):
        assert sorted(dense.finals_on(["1826-03-02", "--05-15"], LexFilter())) == [
            "journal/1826-03-02.md:summary:L3:final",
            "journal/1826-05-15.md:summary:L3:final",
        ]
        assert dense.finals_on(["1826-03-02"], LexFilter(level="1")) == []


def test_what_a_markdown_page_never_shows_is_no_evidence(tmp_path: Path) -> None:
    """A book's chapter ends with link reference definitions ("[references-and-borrowing]: ch04-02-references-
    and-borrowing.html#references-and-borrowing"): indexed as words, they had made the lifetimes chapter the
    best answer to "how does borrowing with references work?", and a word only a link's target holds found it."""
    from batchsum.index.passages import visible_markdown

    page = "See [the chapter][ch04] or [docs](https://x.org/a_(b)).<!-- note -->\n\n[ch04]: ch04.html#borrowing\n"
    shown = visible_markdown(page)
    assert len(shown) == len(page) and shown.count("\n") == page.count("\n")
    assert shown.split() == ["See", "[the", "chapter]", "or", "[docs]", "."], shown

    src = tmp_path / "src"
    src.mkdir()
    links = "".join(
        f"[{slug}]: ch04-02-references-and-borrowing.html#{slug}\n"
        for slug in ("references-and-borrowing", "mutable-borrowing", "dangling-references")
    )
    (src / "ch10-lifetimes.md").write_text(
        "# Lifetimes\n\nEvery reference in Rust has a lifetime, the scope for which that reference is valid. Lifetime"
        " annotations describe how the lifetimes of several references relate; the compiler checks them so that no"
        " reference outlives the data it points to. Most of the time lifetimes are inferred, as types are.\n\n" + links,
        encoding="utf-8",
    )
    (src / "ch04-borrowing.md").write_text(
        "# Ownership at work\n\nA value has one owner at a time. We call the action of lending a value to a function"
        " without giving up ownership borrowing, and the thing we lend is a reference to the value.\n",
        encoding="utf-8",
    )
    out = tmp_path / "out"
    _summarize(src, out)
    cfg = RunConfig(paths=[], out=out)
    assert search(cfg, "dangling", k=2) == []  # only a link's target says it
    assert search(cfg, "how does borrowing with references work?", k=1)[0].source_path == "ch04-borrowing.md"


# A bilingual journal: dated entries in English, Japanese, French and an undated note with front matter.
JOURNAL = {
    "2025/2025-03-14.md": "Pi day, and Lena's birthday. I baked an apple pie with cinnamon; we ate it on her balcony.",
    "2025/2025-03-15.md": "Samedi matin au marché, j'ai acheté des poireaux et du fromage de chèvre pour la soupe.",
    "2025/2025-06-30.md": "京都に着いた。祇園祭の準備が始まっていて、町中に提灯が飾られていた。"
    "夕方、鴨川の河原で冷たいビールを飲んだ。",
    "2025/2025-07-01.md": "朝早く伏見稲荷へ行った。千本鳥居を歩いて、山の上まで登った。帰りに抹茶のアイスを食べた。",
    "2025/2025-07-02.md": "今日は大学で講義をしました。学生たちと話しました。"
    "夜は何もしませんでしたか、と母に聞かれました。",
    "notes/idee.md": "---\nfecha: 2025-06-02\ntags: [borrador, ficción]\n---\n\n"
    "Idea para un cuento: una cartógrafa que dibuja mapas de ciudades que todavía no existen.\n",
    "notes/recetas.md": "Sopa de lentejas: cebolla, ajo, comino y una hoja de laurel; dos horas a fuego lento.\n",
}


@pytest.fixture(scope="module")
def journal(tmp_path_factory: pytest.TempPathFactory) -> RunConfig:
    root = tmp_path_factory.mktemp("journal")
    for rel, text in JOURNAL.items():
        (root / "src" / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / "src" / rel).write_text(text, encoding="utf-8")
    return _summarize(root / "src", root / "out")


def test_a_front_matters_keys_are_no_words_of_the_note_but_its_values_are(journal: RunConfig) -> None:
    """A note's front matter shows in a note app as its properties: their values (tags, title), not their keys.
    "fecha" ("date"), only the key of "fecha: 2025-06-02", had found the note at 1.000."""
    from batchsum.index.passages import visible_markdown

    keys = ["fecha", "tags", "aliases", "project-code", "cssclass"]
    values = ["[borrador, ficción]", "Mapas futuros", "- primero\n  - segundo", "2025-06-02", "'quoted value'"]
    for key, value, body in itertools.product(keys, values, ["Texto.\n", "[a](http://x.y) b\n"]):
        page = f"---\n{key}: {value}\n# a comment\nnested:\n  {key}: {value}\n---\n\n{body}"
        shown = visible_markdown(page)
        assert len(shown) == len(page) and [i for i, c in enumerate(shown) if c == "\n"] == [
            i for i, c in enumerate(page) if c == "\n"
        ]
        words = shown.split()
        assert key not in " ".join(words) and "nested" not in words and "comment" not in words, shown
        assert all(w.strip("[],'-") in shown for w in value.split()), shown
        assert "---" not in shown and shown.endswith(visible_markdown(body)), shown
    # A script's "Ana: Hello" is no front matter (as for the summarizer): it stays the text it is.
    assert visible_markdown("---\nAna: Hello\n---\nbody") == "---\nAna: Hello\n---\nbody"

    assert search(journal, "fecha", k=3) == []  # the key alone, also in the final that keeps the note whole
    for query in ("cartógrafa", "borrador", "ficción", "mapas de ciudades"):
        hits = search(journal, query, k=1)
        assert hits and hits[0].source_path == "notes/idee.md", (query, hits)


def test_a_japanese_question_finds_what_its_words_name(journal: RunConfig) -> None:
    """A Japanese question's particles and verb endings are hiragana bigrams with the kanji around them ("都で",
    "何を", "しました"): absent from the index, they had counted as words the corpus lacks, and "京都で何をしました
    か" found nothing while "京都" scored 0.94; held by it, they would make any polite entry the answer. A question
    about what the corpus lacks still finds nothing, also one in hiragana alone ("ふくろう", an owl)."""
    from batchsum.index.analysis import query_groups

    assert query_groups("京都で何をしましたか", [None]) == [["京都"]] == query_groups("京都に行ったのはいつ?", [None])
    assert query_groups("Kyotoで何をした?", [None]) == [["kyoto"]]
    assert query_groups("ロンドンで", [None]) == [["ロン"], ["ンド"], ["ドン"]]
    # Nothing but hiragana (a word written in it, or grammar alone): every bigram counts.
    assert query_groups("ふくろう", [None]) == [["ふく"], ["くろ"], ["ろう"]]
    topics = {"京都": "2025/2025-06-30.md", "祇園祭": "2025/2025-06-30.md", "伏見稲荷": "2025/2025-07-01.md"}
    endings = [
        "で何をしましたか",
        "はどうでしたか",
        "について教えてください",
        "のことを覚えていますか",
        "に行ったのはいつですか",
    ]
    for (topic, path), ending in itertools.product(topics.items(), endings):
        (alone,) = search(journal, topic, k=1)
        hits = search(journal, topic + ending, k=1)
        assert hits and hits[0].source_path == path == alone.source_path, (topic + ending, hits)
        assert hits[0].score >= alone.score - 0.05, (topic + ending, hits[0].score, alone.score)
    # The polite entry holds "しました" and "何をし": grammar, which must not make a question about Osaka its match.
    for absent in (
        "大阪で何をしましたか",
        "ロンドンで何をしましたか",
        "東京タワーはどうでしたか",
        "ふくろうについて教えてください",
    ):
        assert all(h.score < 0.3 for h in search(journal, absent, k=3)), absent


def test_a_day_named_in_any_of_the_month_languages_finds_its_entry(journal: RunConfig) -> None:
    """French "le 14 mars" ("mars" is also a chocolate bar: an article before the day says it is a date) and
    "6月30日" (a CJK day without its year) named no day, and "le 14 mars 2025" scored 0.53 where "14 mars
    2025" scored 1.000: its article was a word besides the day."""
    from batchsum.periods import day_label, days_named, only_a_day

    articles = {None: ["on", "the"], "fr": ["le"], "de": ["am", "den"], "es": ["el"], "ru": [], "ja": [], "zh": []}
    for (lang, before), month, day in itertools.product(articles.items(), range(1, 13), (1, 9, 14, 30)):
        if day == 30 and month == 2:
            continue
        label = day_label(day, month, lang)
        with_year = f"2024年{label}" if lang in ("ja", "zh") else f"{label.rstrip('.')} 2024"
        for words in ["", *before]:
            for query, key in ((f"{words} {label}".strip(), "-"), (f"{words} {with_year}".strip(), "2024")):
                # English "may" and "march" name a month in lower case only with a year or "of" ("top 10 may be").
                lowered = [] if lang is None and month in (3, 5) and key == "-" else [query.lower()]
                for written in (query, *lowered):
                    assert days_named(written) == [f"{key}-{month:02d}-{day:02d}"], (written, days_named(written))
                    assert only_a_day(written), written
                    assert not only_a_day(written + " budget"), written
    assert days_named("we have 12 mars bars") == [] == days_named("top 10 may be wrong") == days_named("16月40日")

    for query, path in [
        ("le 14 mars", "2025/2025-03-14.md"),
        ("le 14 mars 2025", "2025/2025-03-14.md"),
        ("14 mars 2025", "2025/2025-03-14.md"),
        ("el 14 de marzo", "2025/2025-03-14.md"),
        ("am 15. März", "2025/2025-03-15.md"),
        ("6月30日", "2025/2025-06-30.md"),
        ("2025年7月1日", "2025/2025-07-01.md"),
    ]:
        hits = search(journal, query, k=2)
        assert hits[0].source_path == path and hits[0].score == 1.0, (query, hits)
    hits = search(journal, "6月30日に何をしましたか", k=2)
    assert hits[0].source_path == "2025/2025-06-30.md", hits


def test_a_heading_is_the_snippet_only_when_it_alone_holds_the_words() -> None:
    """A note found by its title ("# Sourdough notes" for "sourdough", a meeting titled "Thames Water contract
    review") had shown a sentence without the query's words ("My starter is called Gerald.")."""
    from batchsum.index.snippets import node_body

    note = "# Sourdough notes\n\nMy starter is called Gerald. Feed him every morning."
    assert make_snippet(note, [["sourdough"]]) == ("Sourdough notes", ["Sourdough"])
    assert make_snippet(markdown_window(note, 0, len(note)), [["sourdough"]])[0] == "Sourdough notes"
    assert make_snippet(note, [["gerald"]])[0].startswith("My starter is called Gerald.")  # a sentence holds it
    final = "---\nlevel: 3\n---\n\n# Thames Water contract review\nAttendees: Priya, Ines\n"
    assert make_snippet(node_body(final), [["thame"], ["water"]])[0] == "Thames Water contract review"
    # A section's heading says less than any sentence: only a page's title stands in for one.
    meeting = "## Decisions\n\n- Alerts by e-mail and push first."
    assert make_snippet(meeting, [["decis", "decid"]])[0] == "Alerts by e-mail and push first."
    # A digest's title names its period, which the hit shows already: never its snippet.
    assert make_snippet("# May 1826\n\n**3 May.** Lady Scott was ill.", [["1826"]])[0] == "3 May. Lady Scott was ill."


def test_an_agent_session_is_read_back_as_the_run_summarized_it(tmp_path: Path) -> None:
    """A run summarizes an agent session from its digested tool results, and its nodes' spans point into
    that text; search's snippets and ``batchsum index --rebuild`` had read the raw session instead: a snippet
    from the wrong place ("(Current directory: /repo) bash-$") and other words indexed after a repair."""
    import hashlib
    import sqlite3

    from batchsum.agent_transcript import digest_agent_transcript
    from batchsum.sources import source_text

    parts = ["### user\n\nThe build fails on main. Find out why and fix config/settings.toml."]
    for i in range(9):
        parts.append(f"### assistant\n\nChecking part {i} of the build.\n```\ncat config/part_{i}.toml\n```")
        body = "\n".join(f"key_{i}_{k} = {k}" for k in range(50))
        parts.append(f"### user\n\n{body}\n(Open file: n/a)\n(Current directory: /repo)\nbash-$")
    parts.append("### assistant\n\nThe zanzibar target lacks its name key. I add name to settings.toml and rebuild.")
    parts.append("### user\n\nmake: *** [build] Error 2\nerror: missing key 'name'\n(Current directory: /repo)\nbash-$")
    session = "\n\n".join(parts) + "\n"
    src = tmp_path / "src"
    src.mkdir()
    (src / "session.md").write_text(session, encoding="utf-8")
    out = tmp_path / "out"
    _summarize(src, out)
    cfg = RunConfig(paths=[], out=out)

    sha = hashlib.sha256(session.encode()).hexdigest()
    assert source_text(cfg.state_dir, "session.md", sha) == digest_agent_transcript(session).text
    hits = search(cfg, "zanzibar target", k=1)
    assert hits and "zanzibar" in hits[0].snippet, hits

    def indexed() -> list[tuple[str, int, int]]:
        with contextlib.closing(sqlite3.connect(out / ".batchsum" / "lexical-batchsum.sqlite3")) as db:
            return sorted(db.execute("SELECT doc_id, units, total_len FROM lex_docs"))

    by_run = indexed()
    res = CliRunner().invoke(main, ["index", str(out), "--rebuild"])
    assert res.exit_code == 0, res.output
    assert indexed() == by_run  # a repair indexes what the run did


def test_a_digest_is_read_in_its_files_language(tmp_path: Path) -> None:
    """A German folder's digest had been analysed as English: "was ist das?" found it at 1.000 by its "ist" and
    "das". A digest records its files' language; one written before it did is read in its text's language."""
    import re

    src = tmp_path / "src" / "werther"
    src.mkdir(parents=True)
    halves = GERMAN.split("! Ich weiß")
    (src / "brief1.txt").write_text(halves[0] + "!\n", encoding="utf-8")
    (src / "brief2.txt").write_text("Ich weiß" + halves[1] + "\n", encoding="utf-8")
    out = tmp_path / "out"
    _summarize(src.parent, out)
    (digest,) = (out / "digests").rglob("*.md")
    assert re.search(r"(?m)^language: de$", digest.read_text(encoding="utf-8"))
    cfg = RunConfig(paths=[], out=out)

    def asked() -> list[tuple[float, str]]:
        return [(h.score, h.source_path) for h in search(cfg, "was ist das?", k=5)]

    assert all(score < MIN_RELEVANCE + 0.1 for score, _ in asked()), asked()
    assert search(cfg, "unzertrennlich", k=5)  # its words are still found
    # A digest of files in two languages drops the function words of both (here most are English).
    for i, text in enumerate(("The printers want their money again, and I have none to give them.", SEASON, SEASON)):
        (src / f"note{i}.txt").write_text(text + "\n", encoding="utf-8")
    _summarize(src.parent, out)
    assert re.search(r"(?m)^languages:\n- de\n- en$", digest.read_text(encoding="utf-8"))
    assert all(score < MIN_RELEVANCE + 0.1 for score, _ in asked()), asked()
    assert search(cfg, "printers money", k=1)[0].source_path == "werther/note0.txt"
    # One written before digests recorded their language is read in its text's.
    digest.write_text(re.sub(r"(?m)^language: de\n", "", digest.read_text(encoding="utf-8")), encoding="utf-8")
    res = CliRunner().invoke(main, ["index", str(out), "--rebuild"])
    assert res.exit_code == 0, res.output
    assert all(score < MIN_RELEVANCE + 0.1 for score, _ in asked()), asked()


def test_a_function_word_weighs_little_where_another_language_quotes_it(tmp_path: Path) -> None:
    """French "que" is no word of a French text; a Russian one quoting French holds it, and had made it as rare
    as a name: "que pluie" found the Russian text first. A function word counts in its language's passages."""
    src = tmp_path / "src"
    for lang in ("fr", "ru"):  # a folder, and its digest, in one language
        (src / lang).mkdir(parents=True)
    (src / "fr" / "pluie.txt").write_text(
        "Il pleut depuis le matin sur le village. La pluie tombe sur les toits que je vois de ma fenêtre, et les"
        " enfants restent à la maison avec leur mère. Le soir, mon père rentre des champs, mouillé jusqu'aux os, et"
        " nous dînons près du feu en écoutant le vent. Demain, dit-il, nous irons au marché si le temps le permet.\n",
        encoding="utf-8",
    )
    (src / "ru" / "lucerne.txt").write_text(
        "Вечером я вышел из гостиницы и пошёл по набережной. Музыкант пел под окнами, и никто не дал ему ни одной"
        " монеты. Один лакей подошёл ко мне и сказал по-французски: Je ne vous dis que ça! Я долго думал об этом"
        " вечере и о людях, которые слушали песню и смеялись над певцом. Ночью я не мог заснуть.\n",
        encoding="utf-8",
    )
    out = tmp_path / "out"
    _summarize(src, out)
    hits = search(RunConfig(paths=[], out=out), "que pluie", k=5)
    assert hits and hits[0].source_path == "fr/pluie.txt", [(h.score, h.source_path) for h in hits]


def test_a_year_digest_is_read_in_the_languages_of_its_months(tmp_path: Path) -> None:
    """A year over a German month and an English one had no ``languages:`` (its months have one when their
    files are in several): the index read it as German only, its English function words kept as its words.
    Its front matter lists its files' languages, for the index to drop the function words of each."""
    import re

    src = tmp_path / "src" / "journal"
    src.mkdir(parents=True)
    halves = GERMAN.split("! Ich weiß")
    (src / "2024-03-02.md").write_text(halves[0] + "!\n", encoding="utf-8")
    (src / "2024-03-09.md").write_text("Ich weiß" + halves[1] + "\n", encoding="utf-8")
    (src / "2024-04-02.md").write_text("What is this, and what was it for? The printers want money.\n", "utf-8")
    out = tmp_path / "out"
    cfg = _summarize(src.parent, out)
    for month, spoken in (("2024/2024-03.md", "de"), ("2024/2024-04.md", "en")):
        page = (out / "digests" / month).read_text(encoding="utf-8")
        assert "languages:" not in page and f"\nlanguage: {spoken}\n" in page, page[:900]
    year = (out / "digests" / "2024.md").read_text(encoding="utf-8")
    assert re.search(r"(?m)^language: de$", year) and re.search(r"(?m)^languages:\n- de\n- en$", year), year[:900]
    assert search(cfg, "printers money", k=10)[0].source_path == "journal/2024-04-02.md"


def test_a_digest_snippet_shows_every_languages_day_label_as_an_english_one() -> None:
    """A digest's day label reads as a sentence of its own, ended by a stop, in every language as in English
    ("3 May. We left ..."): a German one had lost its number to the list-item rule ("Mai Es war alles im
    Felde ..."), a French or Spanish one had run into its sentence ("15 juillet J'ai présenté ..."). A
    labelled day keeps its language's spacing ("personnes ; les") in a digest of another language."""
    from batchsum.index.analysis import analyze
    from batchsum.periods import day_label, month_label

    days = {
        "en": "We left Oslo at dawn with Ingrid.",
        "de": "Es war alles im Felde mit Ingrid.",
        "fr": "J'ai présenté mon exposé devant une soixantaine de personnes ; les questions étaient difficiles.",
        "es": "Carmen me llamó desde Madrid con Ingrid.",
        "ru": "Вечером я вышел из гостиницы с Ingrid.",
        "ja": "京都に着いた。",
    }
    for lang, words in days.items():
        for day, month in ((1, 5), (15, 7), (23, 3), (9, 12)):
            label = day_label(day, month, lang)
            shown = label if label.endswith(".") else label + ("。" if lang == "ja" else ".")
            sep = "" if lang == "ja" else " "
            name = month_label(month, lang)
            for page_language in ("en", lang):
                month_page = f"# {name} 2025\n\n**{label}** {words}\n\n**{day_label(28, month, lang)}** Später.\n"
                year_page = f"# 2025\n\n**Januar** Erst. **{label}** {words} **{day_label(28, month, lang)}** Zuletzt."
                for page in (month_page, year_page):
                    word = {"fr": "soixantaine", "ja": "京都"}.get(lang, "Ingrid")
                    month_word = name if lang == "ja" else label.split()[-1].strip(".")
                    # As a search in an index of both languages asks: each word's stems in either.
                    groups = [sorted({*analyze(w, lang), *analyze(w, page_language)}) for w in (month_word, word)]
                    asked = make_snippet(page, groups, language=page_language)[0]
                    assert asked == f"{shown}{sep}{words}", (lang, page_language, page, asked)
                    # Asked for its words only, a snippet shows them, without the label.
                    assert make_snippet(page, groups[1:], language=page_language)[0] == words, page
    # A year's month heads too, on a page of day labels: "**Avril** Le soir ..." reads "Avril. Le soir ...".
    year = "# 2025\n\n**Avril** Le soir, j'ai perdu mon passeport.\n\n**3 mai** Il pleut."
    assert make_snippet(year, [["passeport"]])[0] == "Le soir, j'ai perdu mon passeport."
    assert make_snippet(year, [["avril"]])[0] == "Avril. Le soir, j'ai perdu mon passeport."


def test_snippets_of_a_bilingual_journals_digests_show_whole_day_labels(tmp_path: Path) -> None:
    """A German and a French month of a journal, searched: each digest snippet that shows a day shows it whole,
    as its own sentence ("9. März.", "15 avril."), never a month's name run into a sentence ("März Heute ...")."""
    import re

    from batchsum.periods import LABEL_MONTHS

    src = tmp_path / "src" / "journal"
    src.mkdir(parents=True)
    german = ["Heute habe ich mit Jonas Schach gespielt und dreimal verloren.", "Mein Fahrrad wurde gestohlen."]
    french = ["Arrivée à Lyon pour la conférence ; les questions étaient difficiles.", "J'ai perdu mon passeport."]
    for i, text in enumerate(german):
        (src / f"2024-03-{i * 3 + 9:02d}.md").write_text(text + " Es war kalt, aber die Sonne schien.\n", "utf-8")
    for i, text in enumerate(french):
        (src / f"2024-04-{i * 2 + 15:02d}.md").write_text(text + " Quelle journée !\n", "utf-8")
    cfg = _summarize(src.parent, tmp_path / "out")
    month = "|".join(sorted(LABEL_MONTHS, key=len, reverse=True))
    shown = []
    for query in ("was geschah im März 2024?", "Schach März", "avril 2024 passeport", "2024", "Lyon conférence"):
        for hit in search(cfg, query, k=10):
            if hit.source_path.startswith("digests/"):
                shown.append(hit.snippet)
                assert not re.search(rf"(?i)(?:^|\s)(?:{month}) [A-ZÀ-Ü]", hit.snippet), (query, hit.snippet)
    assert any(re.match(r"\d{1,2}\. März\. ", s) for s in shown), shown
    assert any(re.match(r"\d{1,2} avril\. ", s) for s in shown), shown
    assert any("conférence ; les" in s for s in shown), shown


def test_a_bold_month_name_in_a_note_is_no_day_label() -> None:
    """A digest's month label ends with a stop in its snippets ("Avril."); a note's "**August** Strindberg" is a
    name in bold, and had become "August. Strindberg" (review)."""
    from batchsum.index.snippets import clean_text

    assert (
        clean_text("**August** Strindberg wrote plays about marriage.")
        == "August Strindberg wrote plays about marriage."
    )
    assert clean_text("**May** the seminar run long, said Ana.") == "May the seminar run long, said Ana."


def test_a_block_scalars_lines_in_front_matter_are_words() -> None:
    """Under "description: |" a line such as "Agenda: budget review" is the value's text: its "Agenda" had been
    blanked as a key (review). The keys around it still are."""
    from batchsum.index.passages import visible_markdown

    page = "---\ndescription: |\n  Agenda: budget review\n  Note: call Ana\nfecha: 2025-06-02\n---\n\nBody.\n"
    shown = visible_markdown(page)
    assert len(shown) == len(page) and shown.count("\n") == page.count("\n")
    assert "Agenda: budget review" in shown and "Note: call Ana" in shown
    assert "description" not in shown and "fecha" not in shown and "2025-06-02" in shown
