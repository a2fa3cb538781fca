"""``batchsum plan``: what a run would do now, computed without writing anything."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from batchsum.engine.changes import backend_identity, config_signature, diff, touched_sha
from batchsum.engine.nodes import leaf_key
from batchsum.engine.prepare import prepare_file
from batchsum.state import StateStore
from batchsum.tokens import get_tokenizer
from batchsum.walk import Problem

if TYPE_CHECKING:
    from batchsum.config import RunConfig
    from batchsum.tokens import Tokenizer


@dataclass
class PlanSummary:
    """What a run would do now."""

    new: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    levels: Counter[str] = field(default_factory=Counter)
    chunks: int = 0
    nodes: int = 0
    nodes_stored: int = 0  # leaves whose output is already in the node store
    llm_calls: int = 0
    input_tokens: int = 0
    est_output_tokens: int = 0
    est_cost: float | None = None
    backend: str = "extractive"

    def as_dict(self) -> dict[str, Any]:
        """The JSON form ``plan --json`` prints."""
        return {
            "new": self.new,
            "changed": self.changed,
            "unchanged": len(self.unchanged),
            "deleted": self.deleted,
            "problems": [{"path": p.path, "reason": p.reason} for p in self.problems],
            "levels": dict(self.levels),
            "chunks": self.chunks,
            "nodes": self.nodes,
            "nodes_already_stored": self.nodes_stored,
            "llm_calls": self.llm_calls,
            "input_tokens": self.input_tokens,
            "est_output_tokens": self.est_output_tokens,
            "est_cost": self.est_cost,
            "backend": self.backend,
        }


def preview(cfg: RunConfig) -> PlanSummary:
    """What ``run`` would do now with ``cfg``: reads sources and state, writes nothing, takes no lock."""

    identity = backend_identity(cfg)
    sig = config_signature(cfg)
    state = StateStore(cfg.state_dir)
    manifest = state.load_manifest()
    d = diff(cfg, manifest, sig)
    summary = PlanSummary(backend=identity[0], problems=list(d.problems))
    summary.deleted = [e.relpath for e in d.deleted]
    summary.unchanged = [e.relpath for e in d.unchanged]
    tokenizer: Tokenizer | None = None
    for ref in d.todo:
        entry = manifest.get(ref.relpath)
        tokenizer = tokenizer or get_tokenizer(cfg.encoding)
        # As a run prepares it (agent sessions are planned from their digest), extras included.
        prepared = prepare_file(ref, cfg, tokenizer, touched_sha(entry, sig, cfg.out))
        doc, plan = prepared.doc, prepared.plan
        if isinstance(doc, Problem):
            summary.problems.append(doc)
            continue
        if plan is None:
            summary.unchanged.append(ref.relpath)
            continue
        (summary.changed if entry is not None else summary.new).append(ref.relpath)
        summary.levels[plan.level.value] += 1
        summary.chunks += len(plan.chunks)
        summary.input_tokens += doc.tokens
        if plan.kept_whole:
            continue  # written as it is: no summary to make
        summary.nodes += len(plan.nodes)
        summary.est_output_tokens += sum(n.target_tokens for n in plan.nodes)
        # Leaves' keys are known before running; stored ones cost nothing.
        summary.nodes_stored += sum(
            1 for n in plan.nodes if not n.inputs and state.get_node(leaf_key(identity, plan, n)) is not None
        )
    if cfg.llm.enabled:
        summary.llm_calls = summary.nodes - summary.nodes_stored
    if cfg.price_per_1k is not None:
        summary.est_cost = round((summary.input_tokens + summary.est_output_tokens) / 1000 * cfg.price_per_1k, 4)
    return summary
