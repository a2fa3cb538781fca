"""The digests' record of what they were made from (``.batchsum/digests.json``) and what reading an output's
digests needs: the root index's view of them, their files for the search index, their statistics.

Nothing here makes a digest (:mod:`batchsum.digests` does), so the committer, the index and the report
read digests without the summarizers or the event loop."""

from __future__ import annotations

import os
import re
import stat
from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from itertools import takewhile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from batchsum import jsonio
from batchsum.backends.budget import TOKENS_PER_WORD, tokens_per_word
from batchsum.doc_dates import name_month, name_rest
from batchsum.navigation import (
    LINKS_MARKER,
    PeriodPage,
    escape_html,
    escape_text,
    md_link,
    summary_only,
    title_for,
)
from batchsum.own_pages import foreign_digest
from batchsum.periods import (
    DIGEST_FORMAT,
    DIGEST_STATE,
    DIGESTS_DIR,
    DIGESTS_DIR_ALT,
    PERIOD_KINDS,
    WHICH_CHARS,
    FileFacts,
    Period,
    day_label,
    digest_settings,
    folder_of,
    group,
    iso_week,
    members_of,
    month_of,
    one_line,
    period_language,
    real_date,
    years_of,
)
from batchsum.readers.note_syntax import DONE_BOX, OPEN_BOX, note_syntax_as_text
from batchsum.state import NODE_FORMAT, node_key
from batchsum.text import DATE_LABEL, LIST_ITEM, unended
from batchsum.tree import TreeNode, atomic_write_bytes, node_path, read_node, strip_links

if TYPE_CHECKING:
    from batchsum.config import RunConfig
    from batchsum.state import ManifestEntry

STATE_NAME = DIGEST_STATE
# 2: one-line summaries without a heading or a date label; an older state's are computed again.
STATE_VERSION = 2


@dataclass
class PeriodState:
    """What one period's digest on disk was made from."""

    sig: str  # hash of its inputs (files' final keys, or its months' signatures), backend and budget
    key: str  # node key of its output
    path: str  # relative to the output folder
    files: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    words: int = 0
    target_words: int = 0


@dataclass
class DigestState:
    """``.batchsum/digests.json``: per file its facts, per period what its digest was made from."""

    files: dict[str, FileFacts] = field(default_factory=dict)
    periods: dict[str, PeriodState] = field(default_factory=dict)
    settings: list[Any] = field(default_factory=list)  # periods.digest_settings of the run that wrote it


@dataclass
class Final:
    """What the digests take of one file's final: its facts and its summary text."""

    facts: FileFacts
    text: str  # the summary, its extracted sections and facets left out


def final_of(entry: ManifestEntry, meta: dict[str, Any], body: str) -> Final:
    """The digests' view of the final of ``entry`` (it has one) whose front matter is ``meta`` and whose
    body, links stripped, is ``body``: as read back from its file or as the run just wrote it."""
    text = digest_input(meta, body)
    facts = FileFacts(
        relpath=entry.relpath,
        final_key=entry.final_key or "",
        date=real_date(meta.get("doc_date"), meta.get("date_source")),
        line=one_line(text if meta.get("kept_whole") else summary_only(body), language=entry.language),
        tokens=int(meta.get("output_tokens") or entry.final_tokens or 0),
        content_type=str(meta.get("content_type") or entry.content_type),
        language=entry.language,
        many_days=many_days(entry.relpath, meta.get("date_source")),
    )
    return Final(facts, text)


def many_days(relpath: str, date_source: object) -> bool:
    """Whether a file holds many days' entries: one dated by its first entry (a Day One export, a one-file
    diary) or named for its month ("2019-03.md") or its ISO week ("2023-W27.md"). Its digest paragraph is
    labelled by its name: its date is only its first day's."""
    return date_source == "first entry" or named_for_days(relpath)


def named_for_days(relpath: str) -> bool:
    """Whether a file is named for its month or its ISO week ("2019-03.md", "2023-W27.md"): its entries are of
    that month or week, not of years as a one-file diary's may be."""
    name = Path(relpath)
    return name_month(name) is not None or iso_week(name.stem) is not None


# What a month's signature adds when a file of its days is read a part per day (extractive,
# :func:`~batchsum.digest_entries.per_day`): such months made with the file as one part are redone once.
PER_DAY = ["entries", "per-day"]

_SOURCE_FRONT_MATTER = re.compile(r"\A\s*---[ \t]*\n.*?\n---[ \t]*(?:\n|\Z)", re.S)


