"""An extractive year's digest, written month by month (:func:`by_month`): each month's paragraph the
sentences picked from that month's digest within its share of the year's budget."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from batchsum.digest_pages import day_labelled, day_runs, opens_with_day, split_day_label
from batchsum.digest_state import mixed
from batchsum.model import SummaryOutput, SummaryRequest
from batchsum.periods import MONTH_NAMES, label_language, month_label
from batchsum.text import split_sentences

if TYPE_CHECKING:
    from batchsum.tokens import Tokenizer

__all__ = ["Compute", "by_month"]


# How a digest's request becomes its output: the run's executor's ``compute``, or a backend's ``summarize``.
Compute = Callable[[SummaryRequest], Awaitable[SummaryOutput]]


async def by_month(
    summarize: Compute,
    name: str,
    tokenizer: Tokenizer,
    req: SummaryRequest,
    labels: list[str],
    talks: list[bool] | None = None,
) -> SummaryOutput:
    """An extractive year's digest: a paragraph per month, in order, opening with the month's name, each
    the sentences the backend (``name``, through ``summarize``) picks from that month's digest (its days
    as the parts to cover) within the month's share of the year's budget; a paragraph that opens with its
    day ("**22 January.**") needs no month name before it. Shares are proportional to the
    months' digests, and a month whose whole digest fits its share is quoted whole, its unused share
    going to the others (water-filling), so a short month never starves a long one and every month is
    named. ``talks``: per month, whether any of its files is a conversation (None: not known, every month
    may be); a month of none has no speaker turns, whatever its lines' "Label:" openers look like."""
    # A year names its months in its entries' language ("**April.** ", "**Avril** ", "**4月** ").
    names = [month_label(MONTH_NAMES.index(label) + 1, req.language) for label in labels]
    heads = [f"**{name}.** " if name == label else f"**{name}** " for name, label in zip(names, labels, strict=True)]
    sizes = [tokenizer.count(p) for p in req.parts]
    # Each month first gets room for its shortest sentence: a share below it (a month of one long
    # sentence beside long months) left the month's paragraph a bare "…".
    # Each month is read in its own language (a year of a German March and a French April).
    languages = req.part_languages if len(req.part_languages) == len(req.parts) else [None] * len(req.parts)
    month_langs = [lang or req.language for lang in languages]
    floors = [
        min(size, _shortest_sentence(part, tokenizer, lang))
        for size, part, lang in zip(sizes, req.parts, month_langs, strict=True)
    ]
    # A month's floor holds room for the label its sentence is shown after (a day's, else the month's):
    # counting its head again had named three months of nine where the budget held five.
    costs = [max(floor, tokenizer.count(h)) + 1 for h, floor in zip(heads, floors, strict=True)]
    kept = _kept(sizes, costs, req.max_tokens)
    alloc = {i: floors[i] if i in kept else 0 for i in range(len(labels))}
    room = max(0, req.max_tokens - sum(costs[i] for i in kept))
    open_ = [i for i in sorted(kept) if floors[i] < sizes[i]]
    while open_:
        weight = sum(sizes[i] - floors[i] for i in open_) or 1
        share = {i: room * (sizes[i] - floors[i]) // weight for i in open_}
        whole = [i for i in open_ if sizes[i] - floors[i] <= share[i]]
        if not whole:
            for i in open_:
                alloc[i] += share[i]
            break
        for i in whole:
            alloc[i] = sizes[i]
            room -= sizes[i] - floors[i]
            open_.remove(i)
    subs: dict[int, SummaryRequest] = {}  # the months cut to their share, summarized side by side
    days: dict[int, list[str]] = {}  # their paragraphs, a day's each
    for i, part in enumerate(req.parts):
        if i in kept and alloc[i] < sizes[i]:
            # A week's paragraph is a run per day: each is labelled on its own, as a day file's paragraph is.
            days[i] = [run for d in part.split("\n\n") if d.strip() for run in day_runs(d)]
            # The days' words without their labels: a label is no sentence to pick, and one cut in two
            # ("**9." | "März** Heute ...") had been picked and labelled again ("**9. März** März** Heute").
            labelled = [split_day_label(d) for d in days[i]]
            words = [w for _, w in labelled]
            # Each day in its own language, as in the month's digest: its label's ("**3 May.**" is English).
            spoken = [label_language(label.strip("* ")) or month_langs[i] for label, _ in labelled]
            subs[i] = SummaryRequest(
                node_id=f"{req.node_id}#{labels[i]}",
                kind="meta",
                content_type=req.content_type,
                text="\n\n".join(words),
                input_tokens=sizes[i],
                target_tokens=max(1, alloc[i]),
                max_tokens=max(1, alloc[i]),
                parts=words,
                summary_level=req.summary_level,
                peers=True,  # the month's days
                language=month_langs[i],
                part_languages=mixed(spoken),
            )
    cut = dict(zip(subs, await asyncio.gather(*map(summarize, subs.values())), strict=True))
    paragraphs: list[str] = []
    for i, (head, part) in enumerate(zip(heads, req.parts, strict=True)):
        if i not in kept:
            continue
        talk = talks is None or i >= len(talks) or talks[i]
        body = " ".join((day_labelled(cut[i].text, days[i], talk) if i in cut else part).split())
        if body:  # "**22 January.** Poor Mr. Pole ..." names its month: no "**January.**" before it
            paragraphs.append(("" if opens_with_day(body) else head) + body)
    text = "\n\n".join(paragraphs)
    return SummaryOutput(text=text, backend=name, completion_tokens=tokenizer.count(text), llm_calls=0)


def _kept(sizes: list[int], costs: list[int], budget: int) -> set[int]:
    """The months a year's budget names: all when it holds each one's name and shortest sentence (its
    ``costs``), else those the greedy of budgeted maximum coverage picks (Khuller, Moss and Naor 1999),
    the most words of the year per token spent first, and at least the cheapest month."""
    if sum(costs) <= budget:
        return set(range(len(costs)))
    kept: set[int] = set()
    spent = 0
    for i in sorted(range(len(costs)), key=lambda i: (-sizes[i] / max(1, costs[i]), i)):
        if spent + costs[i] <= budget:
            kept.add(i)
            spent += costs[i]
    return kept or {min(range(len(costs)), key=lambda i: (costs[i], i))}


def _shortest_sentence(text: str, tokenizer: Tokenizer, language: str | None) -> int:
    """Tokens of the shortest sentence of ``text`` (with a few for the day label it is shown after), its
    paragraphs' day labels left out: a label is no sentence (German's "**9." cut off "März** ...")."""
    text = "\n\n".join(split_day_label(d)[1] for d in text.split("\n\n"))
    counts = [tokenizer.count(s.text) for s in split_sentences(text, language) if s.text.strip()]
    return min(counts, default=0) + 4
