"""Fact files: Markdown with YAML front matter, the source of truth of the memory.

Layout under the output folder (``<scope>`` is a journal's folder or a conversation's path)::

    <scope>/facts/<timestamp>__<id>.md           live facts
    <scope>/deleted/facts/<timestamp>__<id>.md   deleted facts and tombstones of updated ones
                                                 (``replaced_by`` names the fact that replaced it)

Writes are atomic (temp file + rename); a soft delete moves the file, rewriting its front matter.
"""

from __future__ import annotations

import datetime as dt
import logging
import os
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from batchsum.config import STATE_DIR
from batchsum.errors import ConfigError
from batchsum.tree import atomic_write_text, read_node, render_markdown

log = logging.getLogger(__name__)

FACTS_DIR = "facts"
DELETED_DIR = "deleted"
ROLE = "memory"


def utc_now() -> str:
    """ISO 8601 UTC timestamp with microseconds (facts made in one second still sort)."""
    return dt.datetime.now(dt.UTC).isoformat().replace("+00:00", "Z")


def check_scope(scope: str) -> str:
    """A scope as a clean relative POSIX path ("." for the output's top); ConfigError otherwise."""
    s = scope.strip().replace("\\", "/").strip("/") or "."
    parts = PurePosixPath(s).parts
    if any(p in ("..", STATE_DIR) or (p.startswith(".") and p != ".") for p in parts):
        raise ConfigError(f"scope {scope!r}: use a relative folder name without '..' or hidden parts")
    return s


@dataclass
class Fact:
    """One atomic, standalone statement and where it came from."""

    text: str
    scope: str
    id: str = field(default_factory=lambda: uuid.uuid4().hex)
    created_at: str = field(default_factory=utc_now)
    doc_date: str | None = None  # date of the entry or turn it was extracted from
    source_path: str | None = None  # source relpath (or conversation turn file)
    source_line: int | None = None
    source_turn: int | None = None
    event: str = "ADD"  # how it came to be: ADD, or UPDATE of ``replaces``
    replaces: str | None = None
    replaced_by: str | None = None  # tombstones only
    deleted_at: str | None = None  # tombstones only
    path: Path | None = None  # where it lives on disk (set when written or read)
    role: str = ROLE  # "memory"; conversation turns use the same record with "user" / "assistant"
    # Hash of the entry or turn it came from (Unit.key): a renamed source's facts find their new position.
    source_unit: str | None = None

    def meta(self) -> dict[str, Any]:
        """The front matter."""
        meta: dict[str, Any] = {
            "id": self.id,
            "role": self.role,
            "scope": self.scope,
            "created_at": self.created_at,
            "doc_date": self.doc_date,
            "source_path": self.source_path,
            "source_line": self.source_line,
            "source_turn": self.source_turn,
            "event": self.event,
            "replaces": self.replaces,
            "replaced_by": self.replaced_by,
        }
        if self.source_unit:
            meta["source_unit"] = self.source_unit
        if self.deleted_at:
            meta["deleted_at"] = self.deleted_at
        return meta

    @property
    def file_name(self) -> str:
        stamp = self.created_at.replace("-", "").replace(":", "").replace(".", "")
        return f"{stamp}__{self.id}.md"

    @classmethod
    def from_file(cls, path: Path) -> Fact:
        """Read a fact file; ValueError when it is not one."""
        meta, body = read_node(path)
        if meta.get("role") != ROLE or not meta.get("id"):
            raise ValueError("not a fact file (role is not 'memory' or id missing)")

        def opt_int(key: str) -> int | None:
            v = meta.get(key)
            return int(v) if isinstance(v, int) and not isinstance(v, bool) else None

        return cls(
            text=body.strip(),
            scope=str(meta.get("scope") or "."),
            id=str(meta["id"]),
            created_at=str(meta.get("created_at") or ""),
            doc_date=str(meta["doc_date"]) if meta.get("doc_date") else None,
            source_path=str(meta["source_path"]) if meta.get("source_path") else None,
            source_line=opt_int("source_line"),
            source_turn=opt_int("source_turn"),
            event=str(meta.get("event") or "ADD"),
            replaces=str(meta["replaces"]) if meta.get("replaces") else None,
            replaced_by=str(meta["replaced_by"]) if meta.get("replaced_by") else None,
            deleted_at=str(meta["deleted_at"]) if meta.get("deleted_at") else None,
            path=path,
            source_unit=str(meta["source_unit"]) if meta.get("source_unit") else None,
        )


