"""Extract → reconcile → write → index: how new text becomes facts in one output folder.

The engine holds no lock; its callers (``batchsum facts``, the chat endpoint's writer) hold the
output's run lock around it. Files are written before the index is updated, so a crash leaves the
files (the truth) ahead of the index, which :meth:`FactIndex.sync` heals.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from batchsum.backends.extractive import ExtractiveBackend
from batchsum.backends.llm import LLMBackend
from batchsum.memory.files import Fact, read_scope, soft_delete, write_fact
from batchsum.memory.llm import FactsLLM, JsonFormat, MemoryEvent
from batchsum.memory.store import FactIndex
from batchsum.tokens import get_tokenizer

if TYPE_CHECKING:
    from batchsum.config import RunConfig

log = logging.getLogger(__name__)

LLM_CACHE_DIR = "llm-cache"  # the run's response cache folder in the state folder (shared with summaries)
NEIGHBOURS = 5  # nearest existing facts per new fact
MAX_EXISTING = 12  # existing memories shown to the reconciliation prompt
RECENT_WITHOUT_INDEX = 12  # with --no-index, the scope's latest facts stand in for neighbours


@dataclass
class Source:
    """Where a piece of text came from."""

    scope: str
    path: str | None = None
    line: int | None = None
    turn: int | None = None
    date: str | None = None
    unit: str | None = None  # hash of the entry or turn (the first of a batch of turns)


@dataclass
class Changes:
    """What ingesting did to the memory."""

    added: list[Fact] = field(default_factory=list)
    updated: list[tuple[Fact, Fact]] = field(default_factory=list)  # (old tombstone, new fact)
    deleted: list[Fact] = field(default_factory=list)  # by a DELETE, or retired with their vanished source
    moved: list[Fact] = field(default_factory=list)  # carried over to their renamed source
    kept: int = 0  # NONE events
    extracted: int = 0  # facts the model found in the new text
    reconcile_failed: bool = False

    def merge(self, other: Changes) -> None:
        """Add ``other``'s changes to these."""
        self.added += other.added
        self.updated += other.updated
        self.deleted += other.deleted
        self.moved += other.moved
        self.kept += other.kept
        self.extracted += other.extracted
        self.reconcile_failed = self.reconcile_failed or other.reconcile_failed

    @property
    def count(self) -> int:
        """Files written or moved."""
        return len(self.added) + len(self.updated) + len(self.deleted) + len(self.moved)


def make_backend(cfg: RunConfig) -> Any:
    """The LLM backend of the run configuration (same client, limits, retries and cache as summaries)."""

    tokenizer = get_tokenizer(cfg.encoding)
    return LLMBackend(
        cfg.llm,
        tokenizer=tokenizer,
        fallback=ExtractiveBackend(tokenizer),
        cache_dir=(cfg.state_dir / LLM_CACHE_DIR) if cfg.llm.cache else None,
    )


def _norm(text: str) -> str:
    return " ".join(text.lower().split()).rstrip(".")


