"""Embedded extractive summarizer: the offline, deterministic default backend.

One pass per node, numpy only:

1. **Units** (:mod:`batchsum.backends.units`): sentences with their speaker, position and section;
   layout, markup, boilerplate, backchannels and broken-off sentences are context, never candidates.
2. **Relevance** (:mod:`batchsum.backends.scorer`): position-aware directed centrality (PacSum) over
   a blend of TF-IDF and static sentence-vector similarity, times a length factor, plus a prior for
   the start of the text. One set of parameters for every kind of text.
3. **Selection**: greedy MMR under the node's token budget, never taking a near-duplicate of a pick
   (conversations also balance speakers; meta nodes cover their parts). The picks are output in
   source order: a conversation one turn per line with its speaker (``Luis: ...``), a journal one
   line per dated entry. BRIEF is one line (a conversation's, one per turn): the best whole sentence
   that fits, then the next short ones while the line is still well below its budget.

Meta and rolling nodes run the same machinery over the child summaries (with a bonus for parts not
yet covered); rolling nodes additionally carry forward the previous final's sentences that remain
central to the new material. Budgets are hard: output never exceeds ``max_tokens`` and is
strictly shorter than the input (a text that already fits its target comes back whole); a HIERARCHICAL
final is capped at a human length (500 words).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from functools import partial
from itertools import pairwise
from typing import get_args

import numpy as np

from batchsum.backends.apparatus import is_apparatus_text
from batchsum.backends.budget import FINAL_WORDS, final_cap, trim_at_clause, trim_to_sentence_boundary
from batchsum.backends.noise import is_back_matter, is_index_block, line_kind, markdown_as_text
from batchsum.backends.scorer import SCORER, Matrix, Params, carry_forward, relevance
from batchsum.backends.units import Unit, terms, units_from_text
from batchsum.backends.written import join_picks
from batchsum.language import is_cjk, run_on
from batchsum.model import CONTENT_TYPES, ContentType, PromptKind, SummaryLevel, SummaryOutput, SummaryRequest
from batchsum.text import LIST_ITEM, unended
from batchsum.tokens import Tokenizer

__all__ = ["ExtractiveBackend", "Params", "summarize_text"]

BRIEF_FILL = 0.9  # BRIEF: add another sentence while the line is below this share of its target
BRIEF_SLACK = 1.0  # BRIEF: how much less relevant than the first the others may be
# A digest says what each of its files is about before it says more of one: a part not yet quoted gains
# more than any relevance differs by (a folder of two papers and two book chapters had quoted the papers only).
PEER_COVERAGE = 2.0
# A book's final (a meta node of at least BOOK_PARTS parts: over ~100,000 tokens), and any long text's final
# (HIERARCHICAL: over 15,000 tokens, whatever its number of parts), quotes each part before any twice, as far as
# its budget goes: with the opening prior over parts, Jane Eyre's final (20 parts) had drawn all its sentences
# from the first tenth. Each pick leaves room for a sentence of every part not yet quoted (as a digest's do,
# _leaving_room_for_the_rest): two sentences of 169 and 143 words had taken most of a 500-word final, which
# quoted 4 of its book's 20 parts. In the lower nodes of a text (a meeting's, a chapter's) the most relevant
# sentences stay first: there the same bonus had cost a chapter its overview and a call its figures.
BOOK_PARTS = 8
BOOK_COVERAGE = 1.0


def _select(
    units: list[Unit],
    rel: np.ndarray,
    mat: Matrix,
    tokenizer: Tokenizer,
    budget: int,
    sep_cost: int,
    params: Params,
    content_type: ContentType,
    kind: PromptKind,
    peers: bool = False,
    overview: bool = False,
) -> list[int]:
    """Greedy MMR under a token budget; returns indices in pick order. ``peers``: a digest's parts (a
    month's entries, a folder's files) are each covered once before any is covered twice; so are a book's,
    and a long text's in its final (``overview``), with room kept for each part a long sentence would crowd out.

    Exact token counts are taken lazily (only for units that win a round): a cheap lower-bound
    estimate filters what cannot fit, which keeps tokenization off the hot path.
    """
    n = len(units)
    cand = np.array([u.candidate for u in units])
    if not cand.any():  # a whole sentence stands in where there is one, never a fragment ("... of the value:")
        cand = np.array([bool(u.body) for u in units])
        if (whole := cand & np.array([u.whole for u in units])).any():
            cand = whole
    remaining = cand.copy()
    # cl100k averages ~4.2 chars/token on English; /6 stays below the true count for prose.
    est = np.array([len(u.text) / 6.0 for u in units])
    exact = np.full(n, -1, dtype=np.int64)
    max_sim = np.zeros(n)
    chosen: list[int] = []
    used = 0
    # Speakers as integer ids; a speaker's fair share of the picks is their share of the talk time
    # (proportional representation: the square root of talk time scored lower on the pooled fit,
    # docs/eval.md), so the main speaker leads but cannot monopolise the summary.
    ids: dict[str | None, int] = {}
    spk = np.array([ids.setdefault(u.speaker, len(ids)) for u in units], dtype=np.int64)
    talk = np.bincount(spk, weights=[u.words if u.candidate else 0 for u in units], minlength=len(ids))
    share = talk / max(1e-9, float(talk.sum()))
    picked = np.zeros(len(ids))
    speaker_aware = content_type == "conversation" and params.speaker_w > 0 and len(ids) > 1
    parts = np.array([u.part for u in units])
    covered = np.zeros(n, dtype=bool)
    n_parts = len(set(parts.tolist()))
    multi_part = kind in ("meta", "rolling") and n_parts > 1
    book = multi_part and not peers and (overview or n_parts >= BOOK_PARTS)
    bonus = PEER_COVERAGE if peers else BOOK_COVERAGE if book else params.coverage_w
    reserve = (peers or book) and multi_part and bool(parts.min() >= 0)  # a rolling node's prior final: part -1
    stand_in = np.zeros(n, dtype=bool)
    if reserve:  # the room each part needs is reserved on exact counts (estimates run low)
        for i in np.flatnonzero(cand).tolist():
            exact[i] = tokenizer.count(units[i].text)
        if peers:
            stand_in = _stand_ins(units, cand, parts, exact, tokenizer, budget, sep_cost)
            remaining |= stand_in
    answers, taken, leaning = _answers(units), np.zeros(n, dtype=bool), np.array([u.context for u in units])
    while True:
        room = budget - used - (sep_cost if chosen else 0)
        # A question still unanswered in the picks costs its answer too (:func:`_answers`), and scores as the pair.
        pair = np.where((answers >= 0) & ~taken[answers], answers, -1)
        cost = np.where(exact >= 0, exact, est)
        cost = np.where(pair >= 0, cost + cost[pair] + sep_cost, cost)
        fits = remaining & (cost <= room)
        if peers:  # a digest quotes a sentence that leans back ("My knees hurt afterwards.") only after its own
            fits &= ~leaning | np.r_[False, taken[:-1] & (parts[1:] == parts[:-1])]
        if not fits.any():
            break
        if reserve:
            fits = _leaving_room_for_the_rest(fits, remaining, covered, parts, cost, rel, room, sep_cost)
        score = rel - params.redundancy * max_sim
        if chosen and speaker_aware:
            over = np.maximum(0.0, picked / (len(chosen) + 1) - share)
            score = score - params.speaker_w * over[spk]
        if multi_part and (params.coverage_w or peers):
            score = score + bonus * (~covered)
        score = np.where(fits, np.where(pair >= 0, (score + score[pair]) / 2, score), -np.inf)
        best = int(np.argmax(score))
        # The answer before its question: the weakest pick dropped last (summarize_text) is never an answer alone.
        members = [int(pair[best]), best] if pair[best] >= 0 else [best]
        if (exact[members] < 0).any():
            for j in members:
                exact[j] = tokenizer.count(units[j].text) if exact[j] < 0 else exact[j]
            if int(exact[members].sum()) + sep_cost * (len(members) - 1) > room:
                continue  # the estimate was optimistic; the exact cost is now known
        remaining[best] = False
        if chosen and max_sim[best] > params.max_overlap:
            continue
        for j in members:
            chosen.append(j)
            used += int(exact[j]) + (sep_cost if len(chosen) > 1 else 0)
            max_sim = np.maximum(max_sim, mat.sim_row(j))
            if params.near_words:
                remaining &= ~mat.near_row(j, params.near_words)
            remaining[j], taken[j] = False, True
            picked[spk[j]] += 1
            covered |= parts == units[j].part
        remaining &= ~(stand_in & covered)  # a short line stands in for its part, never a second pick
    return chosen


def _stand_ins(
    units: list[Unit],
    cand: np.ndarray,
    parts: np.ndarray,
    exact: np.ndarray,
    tokenizer: Tokenizer,
    budget: int,
    sep_cost: int,
) -> np.ndarray:
    """A digest's whole sentences too short to be candidates ("Lunch: soup with Ana.") of the parts whose
    candidates are all longer, when only with them the budget holds a sentence of every part: a month of
    three entries had left out the one whose only candidate was long. None when the candidates alone hold
    one of each, or when even these cannot (exact counts are filled in for them)."""
    short = np.array([u.whole and bool(u.body.strip()) for u in units]) & ~cand
    if not short.any():
        return short
    for i in np.flatnonzero(short).tolist():
        exact[i] = tokenizer.count(units[i].text)
    own, least = np.full(int(parts.max()) + 1, np.inf), np.full(int(parts.max()) + 1, np.inf)
    np.minimum.at(own, parts[cand], exact[cand])
    np.minimum.at(least, parts[short], exact[short])
    present = np.isfinite(own) | np.isfinite(least)
    holds = budget + sep_cost  # each of ``k`` lines costs its separator, the first one none
    if float((own[present] + sep_cost).sum()) <= holds:
        return np.zeros_like(short)
    if float((np.minimum(own, least)[present] + sep_cost).sum()) > holds:
        return np.zeros_like(short)
    return short & (least < own)[parts]


# A sentence that asks: it ends with a question mark (a closing quote or bracket after it), Latin or full-width.
_QUESTION = re.compile(r"[?？][\"'”’)\]」』）]*$")


def _answers(units: list[Unit]) -> np.ndarray:
    """For each unit, the unit that answers it (-1: none). A question and its answer are an adjacency pair
    (Schegloff & Sacks 1973, "Opening up closings"): a turn that ends on a question, then the next turn, another
    speaker's; its answer is that turn's first candidate sentence (none: the question stands alone, as any
    sentence). Picked alone, a question had stood in a summary with its answer left out ("Q: Is the exam open
    book?"), and search showed it so."""
    out = np.full(len(units), -1, dtype=np.int64)
    for i, (u, nxt) in enumerate(pairwise(units)):
        if u.turn < 0 or nxt.turn < 0 or (nxt.part, nxt.turn) == (u.part, u.turn) or nxt.part != u.part:
            continue  # no turn, or its turn goes on after the question
        if u.speaker is None or nxt.speaker in (None, u.speaker) or not _QUESTION.search(u.body):
            continue
        # Only a sentence worth a line answers: "Okay.", "No." or a broken-off "Yeah, we want" say nothing alone.
        # The answering turn's units follow in a row: walked to its end, never to the text's (quadratic).
        answering = (nxt.part, nxt.turn)
        j = i + 1
        while j < len(units) and (units[j].part, units[j].turn) == answering and not units[j].candidate:
            j += 1
        out[i] = j if j < len(units) and (units[j].part, units[j].turn) == answering else -1
    return out


def _leaving_room_for_the_rest(
    fits: np.ndarray,
    remaining: np.ndarray,
    covered: np.ndarray,
    parts: np.ndarray,
    cost: np.ndarray,
    rel: np.ndarray,
    room: float,
    sep_cost: int,
) -> np.ndarray:
    """Of the units that fit, those that leave room for a unit of every part not yet quoted (budgeted maximum
    coverage, Khuller, Moss & Naor 1999): a month's digest quotes every entry that a shorter pick elsewhere
    makes room for (a death in the family, one long sentence, had been left out for a sentence more from the
    days around it). The room kept for a part is that of its most relevant unit when every part's fits, else
    that of its shortest: an entry gives up its news ("I ran my first marathon in Berlin ...") for a detail
    of it ("Maria waited at kilometre 35 ...") only where the budget cannot hold each entry's best.
    Unchanged when not every part can be quoted anyway."""
    waiting = remaining & ~covered
    if not waiting.any():
        return fits
    # Per part index (a folder digest has thousands of parts): its shortest remaining unit's cost, and its
    # most relevant one's (the first of each part once sorted by part, then by relevance, best first).
    shortest = np.full(int(parts.max()) + 1, np.inf)
    np.minimum.at(shortest, parts[waiting], cost[waiting])
    idx = np.flatnonzero(waiting)
    by_part = idx[np.lexsort((-rel[idx], parts[idx]))]
    heads = by_part[np.r_[True, parts[by_part][1:] != parts[by_part][:-1]]]
    best = np.full(len(shortest), np.inf)
    best[parts[heads]] = cost[heads]
    for reserved in (best, shortest):
        open_parts = reserved <= room  # a part too long to quote in any case reserves nothing
        if open_parts.sum() < 2:
            return fits
        reserve = float((reserved[open_parts] + sep_cost).sum())
        if reserve > room + sep_cost:  # not every part can be quoted so: try the shortest, then give up
            continue
        own = np.where(~covered & open_parts[parts], reserved[parts] + sep_cost, 0.0)
        leaves_room = fits & (cost + sep_cost + reserve - own <= room + sep_cost)
        if leaves_room.any():
            return leaves_room
    return fits


def summarize_text(
    text: str,
    *,
    target_tokens: int,
    max_tokens: int,
    kind: PromptKind,
    content_type: ContentType,
    tokenizer: Tokenizer,
    parts: list[str] | None = None,
    prior_context: str | None = None,
    input_tokens: int | None = None,
    params: Params | None = None,
    language: str | None = None,
    peers: bool = False,
    context_chars: int = 0,
    part_languages: list[str | None] | None = None,
    overview: bool = False,
) -> str:
    """Extractive summary of ``text`` (or of ``parts`` for meta/rolling) within the token budget.

    ``brief`` returns one line of whole sentences; other kinds fill up to ``target_tokens`` (0: up to
    ``max_tokens``). The result never exceeds ``max_tokens`` and is a pure function of the arguments.
    It is strictly shorter than the input in tokens, except that a text (not ``parts``) that already
    fits ``target_tokens`` comes back whole rather than cut. Raises :class:`ValueError` for an unknown
    ``kind`` or ``content_type`` or a budget below 0 (``max_tokens`` below 1). ``input_tokens`` (the
    caller's count of the input) saves a recount.
    ``peers``: the parts are not one text in order but peers (a month's entries, a folder's files):
    no part's place makes it matter more, so centrality is undirected and there is no opening prior.
    ``context_chars``: the text's opening that repeats the chunk before it (its overlap): its sentences
    inform the others' centrality but are not picked again, so two neighbouring chunks' summaries never
    repeat a sentence. ``part_languages``: each part's language when they differ (a month of journals in
    two languages): each part is read by its own language's rules (:func:`_per_language`). ``overview``:
    the final of a text summarized in levels (HIERARCHICAL), which quotes each of its parts before any twice.
    """
    _check_arguments(kind, content_type, target_tokens, max_tokens)
    params = params or SCORER
    pieces = [p for p in (parts or []) if p and p.strip()]
    source = text if text and text.strip() else "\n\n".join(pieces)
    if not source.strip() and not (kind == "rolling" and prior_context and prior_context.strip()):
        return ""
    if input_tokens is None or input_tokens <= 0:
        input_tokens = tokenizer.count(source) if source.strip() else 0
    meta = kind in ("meta", "rolling")
    # A summary is shorter than its text, but a text that already fits its budget (a library
    # caller's one sentence) is not worth cutting mid-sentence to prove it.
    fits = not meta and 0 < input_tokens <= target_tokens
    cap = min(max_tokens, input_tokens - 1) if input_tokens and not fits else max_tokens
    if cap <= 0:
        return ""
    target = max(1, min(target_tokens, cap)) if target_tokens > 0 else cap

    langs = part_languages if meta and part_languages and len(part_languages) == len(pieces) else None
    units = _units(source, pieces if meta else [], content_type, params.min_words, language, context_chars, langs)
    if kind == "rolling" and prior_context and prior_context.strip():
        prior_units = units_from_text(prior_context, content_type, params.min_words, part=-1, language=language)
        for u in prior_units:
            u.prior = True
        units = prior_units + units
    if not units or (not any(u.candidate or u.whole for u in units) and _no_summary(source)):
        return _noise_only(source, target, tokenizer)  # "" for a book's index: each entry a unit, none a sentence
    for u in units:
        u.terms = terms(u.body, langs[u.part] or language if langs and u.part >= 0 else language)
        u.section = 0 if peers else u.section  # one part's headings are no boundary for its peers
    if kind == "standard" and len({u.date for u in units if u.date}) == 1:
        # A whole text of one dated entry: its file says the date, a "2026-10-12: " label would only repeat it.
        for u in units:
            u.date = None

    mat = Matrix(units, params.vector_w)
    entries = peers and content_type == "journal"  # a month's entries open on their news, a folder's files not
    rel = relevance(units, mat, meta and not peers, kind in ("brief", "standard"), params, entries)
    if kind == "rolling":
        rel = rel + carry_forward(units, mat, params)
    if langs:
        rel = _per_language(rel, units, langs)

    if kind == "brief":
        return _brief(units, rel, mat, tokenizer, target, cap, params)

    # A journal's picks are grouped under their dates ("2025-03-02: "): budget a little per pick for them.
    sep = 4 if any(u.date for u in units) else 1
    select = partial(
        _select, units, rel, mat, tokenizer, sep_cost=sep, params=params, content_type=content_type, kind=kind,
        peers=peers, overview=overview,
    )  # fmt: skip
    chosen = select(min(cap, target))
    if not chosen:
        cands = [i for i, u in enumerate(units) if u.candidate] or [i for i, u in enumerate(units) if u.whole]
        best = max(cands or range(len(units)), key=lambda i: (rel[i], -i))
        return trim_at_clause(units[best].text, cap, tokenizer)
    return _written(units, chosen, select, min(cap, target), cap, sep, tokenizer, kind, content_type)


def _written(
    units: list[Unit],
    chosen: list[int],
    select: Callable[[int], list[int]],
    budget: int,
    cap: int,
    sep: int,
    tokenizer: Tokenizer,
    kind: PromptKind,
    content_type: ContentType,
) -> str:
    """The picks ``chosen`` (``select(budget)``'s, ``sep`` a separator's budget) as written, within ``cap``.
    Written, they can cost more than their own counts (a journal's dates, BPE merges across joins): then they
    are picked again within the budget less that excess, so a few tokens of dates do not cost a whole pick
    (a Russian journal with a budget of 114 tokens had kept a line of 37, its second pick of 73 dropped)."""
    order = _order(units, chosen, kind)
    out = join_picks(units, order, content_type == "conversation")
    for _ in range(2):
        if tokenizer.count(out) <= cap:
            break
        # What writing the picks adds to their own counts and the separators they were budgeted.
        extra = tokenizer.count(out) - sum(tokenizer.count(units[i].text) for i in chosen) - sep * (len(chosen) - 1)
        refill = select(budget - max(1, extra))
        if not refill:
            break
        chosen, order = refill, _order(units, refill, kind)
        out = join_picks(units, order, content_type == "conversation")
    # Still over (BPE merges across joins, journal dates): drop the weakest pick until it fits.
    while tokenizer.count(out) > cap and len(chosen) > 1:
        chosen = chosen[:-1]
        order = _order(units, chosen, kind)
        out = join_picks(units, order, content_type == "conversation")
    if tokenizer.count(out) > cap and any(units[i].date for i in order):
        texts = [units[i].text for i in order]  # the sentence fits, its date does not
        out = "\n".join(texts) if content_type == "conversation" else run_on(texts)
    return out if tokenizer.count(out) <= cap else trim_at_clause(out, cap, tokenizer)


def _noise_only(source: str, target: int, tokenizer: Tokenizer) -> str:
    """The summary of a text with no sentence by our rules (a chunk of footnotes, a table): its head as read says
    more than nothing, but not where that is a paper's apparatus or a book's back matter (:func:`_no_summary`)."""
    return "" if _no_summary(source) else trim_to_sentence_boundary(as_read(source), target, tokenizer)[0]


def _no_summary(source: str) -> bool:
    """Whether ``source`` is a paper's apparatus (a chunk of its reference list) or a book's back matter, which is
    no summary: citations, index entries and "End of the Project Gutenberg EBook of ..." had reached finals. A text
    whose sentences are merely no candidates (each names a licence or a URL) is summarized by them as ever."""
    read = markdown_as_text(source)
    return is_apparatus_text(read) or _back_matter(read)


def _back_matter(text: str) -> bool:
    """Whether ``text`` holds a book's back matter and nothing else: each paragraph an index block, index or
    contents entries, or what only a book's end holds (:func:`~batchsum.backends.noise.is_back_matter`: a Gutenberg
    closing line, a publisher's catalogue, transcriber's notes), but for headings and separators. A paragraph that is
    boilerplate by a word it names ("Renew the license ...") is content: only these markers decide."""
    found = False
    for block in re.split(r"\n[ \t]*\n", text):
        lines = [ln for ln in block.split("\n") if ln.strip()]
        kinds = {line_kind(ln) for ln in lines}
        if not lines or kinds <= {"heading", "short", "separator"}:
            continue  # a label says nothing either way
        if not (is_index_block(lines) or kinds <= {"index", "toc", "separator"} or is_back_matter(" ".join(lines))):
            return False
        found = True
    return found


def as_read(text: str) -> str:
    """``text`` on one line as a reader of its rendered Markdown sees it (:func:`markdown_as_text`): no
    code, comment, embed or link definition, a table's rows as its cells' words ("a, b; x0, y0"), not its
    pipes; "" when nothing is left. Never the raw markup: an unclosed fence had swallowed the page after it."""
    rows = []
    for line in markdown_as_text(text).split("\n"):
        kind = line_kind(line)
        if kind == "separator" or _TABLE_RULE.fullmatch(line.strip()):
            continue  # a rule ("* * *", the row under a table's head): no words
        if kind == "table":
            line = ", ".join(cell.strip() for cell in line.strip().strip("|").split("|") if cell.strip()) + ";"
        rows.append(line)
    return " ".join(" ".join(rows).split()).rstrip(";")


_TABLE_RULE = re.compile(r"\|?(?:\s*:?-+:?\s*\|)+\s*(?::?-+:?\s*)?")


def _check_arguments(kind: str, content_type: str, target_tokens: int, max_tokens: int) -> None:
    """A library caller's mistake is an error naming it, not a summary of some other kind."""
    if kind not in get_args(PromptKind):
        raise ValueError(f"kind must be one of {', '.join(get_args(PromptKind))}, not {kind!r}")
    if content_type not in CONTENT_TYPES:
        raise ValueError(f"content_type must be one of {', '.join(CONTENT_TYPES)}, not {content_type!r}")
    if max_tokens < 1 or target_tokens < 0:
        raise ValueError(
            f"max_tokens must be at least 1 and target_tokens at least 0 (got {max_tokens}, {target_tokens})"
        )


def _per_language(rel: np.ndarray, units: list[Unit], part_languages: list[str | None]) -> np.ndarray:
    """Relevance scaled to 1 within each language of a mixed text. Sentences of two languages share no
    words, so the similarity graph falls apart into one part per language and centrality is comparable
    only within a part: the language whose entries repeat names most (a novel's characters) had filled
    a month's digest, and a journal of as many entries in another language went unquoted."""
    out = rel.copy()
    for lang in set(part_languages):
        idx = [i for i, u in enumerate(units) if u.part >= 0 and part_languages[u.part] == lang]
        top = max((float(rel[i]) for i in idx), default=0.0)
        if top > 0:
            out[idx] = rel[idx] / top
    return out


def _brief(
    units: list[Unit],
    rel: np.ndarray,
    mat: Matrix,
    tokenizer: Tokenizer,
    target: int,
    cap: int,
    params: Params,
) -> str:
    """One line: the best whole sentence that fits, plus a second when the first is far below target.

    Sentences that lean on context ("But ...") are passed over while a standalone one exists. When no
    candidate fits the cap (a short entry of long sentences: Chinese and Japanese cost two to three tokens
    a word), a shorter whole sentence of two terms or more is the line ("京都に着いた。"); a sentence is
    cut (at a clause boundary) only when no sentence fits at all.
    """
    answers = _answers(units)  # a question is picked with its answer (:func:`_answers`), ranked as the pair
    rel = np.where(answers >= 0, (rel + rel[answers]) / 2, rel)
    ranked = sorted(range(len(units)), key=lambda i: (-rel[i], i))
    pools = (
        [i for i in ranked if units[i].candidate and not units[i].context],
        [i for i in ranked if units[i].candidate],
    )
    cost: dict[int, int] = {}
    chosen: list[int] = []

    def members(i: int) -> list[int]:  # the answer before its question: a pick popped last leaves no question alone
        return [int(answers[i]), i] if answers[i] >= 0 and answers[i] not in chosen else [i]

    def tokens(i: int) -> int:
        for j in members(i):
            cost[j] = cost[j] if j in cost else tokenizer.count(units[j].text)
        return sum(cost[j] for j in members(i)) + len(members(i)) - 1

    fitting: list[int] = []
    pool: list[int] = []
    for pool in pools:
        # The best sentence that fits, looking a little further down when the top one does not.
        fitting = [i for i in pool[:12] if len(units[i].text) / 6.0 <= cap and tokens(i) <= cap]
        if fitting:
            break
    if not fitting:
        short = [
            i
            for i in ranked
            if units[i].whole and len(units[i].terms) >= 2 and not units[i].context and tokens(i) <= cap
        ]
        if short:
            return _inline(units, sorted(members(short[0])))
        # Nothing whole fits: cut the best candidate (or, with no candidate, the best whole unit, or the best
        # unit) at a clause. A whole sentence that leans back was preferred to a cut one (a line is a whole
        # sentence: a cut opening with its dateline, "_January_ 2.--... My last entry records my…", says less).
        top = (
            pools[1] or [i for i in ranked if units[i].body and units[i].whole] or [i for i in ranked if units[i].body]
        )
        return trim_at_clause(units[top[0]].text, cap, tokenizer) if top else ""
    best = fitting[0]
    used = tokens(best)
    chosen = members(best)
    limit = min(cap, int(target * 1.1))
    max_sim = np.max([mat.sim_row(j) for j in chosen], axis=0)
    # Short sentences are joined on the line until the budget is nearly filled: each next one
    # trades relevance against how well the line then fills the target.
    while used < BRIEF_FILL * target and len(chosen) < params.brief_max:
        best_next, best_score = -1, -np.inf
        for i in pool[:40]:
            if i in chosen or max_sim[i] > params.max_overlap or len(units[i].text) / 6.0 > limit - used:
                continue
            total = used + 1 + tokens(i)
            if total > limit or rel[i] < rel[best] - BRIEF_SLACK:
                continue
            next_score = rel[i] + min(1.0, total / target)
            if next_score > best_score:
                best_next, best_score = i, next_score
        if best_next < 0:
            break
        used += 1 + tokens(best_next)
        chosen += members(best_next)
        max_sim = np.max([max_sim, *(mat.sim_row(j) for j in chosen[-2:])], axis=0)

    def line(picks: list[int]) -> str:  # one line; a conversation's one line per turn with its speaker
        if units[picks[0]].turn >= 0:
            return join_picks(units, sorted(picks), conversation=True)
        return _inline(units, sorted(picks))

    out = line(chosen)
    while len(chosen) > 1 and tokenizer.count(out) > cap:
        chosen.pop()
        out = line(chosen)
    return out


def _inline(units: list[Unit], order: list[int]) -> str:
    """Prose picks on one line, run on (no space after a full-width stop). A line holds
    no list: an item goes without its bullet, the first of a list after its label ("Bring: A warm jacket
    for the boat. A water bottle."), never as " - A warm ..."."""
    parts: list[str] = []
    prev: str | None = None  # the label of the list the previous pick belongs to; None: prose
    for i in order:
        text = units[i].text
        bullet = LIST_ITEM.match(text)
        if bullet is None:
            parts.append(text)
            prev = None
            continue
        label, body = units[i].heading, text[bullet.end() :]
        if unended(body):
            body += "."  # an item is often no sentence: run on, "Q2 migration to Postgres 16 Postgres 16 ..."
        parts.append(f"{label}: {body}" if label and label != prev else body)
        prev = label
    return run_on(parts)


def _units(
    source: str,
    pieces: list[str],
    content_type: ContentType,
    min_words: int,
    language: str | None,
    context_chars: int,
    part_languages: list[str | None] | None = None,
) -> list[Unit]:
    """The candidate sentences of a text, or of ``pieces`` (a meta node's parts, positioned in order);
    the first ``context_chars`` of a text (a chunk's overlap) are context only."""
    if pieces:
        units: list[Unit] = []
        for pi, piece in enumerate(pieces):
            lang = (part_languages[pi] if part_languages else None) or language
            part_units = units_from_text(piece, content_type, min_words, part=pi, language=lang)
            for u in part_units:
                u.pos = (pi + u.pos) / len(pieces)
            units.extend(part_units)
        return units
    units = units_from_text(source, content_type, min_words, language=language)
    if 0 < context_chars < len(source):
        # The overlap is whole sentences of the chunk before: counted on their own, they are the first units.
        for u in units[: len(units_from_text(source[:context_chars], content_type, min_words, language=language))]:
            u.candidate = False
    return units


def _order(units: list[Unit], chosen: list[int], kind: PromptKind) -> list[int]:
    """Output order: the source's (a reader follows the text's sequence and dates); a rolling node's
    carried-forward sentences come first, as they summarize what came before."""
    if kind == "rolling":
        return sorted(chosen, key=lambda i: (not units[i].prior, i))
    return sorted(chosen)


class ExtractiveBackend:
    """The default backend: no model, no network, deterministic."""

    name = "extractive"
    model: str | None = None

    def __init__(
        self, tokenizer: Tokenizer, params: Params | None = None, final_words: int | None = FINAL_WORDS
    ) -> None:
        self._tokenizer = tokenizer
        self._params = params
        self._final_words = final_words

    async def summarize(self, request: SummaryRequest) -> SummaryOutput:
        """Summarize one node; CPU-bound and quick, so it runs inline."""
        return self.summarize_now(request)

    def summarize_now(self, request: SummaryRequest) -> SummaryOutput:
        """:meth:`summarize` without an event loop (for worker processes)."""
        t0 = time.perf_counter()
        target, max_tokens = request.target_tokens, request.max_tokens
        capped = request.summary_level is SummaryLevel.HIERARCHICAL and request.node_id.endswith(":L3:final")
        if capped:
            target = final_cap(target, self._final_words)
            max_tokens = min(max_tokens, target)
        text = self._text(request, target, max_tokens, capped)
        # The cap is in words, its token budget set at English prose's mean of 1.3 tokens a word: a novel's
        # longer words (1.17) ran 44 words over. The budget shrinks by the overshoot until the words fit.
        for _ in range(3):
            words = len(text.split())
            if not capped or not self._final_words or words <= self._final_words or is_cjk(request.language):
                break
            target = max_tokens = max(1, target * self._final_words // words - 1)
            text = self._text(request, target, max_tokens, capped)
        out_tokens = self._tokenizer.count(text) if text else 0
        return SummaryOutput(
            text=text,
            backend=self.name,
            model=None,
            completion_tokens=out_tokens,
            latency_ms=(time.perf_counter() - t0) * 1000.0,
            llm_calls=0,
        )

    def _text(self, request: SummaryRequest, target: int, max_tokens: int, overview: bool) -> str:
        return summarize_text(
            request.text,
            target_tokens=target,
            max_tokens=max_tokens,
            kind=request.kind,
            content_type=request.content_type,
            tokenizer=self._tokenizer,
            parts=request.parts or None,
            prior_context=request.prior_context,
            input_tokens=request.input_tokens or None,
            params=self._params,
            language=request.language,
            peers=request.peers,
            context_chars=request.context_chars,
            part_languages=request.part_languages or None,
            overview=overview,
        )

    async def aclose(self) -> None:
        """Nothing to release."""