def facts_dir(out: Path, scope: str) -> Path:
    """Folder of a scope's live facts."""
    return out / scope / FACTS_DIR


def deleted_dir(out: Path, scope: str) -> Path:
    """Folder of a scope's deleted facts and tombstones."""
    return out / scope / DELETED_DIR / FACTS_DIR


def write_fact(out: Path, fact: Fact) -> Path:
    """Write a live fact file atomically; returns its path."""
    path = facts_dir(out, fact.scope) / fact.file_name
    atomic_write_text(path, render_markdown(fact.meta(), fact.text), durable=False)
    fact.path = path
    return path


def soft_delete(out: Path, fact: Fact, *, replaced_by: str | None = None) -> Path:
    """Move a live fact to ``deleted/facts/``, recording when and (for an update) its successor."""
    fact.deleted_at = utc_now()
    fact.replaced_by = replaced_by
    dest = deleted_dir(out, fact.scope) / fact.file_name
    # The tombstone is written first, then the live file removed: a crash in between leaves the fact
    # live (and the tombstone an audit record), never lost.
    atomic_write_text(dest, render_markdown(fact.meta(), fact.text), durable=False)
    src = fact.path or facts_dir(out, fact.scope) / fact.file_name
    try:
        os.unlink(src)
    except FileNotFoundError:
        pass
    fact.path = dest
    return dest


def rehome(out: Path, fact: Fact, scope: str, source_path: str) -> Path:
    """Rewrite a live fact as one of ``source_path`` in ``scope`` (its source was renamed); same id."""
    old = fact.path or facts_dir(out, fact.scope) / fact.file_name
    fact.scope, fact.source_path = scope, source_path
    new = write_fact(out, fact)  # the new file first: a crash in between leaves a duplicate, never a loss
    if new != old:
        try:
            os.unlink(old)
        except FileNotFoundError:
            pass
    return new


def source_facts(out: Path, scope: str, source_path: str) -> list[Fact]:
    """The live facts of ``scope`` extracted from ``source_path``."""
    return [f for f in read_scope(out, scope) if f.source_path == source_path]


def read_scope(out: Path, scope: str) -> list[Fact]:
    """The live facts of one scope, oldest first."""
    folder = facts_dir(out, scope)
    return _read_folder(folder)


def _read_folder(folder: Path) -> list[Fact]:
    facts: list[Fact] = []
    try:
        with os.scandir(folder) as it:
            names = sorted(e.name for e in it if e.name.endswith(".md") and not e.name.startswith(".") and e.is_file())
    except (FileNotFoundError, NotADirectoryError):
        return []
    for name in names:
        try:
            facts.append(Fact.from_file(folder / name))
        except (OSError, ValueError) as exc:
            log.warning("%s: skipped (%s)", folder / name, exc)
    return facts


def iter_facts(out: Path) -> Iterator[Fact]:
    """Every live fact of the output folder (skips state, deleted, history and summary folders)."""
    if not out.is_dir():
        return
    for root, dirs, _files in os.walk(out):
        dirs[:] = sorted(d for d in dirs if d not in (STATE_DIR, DELETED_DIR, "history", "summaries", ".git", "turns"))
        if FACTS_DIR in dirs:
            dirs.remove(FACTS_DIR)
            yield from _read_folder(Path(root) / FACTS_DIR)
