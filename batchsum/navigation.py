"""A tree a person can browse: links between levels and to the source, and a root ``index.md``.

Each node file ends with a short block of relative Markdown links (up to its parent, down to its
children, out to the source file), after a marker comment so readers of the summary text (the index,
``eval --tree``) can drop it: :func:`strip_links`. Relative links keep working when the output
folder is moved, published by a web server or opened as an Obsidian vault.
"""

from __future__ import annotations

import datetime as dt
import itertools
import os
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from batchsum.own_pages import foreign_index
from batchsum.periods import path_order
from batchsum.tree import LINKS_MARKER, atomic_write_text, link_target
from batchsum.tree import strip_links as strip_links  # part of the links API, defined with the node format

INDEX_NAME = "index.md"
INDEX_ALT = "batchsum-index.md"  # the index page's name while index.md is not batchsum's to write

_LEVEL_DIRS = {1: ("L1", "chunk"), 2: ("L2", "group"), 3: ("L3", "final")}


def node_file(level: int, index: int | None) -> str:
    """A node's path relative to its file's ``summaries/`` folder."""
    folder, stem = _LEVEL_DIRS[level]
    return f"{folder}/final.md" if level == 3 else f"{folder}/{stem}_{index}.md"


# A chat export's day file, named by its day alone under its channel's folder (Slack's "general/2024-03-12.json"):
# every channel has one of that day, so the day alone tells none apart.
_DAY_FILE = re.compile(r"\d{4}-\d{2}-\d{2}")


def title_for(relpath: str) -> str:
    """A human title for a source: its file name without the extension (``2026-10-01``, ``standup``); a
    ``.json`` day file's with its folder, the channel it is a day of (``general 2024-03-12``); the name a
    notes app's export encoded, as the app shows it (:func:`_exported_name`)."""
    folder, _, name = relpath.rpartition("/")
    stem, dot, ext = name.rpartition(".")
    if folder and ext.lower() == "json" and _DAY_FILE.fullmatch(stem):
        return f"{folder.rpartition('/')[2]} {stem}"
    return _exported_name(stem, logseq=folder.rpartition("/")[2] == "pages") if dot and stem else name


# Notes apps' exports encode a page's name in its file's: Notion adds a space and the page's id, 32 hex digits
# ("Garden Shed 8e7d6c5b4a39281706f5e4d3c2b1a098"); Logseq writes a namespace page "Recipes/Bread" as
# "Recipes___Bread", or in older graphs percent-encoded, "Recipes%2FBread".
_NOTION_ID = re.compile(r"(?<=\S)\s+[0-9a-f]{32}$")
_PERCENT = re.compile(r"(?:%[0-9A-Fa-f]{2})+")


def _percent_decoded(match: re.Match[str]) -> str:
    # Only what a file name cannot hold or a URL reserves is ever encoded: "/", "%", ":", non-ASCII letters.
    # A run that decodes to an ASCII letter, digit or space ("Q1%2024") is the name's own text.
    try:
        text = bytes.fromhex(match.group().replace("%", "")).decode("utf-8")
    except UnicodeDecodeError:
        return match.group()
    plain = any((ch.isascii() and ch.isalnum()) or ch.isspace() or not ch.isprintable() for ch in text)
    return match.group() if plain else text


def _exported_name(stem: str, *, logseq: bool) -> str:
    """A file name's stem as the notes app that exported it names the page: without Notion's id, with
    percent-escapes decoded and, in a Logseq graph's ``pages/`` folder, its namespace separator ``___``
    ("Recipes/Bread"). Elsewhere ``___`` is the name's own ("install-1___install_from_source")."""
    named = _NOTION_ID.sub("", stem)
    return _PERCENT.sub(_percent_decoded, named.replace("___", "/") if logseq else named)


# Characters a name may hold that would end or change a Markdown link target, or a page's text:
# control characters (a newline ends the line, ESC drives terminals), HTML (``<!--`` hides the rest
# of the page), and the link and emphasis punctuation of CommonMark.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
# An underscore inside a word ("val_Bed002", "crypto__eps") starts no emphasis in CommonMark: it stays, so
# a raw page shows file names as they are.
_MD_PUNCT = re.compile(r"([\\`*\[\]{}#|!])|(?<=[^\W_])(_+)(?=[^\W_])|(_)")


def _visible(match: re.Match[str]) -> str:
    return repr(match.group())[1:-1]  # "\n", "\x1b": shown, never acted on