def digest_input(meta: Mapping[str, Any], body: str) -> str:
    """What a digest reads of a final whose front matter is ``meta`` and whose body (links stripped) is
    ``body``: its summary text; of a file kept whole, the file as prose: without its YAML front matter
    and headings (a note's "# Ana Ribeiro" above its text), a note-app's marks read as their words, and
    each list item a sentence of its own ("Birthday: 2 May. Likes: climbing, Lisbon."). A kept-whole file of
    many days' entries (:func:`many_days`) is read as the summarizer dates a journal's lines, each entry's
    sentences after its day's "2024-03-12: " label (:func:`dated_lines`)."""
    if not meta.get("kept_whole"):
        return final_summary(body)
    if many_days(str(meta.get("source_path") or ""), meta.get("date_source")):
        # Its headings and datelines are its entries' days: dropped as a note's title, its later days had
        # read as its first's ("**2024-03.** Bought a bike. Dentist at nine ...").
        dated = dated_lines(_prose(body, keep_headings=True), meta.get("language"))
        if DATE_LABEL.search(dated):
            return dated
    return _prose(body, keep_headings=False)


def dated_lines(text: str, language: object = None) -> str:
    """``text`` (a journal) as the summarizer shows its sentences, a line per entry that opens with its day's
    "2024-03-12: " label (none before the first dated entry): the form a summary's dated lines have, which
    a digest labels by day."""
    # Imported here: the summarizer's reading is needed only for such a file, and the index and the report
    # read this module without it.
    from batchsum.backends.units import units_from_text

    lines: list[tuple[str | None, list[str]]] = []
    lang = language if isinstance(language, str) else None
    for unit in units_from_text(text, "journal", language=lang):
        if lines and lines[-1][0] == unit.date:
            lines[-1][1].append(unit.text)
        else:
            lines.append((unit.date, [unit.text]))
    return "\n".join((f"{day}: " if day else "") + " ".join(words) for day, words in lines)


def _prose(body: str, keep_headings: bool) -> str:
    """A kept-whole file's body as :func:`digest_input` reads it; its headings kept when ``keep_headings``."""
    lines = []
    fenced = False
    # The facets a run appends to a note's final are its rules' lists, not the note's text ("Action items:").
    for line in note_syntax_as_text(_SOURCE_FRONT_MATTER.sub("", summary_only(body), count=1)).split("\n"):
        if _FENCE.match(line):
            fenced = not fenced
            continue
        # Code (a Dataview query too) is no prose, and a task is the note's bookkeeping: its open ones are the
        # action items, as the summarizer reads them.
        if fenced or (_HEADING_LINE.match(line) and not keep_headings) or _TASK_LINE.match(line):
            continue
        item = LIST_ITEM.match(line)
        if item is not None and unended(line.rstrip()):
            line = line.rstrip() + "."
        lines.append(line)
    return "\n".join(lines).strip()


_HEADING_LINE = re.compile(r"^\s{0,3}#{1,6}\s")
_FENCE = re.compile(r"^\s{0,3}(?:```|~~~)")
_TASK_LINE = re.compile(rf"^\s*(?:[-*+]\s+|\d+[.)]\s+)?[{OPEN_BOX}{DONE_BOX}]")


def final_summary(body: str) -> str:
    """The summary text of a final's body (links stripped): its extracted sections and facets left out."""
    return summary_only(body).split("\n\n## ", 1)[0].strip()


def state_path(cfg: RunConfig) -> Path:
    """Where the digests' state lives."""
    return cfg.state_dir / STATE_NAME


def load_state(path: Path) -> DigestState:
    """The digests' state, empty when missing or unreadable (every period is then checked again)."""
    try:
        st = os.lstat(path)
        if not stat.S_ISREG(st.st_mode):  # a symlink or FIFO planted in the state folder is ignored
            return DigestState()
        data = jsonio.loads(path.read_bytes())
        if data.get("version") != STATE_VERSION:
            return DigestState()
        files = {rel: FileFacts(**f) for rel, f in data.get("files", {}).items()}
        periods = {pid: PeriodState(**p) for pid, p in data.get("periods", {}).items()}
        return DigestState(files, periods, list(data.get("settings") or []))
    except (OSError, ValueError, TypeError, AttributeError):
        return DigestState()


def save_state(path: Path, state: DigestState) -> None:
    """Write the digests' state atomically."""
    doc = {
        "version": STATE_VERSION,
        "files": {rel: asdict(f) for rel, f in sorted(state.files.items())},
        "periods": {pid: asdict(p) for pid, p in sorted(state.periods.items())},
        "settings": state.settings,
    }
    atomic_write_bytes(path, jsonio.dumps(doc, sort_keys=True), durable=False)


