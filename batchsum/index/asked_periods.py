"""What period or day a query names, and how the digests and entries it asks for rank.

A query that names a month or a year ("what happened in May 1826?") asks for that period's digest; one
that names a day ("2025-02-14", "15 May 1826") asks for that day's entries, whatever their words.
"""

from __future__ import annotations

import contextlib
import re
import sqlite3
from collections.abc import Iterable
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from batchsum.backends.noise import entry_date
from batchsum.datelines import DateCarry, cjk_dateline, dateline
from batchsum.digest_state import many_days
from batchsum.doc_dates import named_year
from batchsum.index.analysis import worded_languages
from batchsum.index.lexical import LexFilter, LexicalStore, query_tokens
from batchsum.index.records import date_to_ts
from batchsum.index.state import lexical_path, vectors_path
from batchsum.index.vectors import VectorStore
from batchsum.model import node_id
from batchsum.periods import (
    DIGESTS_DIR,
    DIGESTS_DIR_ALT,
    Period,
    days_named,
    digest_folder,
    folder_of,
    only_a_day,
    only_a_period,
    periods_named,
    without_days,
    without_periods,
)
from batchsum.text import DATE_LABEL
from batchsum.tree import node_path, read_node

if TYPE_CHECKING:
    from batchsum.config import IndexConfig
    from batchsum.index.dense import DenseIndex

DUPLICATE_SIM = 0.92  # cosine at which two summaries say the same thing
_PERIOD_KEY = re.compile(r"\d{4}(?:-\d{2})?")  # a month's or a year's digest's name: 2024-03, 2024


def asked_relevance(
    relevance: np.ndarray, ids: list[str], asked: list[str], on_day: set[str], query: str, held: np.ndarray
) -> np.ndarray:
    """``relevance`` with the digests of the periods the query names at least as relevant as the best
    candidate (a period's short digest of another month may hold more of the query's words than the one
    asked for) and the entries of the day it names (``dated``, returned) as relevant as if they held the
    day's words (``held``: their date says the day), and at least as the best candidate; 1.0 when the query
    is nothing but the period ("2024-03") or the day ("2025-02-14")."""
    named = [n for n, i in enumerate(ids) if i in asked]
    if named:
        relevance[named] = 1.0 if only_a_period(query) else np.maximum(relevance[named], float(relevance.max()))
    dated = np.array([i in on_day for i in ids], dtype=bool)
    if dated.any():
        relevance[dated] = 1.0 if only_the_day(query) else np.maximum(held[dated], float(relevance.max()))
    if only_the_day(query):
        # Nothing but the day was asked: another text holds none of it, by its words or by their meaning ("11
        # July" had found an August file's "11 August" at 1.000 by the embedder's reading of the dates).
        relevance[~dated] = 0.0
    return dated


def written_on(writers: set[str], metadata: dict[str, dict[str, Any]], days: list[str]) -> set[str]:
    """Of ``writers``, the nodes whose text writes a day of ``days`` (:func:`~batchsum.periods.days_named`), those
    that are its entries: of any document for a day named without its year, else of a document of the day's
    year or without a real date (the year is the document's date's: a month file's "## 7月11日")."""
    if any(d.startswith("--") for d in days):
        return {i for i in writers if i in metadata}
    years = {d[:4] for d in days}
    return {
        i
        for i in writers
        if i in metadata and (not metadata[i].get("dated") or str(metadata[i].get("doc_date", ""))[:4] in years)
    }


def only_the_day(query: str) -> bool:
    """Whether ``query`` asks for a day and nothing else: it is the day's name (:func:`~batchsum.periods.only_a_day`)
    or that and words that phrase the request ("what happened on 12 March 2024?"). Such words are searched for
    only when nothing else is left (:func:`~batchsum.index.lexical.query_tokens`), and the day is left: "happened"
    had found 26 January's "how the accident happened" for 12 March."""
    if only_a_day(query):
        return True
    if not days_named(query):
        return False
    # Read in every language batchsum knows the function words of: "qu'est-ce qui s'est passé" is no topic.
    langs = worded_languages()
    return not any(g in query_tokens(query, langs) for g in query_tokens(without_days(query), langs))