# Only what CommonMark would read as HTML is escaped: an ``&`` that starts an entity ("&amp;", "&#39;") and
# a ``<`` that starts a tag or comment ("<b>", "</p>", "<!--"). "D&D", "a < b" and "x -> y" stay as
# written, in the raw page as in the rendered one.
_ENTITY_START = re.compile(r"&(?=#?[0-9A-Za-z]+;)")
_TAG_START = re.compile(r"<(?=[A-Za-z/!?])")


# A code span as CommonMark delimits it: a run of N backticks closed by the next run of exactly N. Inside
# one, entities are not decoded and no tag starts, so "`Vec<T>`" stays as written; escaped, a reader
# would see "Vec&lt;T>". A backslash before a backtick outside a span makes it literal.
_SPAN_OPEN = re.compile(r"\\.|`+", re.DOTALL)  # a backslash escape is skipped, so "\`" opens nothing


def _code_spans(text: str) -> Iterator[tuple[int, int]]:
    """The (start, end) of each code span in ``text``, left to right."""
    i = 0
    while (m := _SPAN_OPEN.search(text, i)) is not None:
        i = m.end()
        if m.group().startswith("\\"):
            continue
        run = len(m.group())
        close = re.compile(rf"(?<!`)`{{{run}}}(?!`)").search(text, i)
        if close is not None:
            yield m.start(), close.end()
            i = close.end()


def _escaped_html(text: str) -> str:
    return _TAG_START.sub("&lt;", _ENTITY_START.sub("&amp;", text))


def escape_html(text: str) -> str:
    """Text put inside a page as prose: control characters shown as escapes, no HTML outside its code spans."""
    out, done = [], 0
    for start, end in _code_spans(text):
        out += [_escaped_html(text[done:start]), text[start:end]]
        done = end
    out.append(_escaped_html(text[done:]))
    return _CONTROL.sub(_visible, "".join(out))


def escape_text(text: str) -> str:
    """A name or a line shown in a page as plain text (a link label, a heading, a one-line summary)."""
    return escape_html(_MD_PUNCT.sub(_escaped, text))


def _escaped(m: re.Match[str]) -> str:
    if m.group(2):  # underscores between two letters or digits
        return m.group(2)
    return "\\" + m.group(0)


def md_link(label: str, target: str) -> str:
    """A Markdown link whose label and target are safe whatever characters a file name holds."""
    # Angle brackets let a target contain spaces and parentheses (CommonMark).
    return f"[{escape_text(label)}](<{link_target(target)}>)"


_link = md_link


def links_block(
    *,
    level: int,
    index: int | None,
    source: Path | None,
    node_dir: Path,
    parent: tuple[int, int | None] | None,
    children: Iterable[tuple[int, int | None]],
) -> str:
    """The links appended to one node's body.

    ``node_dir`` is the folder the node file is written to (for the relative link to ``source``);
    ``parent`` and ``children`` are ``(level, index)`` of the neighbouring nodes of the same file.
    """
    here = node_file(level, index)
    lines: list[str] = []
    if parent is not None:
        lines.append(f"Up: {_link(_label(*parent), _rel(node_file(*parent), here))}")
    kids = [_link(_label(*c), _rel(node_file(*c), here)) for c in children]
    if kids:
        lines.append("Parts: " + " · ".join(kids))
    if source is not None:
        lines.append(f"Source: {_link(source.name, os.path.relpath(source, node_dir))}")
    if not lines:
        return ""
    return LINKS_MARKER + "\n" + "  \n".join(lines)


def _label(level: int, index: int | None) -> str:
    if level == 3:
        return "final summary"
    return f"chunk {index}" if level == 1 else f"group {index}"


def _rel(target: str, here: str) -> str:
    # Both paths are relative to the same summaries/ folder.
    return os.path.relpath(target, os.path.dirname(here)).replace(os.sep, "/")


def with_links(body: str, block: str) -> str:
    """``body`` followed by its links block (if any)."""
    return f"{body.rstrip()}\n\n{block}" if block else body


# Sections a run appends to a final for its reader, picked by rules from the source (facets.py,
# agent_transcript.py): not part of the summary that is embedded and ranked.
EXTRACTED_HEADINGS = ("\n## Facets (extracted)", "\n## Agent session (extracted)")