def digest_text(path: Path) -> str:
    """A digest's summary text, without its title."""
    try:
        body = read_node(path)[1]
    except (OSError, ValueError):
        return ""
    return digest_summary(body)


def digest_summary(body: str) -> str:
    """The summary text of a digest's body (its title and links left out)."""
    body = strip_links(body).strip()
    return body.split("\n\n", 1)[1].strip() if body.startswith("# ") and "\n\n" in body else body


def index_view(
    cfg: RunConfig, written: Mapping[str, str] | None = None
) -> tuple[dict[str, FileFacts], dict[str, PeriodPage]]:
    """What the root index shows of the digests: each file's facts and each period's page (a month's
    or a folder's with its summary). ``written``: the bodies of the digests the run just wrote, by
    period id; any other digest is read back from its file."""
    state = load_state(state_path(cfg))
    pages: dict[str, PeriodPage] = {}
    files_of: dict[str, list[FileFacts]] = defaultdict(list)  # a month's or folder's files, for its language
    for facts in state.files.values():
        files_of[period_id(facts)].append(facts)
    for pid, prev in state.periods.items():
        kind, _, key = pid.partition(":")
        if kind not in PERIOD_KINDS:
            continue
        period = Period(kind, key)  # type: ignore[arg-type]
        if kind == "year":
            summary = ""
        elif written is not None and pid in written:
            summary = digest_summary(written[pid])
        else:
            summary = digest_text(cfg.out / prev.path)
        pages[pid] = PeriodPage(pid, period.title_in(period_language(files_of[pid])), prev.path, summary)
    return state.files, pages


def period_id(facts: FileFacts) -> str:
    """The id of the month (or folder) a file's digest line sits under."""
    return (month_of(facts) or Period("folder", folder_of(facts.relpath))).id


def iter_digests(out: Path) -> Iterator[TreeNode]:
    """Every digest file of an output folder (for the index's repair and rebuild), sorted."""
    for name in (DIGESTS_DIR, DIGESTS_DIR_ALT):
        folder = out / name
        if not folder.is_dir():
            continue
        for path in sorted(folder.rglob("*.md")):
            if path.name.startswith(".") or not path.is_file():
                continue
            try:
                meta, body = read_node(path)
            except (OSError, ValueError):
                continue
            if isinstance(meta, dict) and meta.get("role") == "digest":
                yield TreeNode(path, meta, body)


def relative_link(target: str, here: str) -> str:
    return os.path.relpath(target, os.path.dirname(here)).replace(os.sep, "/")


# A final's path inside its source's folder; joined as a string: a Path per link was most of the cost of
# a digest's hundreds of links (make bench profile), and relpath normalizes the joined path all the same.
_FINAL = node_path(Path(""), "", 3, None).as_posix()


def final_link(relpath: str, here: str) -> str:
    """The relative link from the page at ``here`` to a source's final."""
    return relative_link(f"{relpath}/{_FINAL}", here)


def links_block(period: Period, path: str, members: list[FileFacts], months: list[Period] | None, folder: str) -> str:
    """The navigation after a digest's text: up to its year, down to its months, and (a month or a
    folder) every file with its date, its one-line summary and a link to its final."""
    head: list[str] = []
    year = period.year
    if year is not None:
        head.append(f"Up: {md_link(year.title, relative_link(year.path(folder), path))}")
    if months:
        # Each month as its own page titles it, in its entries' language ("Май 2024", "2024年5月").
        titles = [m.title_in(period_language(f for f in members if month_of(f) == m)) for m in months]
        links = (md_link(t, relative_link(m.path(folder), path)) for m, t in zip(months, titles, strict=True))
        head.append("Months: " + " · ".join(links))
    block = LINKS_MARKER + ("\n" + "  \n".join(head) if head else "")
    if months is None:
        entries = [entry_line(f, final_link(f.relpath, path)) for f in members]
        block += "\n\n" + "\n".join(entries)
    return block


def entry_line(facts: FileFacts, link: str) -> str:
    """``- [date](link) — one-line summary`` for one file."""
    title = title_for(facts.relpath)
    # A day file's title that says more than its day names what it is a day of ("general 2024-03-12").
    label = title if facts.date and facts.date in title and title != facts.date else facts.date
    label = label or facts.relpath.rsplit("/", 1)[-1]
    line = f" — {escape_html(facts.line)}" if facts.line else ""
    return f"- {md_link(label, link)}{line}"