def named_day_first(ranked: np.ndarray, dated: np.ndarray, of_the_day: np.ndarray | None = None) -> np.ndarray:
    """The named day's entries (``dated``) lead, in their own order, above every other candidate and digest; of
    them, the documents whose own date is that day (``of_the_day``, :func:`own_day`) come before the texts that
    merely write the day: a note of 12 March holding a task due "⏳ 2024-03-14" had led the two notes of 14 March,
    and a diary dated by its first entry, 12 March, the file of 12 March."""
    if not dated.any():
        return ranked
    top = float(ranked.max())
    tier = 1.0 + (dated & of_the_day if of_the_day is not None else 0.0)
    return np.where(dated, top + 1e-3 * tier + 1e-4 * ranked / max(top, 1e-9), ranked).astype(np.float32)


def own_day(ids: list[str], on_day: set[str], metadata: list[dict[str, Any]]) -> np.ndarray:
    """Which of ``ids`` are of the documents whose own date is the named day (of ``on_day``, those dated on it): a
    file named for it or of its one entry, not a file of many days dated by its first (:func:`many_days`), which
    holds the day's entry among others'."""
    return np.array(
        [
            i in on_day and not many_days(str(md.get("source_path") or ""), md.get("date_source"))
            for i, md in zip(ids, metadata, strict=True)
        ],
        dtype=bool,
    )


def digests_after_their_entries(
    ranked: np.ndarray, matrix: np.ndarray, metadata: list[dict[str, Any]], coverage: np.ndarray, query: str = ""
) -> np.ndarray:
    """A period digest (level 4) ranks just below a candidate entry it merely repeats: one nearly identical (cosine
    >= :data:`DUPLICATE_SIM`), or one of its period (for a folder's digest, a file of that folder) holding as
    much of the query (coverage), or, when its entries holding some of the query hold together as much as it, the
    lowest of those. The entry is where the words were written; MMR then drops the copy. A query
    that names the digest's period ("what happened in May 1826?", "May 1827: Hoffmann, Jobson") asks for the
    period: the digest ranks just above the best entry, of its period or another (a June entry that mentions May
    answers less than May's own digest), above the digests of periods not asked for, and above the digests it
    nearly copies (a month of a single entry; the year of a single month), so MMR keeps it and drops those
    copies. The digest of a period that neither is nor holds nor lies in one asked for ranks below every entry
    of the periods asked for, and so does an entry dated in another period (:func:`_other_periods_after`)."""
    period = [i for i, md in enumerate(metadata) if md.get("level") == 4]
    entries = [i for i, md in enumerate(metadata) if md.get("level") != 4]
    asked = set(periods_named(query))
    floor = _asked_floor(ranked, [j for j in entries if any(_of_period(metadata[j], a) for a in asked)])
    top = max(float(ranked.max()), 1e-9)
    ranked = _other_periods_after(ranked, metadata, asked, floor, top)
    if not period:
        return ranked
    out = ranked.copy()
    sims = np.einsum("id,jd->ij", matrix[period], matrix[entries]) if entries else np.zeros((len(period), 0))
    digest_sims = np.einsum("id,jd->ij", matrix[period], matrix[period])
    spans = [Path(str(metadata[i].get("source_path", ""))).stem for i in period]  # digests/1826/1826-05.md -> 1826-05
    for row, i in enumerate(period):
        path = str(metadata[i].get("source_path", ""))
        span = spans[row]
        named = span in asked
        folder = digest_folder(path)
        if folder is None:
            own = [j for j in entries if _of_period(metadata[j], span)]
        else:
            own = [j for j in entries if folder_of(str(metadata[j].get("source_path", ""))) == folder]
        # Its entries that hold some of the query, when together they hold as much of it as the digest: a digest's
        # passage runs from one day's words into the next's, so it can hold more than any one entry ("budget
        # Sintra": the 2024 digest had led the only file holding "Sintra" and hidden it).
        holding = [j for j in own if coverage[j] > 0]
        jointly = bool(holding) and float(sum(coverage[j] for j in holding)) >= float(coverage[i]) - 1e-6
        repeated = [
            j
            for c, j in enumerate(entries)
            if not named
            and (
                (sims[row, c] >= DUPLICATE_SIM)
                or (j in own and coverage[j] >= coverage[i])
                or (jointly and j in holding)
            )
        ]
        if repeated:
            out[i] = min(out[i], min(float(ranked[j]) for j in repeated) - 1e-4)
        elif named:
            # The period is what was asked for: its digest leads, scored by the best entry that matches
            # (as a document is scored by its best passage: MaxP, Dai & Callan 2019).
            # It also outranks the digests of periods not asked for (a one-entry month's short digest
            # holding "2024" as often), and those it nearly copies.
            others = [
                j
                for c, j in enumerate(period)
                if j != i and (digest_sims[row, c] >= DUPLICATE_SIM or spans[c] not in asked)
            ]
            rivals = [float(ranked[j]) for j in entries + others]
            if rivals:
                out[i] = max(out[i], max(rivals) + 1e-4)
        if floor is not None and folder is None and not any(span.startswith(a) or a.startswith(span) for a in asked):
            # Another period's digest (another year's April, another year) is not what was asked: it ranks below
            # every entry of the period asked for (it had come second, 2025-04 over April 2023's own days, its
            # labels holding the month's name), in its own order among such digests.
            out[i] = min(out[i], floor - 1e-4 * (2.0 - float(ranked[i]) / top))
    return out


