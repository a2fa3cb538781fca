"""Index records: what one summary node becomes in the index, built from its node file or from the
run's results in memory (the two give equal records: the front matter round-trips through YAML).

A record's metadata copies the front matter plus ``doc_ts`` (numeric date for ``--since``), ``dated``
(whether that date is real, for recency), ``summary_path`` and ``content_hash`` (to find stale records).
:class:`DocUpdate` is how a run hands the index one finished file: its node records and the text the
nodes' source spans point into, so nothing is read back from disk.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from batchsum.digest_state import iter_digests
from batchsum.language import detect_language
from batchsum.model import node_id as make_node_id
from batchsum.navigation import summary_only
from batchsum.periods import REAL_DATE_SOURCES, days_named
from batchsum.tree import iter_tree, read_node, summaries_dir

log = logging.getLogger(__name__)

_INT_KEYS = ("level", "chunk_index", "group_index", "input_tokens", "output_tokens", "depth")
# date_source: a file dated by its first entry holds many days (:func:`~batchsum.digest_state.many_days`).
_STR_KEYS = (
    "source_sha256", "summary_level", "content_type", "language", "backend", "model", "parent_id", "date_source",
)  # fmt: skip


@dataclass
class IndexNode:
    """One node file prepared for Chroma."""

    id: str
    doc_id: str
    body: str
    metadata: dict[str, Any]
    span: tuple[int, int] | None = None  # L1: the chunk's character span in the rendered source
    # The days its page's action items are due ("Friday 2026-11-20": 2026-11-20), indexed as days the page writes.
    dues: tuple[str, ...] = ()


@dataclass
class DocUpdate:
    """One source file's finished tree, handed to the index in memory by the run."""

    relpath: str
    nodes: list[IndexNode]
    source: str | None  # the text the nodes' spans point into, secrets redacted (None: not kept, read it back)


# relpath, source sha256 -> the text as the run rendered it, or None when it is gone or changed.
SourceReader = Callable[[str, str | None], str | None]


# -- node files -> records ---------------------------------------------------------------------------