def entry_label(facts: FileFacts, which: str = "") -> str:
    """A dated file's day in its language (``3 November.``, ``3. November``, ``11月3日``:
    :func:`~batchsum.periods.day_label`; ``which`` tells it from the day's other files: ``3 November
    (evening).``), another file's name (``standup.``), and so a file of many days'."""
    if facts.date and not facts.many_days:
        return day_label(int(facts.date[8:10]), int(facts.date[5:7]), facts.language, which)
    return escape_text(title_for(facts.relpath)) + (f" ({which})." if which else ".")


def told_apart(owners: Sequence[FileFacts]) -> list[str]:
    """What tells each file from the others its label would name alike, "" for a file that needs nothing:
    what their names say besides the day (``4 March (evening).`` after ``4 March.`` for "2024-03-04-evening.md"
    beside "2024-03-04.md"), else their folders (a channel's day files, "general/2024-03-04.json"; month files
    of four journals, "de/2024-04.md" is ``2024-04 (de).``), else their place among the day's files: two
    paragraphs labelled ``4 March.`` read as one day's. A file alone with its label needs nothing, nor do files
    of one day in several languages, whose labels differ already (``4. März``). A file of several parts (a month's
    file read a day a part) is one file: its parts are told apart by their days."""
    days: dict[str, list[int]] = {}  # the files a label would name alike
    firsts: dict[str, int] = {}  # each file's first part
    for i, facts in enumerate(owners):
        if firsts.setdefault(facts.relpath, i) == i:
            days.setdefault(entry_label(facts), []).append(i)
    which = [""] * len(owners)
    for same in days.values():
        if len(same) < 2:
            continue
        names = [name_rest(Path(owners[i].relpath)).split() for i in same]
        # The words every name of the day opens with are the series', not the file's ("scott" of "scott_...").
        shared = len(list(takewhile(lambda words: len(set(words)) == 1, zip(*names, strict=False))))
        rests = [_which(" ".join(words[shared:])) for words in names]
        seen: set[str] = set()
        for n, (i, rest) in enumerate(zip(same, rests, strict=True), start=1):
            # A name that is only its day is the day's own entry, when it is the only one so named.
            told = rest or (_which(folder_of(owners[i].relpath).rpartition("/")[2]) if rests.count("") > 1 else "")
            if told in seen:
                told = f"{told} {n}".strip()
            seen.add(told)
            which[i] = told
    return [which[firsts[facts.relpath]] for facts in owners]


def _which(words: str) -> str:
    """A name's words as a label holds them: without brackets or bold marks (they end a label), escaped,
    cut to :data:`~batchsum.periods.WHICH_CHARS`."""
    words = " ".join(re.sub(r"[()（）*\[\]]", " ", words).split())
    if len(escape_text(words)) <= WHICH_CHARS:
        return escape_text(words)
    # Cut before escaping, so no escape is cut in half, to what fits escaped ("<" is "&lt;"): a longer label is
    # no label to the patterns that read it back (periods.DAY_LABEL_TEXT).
    cut = words[: WHICH_CHARS - 1]
    while len(escape_text(cut.rstrip())) > WHICH_CHARS - 1:
        cut = cut[:-1]
    return escape_text(cut.rstrip()) + "…"


def mixed(languages: list[str | None]) -> list[str | None]:
    """``languages`` when they are several (a month of two journals), else none: one language is the
    request's own."""
    return languages if len({lang for lang in languages if lang}) > 1 else []


def target_words(cfg: RunConfig, period: Period) -> int:
    """The word budget of a period's digest (a month and a folder share one)."""
    return cfg.digest_year_words if period.kind == "year" else cfg.digest_month_words


def _sig(identity: tuple[str, str | None], words: int, inputs: list[Any]) -> str:
    return node_key("digest", NODE_FORMAT, DIGEST_FORMAT, identity, words, inputs)


def signatures(
    cfg: RunConfig,
    identity: tuple[str, str | None],
    groups: dict[Period, list[FileFacts]],
    years: dict[Period, list[Period]],
) -> dict[Period, str | None]:
    """Each period's signature: what its digest is made from (its files' final keys, or its months'
    signatures), the backend and the budget. None when a file's final is not known yet (``plan``: a
    file the run will summarize), so the period is redone."""
    sigs: dict[Period, str | None] = {}
    for period, members in groups.items():
        known = all(f.final_key for f in members)
        inputs = [[f.relpath, f.final_key] for f in members] + _rate(period_language(members))
        if mixed([f.language for f in members]):
            inputs.append(["languages", [f.language for f in members]])
        if identity[0] == "extractive" and any(named_for_days(f.relpath) for f in members):
            inputs.append(PER_DAY)
        sigs[period] = _sig(identity, target_words(cfg, period), inputs) if known else None
    for year, months in years.items():
        parts: list[Any] = [sigs[m] for m in months]
        rate = _rate(period_language(members_of(year, groups, years)))
        sigs[year] = _sig(identity, target_words(cfg, year), parts + rate) if all(parts) else None
    return sigs