def _other_periods_after(
    ranked: np.ndarray, metadata: list[dict[str, Any]], asked: set[str], floor: float | None, top: float
) -> np.ndarray:
    """An entry dated in a period other than those asked for (April's for "2024-03", another year's March) ranks
    below every candidate entry of the periods asked for (``floor``), in its own order: its words may name the
    month or the year ("Tuesday, 2 April 2024" holds "2024"), its date says it is not of them. A text without a
    real date keeps its place: nothing says when it was written."""
    if floor is None:
        return ranked
    other = np.array([md.get("level") != 4 and _of_another(md, asked) for md in metadata], dtype=bool)
    return np.where(other, np.minimum(ranked, floor - 1e-4 * (2.0 - ranked / top)), ranked).astype(np.float32)


def placed_by_periods(metadata: list[dict[str, Any]], query: str) -> np.ndarray:
    """Which candidates :func:`digests_after_their_entries` places by their period, not their score: every period
    digest, and an entry dated in a period other than those ``query`` asks for when a candidate entry is of one.
    Their place is kept where hits shown with one score are listed by date and by match level
    (:func:`~batchsum.index.match_tiers.shown_order`): a 2023 entry holding "March" and "2024" whole had been
    listed above 10 March 2024 for "what happened in March 2024", undoing the rule that put it below."""
    asked = set(periods_named(query))
    entries = [md for md in metadata if md.get("level") != 4]
    asked_for = any(_of_period(md, a) for md in entries for a in asked)
    return np.array([md.get("level") == 4 or (asked_for and _of_another(md, asked)) for md in metadata], dtype=bool)


def _asked_floor(ranked: np.ndarray, own: list[int]) -> float | None:
    """The rank of the lowest candidate entry of the periods a query asks for, None when there is none."""
    return min(float(ranked[j]) for j in own) if own else None