def _plain(value: Any) -> Any:
    """A front-matter value as a Chroma metadata value (str/int/float/bool), or None to omit it."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    return str(value)


def date_to_ts(value: Any) -> int | None:
    """Epoch seconds (UTC midnight) of an ISO date or datetime; None when unparseable."""
    if value is None:
        return None
    if isinstance(value, datetime):
        return int(value.replace(tzinfo=value.tzinfo or UTC).timestamp())
    if isinstance(value, date):
        return int(datetime(value.year, value.month, value.day, tzinfo=UTC).timestamp())
    try:
        d = date.fromisoformat(str(value)[:10])
    except ValueError:
        return None
    return int(datetime(d.year, d.month, d.day, tzinfo=UTC).timestamp())


# The sources of a real date, and the names some trees recorded for them.
_DATE_SOURCES = REAL_DATE_SOURCES | {"file name", "front_matter", "heading"}


def has_real_date(meta: dict[str, Any], source_path: str) -> bool:
    """True when the document's date says when it was written: found in its file name (or recorded as
    coming from its name or front matter), not the file's modification time, which is only when it
    was copied."""
    source = str(meta.get("date_source") or "").lower()
    if source:
        return source in _DATE_SOURCES
    day = str(meta.get("doc_date") or "")[:10]
    if len(day) != 10:
        return False
    stem = Path(source_path).name
    digits = "".join(ch for ch in stem if ch.isdigit())
    return day in stem or day.replace("-", "") in digits or day.replace("-", "_") in stem


def content_hash(meta: dict[str, Any], body: str) -> str:
    """Hash of everything indexed from a node file, to tell stale records apart."""
    canon = json.dumps({"meta": meta, "body": body}, sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.sha256(canon.encode("utf-8")).hexdigest()


def _level_from_path(path: Path) -> tuple[int, int | None]:
    level = {"L1": 1, "L2": 2, "L3": 3}.get(path.parent.name, 3)
    digits = "".join(ch for ch in path.stem.rsplit("_", 1)[-1] if ch.isdigit())
    return level, (int(digits) if level < 3 and digits else None)


def node_from_file(out: Path, path: Path, meta: dict[str, Any], body: str) -> IndexNode:
    """Build the Chroma record of one node file (front matter missing fields filled from its path)."""
    rel_file = path.relative_to(out).as_posix()
    # <relpath>/summaries/L<n>/<file>.md
    doc_guess = rel_file.rsplit("/summaries/", 1)[0]
    doc_id = str(meta.get("doc_id") or meta.get("source_path") or doc_guess)
    level, index = _level_from_path(path)
    try:
        level = int(meta.get("level", level))
    except (TypeError, ValueError):
        pass
    node_id = str(meta.get("id") or make_node_id(doc_id, level, index))
    md: dict[str, Any] = {
        "id": node_id,
        "doc_id": doc_id,
        "source_path": str(meta.get("source_path") or doc_id),
        "role": "summary",
        "level": level,
        "is_final": bool(meta.get("is_final", level == 3)),
        "summary_path": rel_file,
    }
    for key in _INT_KEYS[1:]:
        val = meta.get(key)
        if isinstance(val, bool) or val is None:
            continue
        try:
            md[key] = int(val)
        except (TypeError, ValueError):
            continue
    for key in _STR_KEYS:
        val = _plain(meta.get(key))
        if val is not None:
            md[key] = str(val)
    langs = meta.get("languages")
    if isinstance(langs, list) and langs:  # a digest of files in several languages
        md["languages"] = ",".join(str(x) for x in langs)
    pg = _plain(meta.get("parent_group"))
    if pg is not None:
        md["parent_group"] = pg
    cr = meta.get("compression_ratio")
    if isinstance(cr, (int, float)) and not isinstance(cr, bool):
        md["compression_ratio"] = float(cr)
    for key in ("created_at", "doc_date"):
        val = _plain(meta.get(key))
        if val is not None:
            md[key] = str(val)
    ts = date_to_ts(meta.get("doc_date"))
    if ts is not None:
        md["doc_ts"] = ts
    md["dated"] = ts is not None and has_real_date(meta, str(md["source_path"]))
    md["content_hash"] = content_hash({k: _plain(v) for k, v in meta.items()}, body)
    return IndexNode(node_id, doc_id, summary_only(body), md, _span(meta.get("source_span")), _due_days(meta))


def _due_days(meta: dict[str, Any]) -> tuple[str, ...]:
    """The days a final's action items are due, as :func:`~batchsum.periods.days_named` reads their ``due``: its
    Facets print them, though its summary, which is what is indexed as text, may say only "by Friday"."""
    items = meta.get("action_items")
    dues = [str(i["due"]) for i in items if isinstance(i, dict) and i.get("due")] if isinstance(items, list) else []
    return tuple(dict.fromkeys(d for due in dues for d in days_named(due)))


def _span(value: Any) -> tuple[int, int] | None:
    """``source_span: [start, end]`` of the front matter, or None when absent or malformed."""
    if isinstance(value, (list, tuple)) and len(value) == 2:
        try:
            start, end = int(value[0]), int(value[1])
        except (TypeError, ValueError):
            return None
        return (start, end) if 0 <= start <= end else None
    return None


def doc_nodes(out: Path, relpath: str) -> list[IndexNode]:
    """The live node files of one source file, read from the tree."""
    base = summaries_dir(out, relpath)
    nodes: list[IndexNode] = []
    for sub in ("L1", "L2", "L3"):
        folder = base / sub
        if not folder.is_dir():
            continue
        for p in sorted(folder.glob("*.md")):
            if p.name.startswith("."):
                continue
            try:
                meta, body = read_node(p)
            except (OSError, ValueError) as exc:
                log.warning("%s: not indexed (%s)", p, exc)
                continue
            except Exception as exc:  # yaml errors: a broken file must not stop the batch
                log.warning("%s: not indexed (%s)", p, exc)
                continue
            nodes.append(node_from_file(out, p, meta, body))
    return nodes


def tree_nodes(out: Path) -> Iterator[IndexNode]:
    """Every live node file of the output folder as a record, the period digests included."""
    for tn in iter_tree(out):
        yield node_from_file(out, tn.path, tn.meta, tn.body)

    for tn in iter_digests(out):
        node = node_from_file(out, tn.path, tn.meta, tn.body)
        if "language" not in tn.meta:
            # Written before digests recorded their language: read in the one of its text, as an English
            # word analysis would keep a German digest's "ist" and "das" as words.
            language = detect_language(node.body)
            if language:
                node.metadata["language"] = language
        yield node