def summary_only(body: str) -> str:
    """A node body (links already stripped) without the extracted sections appended to finals.

    Indexed, their lists of names and action items pull unrelated queries towards a final: QMSum
    recall@5 of the right meeting fell from 0.776 to 0.768 with them.
    """
    cuts = [i for i in (body.find(h) for h in EXTRACTED_HEADINGS) if i >= 0]
    return body[: min(cuts)].rstrip() if cuts else body


@dataclass(frozen=True)
class IndexRow:
    """One source file in the root index."""

    relpath: str
    content_type: str
    level: str
    doc_date: str | None
    tokens: int
    final_tokens: int
    line: str = ""  # one-line summary
    period: str | None = None  # the id of its month or folder digest ("month:1826-05", "folder:notes")


@dataclass(frozen=True)
class PeriodPage:
    """A period's digest as the root index shows it."""

    id: str  # "month:1826-05", "year:1826", "folder:notes"
    title: str
    path: str  # relative to the output folder
    summary: str


def render_index(
    rows: Iterable[IndexRow], *, periods: Mapping[str, PeriodPage] | None = None, generated_at: str | None = None
) -> str:
    """The root ``index.md``. With ``periods`` (digests): files by year and month, newest first, each
    month opening with its digest's summary, then undated files by folder; without: files grouped by
    content type, newest dated first, then by path."""
    items = list(rows)
    stamp = generated_at or dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")
    out = ["---", "title: Summaries", f"files: {len(items)}", f"generated_at: '{stamp}'", "---", "", "# Summaries", ""]
    if not items:
        out.append("No summarized files yet.")
    elif periods is None or not any(r.period for r in items):
        out += _by_type(items)
    else:
        out += _by_period(items, periods)
    return "\n".join(out).rstrip() + "\n"


def _row_line(r: IndexRow, *, with_type: bool) -> str:
    kept = r.level == "NONE"
    size = f"{r.tokens:,} tokens, kept whole" if kept else f"{r.tokens:,} → {r.final_tokens:,} tokens"
    link = _link(r.relpath if not with_type else title_for(r.relpath), r.relpath + "/summaries/L3/final.md")
    if not with_type:
        date = f"{r.doc_date} · " if r.doc_date else ""
        return f"- {link} — {date}{r.level} · {size}"
    date = f"{r.doc_date} · " if r.doc_date and r.period and r.period.startswith("month:") else ""
    line = f" — {escape_html(r.line)}" if r.line else ""
    return f"- {date}{link}{line} ({r.content_type}, {r.level}, {size})"


def _by_type(items: list[IndexRow]) -> list[str]:
    groups: dict[str, list[IndexRow]] = defaultdict(list)
    for row in items:
        groups[row.content_type].append(row)
    out: list[str] = []
    for ctype in sorted(groups):
        rows = sorted(groups[ctype], key=lambda r: (r.doc_date is None, _neg_date(r.doc_date), path_order(r.relpath)))
        out += [f"## {ctype.capitalize()} ({len(rows)})", ""]
        out += [_row_line(r, with_type=False) for r in rows]
        out.append("")
    return out


def _by_period(items: list[IndexRow], periods: Mapping[str, PeriodPage]) -> list[str]:
    groups: dict[str, list[IndexRow]] = defaultdict(list)
    for row in items:
        groups[row.period or "folder:"].append(row)
    months = sorted((p for p in groups if p.startswith("month:")), reverse=True)
    folders = sorted(p for p in groups if not p.startswith("month:"))
    years = sorted({m[6:10] for m in months}, reverse=True)
    out: list[str] = []
    if years:
        digests = " · ".join(_link(y, periods[f"year:{y}"].path) for y in years if f"year:{y}" in periods)
        span = f"{plural(len(months), 'month')} over {plural(len(years), 'year')}"
        out += [f"{plural(len(items), 'file')}; {span}. Year digests: {digests}", ""]
    for year in years:
        out += [f"## {year}", ""]
        page = periods.get(f"year:{year}")
        if page is not None:
            out += [f"The year in one page: {_link(page.title, page.path)}", ""]
        for month in (m for m in months if m[6:10] == year):
            out += _period_section(month, groups[month], periods)
    if folders:
        out += ["## Undated, by folder", ""]
        for folder in folders:
            out += _period_section(folder, groups[folder], periods)
    return out