def nested_periods(metadata: list[dict[str, Any]]) -> np.ndarray:
    """Which pairs of candidates (n x n, bool) are a month's digest and its year's: two levels of one tree of
    periods, each its own answer to when something happened (the month narrows it to the days it holds). They
    are never copies of each other, by their vectors or by their snippets, although the year quotes the month's
    sentences (and the year of a single month nearly copies it)."""
    spans = {
        i: Path(str(md.get("source_path", ""))).stem
        for i, md in enumerate(metadata)
        if md.get("level") == 4 and digest_folder(str(md.get("source_path", ""))) is None
    }
    out = np.zeros((len(metadata), len(metadata)), dtype=bool)
    for i, month in spans.items():
        for j, year in spans.items():
            if month.startswith(year + "-"):
                out[i, j] = out[j, i] = True
    return out


def named_digests(query: str, filt: LexFilter) -> list[str]:
    """The node ids of the digests of the periods ``query`` names (in either digests folder), when the
    filters admit them (``--since``: a period that holds an entry of that day or later, :func:`periods_since`)."""
    if filt.level not in (None, "period") or filt.content_type or filt.sources:
        return []
    paths = [
        Period("month" if len(key) == 7 else "year", key).path(folder)
        for key in periods_named(query)
        for folder in (DIGESTS_DIR, DIGESTS_DIR_ALT)
    ]
    return [node_id(p, 4, None) for p in paths if filt.since_ts is None or p in filt.later]


def named_day(dense: DenseIndex, q: str, filt: LexFilter) -> tuple[str, set[str], float]:
    """The words of ``q`` to match, the finals of the day it names (none when it names none) and the share of
    its words the day takes. A day the query names ("2025-02-14", "what happened on 15 May 1826?") asks for
    its entries: nothing but their date (a file name, a front matter) may say it, so they are candidates
    whatever their words and hold the day's words; another text does not match by them ("March" and "2022"
    had made the entry of 7 March 2022 a full match of "8 March 2022")."""
    days = days_named(q)
    if not days:
        return q, set(), 0.0
    words = "" if only_the_day(q) else without_days(q)  # "le 3 mars": "le" is the day's, no word to match
    share = 1.0 - len(query_tokens(words, worded_languages())) / max(1, len(query_tokens(q, worded_languages())))
    return words, set(dense.finals_on(days, filt)), share


def period_entries(dense: DenseIndex, q: str, qvec: np.ndarray, k: int, filt: LexFilter) -> tuple[list[str], float]:
    """The finals of the entries dated in the months and years ``q`` names, the ``k`` nearest the query (``qvec``)
    when there are more, and the share of its words the period takes (:func:`named_day`'s for a day). A period the
    query names asks for its entries, whatever their words: nothing but their date may say it (a day's file in
    March writes no "March"), so they are candidates by their dates ("what happened in March 2023?" had listed
    April's and August's digests and not the entry of 2 March, holding none of its words)."""
    asked = periods_named(q)
    if not asked:
        return [], 0.0
    langs = worded_languages()
    groups = query_tokens(q, langs)
    # The words left once the period is taken out, as searched with it: "what happened" is no topic then.
    rest = [g for g in query_tokens(without_periods(q), langs) if g in groups]
    share = 1.0 - len(rest) / max(1, len(groups))
    found = sorted(dense.finals_on(asked, filt))
    if len(found) <= k:
        return found, share
    rows = dense.rows(found)
    near = {
        i: float(np.dot(r.embedding, qvec)) / max(float(np.linalg.norm(r.embedding)), 1e-12) for i, r in rows.items()
    }
    return sorted(sorted(near, key=lambda i: (-near[i], i))[:k]), share


def period_digits_out(words: str, query: str) -> str:
    """``words`` (the query's words to match) without the digits of the months and years ``query`` names ("2026-11",
    the year of "November 2026"): a period's digits are no words a text writes for it ("2026-11" had found "March
    11" by its "11"); its entries are candidates by their dates (:func:`period_entries`), its digests by their
    names (:func:`named_digests`). A month's name stays a word: "28 November" writes it."""
    for key in periods_named(query):
        for digits in dict.fromkeys((key, key[:4])):
            words = re.sub(rf"(?<![\w./-]){re.escape(digits)}(?![\w/-]|\.\d)", " ", words)
    return " ".join(words.split())


