"""A tree a person can browse: links between levels and to the source, and a root ``index.md``.

Each node file ends with a short block of relative Markdown links (up to its parent, down to its
children, out to the source file), after a marker comment so readers of the summary text (the index,
``eval --tree``) can drop it: :func:`strip_links`. Relative links keep working when the output
folder is moved, published by a web server or opened as an Obsidian vault.
"""

from __future__ import annotations

import datetime as dt
import os
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from batchsum.tree import LINKS_MARKER, atomic_write_text
from batchsum.tree import strip_links as strip_links  # part of the links API, defined with the node format

INDEX_NAME = "index.md"

_LEVEL_DIRS = {1: ("L1", "chunk"), 2: ("L2", "group"), 3: ("L3", "final")}


def node_file(level: int, index: int | None) -> str:
    """A node's path relative to its file's ``summaries/`` folder."""
    folder, stem = _LEVEL_DIRS[level]
    return f"{folder}/final.md" if level == 3 else f"{folder}/{stem}_{index}.md"


def title_for(relpath: str) -> str:
    """A human title for a source: its file name without the extension (``2026-10-01``, ``standup``)."""
    name = relpath.rsplit("/", 1)[-1]
    stem, dot, _ = name.rpartition(".")
    return stem if dot and stem else name


def _link(label: str, target: str) -> str:
    # Angle brackets let a target contain spaces and parentheses (CommonMark).
    return f"[{label}](<{target}>)"


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


def render_index(rows: Iterable[IndexRow], *, generated_at: str | None = None) -> str:
    """The root ``index.md``: files grouped by content type, newest dated first, then by path."""
    groups: dict[str, list[IndexRow]] = defaultdict(list)
    total = 0
    for row in rows:
        groups[row.content_type].append(row)
        total += 1
    stamp = generated_at or dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")
    out = [
        "---",
        "title: Summaries",
        f"files: {total}",
        f"generated_at: '{stamp}'",
        "---",
        "",
        "# Summaries",
        "",
    ]
    if not total:
        out.append("No summarized files yet.")
    for ctype in sorted(groups):
        items = sorted(groups[ctype], key=lambda r: (r.doc_date is None, _neg_date(r.doc_date), r.relpath))
        out += [f"## {ctype.capitalize()} ({len(items)})", ""]
        for r in items:
            date = f"{r.doc_date} · " if r.doc_date else ""
            kept = r.level == "NONE"
            size = f"{r.tokens:,} tokens, kept whole" if kept else f"{r.tokens:,} → {r.final_tokens:,} tokens"
            out.append(f"- {_link(r.relpath, r.relpath + '/summaries/L3/final.md')} — {date}{r.level} · {size}")
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def _neg_date(date: str | None) -> tuple[int, ...]:
    # Newest first: sort on the negated digits of an ISO date (missing dates sort last anyway).
    return tuple(-int(part) for part in (date or "0-0-0")[:10].split("-") if part.isdigit())


def index_path(out: Path) -> Path:
    """``OUT/index.md``, or ``OUT/batchsum-index.md`` when a source named ``index.md`` owns that name."""
    path = out / INDEX_NAME
    return out / "batchsum-index.md" if path.is_dir() else path


def write_index(out: Path, rows: Iterable[IndexRow]) -> Path:
    """Rewrite the root index atomically (readers see the old one or the new one)."""
    path = index_path(out)
    atomic_write_text(path, render_index(rows), durable=False)
    return path