class MemoryEngine:
    """Facts of one output folder: extraction and reconciliation through the LLM, files, index."""

    def __init__(self, cfg: RunConfig, *, json_format: JsonFormat = "json_schema", backend: Any = None) -> None:
        self.cfg = cfg
        self.backend = backend if backend is not None else make_backend(cfg)
        self.llm = FactsLLM(self.backend, json_format)
        self.index = FactIndex(cfg) if cfg.index else None

    async def aclose(self) -> None:
        """Close the LLM client."""
        await self.backend.aclose()

    async def extract(
        self, text: str, *, name: str, content_type: str, speakers: Sequence[str] = (), day: str | None = None
    ) -> list[str] | None:
        """Facts stated in ``text`` (None: malformed answers; SummarizationError: server unreachable);
        ``speakers`` and ``day`` as :meth:`FactsLLM.extract` takes them."""
        return await self.llm.extract(text, name=name, content_type=content_type, speakers=speakers, day=day)

    def _existing(self, scope: str, new: list[str]) -> list[Fact]:
        live = {f.id: f for f in read_scope(self.cfg.out, scope)}
        if not live:
            return []
        if self.index is None:
            return list(live.values())[-RECENT_WITHOUT_INDEX:]
        near = self.index.neighbours(scope, new, NEIGHBOURS)
        chosen = [live[n.id] for n in near if n.id in live][:MAX_EXISTING]
        # Oldest first: the prompt reads like the history it is, and the same memories get the same ids.
        return sorted(chosen, key=lambda f: (f.created_at, f.id))

    async def reconcile(self, new: list[str], source: Source, *, name: str) -> Changes:
        """Merge new facts into ``source.scope``'s memory: ADD, UPDATE, DELETE or keep (NONE)."""
        changes = Changes(extracted=len(new))
        new = list(dict.fromkeys(t for t in new if t.strip()))
        if not new:
            return changes
        existing = self._existing(source.scope, new)
        known = {_norm(f.text) for f in read_scope(self.cfg.out, source.scope)}
        if not existing:
            events = None
        else:
            events = await self.llm.reconcile(existing, new, name=f"{name}:reconcile")
            changes.reconcile_failed = events is None
        if events is None:  # nothing to compare with, or the LLM failed: add all (seed §4.3)
            for text in new:
                if _norm(text) in known:
                    changes.kept += 1
                    continue
                known.add(_norm(text))
                changes.added.append(self._fact(text, source))
        else:
            self._decide(events, existing, new, known, source, changes, name)
        self._apply(changes)
        return changes

    def _decide(
        self,
        events: list[MemoryEvent],
        existing: list[Fact],
        new: list[str],
        known: set[str],
        source: Source,
        changes: Changes,
        name: str,
    ) -> None:
        """Turn the model's events into ``changes``. Only the new facts are news: an ADD states one of
        them, an UPDATE or DELETE names a memory it was shown (by position). Anything else (a DELETE or
        UPDATE of an id it was never shown, an ADD of a text no new fact states, such as a memory deleted
        long ago) is ignored with a warning, so a model's slip neither revives nor invents a fact."""
        stated = {_norm(t) for t in new}
        touched: set[int] = set()
        for ev in events:
            pos = int(ev.id) if ev.id.isdigit() and int(ev.id) < len(existing) else None
            text = " ".join(ev.text.split())
            if pos is not None and pos in touched:
                continue  # one decision per existing memory: the first
            if ev.event == "NONE" or (ev.event == "ADD" and _norm(text) in known):
                changes.kept += 1
            elif ev.event == "ADD":
                if _norm(text) in stated:
                    known.add(_norm(text))
                    changes.added.append(self._fact(text, source))
                else:
                    log.warning("%s: the model added a fact no new fact states (%r); ignored", name, text)
            elif pos is None:
                log.warning(
                    "%s: the model's %s names memory id %r, which it was not shown; ignored", name, ev.event, ev.id
                )
            elif ev.event == "DELETE":
                touched.add(pos)
                changes.deleted.append(existing[pos])
            else:  # UPDATE: its text may say the memory anew ("lives in Porto" + "moved" -> "lives in Lisbon")
                touched.add(pos)
                old = existing[pos]
                if not text or _norm(text) == _norm(old.text):
                    changes.kept += 1
                    continue
                changes.updated.append((old, self._fact(text, source, event="UPDATE", replaces=old.id)))
                known.add(_norm(text))

    def _fact(self, text: str, source: Source, *, event: str = "ADD", replaces: str | None = None) -> Fact:
        return Fact(
            text=text,
            scope=source.scope,
            doc_date=source.date,
            source_path=source.path,
            source_line=source.line,
            source_turn=source.turn,
            event=event,
            replaces=replaces,
            source_unit=source.unit,
        )

    def _apply(self, changes: Changes) -> None:
        out = self.cfg.out
        for fact in changes.added:
            write_fact(out, fact)
        for old, fresh in changes.updated:
            write_fact(out, fresh)
            soft_delete(out, old, replaced_by=fresh.id)
        for fact in changes.deleted:
            soft_delete(out, fact)
        if self.index is not None and changes.count:
            self.index.upsert([*changes.added, *(fresh for _, fresh in changes.updated)])
            self.index.delete([*(old.id for old, _ in changes.updated), *(f.id for f in changes.deleted)])

    async def ingest(self, text: str, source: Source, *, name: str, content_type: str) -> Changes | None:
        """Extract facts from ``text`` and reconcile them; None when the model's answers were malformed."""
        facts = await self.extract(text, name=name, content_type=content_type)
        if facts is None:
            return None
        return await self.reconcile(facts, source, name=name)