def in_asked_period(metadata: list[dict[str, Any]], query: str) -> np.ndarray:
    """Which candidates are entries dated in a month or year ``query`` names (no digest: its own rules place it)."""
    asked = set(periods_named(query))
    return np.array([md.get("level") != 4 and any(_of_period(md, a) for a in asked) for md in metadata], dtype=bool)


def _of_another(md: dict[str, Any], asked: set[str]) -> bool:
    """Whether a candidate is dated, and in none of the periods ``asked``."""
    return bool(md.get("dated")) and not any(_of_period(md, a) for a in asked)


def _of_period(md: dict[str, Any], span: str) -> bool:
    """Whether a candidate entry is dated within the period ``span`` (``1826-05``, ``1826``); a copy date (a
    file's modification time) says nothing about when a text was written."""
    return bool(md.get("dated")) and str(md.get("doc_date") or "").startswith(span)


def written_since(cfg: IndexConfig, since: date) -> frozenset[str]:
    """The sources ``--since`` admits by the days they cover, whatever their date: files of many days (named for
    their month or ISO week, :func:`~batchsum.digest_state.many_days`), dated by their first, whose text writes a
    day on or after it ("2024-04.md" holds "## Dienstag, 2. April 2024"), and the month and year digests that
    summarize such a source (:func:`periods_since`)."""
    many = _many_days_since(cfg, since)
    digests, dated = _period_digests(cfg)
    cut = _ts(since)
    days = [_iso_day(ts) for source, ts in dated if ts >= cut or source in many]
    return many | periods_since(digests, days)


def periods_since(digests: Iterable[str], days: Iterable[str]) -> frozenset[str]:
    """Of the month and year digests ``digests`` (paths, ``digests/2024/2024-03.md``), those whose period holds
    one of ``days`` (ISO days of the sources ``--since`` admits): a digest passes by the entries it summarizes,
    so 2024-03 passes ``--since 2024-03-15`` when an entry of 15 March or later is in it, and a year's digest
    whose last entry is older does not. A folder's digest has no period."""
    days = sorted(set(days))
    return frozenset(
        path
        for path in digests
        if digest_folder(path) is None
        and _PERIOD_KEY.fullmatch(span := Path(path).stem)
        and any(day.startswith(span) for day in days)
    )


def _iso_day(ts: int) -> str:
    return datetime.fromtimestamp(ts, UTC).date().isoformat()


def _period_digests(cfg: IndexConfig) -> tuple[list[str], list[tuple[str, int]]]:
    """The indexed month and year digests, and the dated sources with their dates."""
    path = vectors_path(cfg)
    if not path.is_file():
        return [], []
    try:
        store = VectorStore(path, read_only=True)
        with contextlib.closing(store):
            return (store.period_digests(), store.dated_sources()) if store.current else ([], [])
    except sqlite3.Error:  # searching still works without them; `index --rebuild` repairs the store
        return [], []


def _many_days_since(cfg: IndexConfig, since: date) -> frozenset[str]:
    path = lexical_path(cfg)
    if not path.is_file():
        return frozenset()
    try:
        store = LexicalStore(path, keep_outdated=True)
        with contextlib.closing(store):
            # A day term lies within a year of its file's date (:func:`_day_from`): older files write none later.
            written = [] if store.outdated else list(store.days_written(_ts(since - timedelta(days=366)), _ts(since)))
    except sqlite3.Error:  # searching still works without them; `index --rebuild` repairs the store
        return frozenset()
    # The index's day terms are every day a text names, its sentences' too: only a file that names one that
    # late is read for the days its entries are of.
    later = [
        (source, ts)
        for source, ts, terms in written
        if any((d := _day_from(ts, t)) is not None and d >= since for t in terms)
    ]
    return frozenset(source for source, ts in later if _writes_since(cfg, source, ts, since))