def _period_section(pid: str, rows: list[IndexRow], periods: Mapping[str, PeriodPage]) -> list[str]:
    page = periods.get(pid)
    title = page.title if page is not None else (pid.split(":", 1)[1] or "(top level)")
    out = [f"### {escape_text(title)} ({plural(len(rows), 'file')})", ""]
    if page is not None:
        if page.summary:
            out += ["\n".join(escape_html(line) for line in page.summary.splitlines()), ""]
        out += [f"Digest: {_link(page.title, page.path)}", ""]
    rows = sorted(rows, key=lambda r: (r.doc_date or "", path_order(r.relpath)))
    out += [_row_line(r, with_type=True) for r in rows]
    out.append("")
    return out


def plural(n: int, word: str) -> str:
    """``1 file``, ``2 files``, ``1,253 files``: a count with its noun."""
    return f"{n:,} {word}" if n == 1 else f"{n:,} {word}s"


_PERIOD_WORDS = {"month": "the month", "year": "the year", "folder": "the folder"}


def period_context(meta: Mapping[str, object], body: str, chars: int) -> str:
    """A period's digest as context for a model (``serve``): what it summarizes (the period, how many
    files), then its text with each paragraph (a day of a month, a month of a year) cut to an equal
    share of ``chars``, so the whole period is represented and not only its first days."""
    title = str(meta.get("title") or meta.get("period") or "")
    files = meta.get("files")
    count = plural(files, "file") if isinstance(files, int) else "its files"
    text = body.strip()
    if text.startswith("# ") and "\n\n" in text:
        text = text.split("\n\n", 1)[1]  # the title, said in the label
    paragraphs = [" ".join(p.split()) for p in text.split("\n\n") if p.strip()]
    share = max(80, chars // max(1, len(paragraphs)) - 3)  # room for " …" and the space after it
    kept: list[str] = []
    used = 0
    for p in paragraphs:
        cut = p if len(p) <= share else p[:share].rsplit(" ", 1)[0] + " …"
        if kept and used + len(cut) > chars:
            kept.append("…")
            break
        kept.append(cut)
        used += len(cut) + 1
    what = _PERIOD_WORDS.get(str(meta.get("period_kind")), "the period")
    return f"{title} (digest of {what}, from {count}): {' '.join(kept)}"


def _neg_date(date: str | None) -> tuple[int, ...]:
    # Newest first: sort on the negated digits of an ISO date (missing dates sort last anyway).
    return tuple(-int(part) for part in (date or "0-0-0")[:10].split("-") if part.isdigit())


def index_names() -> Iterator[str]:
    """The names the index page may take, in order: ``index.md``, ``batchsum-index.md``, then
    ``batchsum-index-2.md``, ``batchsum-index-3.md`` ... (each while the ones before are others')."""
    yield INDEX_NAME
    yield INDEX_ALT
    stem = INDEX_ALT.removesuffix(".md")
    for n in itertools.count(2):
        yield f"{stem}-{n}.md"


_LATER_NAMES = 8  # names after the page's own looked at for a page of batchsum's left there


def index_path(out: Path) -> Path:
    """``OUT/index.md``, or the first of ``OUT/batchsum-index.md``, ``OUT/batchsum-index-2.md`` ... that is
    free or batchsum's page: a source named ``index.md`` owns that name, a file batchsum did not write is
    left as it is, and so is a source named ``batchsum-index.md``."""
    return next(out / name for name in index_names() if not foreign_index(out / name))


def write_index(out: Path, rows: Iterable[IndexRow], periods: Mapping[str, PeriodPage] | None = None) -> Path:
    """Rewrite the root index atomically (readers see the old one or the new one). A page that would
    differ only in its time stamp is left as it is: a night whose files were only touched changes no
    page, and makes no ``--git`` commit."""
    path = index_path(out)
    text = render_index(rows, periods=periods)
    if not _same_page(path, text):
        atomic_write_text(path, text, durable=False)
    # An earlier name is free again: one index page, not a stale second one under a later name.
    names = itertools.dropwhile(lambda name: name != path.name, index_names())
    for name in itertools.islice(names, 1, _LATER_NAMES + 1):
        alt = out / name
        if alt.is_file() and not alt.is_symlink() and not foreign_index(alt):
            alt.unlink()
    return path


_STAMP = re.compile(r"^generated_at: '[^'\n]*'$", re.MULTILINE)


def _same_page(path: Path, text: str) -> bool:
    """Whether the page at ``path`` (a regular file) says ``text`` but for its ``generated_at``."""
    try:
        if path.is_symlink() or not path.is_file():
            return False
        old = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    return _STAMP.sub("", old, count=1) == _STAMP.sub("", text, count=1)
