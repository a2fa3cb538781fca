"""What a run did, as records: per node, per file and for the whole run.

Pure functions from in-memory results to the ``NodeRecord``/``FileRecord``/``RunRecord`` rows that
metrics store and ``run --json`` prints; nothing here touches the disk but ``RunResult.finals``.
"""

from __future__ import annotations

import datetime as dt
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from batchsum.model import FileRecord, NodeRecord, RunRecord, SummaryOutput, node_id
from batchsum.tree import node_path
from batchsum.walk import Problem  # at run time: typing.get_type_hints(RunResult) resolves its fields' types

if TYPE_CHECKING:
    from batchsum.model import Document
    from batchsum.planning import FilePlan, PlannedNode
    from batchsum.state import ManifestEntry


def utc_now() -> str:
    """ISO 8601 UTC timestamp, seconds precision."""
    return dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def ratio(output_tokens: int, input_tokens: int) -> float:
    """Output/input, capped at 1.0; 0.0 for an empty input."""
    return min(1.0, output_tokens / input_tokens) if input_tokens else 0.0


@dataclass
class NodeResult:
    """A node's output with the bookkeeping needed for the tree and metrics."""

    node: PlannedNode
    output: SummaryOutput
    key: str
    input_tokens: int
    output_tokens: int
    reused: bool


@dataclass
class RunResult:
    """What a run did."""

    run: RunRecord
    files: list[FileRecord]
    nodes: list[NodeRecord]
    problems: list[Problem]
    levels: Counter[str]
    exit_code: int
    out: Path
    warnings: list[str] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)  # the warnings about input or choices (--quiet hides them)
    tokenizer: str = ""
    stopped_by: str | None = None  # why an aborted run stopped (a failed node, an unusable LLM server)
    same_text: int = 0  # files of the same text as another this run summarized: its summaries, not stored ones
    facts: Any = None  # the facts pass after the run (``facts=True``): a memory.ingest.FactsResult
    digests: int = 0  # month, year and folder digests the run redid or removed (its closing line says so)

    def __post_init__(self) -> None:
        # Absolute, as SearchHit.summary_path and Problem.path are: a relative ``out`` read after the
        # caller's os.chdir named another folder (finals() found nothing).
        self.out = Path(os.path.abspath(self.out))

    def __repr__(self) -> str:
        # The dataclass repr listed every file and node record (13 KB for 26 files).
        r = self.run
        return (
            f"RunResult(status={r.status!r}, exit_code={self.exit_code}, files={len(self.files)},"
            f" nodes={len(self.nodes)}, problems={len(self.problems)}, warnings={len(self.warnings)},"
            f" out={str(self.out)!r})"
        )

    def summary_line(self, *, reason: bool = True) -> str:
        """One line: files by level, tokens in → out, ratio, failures, seconds; an abort with its reason
        (``reason`` False: only that it aborted, where the line after it gives the reason)."""
        r = self.run
        lv = ", ".join(f"{k} {v}" for k, v in sorted(self.levels.items()) if v)
        pct = (r.output_tokens / r.input_tokens * 100) if r.input_tokens else 0.0
        # A file planned again whose every node was stored (an output folder copied with new mtimes,
        # another --language) was not summarized again: the line says so rather than count it.
        # A file of the same text as another of this run reuses what the run just stored: no summary restored.
        restored = sum(1 for f in self.files if f.status == "done" and f.nodes and not f.nodes_recomputed)
        restored -= self.same_text
        done = f"{r.files_done - restored - self.same_text} summarized, "
        if self.same_text:
            done += f"{self.same_text} the same text as another file, "
        if restored:
            done += f"{restored} restored from stored summaries, "
        files = f"{r.files_total} file{'s' * (r.files_total != 1)}"
        parts = [f"{files} ({lv or 'none'})", f"{done}{r.files_unchanged} unchanged"]
        if r.files_deleted:
            parts.append(f"{r.files_deleted} deleted")
        if self.digests:  # a nightly line tells which nights redid the month and year pages
            parts.append(f"{self.digests} digest{'s' if self.digests != 1 else ''} updated")
        parts += [
            # Two figures below 0.1 %: a 5 MB log summarized in 450 tokens had read "(0.0%)", as if nothing was.
            f"tokens {r.input_tokens:,} → {r.output_tokens:,} in finals ({pct:.2g}%)"
            if 0 < pct < 0.1
            else f"tokens {r.input_tokens:,} → {r.output_tokens:,} in finals ({pct:.1f}%)",
            f"{r.files_failed} failed",
        ]
        if r.files_skipped:  # named as --json names them: files_failed and files_skipped
            parts.append(f"{r.files_skipped} skipped")
        if r.fallback_nodes:
            parts.append(f"DEGRADED: {r.fallback_nodes} nodes fell back to extractive")
        parts.append(f"{r.wall_ms / 1000:.1f}s")
        if r.status == "aborted":  # a nightly log of this line alone must show it (an unreachable server)
            why = f"{(self.stopped_by or 'stopped').rstrip('.')}; finished work was kept"
            parts.append(f"ABORTED: {why}" if reason else "ABORTED (why: the next line)")
        return "; ".join(parts)

    def finals(self) -> dict[str, Path]:
        """Where the final summary of each file the run read or kept is (``<out>/<relpath>/summaries/L3/
        final.md``), by source path; :func:`batchsum.tree.read_node` reads one (front matter, text)."""
        live = (f.relpath for f in self.files if f.status in ("done", "unchanged"))
        return {rel: path for rel in live if (path := node_path(self.out, rel, 3, None)).is_file()}

    def to_dict(self) -> dict[str, Any]:
        """The machine-readable summary ``run --json`` prints, JSON-ready (the facts pass's too, when it ran);
        ``as_json()`` is the older name of it."""
        from dataclasses import asdict

        # Records hold only flat values: a copy of the instance dict is ~10x cheaper than asdict's
        # deep copy, which matters for thousands of unchanged files on a nightly re-run.
        return {
            "run": asdict(self.run),
            "levels": dict(self.levels),
            "exit_code": self.exit_code,
            "stopped_by": self.stopped_by,
            "digests": self.digests,
            "out": str(self.out),
            "tokenizer": self.tokenizer,
            # relpath: the source's name in "files" (None for a path that is no source, a missing root)
            "problems": [{"path": p.path, "relpath": p.relpath, "reason": p.reason} for p in self.problems],
            "warnings": self.warnings,
            "files": [dict(f.__dict__) for f in self.files],
            **({"facts": self.facts.to_dict()} if self.facts is not None else {}),
        }

    as_json = to_dict  # the name before every result object had to_dict()