def _writes_since(cfg: IndexConfig, source: str, ts: int, since: date) -> bool:
    """Whether ``source``, dated ``ts``, is a file of many days (:func:`many_days`) one of whose entries is of
    ``since`` or later (:func:`entry_days`): in its source as the run read it, else in its final (a kept-whole
    file's text, or a summary's dated lines). A final gone or damaged says nothing: the file keeps its date."""
    try:
        meta, body = read_node(node_path(cfg.out, source, 3, None))
    except (OSError, ValueError):
        return False
    if not many_days(source, meta.get("date_source")):
        return False
    # Imported here: the walker's readers are needed only for the few files that name a day that late.
    from batchsum.sources import source_text

    text = source_text(cfg.state_dir, source, meta.get("source_sha256")) or body
    return any(day >= since for day in entry_days(text, datetime.fromtimestamp(ts, UTC).date().year))


def entry_days(text: str, year: int) -> list[date]:
    """The days of a journal's entries, as the walk dates them: the days its headings name ("## 2. Juli 2024",
    "## 7月2日" under "# 2024年7月"), and those its paragraphs open with (a dateline, "June 18th.--", a Chinese
    or Japanese day on its line, a summary's "2024-07-02: " line). A day named inside a sentence ("Wie am 3.
    Mai geplant") is no entry's: a July file that mentions May had passed ``--since`` 2025-05-03. A day that
    leaves its year out takes the last one given, at first ``year`` (the file's date's), and the next one only
    where the entries cross New Year, a January day after a December one (a week's file of 30 December). A day
    no calendar has ("2023-02-29: ...", a typo) dates no entry."""
    carry = DateCarry(year)
    days: list[date] = []
    fenced = False
    opens = True  # the line opens a paragraph
    for raw in text.split("\n"):
        line = raw.strip()
        if line.startswith(("```", "~~~")):
            fenced = not fenced
        if fenced or not line:
            opens = not fenced
            continue
        iso, carried = _entry_day(line, opens, carry)
        opens = False
        try:
            day = date.fromisoformat(iso or "")
        except ValueError:  # no line's date, or none of the calendar ("2023-02-29: a typo"): no entry's day
            continue
        if carried and days and days[-1].month == 12 and day.month == 1 and day.year == days[-1].year:
            carry.year = day.year + 1  # its year carried over New Year: a day written with its own is later
            day = day.replace(year=day.year + 1)
        carry.enter(day.isoformat())
        days.append(day)
    return days


def _entry_day(line: str, opens: bool, carry: DateCarry) -> tuple[str | None, bool]:
    """The ISO day ``line`` dates an entry by (a heading, a paragraph's opening ``opens``, a Chinese or Japanese
    dateline anywhere), its year and month carried by ``carry``, None for a line that dates none; and whether
    its year was carried (the line writes none)."""
    if line.startswith("#"):
        title = line.strip("#").strip()
        own = named_year(title)
        carry.year = own or carry.year  # "# Juli 2024" over "## 2. Juli"
        return entry_date(title, carry.year), own is None
    if opens and (label := DATE_LABEL.match(line)):
        return label.group(1), False
    found = dateline(line) if opens else cjk_dateline(line) if "日" in line else None
    return (carry.iso(found), found.year is None) if found is not None else (None, False)


def _ts(day: date) -> int:
    return int(date_to_ts(day) or 0)


def _day_from(ts: int, term: str) -> date | None:
    """The latest day a day term (``--04-02``) of a file dated ``ts`` may name as one of its entries' (within a year
    of its date): the first such day on or after that date; None for no day of the calendar. Only a file with a
    term that late is read for its entries' days (:func:`entry_days`)."""
    first = datetime.fromtimestamp(ts, UTC).date()
    for year in (first.year, first.year + 1):
        try:
            day = date(year, int(term[2:4]), int(term[5:7]))
        except ValueError:
            continue
        if day >= first:
            return day
    return None