def _rate(language: str | None) -> list[Any]:
    """What a digest in ``language`` also depends on: the tokens its words cost (none for English, whose
    rate every signature had before languages were budgeted apart)."""
    rate = tokens_per_word(language)
    return [] if rate == TOKENS_PER_WORD else [["tokens_per_word", rate]]


def is_stale(out: Path, old: DigestState, folder: str, period: Period, sig: str | None) -> bool:
    """Whether ``period``'s digest is redone: its inputs changed (or are not known yet), it was made by
    the fallback (its recorded signature is empty), or its file is gone."""
    prev = old.periods.get(period.id)
    return sig is None or prev is None or prev.sig != sig or not (out / period.path(folder)).is_file()


def digests_pending(cfg: RunConfig, identity: tuple[str, str | None], manifest: Mapping[str, ManifestEntry]) -> bool:
    """Whether a run whose files are all unchanged still has digests to update, by the update's own test
    (:func:`is_stale` of each period's :func:`signatures`, which ``plan`` makes too): a digest whose files
    changed since it was made (on a night with ``--no-digests``, or by a run stopped before its digests),
    made with other settings or by the fallback, whose page is gone or was never written; a period left
    without files; and with ``--no-digests``, any digest left (not by a run that is not the folder's own,
    serve's, which leaves the folder's digests as they are). Reads the digests' state and stats the
    digests: a file's facts are those the state keeps by its final's key (a file whose final has another
    key is pending: the update reads it)."""
    path = state_path(cfg)
    if not cfg.digests:
        return cfg.remember and os.path.lexists(path)
    state = load_state(path)
    if state.settings != digest_settings(cfg, identity):
        return True
    files: dict[str, FileFacts] = {}
    for rel, entry in manifest.items():
        if entry.final_id is None or entry.final_key is None:
            continue  # no final: in no digest
        cached = state.files.get(rel)
        if cached is None or cached.final_key != entry.final_key or cached.language != entry.language:
            return True
        files[rel] = cached
    groups = group(files.values())
    years = years_of(p for p in groups if p.kind == "month")
    sigs = signatures(cfg, identity, groups, years)
    # Every page is in one folder (digests/, or batchsum-digests/ when a source owns that name).
    folder = next((p.path.split("/", 1)[0] for p in state.periods.values()), DIGESTS_DIR)
    if any(is_stale(cfg.out, state, folder, period, sig) for period, sig in sigs.items()):
        return True
    return any(pid not in {p.id for p in sigs} for pid in state.periods)


def remove_empty_folders(out: Path, path: str) -> None:
    """The folders of a removed digest left empty (``digests/1825/`` after 1825's last entry went), up to
    the digests' own folder, which stays."""
    parts = Path(path).parts[:-1]
    for depth in range(len(parts), 1, -1):
        try:
            (out / Path(*parts[:depth])).rmdir()  # only an empty folder: anything in it keeps it
        except OSError:
            return


def retire_digests(cfg: RunConfig) -> tuple[list[str], list[str]]:
    """Remove what a run with ``--no-digests`` leaves none of: every digest page the state records (a file
    batchsum did not write that took one's place is left as it is), the folders they leave empty, and the
    state, so digests turned on again are all made anew. Returns the pages' paths (for the search index) and
    a warning per page that could not be removed; such a page stays in the state, tried again next run."""
    path = state_path(cfg)
    state = load_state(path)
    gone: list[str] = []
    warnings: list[str] = []
    kept = DigestState(settings=state.settings)
    for pid, prev in sorted(state.periods.items()):
        page = cfg.out / prev.path
        if foreign_digest(page):
            continue
        try:
            page.unlink(missing_ok=True)
        except OSError as exc:
            warnings.append(f"digest not removed ({exc.strerror or exc}): {page}")
            kept.periods[pid] = prev
            continue
        gone.append(prev.path)
        remove_empty_folders(cfg.out, prev.path)
    for folder in {p.split("/", 1)[0] for p in gone}:
        try:
            (cfg.out / folder).rmdir()  # only when empty: "none" leaves no digests folder
        except OSError:
            pass
    if kept.periods:
        save_state(path, kept)
    else:
        path.unlink(missing_ok=True)
    return gone, warnings
