"""Plan a file's summary tree: which nodes, their inputs, prompts and budgets.

NONE: the source kept whole as its final (kind ``source``, no summary), or no node at all for an
empty file or with ``keep_short`` off. BRIEF/STANDARD: one L3 from the text. DETAILED: L1 per chunk, L3 over the
L1s. HIERARCHICAL: L1 per chunk, L2 per group of ``group_size`` L1s, L3 over the L2s.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from batchsum.backends.budget import final_cap, output_budget
from batchsum.backends.units import entry_dates_at
from batchsum.chunking import Chunk, Tokenized
from batchsum.config import RunConfig
from batchsum.model import TARGET_RATIO, Document, PromptKind, SummaryLevel, node_id
from batchsum.text import speakers_at
from batchsum.tokens import Tokenizer

if TYPE_CHECKING:
    from batchsum.agent_transcript import RunExtras

# L1s keep more detail than the final; each level at least halves its input, so
# L1 ≈ 15 % of a chunk, L2 ≈ 7 % of its group's source, and L3 the level's target (7 % / 4 %).
L1_RATIO = 0.15
L2_RATIO = 0.07
MIN_TARGET = 16

# A prompt kind, or "source": a short file kept whole as its own final, never sent to a backend.
NodeKind = PromptKind | Literal["source"]


@dataclass
class PlannedNode:
    """One node of a file's tree."""

    node_id: str
    level: int  # 1, 2, 3
    index: int | None  # chunk/group index; None for the final
    kind: NodeKind
    source_tokens: int  # tokens of the source this node covers
    target_tokens: int
    inputs: list[str] = field(default_factory=list)  # child node ids (meta/rolling)
    text: str | None = None  # source text for brief/standard leaves (a chunk's is ``chunk.text``)
    chunk: Chunk | None = None
    parent_group: int | None = None
    total_chunks: int | None = None
    # A conversation's chunk cut inside a turn: that turn's speaker, so its lines are still someone's.
    speaker: str | None = None
    # A journal's chunk: heading lines giving the date of the entry under way where it starts and the year a
    # day without one takes (:func:`~batchsum.backends.units.entry_dates_at`), read before its text.
    dates: str = ""
    # A chunk's opening characters that repeat the end of the chunk before it (the overlap): context for
    # its first sentences, already summarized with the chunk before.
    overlap_chars: int = 0


@dataclass
class FilePlan:
    """A document and the nodes that summarize it (in dependency order)."""

    doc: Document
    level: SummaryLevel
    chunks: list[Chunk]
    nodes: list[PlannedNode]
    final_id: str | None
    prior_context: str | None = None
    depth: int = 0
    parent_id: str | None = None
    extras: RunExtras | None = None  # offline facets / agent-session digest for the final
    text_released: bool = False  # the document's text was let go (``release_text``)

    def release_text(self) -> None:
        """Let go of the document's text, the chunks' hold on it included: once every chunk's request is
        built, a big file's text would otherwise stay in memory through its summaries' upper levels."""
        for c in self.chunks:
            c.release()
        self.doc.text = ""
        self.text_released = True

    @property
    def kept_whole(self) -> bool:
        """True when the file is short enough to be its own final (no summary is made)."""
        return len(self.nodes) == 1 and self.nodes[0].kind == "source"


def target_for(ratio: float, source_tokens: int) -> int:
    """Desired output tokens for ``source_tokens`` at ``ratio``."""
    return max(MIN_TARGET, round(ratio * source_tokens))


# A BRIEF line is a few whole sentences: capped at its target exactly, a ~20-token sentence too
# many strands it at ~80 % (Diaries: 0.82x); 10 % of headroom lands it at 0.86x.
BRIEF_OVERRUN = 1.1


def leaf_max_tokens(input_tokens: int, target: int, kind: PromptKind | None = None) -> int:
    """Output cap for a node: the output budget (10 % over the target for BRIEF), always below the input size."""
    if kind == "brief":
        target = round(target * BRIEF_OVERRUN)
    return max(1, min(output_budget(input_tokens, target), input_tokens - 1))


def plan_file(doc: Document, cfg: RunConfig, tokenizer: Tokenizer) -> FilePlan:
    """Tokenize ``doc`` and build its node plan."""
    tokenized = Tokenized(doc.text, tokenizer, cfg.chunk_size, cfg.chunk_overlap)
    tokens = tokenized.count
    doc.tokens = tokens
    level = cfg.thresholds.level_for(tokens)
    doc.level = level
    did = doc.doc_id
    final = node_id(did, 3, None)
    if level is SummaryLevel.NONE:
        if not tokens or not cfg.keep_short:
            return FilePlan(doc, level, [], [], None)  # an empty file has nothing to keep
        return FilePlan(doc, level, [], [PlannedNode(final, 3, None, "source", tokens, tokens, text=doc.text)], final)
    ratio = TARGET_RATIO[level]
    if level in (SummaryLevel.BRIEF, SummaryLevel.STANDARD):
        kind: PromptKind = "brief" if level is SummaryLevel.BRIEF else "standard"
        node = PlannedNode(final, 3, None, kind, tokens, target_for(ratio, tokens), text=doc.text)
        return FilePlan(doc, level, [], [node], final)
    chunks = tokenized.chunks()
    del tokenized  # its units: ~17 bytes a sentence of the text
    n = len(chunks)
    hierarchical = level is SummaryLevel.HIERARCHICAL and n > 1
    nodes: list[PlannedNode] = []
    l1_ids: list[str] = []
    conversation = doc.content_type == "conversation"
    speakers = speakers_at(doc.text, [c.start for c in chunks]) if conversation else [None] * n
    journal = doc.content_type == "journal"
    dates = entry_dates_at(doc.text, [c.start for c in chunks]) if journal else [""] * n
    prev_end = 0
    for c, speaker, dated in zip(chunks, speakers, dates, strict=True):
        overlap, prev_end = (max(0, prev_end - c.start) if c.index else 0), c.end
        nid = node_id(did, 1, c.index)
        l1_ids.append(nid)
        nodes.append(
            PlannedNode(
                nid,
                1,
                c.index,
                "chunk",
                c.tokens,
                target_for(L1_RATIO, c.tokens),
                chunk=c,  # its text is sliced from the document's when the node is sent (one copy kept)
                parent_group=(c.index // cfg.group_size) if hierarchical else None,
                total_chunks=n,
                speaker=speaker,
                overlap_chars=overlap,
                dates=dated,
            )
        )
    top_inputs = l1_ids
    if hierarchical:
        top_inputs = []
        leaves = nodes[:n]  # the L1s only: L2 nodes are appended to ``nodes`` as the loop goes
        for g in range((n + cfg.group_size - 1) // cfg.group_size):
            members = leaves[g * cfg.group_size : (g + 1) * cfg.group_size]
            src = sum(m.chunk.tokens - m.chunk.overlap_tokens for m in members if m.chunk)
            gid = node_id(did, 2, g)
            top_inputs.append(gid)
            nodes.append(
                PlannedNode(gid, 2, g, "meta", src, target_for(L2_RATIO, src), inputs=[m.node_id for m in members])
            )
    target = target_for(ratio, tokens)
    if level is SummaryLevel.HIERARCHICAL:
        # Read by a person in a minute or two, whatever the backend: the detail stays in L2 and L1.
        target = final_cap(target, cfg.final_words)
    nodes.append(PlannedNode(final, 3, None, "meta", tokens, target, inputs=top_inputs))
    return FilePlan(doc, level, chunks, nodes, final)
