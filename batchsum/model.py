"""Core data model shared by every stage of the pipeline.

walk -> Document; planning -> PlannedNode graph; backends turn a SummaryRequest into a
SummaryOutput; the engine turns outputs into tree files and Run/File/Node records.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any, Literal, Protocol

from batchsum.errors import ConfigError

ContentType = Literal["journal", "conversation", "document"]
CONTENT_TYPES: tuple[ContentType, ...] = ("journal", "conversation", "document")
# What ``--type`` and a pipeline corpus accept: a content type, ``auto`` (decided per file), or an alias.
TypeChoice = Literal["journal", "conversation", "document", "auto"]
TYPE_CHOICES: tuple[TypeChoice, ...] = ("auto", *CONTENT_TYPES)
TYPE_ALIASES: dict[str, ContentType] = {
    "transcript": "conversation",
    "transcripts": "conversation",
    "chat": "conversation",
    "meeting": "conversation",
    "meetings": "conversation",
}


def normalize_type(value: str) -> TypeChoice:
    """Map aliases (``transcript``) to canonical type names; raise ConfigError on unknown."""
    v = TYPE_ALIASES.get(value.lower(), value.lower())
    if v not in TYPE_CHOICES:
        raise ConfigError(
            f"unknown --type {value!r} (choose journal, conversation (transcript, chat, meeting), document or auto)"
        )
    return v  # type: ignore[return-value]


PromptKind = Literal["brief", "standard", "chunk", "meta", "rolling"]


class SummaryLevel(str, Enum):
    """Summary depth picked from a file's token count."""

    NONE = "NONE"
    BRIEF = "BRIEF"
    STANDARD = "STANDARD"
    DETAILED = "DETAILED"
    HIERARCHICAL = "HIERARCHICAL"


# Target output/input ratio per level.
TARGET_RATIO: dict[SummaryLevel, float] = {
    SummaryLevel.BRIEF: 0.20,
    SummaryLevel.STANDARD: 0.12,
    SummaryLevel.DETAILED: 0.07,
    SummaryLevel.HIERARCHICAL: 0.04,
}


@dataclass(frozen=True)
class Thresholds:
    """Upper bounds (exclusive) of NONE, BRIEF, STANDARD and DETAILED, in tokens."""

    none: int = 100
    brief: int = 500
    standard: int = 3000
    detailed: int = 15000

    def level_for(self, tokens: int) -> SummaryLevel:
        """Pick the summary level for a text of ``tokens`` tokens."""
        if tokens < self.none:
            return SummaryLevel.NONE
        if tokens < self.brief:
            return SummaryLevel.BRIEF
        if tokens < self.standard:
            return SummaryLevel.STANDARD
        if tokens < self.detailed:
            return SummaryLevel.DETAILED
        return SummaryLevel.HIERARCHICAL


@dataclass
class Document:
    """One source file, read, decoded and classified."""

    path: Path
    relpath: str
    text: str
    sha256: str
    size: int
    mtime_ns: int
    content_type: ContentType
    type_reason: str
    text_sha: str = ""  # hash of the reading: type, date (unless mtime) and text (set by a run, compared on upgrade)
    doc_date: str | None = None  # ISO date (journal date from name/front matter, else mtime)
    date_source: str = ""  # name | front matter | mtime
    decode_note: str | None = None  # set when a lossy or non-UTF-8 decode was needed
    warnings: list[str] = field(default_factory=list)  # text kept despite a problem (bad cue timing, ...)
    redactions: dict[str, int] = field(default_factory=dict)  # secrets replaced, per kind (--redact)
    tokens: int = 0
    level: SummaryLevel = SummaryLevel.NONE
    language: str | None = None  # ISO 639-1 code (detected, or --language); None: no letters to tell
    language_source: str = ""  # detected | front matter (lang:, language:) | configured (--language, config)

    @property
    def doc_id(self) -> str:
        return self.relpath


# Node ids are made and read here only: ``<doc id>:summary:L<n>:<index|final>``.
NODE_ID_SEP = ":summary:"


def node_id(doc_id: str, level: int, index: int | None) -> str:
    """The id of a summary node: ``<doc id>:summary:L<n>:<index|final>``."""
    return f"{doc_id}{NODE_ID_SEP}L{level}:{'final' if index is None else index}"


def level_and_index_of(nid: str) -> tuple[int, int | None]:
    """(level, index) of a node id; index None for a final."""
    level, _, index = nid.rsplit(NODE_ID_SEP, 1)[1].partition(":")
    return int(level[1:]), (None if index == "final" else int(index))