def doc_file_record(run_id: str, doc: Document, **kw: Any) -> FileRecord:
    """A file record filled from what was read of ``doc``."""
    return FileRecord(
        run_id=run_id,
        relpath=doc.relpath,
        sha256=doc.sha256,
        bytes=doc.size,
        content_type=doc.content_type,
        input_tokens=doc.tokens,
        language=doc.language,
        **kw,
    )


def entry_file_record(run_id: str, entry: ManifestEntry, status: str) -> FileRecord:
    """A file record filled from what the manifest knows of a file this run did not read."""
    return FileRecord(
        run_id=run_id,
        relpath=entry.relpath,
        sha256=entry.sha256,
        bytes=entry.size,
        content_type=entry.content_type,
        level=entry.level,
        input_tokens=entry.tokens,
        status=status,
        language=entry.language,
    )


def node_record(run_id: str, plan: FilePlan, res: NodeResult) -> NodeRecord:
    """The metrics row of one node of ``plan``."""
    node = res.node
    parent: str | None = None
    if node.level == 1:
        parent = node_id(plan.doc.doc_id, 2, node.parent_group) if node.parent_group is not None else plan.final_id
    elif node.level == 2:
        parent = plan.final_id
    out = res.output
    sent = not res.reused and out.llm_calls > 0
    return NodeRecord(
        run_id=run_id,
        relpath=plan.doc.relpath,
        node_id=node.node_id,
        level=f"L{node.level}",
        index=node.index,
        parent=parent,
        input_tokens=res.input_tokens,
        output_tokens=res.output_tokens,
        compression_ratio=ratio(res.output_tokens, res.input_tokens),
        backend=out.backend,
        model=out.model,
        attempts=0 if res.reused else out.attempts,
        latency_ms=0.0 if res.reused else out.latency_ms,
        cache_hit=(not res.reused) and out.cache_hit,
        # Tokens are what a server reported for requests this run actually sent.
        prompt_tokens=out.prompt_tokens if sent else 0,
        completion_tokens=out.completion_tokens if sent else 0,
        llm_calls=out.llm_calls if sent else 0,
        reused=res.reused,
        error=out.error,
    )


def done_file_record(
    run_id: str, plan: FilePlan, results: list[NodeResult], nodes: list[NodeRecord], final_tokens: int, wall_ms: float
) -> FileRecord:
    """The record of a file whose tree was written this run."""
    doc = plan.doc
    return doc_file_record(
        run_id,
        doc,
        level=plan.level.value,
        output_tokens=final_tokens,
        compression_ratio=ratio(final_tokens, doc.tokens),
        chunks=len(plan.chunks),
        nodes=len(results),
        llm_calls=sum(n.llm_calls for n in nodes),
        prompt_tokens=sum(n.prompt_tokens for n in nodes),
        completion_tokens=sum(n.completion_tokens for n in nodes),
        wall_ms=wall_ms,
        status="done",
        fallback_nodes=sum(1 for r in results if "fallback" in r.output.backend),
        nodes_recomputed=sum(1 for r in results if not r.reused),
        secrets_redacted=sum(doc.redactions.values()),
        target_tokens=next((n.target_tokens for n in plan.nodes if n.node_id == plan.final_id), None),
    )


def run_record(
    *,
    run_id: str,
    started_at: str,
    command: str,
    backend: str,
    model: str | None,
    status: str,
    out: Path,
    files: list[FileRecord],
    nodes: list[NodeRecord],
    wall_ms: float,
) -> RunRecord:
    """The run's totals, summed from its file and node records."""
    counts = Counter(f.status for f in files)
    live = [f for f in files if f.status in ("done", "unchanged")]
    computed = [n for n in nodes if not n.reused]
    return RunRecord(
        run_id=run_id,
        started_at=started_at,
        finished_at=utc_now(),
        command=command,
        backend=backend,
        model=model,
        status=status,
        out_dir=str(out.resolve()),  # absolute: a shared --metrics-db is read from any directory
        files_total=len(live) + counts["failed"] + counts["skipped"],
        files_done=counts["done"],
        files_unchanged=counts["unchanged"],
        files_failed=counts["failed"],
        files_skipped=counts["skipped"],
        files_deleted=counts["deleted"],
        input_tokens=sum(f.input_tokens for f in live),
        output_tokens=sum(f.output_tokens for f in live),
        llm_calls=sum(n.llm_calls for n in computed),
        cache_hits=sum(1 for n in nodes if n.cache_hit),
        prompt_tokens=sum(n.prompt_tokens for n in computed),
        completion_tokens=sum(n.completion_tokens for n in computed),
        nodes_computed=len(computed),
        nodes_reused=len(nodes) - len(computed),
        wall_ms=wall_ms,
        fallback_nodes=sum(f.fallback_nodes for f in files if f.status == "done"),
    )
