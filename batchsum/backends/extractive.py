"""Embedded extractive summarizer: the offline, deterministic default backend.

Algorithm (one pass per node, numpy only):

1. **Units.** The text is split into sentences (:func:`batchsum.text.split_sentences`, plus a
   split of lower-cased run-on text). Layout lines are never candidates and never glued to the
   sentence below them (:mod:`batchsum.backends.noise`: separators, headings, contents and index
   entries, page headers, footnotes, licence boilerplate); a heading names the section below it
   (introduction, conclusion, methods, references) and a dated heading the journal entry. For
   conversations each ``Speaker: text`` turn is cleaned of disfluency markers and fillers first,
   and backchannels ("Yeah.", "Mm-hmm."), fragments and broken-off sentences are dropped as
   candidates.
2. **Vectors.** Each unit becomes a TF-IDF vector over light-stemmed content words
   (stop words removed, IDF computed over the units of this node).
3. **Relevance.** A LexRank-style centrality (power iteration over the cosine graph) blended with
   cosine-to-centroid, times a length factor (in transcripts a long sentence is favoured well
   beyond a dozen words, and a long turn earns a bonus), plus content-type cue-word boosts (decisions and
   action items for conversations; insights and goals for journals; findings and conclusions for
   documents), a position prior (strong for the opening of a whole short text), a section-role
   bonus or penalty, and penalties for sentences that lean on missing context ("But ...",
   "Partly, ..."), boilerplate, dialogue-only and tabular lines.
4. **Selection.** Greedy MMR: the next unit maximises relevance minus redundancy with what is
   already chosen (and, for conversations, minus a penalty for an over-represented speaker),
   until the token budget is filled. Documents keep the most important units first, so a reader
   (or an evaluation that truncates) sees the key points early; conversations and journals keep
   source order, a journal's picks grouped under their entry dates. BRIEF is one line: the best
   whole sentence that fits, then (at most three in all) the next short ones while the line is
   still well below its budget.

Meta and rolling nodes run the same machinery over the child summaries, with a prior from each
child's own ranking (children list their best sentences first) and a bonus for parts not yet
covered; rolling nodes additionally carry forward the previous final's sentences that remain
central to the new material. Budgets are hard: output never exceeds ``max_tokens`` and is always
strictly shorter than the input; a HIERARCHICAL final is capped at a human length (500 words).
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from batchsum.backends.budget import FINAL_WORDS, final_cap, trim_to_sentence_boundary
from batchsum.backends.noise import (
    entry_date,
    is_boilerplate,
    is_footnote,
    is_fragment,
    is_heading,
    is_index_block,
    line_kind,
    needs_context,
    repeated_lines,
    section_role,
)
from batchsum.model import ContentType, PromptKind, SummaryLevel, SummaryOutput, SummaryRequest
from batchsum.text import clean_transcript, is_backchannel, parse_speaker_line, split_sentences
from batchsum.tokens import Tokenizer

__all__ = ["ExtractiveBackend", "Params", "summarize_text"]

ALGORITHM_VERSION = 3  # bump when the same input would give a different summary


@dataclass(frozen=True)
class Params:
    """Scoring weights; the per-content-type profiles below were checked on all five shared sets."""

    lexrank_w: float = 0.5  # share of LexRank centrality vs cosine-to-centroid
    damping: float = 0.15
    min_words: int = 5  # units shorter than this are not candidates (unless nothing else exists)
    length_norm: float = 12.0  # content words at which the length factor saturates
    turn_w: float = 0.0  # conversations: bonus for sentences of long turns (explanations, narration)
    turn_norm: float = 80.0  # turn words at which that bonus saturates
    recap_w: float = 0.0  # conversations: bonus for every sentence of a turn that recaps or sums up
    position_w: float = 0.10
    cue_w: float = 0.15
    quote_w: float = 0.25  # penalty for units that are mostly quoted dialogue (stories)
    redundancy: float = 0.6  # MMR lambda
    max_overlap: float = 0.65  # hard redundancy cut (cosine)
    speaker_w: float = 0.3
    rank_w: float = 0.3  # meta: prior from a unit's rank inside its child summary
    coverage_w: float = 0.1  # meta: bonus for a part not yet represented
    prior_w: float = 0.15  # rolling: carry-forward bonus for the previous final's sentences
    doc_order: bool = False  # output in source order instead of importance order
    rel_order: bool = True  # output by relevance instead of pick order
    name_w: float = 0.0  # bonus for mentioning the text's recurring names (main characters, products)
    lead_w: float = 0.0  # bonus for the text's opening sentences (decays over ``lead_k`` sentences)
    lead_k: float = 3.0
    para_w: float = 0.0  # bonus for a paragraph's first sentence (topic sentences)
    role_w: float = 0.0  # bonus for introductions/conclusions, penalty for methods sections
    context_w: float = 0.0  # penalty for sentences that open by pointing back ("But ...")
    brief_fill: float = 0.6  # BRIEF: add another sentence while the line is below this share of the target
    brief_slack: float = 0.5  # BRIEF: how much less relevant than the first the others may be
    brief_fill_w: float = 0.3  # BRIEF: weight of filling the budget when picking the next sentence
    brief_max: int = 3  # BRIEF: most sentences on its one line (only ever reached with short ones)
    density_w: float = 0.0  # bonus for words per character (more words within a token budget)


DEFAULT_PARAMS = Params()
# Per content type (checked on all five shared/bench sets, each split in a tuning and a held-out half).
# Conversations and journals read best in chronological order (journals keep their dates in
# sequence). In transcripts the substance sits in long sentences and long turns (explanations,
# narration) rather than in quick exchanges, and a turn that opens as a recap ("Last time we left
# off ...") is a summary someone already made: CRD3 R-2 0.074 -> 0.110 with the three, QMSum R-2
# 0.045 -> 0.042, still far ahead of every baseline. Prose gains from packing more words into the
# token budget, from trusting the chunk summaries' own ranking, from the opening of a whole text,
# and from introductions and conclusions.
PROFILES: dict[ContentType, Params] = {
    "conversation": Params(
        doc_order=True,
        length_norm=100.0,
        turn_w=0.3,
        recap_w=0.3,
        brief_fill=0.9,
        brief_slack=1.0,
    ),
    "document": Params(
        density_w=1.0,
        length_norm=6.0,
        rank_w=0.8,
        lead_w=1.0,
        role_w=0.5,
        context_w=0.1,
        brief_fill=0.9,
        brief_slack=1.0,
        brief_fill_w=1.0,
    ),
    "journal": Params(
        doc_order=True,
        density_w=1.0,
        length_norm=6.0,
        rank_w=0.2,
        lead_w=0.6,
        role_w=0.5,
        context_w=0.1,
        brief_fill=0.9,
        brief_slack=1.0,
        brief_fill_w=1.0,
    ),
}

_STOPWORDS = frozenset(
    """
    a about above after again against all almost also although am among an and another any anybody anyhow anyone
    anything anyway anywhere are aren't around as at be became because become becomes been before being below
    beside besides between beyond both but by can can't cannot could couldn't did didn't do does doesn't doing
    don't done down during each either else enough etc even ever every everybody everyone everything everywhere
    few for from further get gets getting got gotten had hadn't has hasn't have haven't having he he'd he'll he's
    her here here's hers herself him himself his how how's however i i'd i'll i'm i've if in into is isn't it it's
    its itself just least less let let's like likely many may me might mine more most mostly much must mustn't
    my myself neither never nevertheless next no nobody none nor not nothing now nowhere of off often on once one
    ones only onto or other others otherwise ought our ours ourselves out over own per perhaps please quite rather
    really said same say says see seem seemed seems several shall shan't she she'd she'll she's should shouldn't
    since so some somebody somehow someone something sometime sometimes somewhat somewhere still such than that
    that's the their theirs them themselves then there there's thereby therefore these they they'd they'll
    they're they've this those though through throughout thus to together too toward towards under until up upon
    us very via was wasn't we we'd we'll we're we've well were weren't what what's whatever when when's whenever
    where where's whereas wherever whether which while who who's whoever whole whom whose why why's will with
    within without won't would wouldn't yet you you'd you'll you're you've your yours yourself yourselves
    yeah yes yep okay ok oh um uh mm hmm huh ah alright right gonna wanna gotta kinda sorta actually basically
    thing things stuff kind sort lot lots bit guess mean know think go going goes went gone come came
    want wanted maybe probably sure just also again really okay way ways put take took make made
    """.split()
)

_CUES: dict[str, frozenset[str]] = {
    "conversation": frozenset(
        """
        decid decision decided agree agreed agreement action assign deadline plan propos proposal conclu
        conclusion budget cost price task follow goal problem issue solution import important key
        summar requirement requirements next meet meeting design feature features result
        """.split()
    ),
    "journal": frozenset(
        """
        feel felt realiz realized learn learned grateful goal goals hope plan decid decided proud anxious
        worri worried happy sad frustrat excit tomorrow resolv resolve want wish understand lesson
        """.split()
    ),
    "document": frozenset(
        """
        find finding findings found result results show shows shown conclu conclusion propos method
        approach recommend significant evidence demonstrat purpose study analysis suggest key important
        main introduc provid describ
        """.split()
    ),
}

# A speaker summing up: the rest of the turn is a summary someone already made.
_RECAP = re.compile(
    r"(?:^|[.!?:]\s+)(?:so,?\s+|okay,?\s+|now,?\s+)?(?:last time|last (?:week|we left off)|previously on|"
    r"to recap|recapping|in summary|to summari[sz]e|to sum (?:it )?up|(?:so )?where we left off)\b",
    re.IGNORECASE,
)
_WORD = re.compile(r"[a-z0-9]+(?:['’][a-z]+)?")
_WHOLE = re.compile(r"[.!?…][\"'”’)\]]*$")  # a sentence that ends as a sentence
_QUOTED = re.compile(r"[\"“][^\"“”]*[\"”]")

_stem_cache: dict[str, str] = {}


def _stem(word: str) -> str:
    """A small, deterministic suffix stripper (Porter step 1 plus -ly/-ment/-ness).

    Not the search index's lighter stemmer (:func:`batchsum.index.lexical.stem`): with that one the
    summaries gained on PubMed and QMSum and lost on diaries and SQuALITY (`make eval`, 2026-11-24)."""
    cached = _stem_cache.get(word)
    if cached is not None:
        return cached
    w = word.replace("’", "'")
    if "'" in w:
        w = w.split("'", 1)[0]
    if len(w) > 4:
        if w.endswith("sses"):
            w = w[:-2]
        elif w.endswith("ies"):
            w = w[:-3] + "y"
        elif w.endswith("s") and not w.endswith(("ss", "us", "is")):
            w = w[:-1]
        for suffix in ("ingly", "edly", "ing", "ed", "ly", "ment", "ness"):
            if w.endswith(suffix) and len(w) - len(suffix) >= 3:
                w = w[: -len(suffix)]
                if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "lsz":
                    w = w[:-1]
                break
        if w.endswith("e") and len(w) > 4:
            w = w[:-1]
        if w.endswith("y") and len(w) > 4:
            w = w[:-1] + "i"
    if len(_stem_cache) < 200_000:
        _stem_cache[word] = w
    return w


def _terms(text: str) -> list[str]:
    """Stemmed content words of ``text`` (numbers excluded: they make near-duplicates look distinct)."""
    out = []
    for w in _WORD.findall(text.lower()):
        if len(w) < 3 or w in _STOPWORDS or w[0].isdigit():
            continue
        out.append(_stem(w))
    return out


@dataclass
class _Unit:
    """One candidate sentence."""

    text: str  # what goes into the summary
    body: str  # text without the speaker label
    speaker: str | None
    pos: float  # relative position in its source, 0..1
    part: int = 0
    rank: int = 0  # order inside its part (children list their best sentences first)
    prior: bool = False  # from the previous final (rolling)
    words: int = 0
    terms: list[str] = field(default_factory=list)
    candidate: bool = True
    penalty: float = 0.0  # boilerplate, tables, dialogue-only lines
    role: str | None = None  # section role from the heading above (lead, close, detail, skip)
    lead: bool = False  # first sentence of its paragraph
    context: bool = False  # opens by pointing back ("But ...", "Partly, ...")
    date: str | None = None  # journals: the date of the entry the sentence belongs to
    turn_words: int = 0  # conversations: words in the speaker turn the sentence belongs to
    recap: bool = False  # conversations: the turn opens as a recap or summary ("Last time we left off ...")
    turn: int = -1  # conversations: the source line (turn) the sentence belongs to


def _static_penalty(body: str, content_type: ContentType, params: Params) -> float:
    """Penalty for units that rarely belong in a summary, whatever their centrality."""
    if not body:
        return 0.0
    pen = 0.0
    if is_boilerplate(body):  # conversations: a read-out licence or URL
        pen += 1.0
    if content_type != "conversation" and ('"' in body or "“" in body):
        quoted = sum(len(m.group(0)) for m in _QUOTED.finditer(body))
        pen += params.quote_w * (quoted / len(body))
    if sum(map(str.isalpha, body)) < 0.6 * len(body):
        pen += 0.3
    return pen


def _units_from_text(text: str, content_type: ContentType, params: Params, part: int = 0) -> list[_Unit]:
    """Split one text into candidate units, cleaning transcripts and parsing speakers."""
    units: list[_Unit] = []
    if content_type == "conversation":
        lines = [ln for ln in text.split("\n") if ln.strip()]
        n = max(1, len(lines))
        speakers: list[str | None] = []
        bodies: list[str] = []
        current: str | None = None
        for raw in lines:
            speaker, body = parse_speaker_line(raw)
            if speaker is not None:
                current = speaker
            elif raw[:1].isspace():
                speaker = current  # an indented continuation of the previous turn
            speakers.append(speaker)
            bodies.append(body)
        # One cleanup pass over all turns at once; clean_transcript keeps the line structure.
        cleaned = clean_transcript("\n".join(bodies)).split("\n")
        sentences = [(li, sp.text) for li, body in enumerate(cleaned) if body for sp in split_sentences(body)]
        # A sentence that stops without a full stop was broken off, unless the transcript has no punctuation.
        punctuated = sum(1 for _, t in sentences if _WHOLE.search(t)) >= 0.3 * len(sentences)
        for li, sent in sentences:
            speaker, body = speakers[li], cleaned[li]
            turn_words = len(body.split())
            words = len(sent.split())
            ok = (
                words >= params.min_words
                and not is_backchannel(sent)
                and not is_fragment(sent)
                and (not punctuated or bool(_WHOLE.search(sent)))
            )
            units.append(
                _Unit(
                    f"{speaker}: {sent}" if speaker else sent,
                    sent,
                    speaker,
                    li / n,
                    part,
                    len(units),
                    words=words,
                    candidate=ok,
                    penalty=_static_penalty(sent, content_type, params) if ok else 0.0,
                    turn_words=turn_words,
                    recap=bool(_RECAP.search(body[:200])),
                    turn=li,
                )
            )
        return units
    blocks = _prose_blocks(text)
    spans = [
        (sent, role, date, si)
        for block, role, date in blocks
        for si, sent in enumerate(s for sp in split_sentences(block) for s in _split_lowercase(sp.text))
    ]
    n = max(1, len(spans))
    carried: str | None = None  # the date of a dated line in a child summary runs on to the next date
    for i, (raw, role, date, si) in enumerate(spans):
        sent = _FOOTNOTE_MARK.sub("", " ".join(raw.split()))
        m = _DATE_PREFIX.match(sent)
        if m:
            carried, sent = m.group(1), sent[m.end() :]
        elif date is not None:
            carried = date
        words = len(sent.split())
        ok = (
            words >= params.min_words
            and role != "skip"
            and not sent.startswith(("#", "|", "```"))
            and line_kind(sent) not in _NOISE_KINDS
            and not is_boilerplate(sent)
            and not is_fragment(sent)
        )
        units.append(
            _Unit(
                sent,
                sent,
                None,
                i / n,
                part,
                i,
                words=words,
                candidate=ok,
                penalty=_static_penalty(sent, content_type, params) if ok else 0.0,
                role=role,
                date=carried if content_type == "journal" else None,
                lead=si == 0,
                context=needs_context(sent),
            )
        )
    return units


# A period, then a lower-case word: a sentence end in lower-cased text (scraped papers, chat logs)
# unless the word before is an abbreviation or an initial ("e.g. the", "l. angustifolius").
_LOWER_BREAK = re.compile(r"(?<=[a-z0-9>)\]][.!?])\s+(?=[a-z<(])")
_NO_BREAK_BEFORE = frozenset("e.g i.e al vs cf etc approx fig figs eq no vol ca resp ref refs sp spp var".split())


def _split_lowercase(sentence: str, min_words: int = 40) -> list[str]:
    """Split a long 'sentence' that is really several lower-case sentences run together."""
    if len(sentence.split()) < min_words or ". " not in sentence:
        return [sentence]
    out: list[str] = []
    start = 0
    for m in _LOWER_BREAK.finditer(sentence):
        before = sentence[start : m.start()].rsplit(None, 1)[-1].rstrip(".!?").lower() if m.start() > start else ""
        if len(before) <= 1 or before in _NO_BREAK_BEFORE:
            continue
        out.append(sentence[start : m.start()].strip())
        start = m.end()
    out.append(sentence[start:].strip())
    return [s for s in out if s]


# How a journal summary marks its entries ("2025-03-02: ..."), read back by the level above.
_DATE_PREFIX = re.compile(r"^(\d{4}-\d{2}-\d{2}): ")

_FOOTNOTE_MARK = re.compile(r"(?<=\S)\[\d{1,4}\]")  # "pages[131]": the reader of a summary has no footnotes

_NOISE_KINDS = frozenset({"separator", "toc", "index", "header", "table", "boilerplate"})


def _prose_blocks(text: str) -> list[tuple[str, str | None, str | None]]:
    """The prose of ``text`` as blocks (paragraphs, or the runs between layout lines) with their section role.

    Layout lines (separators, headings, contents and index entries, repeated page headers) are
    dropped and end the block before them, so a heading is never glued to the sentence under it;
    a heading sets the role (``lead``, ``close``, ``detail``, ``skip``) of the prose below it, and
    a dated heading (a journal entry) the date of the prose below it.
    """
    lines = text.split("\n")
    repeated = repeated_lines(lines) if len(lines) >= 30 else frozenset()
    blocks: list[tuple[str, str | None, str | None]] = []
    current: list[str] = []
    role: str | None = None
    date: str | None = None

    def flush() -> None:
        # A back-of-book index spread over a chunk of its own has no INDEX heading above it.
        if current and not is_footnote(current[0]) and not is_index_block(current):
            blocks.append(("\n".join(current), role, date))
        current.clear()

    prev: str | None = None
    for li, line in enumerate(lines):
        if not line.strip():
            flush()
            prev = None
            continue
        kind = line_kind(line, repeated)
        if kind == "short":
            nxt = lines[li + 1] if li + 1 < len(lines) else None
            kind = "heading" if is_heading(line, prev, nxt) else None
        prev = line if kind is None else None
        if kind is None:
            current.append(line)
            continue
        flush()
        if kind == "heading":
            title = line.strip().lstrip("# ")
            date = entry_date(title) or date
            new_role = section_role(title)
            # A named part sets the role; a top-level heading (capitals, '#') or any heading after
            # a skipped part ends it; a plain sub-heading keeps its parent's role.
            if new_role is not None or role == "skip" or title.isupper() or line.lstrip().startswith("# "):
                role = new_role
    flush()
    return blocks


class _Matrix:
    """Row-normalised TF-IDF vectors of the units, stored sparse (no scipy needed).

    ``sim`` is the dense cosine matrix when the node is small enough for LexRank; larger inputs
    (a whole book passed as one text) get similarity rows on demand instead, so memory and time
    stay linear in the number of units.
    """

    DENSE_LIMIT = 800  # units; above this LexRank is skipped and centroid scoring alone ranks

    def __init__(self, units: Sequence[_Unit]) -> None:
        vocab: dict[str, int] = {}
        rows: list[int] = []
        cols: list[int] = []
        for i, u in enumerate(units):
            for t in u.terms:
                rows.append(i)
                cols.append(vocab.setdefault(t, len(vocab)))
        self.n = len(units)
        self.v = max(1, len(vocab))
        if rows:
            # Collapse repeated (row, term) pairs into counts.
            keys = np.asarray(rows, dtype=np.int64) * self.v + np.asarray(cols, dtype=np.int64)
            uniq, counts = np.unique(keys, return_counts=True)
            r, c = np.divmod(uniq, self.v)
        else:
            r = c = np.zeros(0, dtype=np.int64)
            counts = np.zeros(0, dtype=np.int64)
        df = np.bincount(c, minlength=self.v)
        # Smoothed IDF: a term in every unit still counts a little, so one rare token (a name)
        # cannot dominate a vector and hide that two sentences say the same thing.
        idf = 1.0 + np.log((self.n + 1.0) / (df + 1.0))
        vals = (1.0 + np.log(counts.astype(np.float64))) * idf[c]
        norms = np.sqrt(np.bincount(r, weights=vals * vals, minlength=self.n))
        vals = vals / np.where(norms[r] > 0, norms[r], 1.0)
        self.rows, self.cols, self.vals = r, c, vals
        self.sim: np.ndarray | None = None
        if 0 < self.n <= self.DENSE_LIMIT:
            dense = np.zeros((self.n, self.v))
            dense[r, c] = vals
            self.sim = dense @ dense.T

    def dot(self, vec: np.ndarray) -> np.ndarray:
        """``M @ vec`` for a dense vocabulary-sized vector."""
        return np.bincount(self.rows, weights=self.vals * vec[self.cols], minlength=self.n)

    def colsum(self, mask: np.ndarray | None = None) -> np.ndarray:
        """Sum of the rows selected by ``mask`` (all rows when None)."""
        w = self.vals if mask is None else self.vals * mask[self.rows]
        return np.bincount(self.cols, weights=w, minlength=self.v)

    def sim_row(self, i: int) -> np.ndarray:
        """Cosine similarity of unit ``i`` to every unit."""
        if self.sim is not None:
            return self.sim[i]
        vec = np.zeros(self.v)
        sel = self.rows == i
        vec[self.cols[sel]] = self.vals[sel]
        return self.dot(vec)


def _lexrank(sim: np.ndarray, damping: float, iterations: int = 40) -> np.ndarray:
    """Continuous LexRank: stationary distribution of the row-normalised cosine graph."""
    n = sim.shape[0]
    if n == 1:
        return np.ones(1)
    graph = sim.copy()
    np.fill_diagonal(graph, 0.0)
    sums = graph.sum(axis=1, keepdims=True)
    graph = np.divide(graph, sums, out=np.full_like(graph, 1.0 / n), where=sums > 0)
    p = np.full(n, 1.0 / n)
    for _ in range(iterations):
        nxt = damping / n + (1.0 - damping) * (graph.T @ p)
        if np.abs(nxt - p).sum() < 1e-9:
            p = nxt
            break
        p = nxt
    return p / p.max()


# Section roles: introductions and conclusions say what a paper or report is about; methods are detail.
_ROLE_WEIGHT = {"lead": 1.0, "close": 1.0, "detail": -1.0}


def _relevance(
    units: list[_Unit], mat: _Matrix, content_type: ContentType, kind: PromptKind, params: Params
) -> np.ndarray:
    """Score every unit (higher is more summary-worthy)."""
    n = len(units)
    centroid = mat.colsum()
    cnorm = np.linalg.norm(centroid)
    cen = mat.dot(centroid) / cnorm if cnorm > 0 else np.zeros(n)
    if cen.max() > 0:
        cen = cen / cen.max()
    if mat.sim is not None:
        base = params.lexrank_w * _lexrank(mat.sim, params.damping) + (1.0 - params.lexrank_w) * cen
    else:
        base = cen
    cues = _CUES[content_type]
    rel = np.empty(n)
    meta = kind in ("meta", "rolling")
    whole = kind in ("brief", "standard")  # the unit list starts where the text starts (not a chunk)
    for i, u in enumerate(units):
        content = len(u.terms)
        length = min(1.0, content / params.length_norm) ** 0.5 if content else 0.0
        score = base[i] * length
        hits = sum(1 for t in u.terms if t in cues)
        score += params.cue_w * min(1.0, hits / 2.0)
        if meta:
            score += params.rank_w / (1.0 + u.rank)
        elif content_type == "document":
            score += params.position_w * (1.0 - u.pos) ** 2
        else:
            score += params.position_w * 0.5 * (1.0 - u.pos) ** 2
        if not meta:
            if whole:
                score += params.lead_w * float(np.exp(-u.rank / params.lead_k))
            score += params.para_w * u.lead
            if u.role is not None:
                score += params.role_w * _ROLE_WEIGHT.get(u.role, 0.0)
        score -= params.context_w * u.context
        if u.recap:
            score += params.recap_w
        if params.turn_w and u.turn_words:
            score += params.turn_w * min(1.0, u.turn_words / params.turn_norm)
        score -= u.penalty
        rel[i] = score
    return rel


def _select(
    units: list[_Unit],
    rel: np.ndarray,
    mat: _Matrix,
    tokenizer: Tokenizer,
    budget: int,
    sep_cost: int,
    params: Params,
    content_type: ContentType,
    kind: PromptKind,
) -> list[int]:
    """Greedy MMR under a token budget; returns indices in pick order.

    Exact token counts are taken lazily (only for units that win a round): a cheap lower-bound
    estimate filters what cannot fit, which keeps tokenization off the hot path.
    """
    n = len(units)
    cand = np.array([u.candidate for u in units])
    if not cand.any():
        cand = np.array([bool(u.body) for u in units])
    remaining = cand.copy()
    # cl100k averages ~4.2 chars/token on English; /6 stays below the true count for prose.
    est = np.array([len(u.text) / 6.0 for u in units])
    exact = np.full(n, -1, dtype=np.int64)
    max_sim = np.zeros(n)
    chosen: list[int] = []
    used = 0
    # ROUGE and readers count words while the budget counts tokens: plain wording packs more
    # content into the same budget than names, numbers and punctuation.
    density = params.density_w * np.array([5.0 * u.words / max(1, len(u.text)) - 1.0 for u in units])
    # Speakers as integer ids; fair share flattens talk time (square root), so the main speaker
    # leads but cannot monopolise the summary.
    ids: dict[str | None, int] = {}
    spk = np.array([ids.setdefault(u.speaker, len(ids)) for u in units], dtype=np.int64)
    talk = np.bincount(spk, weights=[u.words if u.candidate else 0 for u in units], minlength=len(ids))
    share = np.sqrt(talk) / max(1e-9, float(np.sqrt(talk).sum()))
    picked = np.zeros(len(ids))
    speaker_aware = content_type == "conversation" and params.speaker_w > 0 and len(ids) > 1
    parts = np.array([u.part for u in units])
    covered = np.zeros(n, dtype=bool)
    multi_part = kind in ("meta", "rolling") and len(set(parts.tolist())) > 1
    while True:
        room = budget - used - (sep_cost if chosen else 0)
        cost = np.where(exact >= 0, exact, est)
        fits = remaining & (cost <= room)
        if not fits.any():
            break
        score = rel - params.redundancy * max_sim + density
        if chosen and speaker_aware:
            over = np.maximum(0.0, picked / (len(chosen) + 1) - share)
            score = score - params.speaker_w * over[spk]
        if multi_part and params.coverage_w:
            score = score + params.coverage_w * (~covered)
        score = np.where(fits, score, -np.inf)
        best = int(np.argmax(score))
        if exact[best] < 0:
            exact[best] = tokenizer.count(units[best].text)
            if exact[best] > room:
                continue  # the estimate was optimistic; the exact cost is now known
        remaining[best] = False
        if chosen and max_sim[best] > params.max_overlap:
            continue
        chosen.append(best)
        used += int(exact[best]) + (sep_cost if len(chosen) > 1 else 0)
        max_sim = np.maximum(max_sim, mat.sim_row(best))
        picked[spk[best]] += 1
        covered |= parts == units[best].part
    return chosen


def _trim_to(text: str, cap: int, tokenizer: Tokenizer) -> str:
    """Cut ``text`` at a word (preferably clause) boundary so it fits in ``cap`` tokens."""
    if cap <= 0:
        return ""
    if tokenizer.count(text) <= cap:
        return text
    words = text.split()
    lo, hi = 0, len(words)
    while lo < hi:  # largest k with words[:k] + "…" within cap
        mid = (lo + hi + 1) // 2
        if tokenizer.count(" ".join(words[:mid]) + "…") <= cap:
            lo = mid
        else:
            hi = mid - 1
    k = lo
    if k == 0:
        ids = tokenizer.encode(text)[:cap]
        return tokenizer.decode(ids).strip() if cap > 0 else ""
    for j in range(k, max(1, int(k * 0.6)) - 1, -1):
        if words[j - 1][-1:] in ",;:" or (j < len(words) and words[j].lower() in {"and", "but", "which", "while"}):
            k = j
            break
    out = " ".join(words[:k]).rstrip(",;:-–—") + "…"
    while k > 0 and tokenizer.count(out) > cap:
        k -= 1
        out = " ".join(words[:k]).rstrip(",;:-–—") + "…"
    return out if k > 0 else ""


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
) -> str:
    """Extractive summary of ``text`` (or of ``parts`` for meta/rolling) within the token budget.

    ``brief`` returns exactly one sentence; other kinds fill up to ``target_tokens``. The result
    never exceeds ``max_tokens``, is strictly shorter than the input in tokens, and is a pure
    function of the arguments. ``input_tokens`` (the caller's count of the input) saves a recount.
    """
    if params is None:
        params = PROFILES.get(content_type, DEFAULT_PARAMS)
    pieces = [p for p in (parts or []) if p and p.strip()]
    source = text if text and text.strip() else "\n\n".join(pieces)
    if not source.strip() and not (kind == "rolling" and prior_context and prior_context.strip()):
        return ""
    if input_tokens is None or input_tokens <= 0:
        input_tokens = tokenizer.count(source) if source.strip() else 0
    cap = min(max_tokens, input_tokens - 1) if input_tokens else max_tokens
    if cap <= 0:
        return ""
    target = max(1, min(target_tokens, cap)) if target_tokens > 0 else cap

    meta = kind in ("meta", "rolling")
    units: list[_Unit] = []
    if meta and pieces:
        for pi, piece in enumerate(pieces):
            part_units = _units_from_text(piece, content_type, params, part=pi)
            for u in part_units:
                u.pos = (pi + u.pos) / len(pieces)
            units.extend(part_units)
    else:
        units = _units_from_text(source, content_type, params)
    if kind == "rolling" and prior_context and prior_context.strip():
        prior_units = _units_from_text(prior_context, content_type, params, part=-1)
        for u in prior_units:
            u.prior = True
        units = prior_units + units
    if not units:
        # Everything is noise by our rules (a chunk of footnotes, a table): its head, cut at a sentence
        # end, says more than an empty node (which a run would have to count as a failed summary).
        return trim_to_sentence_boundary(" ".join(source.split()), target, tokenizer)[0]
    for u in units:
        u.terms = _terms(u.body)

    mat = _Matrix(units)
    rel = _relevance(units, mat, content_type, kind, params)
    if params.name_w:
        rel = rel + params.name_w * _name_scores(units)
    if kind == "rolling":
        rel = rel + _carry_forward(units, mat, params)

    if kind == "brief":
        return _brief(units, rel, mat, tokenizer, target, cap, params)

    joiner = "\n" if content_type == "conversation" else " "
    # A journal's picks are grouped under their dates ("2025-03-02: "): budget a little per pick for them.
    sep = 4 if any(u.date for u in units) else 1
    chosen = _select(units, rel, mat, tokenizer, min(cap, target), sep, params, content_type, kind)
    if not chosen:
        cands = [i for i, u in enumerate(units) if u.candidate] or list(range(len(units)))
        best = max(cands, key=lambda i: (rel[i], -i))
        return _trim_to(units[best].text, cap, tokenizer)
    order = _order(units, chosen, kind, params, rel)
    out = _join(units, order, joiner)
    # BPE merges across joins (and journal dates) can add a few tokens: drop the weakest pick until it fits.
    while tokenizer.count(out) > cap and len(chosen) > 1:
        chosen = chosen[:-1]
        order = _order(units, chosen, kind, params, rel)
        out = _join(units, order, joiner)
    if tokenizer.count(out) > cap and any(units[i].date for i in order):
        out = joiner.join(units[i].text for i in order)  # the sentence fits, its date does not
    if tokenizer.count(out) > cap:
        out = _trim_to(out, cap, tokenizer)
    return out


def _join(units: list[_Unit], order: list[int], joiner: str) -> str:
    """The picked sentences; a journal's are grouped by entry, one line per date ("2025-03-02: ..."), and a
    conversation's by turn, one line per turn with its speaker ("Luis: ...")."""
    if any(units[i].turn >= 0 for i in order):
        turns: list[str] = []
        prev: tuple[int, int] | None = None
        for i in order:
            u = units[i]
            key = (u.part, u.turn)
            if key == prev and turns and u.speaker:
                turns[-1] += " " + u.body
            else:
                turns.append(u.text)
            prev = key
        return "\n".join(turns)
    if not any(units[i].date for i in order):
        return joiner.join(units[i].text for i in order)
    lines: list[str] = []
    last: str | None = None
    for i in order:
        u = units[i]
        if u.date and u.date != last:
            lines.append(f"{u.date}: {u.text}")
            last = u.date
        elif lines:
            lines[-1] += " " + u.text
        else:
            lines.append(u.text)
    return "\n".join(lines)


def _brief(
    units: list[_Unit],
    rel: np.ndarray,
    mat: _Matrix,
    tokenizer: Tokenizer,
    target: int,
    cap: int,
    params: Params,
) -> str:
    """One line: the best whole sentence that fits, plus a second when the first is far below target.

    Sentences that lean on context ("But ...") are passed over while a standalone one exists, and a
    sentence is cut (at a clause boundary) only when no candidate fits the cap at all.
    """
    ranked = sorted(range(len(units)), key=lambda i: (-rel[i], i))
    pools = (
        [i for i in ranked if units[i].candidate and not units[i].context],
        [i for i in ranked if units[i].candidate],
    )
    cost: dict[int, int] = {}

    def tokens(i: int) -> int:
        if i not in cost:
            cost[i] = tokenizer.count(units[i].text)
        return cost[i]

    fitting: list[int] = []
    pool: list[int] = []
    for pool in pools:
        # The best sentence that fits, looking a little further down when the top one does not.
        fitting = [i for i in pool[:12] if len(units[i].text) / 6.0 <= cap and tokens(i) <= cap]
        if fitting:
            break
    if not fitting:
        # Nothing whole fits: cut the best candidate (or, with no candidate, the best unit) at a clause.
        top = pools[1] or [i for i in ranked if units[i].body]
        return _trim_to(units[top[0]].text, cap, tokenizer) if top else ""
    best = fitting[0]
    chosen = [best]
    used = tokens(best)
    limit = min(cap, int(target * 1.1))
    max_sim = mat.sim_row(best).copy()
    # Short sentences are joined on the line until the budget is nearly filled: each next one
    # trades relevance against how well the line then fills the target.
    while used < params.brief_fill * target and len(chosen) < params.brief_max:
        best_next, best_score = -1, -np.inf
        for i in pool[:40]:
            if i in chosen or max_sim[i] > params.max_overlap or len(units[i].text) / 6.0 > limit - used:
                continue
            total = used + 1 + tokens(i)
            if total > limit or rel[i] < rel[best] - params.brief_slack:
                continue
            next_score = rel[i] + params.brief_fill_w * min(1.0, total / target)
            if next_score > best_score:
                best_next, best_score = i, next_score
        if best_next < 0:
            break
        chosen.append(best_next)
        used += 1 + tokens(best_next)
        max_sim = np.maximum(max_sim, mat.sim_row(best_next))
    def line(picks: list[int]) -> str:  # one line; a conversation's one line per turn with its speaker
        if units[picks[0]].turn >= 0:
            return _join(units, sorted(picks), " ")
        return " ".join(units[i].text for i in sorted(picks))

    out = line(chosen)
    while len(chosen) > 1 and tokenizer.count(out) > cap:
        chosen.pop()
        out = line(chosen)
    return out


_CAPWORD = re.compile(r"(?<=[\s\"“‘(])([A-Z][a-z]+(?:['’][a-z]+)?)")


def _name_scores(units: list[_Unit]) -> np.ndarray:
    """Per unit, how many of the text's recurring names it mentions (0..1).

    A name is a capitalised word seen at least three times away from a sentence start and not a
    stop word: in stories these are the main characters, in documents the products and places
    the text is about.
    """
    counts: dict[str, int] = {}
    found: list[set[str]] = []
    for u in units:
        names = {w for w in _CAPWORD.findall(u.body) if w.lower() not in _STOPWORDS}
        found.append(names)
        for w in names:
            counts[w] = counts.get(w, 0) + 1
    recurring = {w for w, c in counts.items() if c >= 3}
    return np.array([min(1.0, len(f & recurring) / 2.0) for f in found])


def _carry_forward(units: list[_Unit], mat: _Matrix, params: Params) -> np.ndarray:
    """Rolling: bonus for prior-final sentences that are still relevant to the new material.

    A prior sentence sharing (almost) nothing with the new material is retired; the others get a
    bonus growing with their similarity to the new material's centroid.
    """
    new = np.array([not u.prior for u in units])
    bonus = np.zeros(len(units))
    if not new.any():
        return bonus + np.array([params.prior_w if u.prior else 0.0 for u in units])
    centroid = mat.colsum(new.astype(np.float64))
    cnorm = np.linalg.norm(centroid)
    relevance = mat.dot(centroid) / cnorm if cnorm > 0 else np.zeros(len(units))
    top = max(1e-9, float(relevance[~new].max()) if (~new).any() else 1e-9)
    for i, u in enumerate(units):
        if u.prior:
            if relevance[i] < 0.05:
                u.candidate = False
            else:
                bonus[i] = params.prior_w * (0.5 + relevance[i] / top)
    return bonus


def _order(
    units: list[_Unit], chosen: list[int], kind: PromptKind, params: Params, rel: np.ndarray | None = None
) -> list[int]:
    """Output order: carried-forward prior sentences first, then importance (or source) order."""
    if kind == "rolling":
        prior = sorted((i for i in chosen if units[i].prior), key=lambda i: i)
        rest = [i for i in chosen if not units[i].prior]
        if params.doc_order:
            rest.sort()
        return prior + rest
    if params.doc_order:
        return sorted(chosen)
    if params.rel_order and rel is not None:
        return sorted(chosen, key=lambda i: (-rel[i], i))
    return list(chosen)


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
        # Part of every node's cache key: a new algorithm or cap must not reuse old summaries.
        self.version = f"{ALGORITHM_VERSION};final_words={final_words or 0}"

    async def summarize(self, request: SummaryRequest) -> SummaryOutput:
        """Summarize one node; CPU-bound and quick, so it runs inline."""
        return self.summarize_now(request)

    def summarize_now(self, request: SummaryRequest) -> SummaryOutput:
        """:meth:`summarize` without an event loop (for worker processes)."""
        t0 = time.perf_counter()
        target, max_tokens = request.target_tokens, request.max_tokens
        if request.summary_level is SummaryLevel.HIERARCHICAL and request.node_id.endswith(":L3:final"):
            target = final_cap(target, self._final_words)
            max_tokens = min(max_tokens, target)
        text = summarize_text(
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
        )
        out_tokens = self._tokenizer.count(text) if text else 0
        return SummaryOutput(
            text=text,
            backend=self.name,
            model=None,
            completion_tokens=out_tokens,
            latency_ms=(time.perf_counter() - t0) * 1000.0,
            llm_calls=0,
        )

    async def aclose(self) -> None:
        """Nothing to release."""
