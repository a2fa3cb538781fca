"""Placing a digest's sentences under the inputs they come from: the same answer as the plain rule (the
least cost, then the earliest inputs), with Python work that grows with the inputs and the sentences, not
with their product (a folder digest of 5,000 files whose entries share a sentence); each sentence is one
scan, in C, of the inputs joined."""

from __future__ import annotations

import itertools
import random
import sys
from collections.abc import Callable
from types import FrameType
from typing import Any

from batchsum import digest_pages
from batchsum.digest_pages import _assign, _by_part
from batchsum.periods import FileFacts, Period

BACK = digest_pages._BACK


def _cost(path: tuple[int, ...]) -> int:
    return sum(0 if a == b else 1 if b > a else BACK for a, b in itertools.pairwise(path))


def _plain(holders: list[list[int]]) -> list[int]:
    """The rule as stated, by dynamic programming over every input of every sentence: the least cost,
    then from the first sentence on the earliest input that keeps it (the lexicographically first)."""
    rest: list[dict[int, int]] = [dict.fromkeys(holders[-1], 0)]
    for here in reversed(holders[:-1]):
        after = rest[0]
        rest.insert(0, {h: min(_cost((h, g)) + c for g, c in after.items()) for h in here})
    out: list[int] = []
    for i, choices in enumerate(holders):
        out.append(min(choices, key=lambda h: ((_cost((out[-1], h)) if out else 0) + rest[i][h], h)))
    return out


def _holders(rng: random.Random, inputs: int, sentences: int) -> list[list[int]]:
    """Random holders, with what makes placement hard: sentences every input holds, runs of sentences
    the same inputs hold (one list, as the digest's lookup shares it), neighbours that share inputs."""
    everyone = list(range(inputs))
    out: list[list[int]] = []
    for _ in range(sentences):
        roll = rng.random()
        if out and roll < 0.15:
            out.append(out[-1])
        elif roll < 0.3:
            out.append(everyone)
        elif out and roll < 0.45:
            mixed = set(rng.sample(out[-1], min(len(out[-1]), rng.randint(1, 3)))) | {rng.randrange(inputs)}
            out.append(sorted(mixed))
        else:
            out.append(sorted(rng.sample(everyone, rng.randint(1, min(inputs, 4)))))
    return out


def test_placement_is_the_least_cost_earliest_choice() -> None:
    rng = random.Random(7)
    for case in range(3000):
        holders = _holders(rng, rng.randint(1, 14), rng.randint(1, 9))
        assert _assign(holders) == _plain(holders), (case, holders)
    for case in range(300):  # small enough to try every path
        holders = _holders(rng, rng.randint(1, 5), rng.randint(1, 5))
        best = min(itertools.product(*holders), key=lambda path: (_cost(path), path))
        assert _assign(holders) == list(best), (case, holders)


WORDS = ["Slept", "badly", "the", "ferry", "left", "late", "Ingrid", "wrote", "buoy", "7", "calm", "sea"]
SPACES = [" ", " ", " ", "  ", "\n", "\t", " \n "]
QUOTES = ['"', "“", "”", "«", "»"]


def _text(rng: random.Random) -> str:
    out = []
    for _ in range(rng.randint(0, 14)):
        word = rng.choice(WORDS)
        if rng.random() < 0.15:
            word = rng.choice(QUOTES) + word
        if rng.random() < 0.25:
            word += rng.choice([".", ".", "!", ","])
        out.append(word)
    joined = "".join(w + rng.choice(SPACES) for w in out)
    return rng.choice(["", " ", "\n"]) + joined


def test_inputs_holding_a_sentence_are_those_whose_text_holds_it() -> None:
    """Every input's text with its whitespace collapsed and its quotation marks dropped holds the sentence,
    or (a sentence whose stop the summarizer added) the sentence without its stop; no other input."""
    from batchsum.digest_pages import _Inputs

    rng = random.Random(11)
    drop = str.maketrans("", "", "".join(QUOTES))
    for case in range(400):
        parts = [_text(rng) for _ in range(rng.randint(1, 12))]
        norm = [" ".join(p.split()).translate(drop) for p in parts]
        inputs = _Inputs(parts)
        for _ in range(12):
            source = rng.choice(norm)
            a, b = sorted(rng.sample(range(len(source) + 1), 2)) if len(source) > 1 else (0, len(source))
            for sentence in (source[a:b].strip(), source[a:b].strip() + ".", _text(rng).strip()):
                flat = sentence.translate(drop)
                forms = [flat, flat[:-1]] if flat.endswith(".") else [flat]
                expected: list[int] = []
                for form in forms:
                    expected = [i for i, p in enumerate(norm) if form and form in p]
                    if expected:
                        break
                assert inputs.holding(sentence) == expected, (case, parts, sentence)


def _digest(n: int) -> tuple[str, list[str]]:
    """A folder of ``n`` entries that all say "Slept badly.", and a digest quoting a tenth of them."""
    parts = [
        f"Day {i} at the harbour with crew {i % 37}. Slept badly. We fixed buoy {i} and logged tide {i * 3}."
        for i in range(n)
    ]
    picked = range(3, n, 10)
    text = " ".join(f"Day {i} at the harbour with crew {i % 37}. Slept badly. We fixed buoy {i}." for i in picked)
    return text, parts


def _lines_run(call: Callable[[], Any]) -> tuple[Any, int]:
    """``call()``'s result and the number of lines of batchsum/digest_pages.py it ran: its Python work,
    counted the same on every machine (no clock)."""
    count = 0

    def local(frame: FrameType, event: str, arg: Any) -> Any:
        nonlocal count
        if event == "line":
            count += 1
        return local

    def calls(frame: FrameType, event: str, arg: Any) -> Any:
        return local if frame.f_code.co_filename == digest_pages.__file__ else None

    tracer = sys.gettrace()  # a coverage tool's or a debugger's, given back after
    sys.settrace(calls)
    try:
        result = call()
    finally:
        sys.settrace(tracer)
    return result, count


def test_placing_a_sentence_every_entry_holds_grows_with_the_folder_not_its_square() -> None:
    small, large = 400, 1600
    work = {}
    for n in (small, large):
        text, parts = _digest(n)
        placed, work[n] = _lines_run(lambda text=text, parts=parts: _by_part(text, parts))
        # Each picked day's three sentences under that day, "Slept badly." included (the earliest day
        # holding it would put every one under day 0).
        assert placed == [(i, [f"Day {i} at the harbour with crew {i % 37}.", "Slept badly.", f"We fixed buoy {i}."])
                          for i in range(3, n, 10)]  # fmt: skip
    # Four times the entries and the sentences: about four times the lines run (it was sixteen: 0.26 M to 4.1 M).
    assert work[large] < 6 * work[small], work


def test_a_folder_digest_of_many_entries_reads_as_before() -> None:
    text, parts = _digest(300)
    owners = [FileFacts(f"notes/day{i}.md", f"k{i}", None, "", 9) for i in range(300)]
    body = digest_pages.digest_body(Period("folder", "notes"), text, parts, owners)
    paragraphs = body.split("\n\n")
    assert len(paragraphs) == 30 and paragraphs[0] == (
        "**day3.** Day 3 at the harbour with crew 3. Slept badly. We fixed buoy 3."
    ), paragraphs[:2]
    assert all(p.count("Slept badly.") == 1 for p in paragraphs)
