"""One summary node as work: its request to a backend and the key its output is stored under.

Pure functions of the plan and the node's children; any executor (local or distributed) calls them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from batchsum.backends.budget import FINAL_WORDS
from batchsum.lazy import load
from batchsum.model import SummaryLevel, SummaryRequest
from batchsum.planning import leaf_max_tokens
from batchsum.state import NODE_FORMAT, node_key

if TYPE_CHECKING:
    from batchsum.config import LLMConfig
    from batchsum.engine.records import NodeResult
    from batchsum.model import PromptKind
    from batchsum.planning import FilePlan, PlannedNode


@dataclass
class NodeJob:
    """A node ready to summarize: everything a backend needs and the key of its output."""

    node: PlannedNode
    request: SummaryRequest
    key: str


def heights(plan: FilePlan) -> dict[str, int]:
    """Per node: how many nodes the chain from it to the file's final holds (the final: 1)."""
    parent = {child: n.node_id for n in plan.nodes for child in n.inputs}
    out: dict[str, int] = {}
    for n in reversed(plan.nodes):  # dependency order reversed: parents come first
        up = parent.get(n.node_id)
        out[n.node_id] = 1 + (out[up] if up is not None else 0)
    return out


def output_key(
    identity: tuple[str, str | None],
    node: PlannedNode,
    kind: PromptKind,
    content_type: str,
    text: str,
    max_tokens: int,
    prior: str | None,
    facets: bool,
    language: str | None = None,
    context_chars: int = 0,
    final_words: int | None = None,
) -> str:
    """Hash of everything that determines a node's output. Leaves the chunk count out on purpose:
    appending a chunk must not invalidate the summaries of the chunks before it. A chunk's overlap
    (``context_chars``) and the word cap of a HIERARCHICAL final (``final_words``, given for that node
    only) shape the extractive summarizer's output only: an LLM's keys stay as they were (its final's
    cap is in its target)."""
    name, model = identity
    return node_key(
        NODE_FORMAT,
        name,
        model,
        kind,
        content_type,
        text,
        node.target_tokens,
        max_tokens,
        node.index if node.level == 1 else None,
        prior,
        facets,
        # English is the default every key had before languages were told apart: its keys stay valid.
        *([language] if language and language != "en" else []),
        *([f"context={context_chars}"] if context_chars and name == "extractive" else []),
        *([f"final_words={final_words}"] if final_words is not None and name == "extractive" else []),
    )


# The one rendering the extractive summarizer reads a text through; loaded by name, as prepare.py does.
_AS_READ = "batchsum.backends.noise:markdown_as_text"
# Blank lines in a row, such as a removed block leaves behind (its line breaks stay, so offsets do).
BLANK_RUN = re.compile(r"\n[ \t]*\n(?:[ \t]*\n)+")


def as_read(text: str) -> str:
    """``text`` as its reader sees it (:func:`batchsum.backends.noise.markdown_as_text`): no front matter,
    hidden comment, property, drawer, embed, block reference or link syntax, task boxes as ☐/☑; the blank
    lines a removed block leaves behind are one."""
    return BLANK_RUN.sub("\n\n", load(_AS_READ)(text)).strip("\n")


def leaf_text(node: PlannedNode, *, shown: bool = False) -> str:
    """The source text a leaf summarizes (a chunk's is sliced from its document's text now); a chunk
    cut inside a conversation's turn opens with that turn's speaker label, a journal's with the date of the
    entry under way (``PlannedNode.dates``). ``shown``: as its reader sees it (:func:`as_read`), what a model
    is sent: the note's private marks never leave the machine. The extractive
    summarizer is given the text as written: it reads the markup itself (headings, dated lines, tasks)."""
    if node.text is not None:
        return as_read(node.text) if shown else node.text
    if node.chunk is None:
        return ""
    text = as_read(node.chunk.text) if shown else node.chunk.text
    text = f"{node.dates}\n\n{text}" if node.dates else text
    return f"{node.speaker}: {text}" if node.speaker else text


def kept_whole_key(plan: FilePlan) -> str:
    """The key of a final that is the source kept whole: its content alone decides it."""
    return node_key(NODE_FORMAT, "source", plan.doc.sha256)


def make_job(
    identity: tuple[str, str | None],
    llm: LLMConfig,
    plan: FilePlan,
    node: PlannedNode,
    children: list[NodeResult],
    height: int,
    final_words: int = FINAL_WORDS,
) -> NodeJob:
    """The job of ``node`` once its children (in ``node.inputs`` order) are finished; ``final_words``:
    the run's word cap of a HIERARCHICAL final."""
    if node.kind == "source":
        raise ValueError(f"{node.node_id}: a file kept whole is not summarized")
    doc = plan.doc
    parts: list[str] = []
    if node.inputs:
        parts = [c.output.text for c in children if c.output.text.strip()]
        text = "\n\n".join(parts)
        input_tokens = sum(c.output_tokens for c in children)
    else:
        text = leaf_text(node, shown=llm.enabled)
        input_tokens = node.source_tokens
    lead = (len(node.speaker) + 2 if node.speaker else 0) + (len(node.dates) + 2 if node.dates else 0)
    context = node.overlap_chars + (lead if node.overlap_chars else 0)
    kind: PromptKind = node.kind
    prior = None
    if node.level == 3 and plan.prior_context:
        prior = plan.prior_context
        if kind == "meta":
            kind = "rolling"
        elif kind == "brief":
            prior = None  # a brief summary is always made fresh from its short source
    max_tokens = leaf_max_tokens(max(input_tokens, 2), node.target_tokens, kind)
    facets = (
        node.level == 3
        and llm.enabled
        and (llm.facets is True or (llm.facets is None and doc.content_type == "conversation"))
    )
    request = SummaryRequest(
        node_id=node.node_id,
        kind=kind,
        content_type=doc.content_type,
        text=text,
        input_tokens=input_tokens,
        target_tokens=node.target_tokens,
        max_tokens=max_tokens,
        parts=parts,
        chunk_index=(node.index + 1) if node.level == 1 and node.index is not None else None,
        total_chunks=node.total_chunks,
        prior_context=prior,
        facets=facets,
        summary_level=plan.level,
        priority=height,
        language=doc.language,
        context_chars=context,
    )
    capped = final_words if plan.level is SummaryLevel.HIERARCHICAL and node.level == 3 else None
    key = output_key(
        identity, node, kind, doc.content_type, text, max_tokens, prior, facets, doc.language, context, capped
    )
    return NodeJob(node, request, key)