def doc_id_of(nid: str) -> str:
    """The document id a node id belongs to."""
    return nid.split(NODE_ID_SEP, 1)[0]


@dataclass
class SummaryRequest:
    """Everything a backend needs to produce one summary node."""

    node_id: str
    kind: PromptKind
    content_type: ContentType
    text: str  # source text (brief/standard/chunk) or joined child summaries (meta/rolling)
    input_tokens: int
    target_tokens: int  # desired output length from the level's target compression
    max_tokens: int  # hard output cap: min(target, max(128, input_tokens // 2)) or less
    parts: list[str] = field(default_factory=list)  # child summaries for meta/rolling
    chunk_index: int | None = None  # 1-based section number for chunk prompts
    total_chunks: int | None = None
    prior_context: str | None = None  # previous L3 when one exists
    facets: bool = False  # ask for structured facets (conversations, final node only)
    summary_level: SummaryLevel = SummaryLevel.STANDARD
    language: str | None = None  # ISO 639-1 code of the source: sentence rules, stop words, the reply's language
    peers: bool = False  # the parts are peers (a month's entries, a folder's files), not one text in order
    # Each part's language when the parts are in several (a month of journals kept in two languages).
    part_languages: list[str | None] = field(default_factory=list)
    # A chunk's opening characters that repeat the chunk before it: read as context, not summarized again.
    context_chars: int = 0
    # Nodes on the longest chain still to run from this one (itself included): backends that queue
    # requests serve higher first, which finishes a forest of trees soonest (Hu's level order).
    priority: int = 1


@dataclass
class SummaryOutput:
    """A produced summary plus how it was made."""

    text: str
    backend: str  # "extractive", "llm", "extractive (fallback)"
    model: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    attempts: int = 1
    latency_ms: float = 0.0
    cache_hit: bool = False
    llm_calls: int = 0  # requests actually sent to a server for this node
    error: str | None = None  # last error when a fallback produced the node
    trimmed: bool = False  # output overran its budget and was cut at a sentence boundary
    facets: dict[str, Any] | None = None


class Backend(Protocol):
    """A summarizer: extractive or LLM."""

    name: str
    model: str | None

    async def summarize(self, request: SummaryRequest) -> SummaryOutput: ...

    async def aclose(self) -> None: ...


@dataclass
class NodeRecord:
    """One summary node as recorded in metrics."""

    run_id: str
    relpath: str
    node_id: str
    level: str  # "L1" | "L2" | "L3"
    index: int | None
    parent: str | None
    input_tokens: int
    output_tokens: int
    compression_ratio: float
    backend: str
    model: str | None
    attempts: int
    latency_ms: float
    cache_hit: bool
    prompt_tokens: int = 0
    completion_tokens: int = 0
    llm_calls: int = 0
    reused: bool = False  # carried over unchanged from an earlier run (incremental)
    error: str | None = None


@dataclass
class FileRecord:
    """One source file's outcome in one run."""

    run_id: str
    relpath: str
    sha256: str | None = None
    bytes: int = 0
    content_type: str | None = None
    level: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    compression_ratio: float = 0.0
    chunks: int = 0
    nodes: int = 0
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    wall_ms: float = 0.0
    status: str = "done"  # done | unchanged | failed | skipped | deleted
    error: str | None = None
    fallback_nodes: int = 0
    nodes_recomputed: int = 0
    secrets_redacted: int = 0  # secrets replaced by [REDACTED:<kind>] before summarizing (--redact)
    target_tokens: int | None = None  # the final's planned length (None: not planned this run)
    language: str | None = None  # ISO 639-1 code of the source (None: not read this run, or no letters)


@dataclass
class RunRecord:
    """One invocation of ``batchsum run``."""

    run_id: str
    started_at: str
    finished_at: str | None
    command: str  # secrets removed
    backend: str
    model: str | None
    status: str  # running | ok | partial | aborted | failed
    out_dir: str
    files_total: int = 0
    files_done: int = 0
    files_unchanged: int = 0
    files_failed: int = 0
    files_skipped: int = 0
    files_deleted: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    llm_calls: int = 0
    cache_hits: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    nodes_computed: int = 0
    nodes_reused: int = 0
    fallback_nodes: int = 0  # nodes the configured LLM did not produce (extractive fallback): a degraded run
    wall_ms: float = 0.0
