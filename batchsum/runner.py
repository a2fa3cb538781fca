"""The run: one async task graph over the whole corpus.

Files are read and planned one by one and their nodes are scheduled at once, so the first
requests go out while later files are still being read: every L1 is runnable immediately,
an L2 starts when its L1s finish, an L3 when its inputs finish. Backends enforce their own
rate limits; the graph only expresses dependencies.

Each finished node is recorded in the node store immediately (crash-safe resume, incremental
reuse); each finished file's tree is written atomically and its manifest entry updated; the
index, metrics and git commit follow at the end.
"""

from __future__ import annotations

import datetime as dt
import logging
import os
import sys
import time
from collections import Counter
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from batchsum.config import RunConfig
from batchsum.errors import AbortRun, BatchsumError, InputError, SummarizationError
from batchsum.fastdc import fast_dataclass
from batchsum.model import (
    Backend,
    Document,
    FileRecord,
    NodeRecord,
    RunRecord,
    SummaryLevel,
    SummaryOutput,
    SummaryRequest,
)
from batchsum.state import ManifestEntry, StateStore, node_key
from batchsum.tree import node_path, read_node, soft_delete, summaries_dir, write_node
from batchsum.walk import Problem, SourceRef, discover, read_document

if TYPE_CHECKING:
    import asyncio

    from batchsum.plan import FilePlan, PlannedNode
    from batchsum.tokens import Tokenizer

log = logging.getLogger(__name__)

LLM_CACHE_DIR = "llm-cache"  # in the state folder
NODE_FORMAT = 1  # bump when node inputs/prompts change meaning, to invalidate stored nodes


@fast_dataclass
class NodeResult:
    """A node's output with the bookkeeping needed for the tree and metrics."""

    node: PlannedNode
    output: SummaryOutput
    key: str
    input_tokens: int
    output_tokens: int
    reused: bool


@fast_dataclass
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
    tokenizer: str = ""

    def summary_line(self) -> str:
        """One line: files by level, tokens in → out, ratio, failures, seconds."""
        r = self.run
        lv = ", ".join(f"{k} {v}" for k, v in sorted(self.levels.items()) if v)
        ratio = (r.output_tokens / r.input_tokens * 100) if r.input_tokens else 0.0
        parts = [
            f"{r.files_total} files ({lv or 'none'})",
            f"{r.files_done} summarized, {r.files_unchanged} unchanged",
        ]
        if r.files_deleted:
            parts.append(f"{r.files_deleted} deleted")
        parts += [
            f"tokens {r.input_tokens:,} → {r.output_tokens:,} ({ratio:.1f}%)",
            f"{r.files_failed + r.files_skipped} failed",
            f"{r.wall_ms / 1000:.1f}s",
        ]
        return "; ".join(parts)


def utc_now() -> str:
    """ISO 8601 UTC timestamp, seconds precision."""
    return dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def _config_signature(cfg: RunConfig, backend_name: str, backend_model: str | None) -> str:
    t = cfg.thresholds
    return node_key(
        NODE_FORMAT,
        backend_name,
        backend_model,
        cfg.encoding,
        [t.none, t.brief, t.standard, t.detailed],
        cfg.chunk_size,
        cfg.chunk_overlap,
        cfg.group_size,
        cfg.content_type,
    )[:16]


def _make_backend(cfg: RunConfig, tokenizer: Tokenizer) -> tuple[Backend, Backend]:
    """(backend, extractive fallback)."""
    from batchsum.backends.extractive import ExtractiveBackend

    extractive = ExtractiveBackend(tokenizer)
    if not cfg.llm.enabled:
        return extractive, extractive
    from batchsum.backends.llm import LLMBackend

    llm = LLMBackend(
        cfg.llm,
        tokenizer=tokenizer,
        fallback=extractive,
        cache_dir=(cfg.state_dir / LLM_CACHE_DIR) if cfg.llm.cache else None,
    )
    return llm, extractive


def _show_progress(cfg: RunConfig) -> bool:
    if cfg.quiet:
        return False
    if cfg.progress is not None:
        return cfg.progress
    return sys.stderr.isatty()


class _Runner:
    def __init__(self, cfg: RunConfig, *, dry_run: bool = False) -> None:
        self.cfg = cfg
        self.dry_run = dry_run
        self._tokenizer: Tokenizer | None = None
        self._backends: tuple[Backend, Backend] | None = None
        self.backend_name = "llm" if cfg.llm.enabled else "extractive"
        self.backend_model = cfg.llm.model if cfg.llm.enabled else None
        self.run_id = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%SZ") + "-" + os.urandom(3).hex()
        self.stamp = self.run_id.split("-")[0]
        self.started = utc_now()
        self.t0 = time.perf_counter()
        self.state = StateStore(cfg.state_dir)
        self._out_str = str(cfg.out)
        self.files: list[FileRecord] = []
        self.nodes: list[NodeRecord] = []
        self.problems: list[Problem] = []
        self.levels: Counter[str] = Counter()
        self.warnings: list[str] = []
        self.aborted: AbortRun | None = None
        self.changed: list[str] = []  # relpaths whose trees were written (to index)
        self.roots: dict[str, Path] = {}
        self.deleted: list[str] = []
        self.added = 0
        self.modified = 0
        self.events: Any = None
        self.bars: list[Any] = []

    # ------------------------------------------------------------------ helpers
    # The tokenizer and backends load on first use: an unchanged nightly re-run needs neither.
    @property
    def tokenizer(self) -> Tokenizer:
        if self._tokenizer is None:
            # Planning and tokenizing modules load with the tokenizer: a re-run with nothing to do needs neither.
            from batchsum.tokens import get_tokenizer

            self._tokenizer = get_tokenizer(self.cfg.encoding)
            if not self._tokenizer.exact:
                self.warnings.append(
                    f"tiktoken {self.cfg.encoding} unavailable offline; token counts are ~4 chars/token estimates"
                )
        return self._tokenizer

    @property
    def backend(self) -> Backend:
        if self._backends is None:
            self._backends = _make_backend(self.cfg, self.tokenizer)
        return self._backends[0]

    @property
    def fallback(self) -> Backend:
        if self._backends is None:
            self._backends = _make_backend(self.cfg, self.tokenizer)
        return self._backends[1]

    def event(self, name: str, **fields: Any) -> None:
        if self.events is not None:
            self.events.event(name, **fields)

    def _file_record(self, rel: str, **kw: Any) -> FileRecord:
        return FileRecord(run_id=self.run_id, relpath=rel, **kw)

    def _doc_record(self, doc: Document, **kw: Any) -> FileRecord:
        """A file record filled from what was read of ``doc``."""
        return self._file_record(
            doc.relpath, sha256=doc.sha256, bytes=doc.size, content_type=doc.content_type, input_tokens=doc.tokens, **kw
        )

    def _problem(self, path: str, reason: str, rel: str | None = None) -> None:
        self.problems.append(Problem(path, reason))
        self.event("file_skipped", path=path, reason=reason, level="warning")
        if rel is not None:
            self.files.append(self._file_record(rel, status="skipped", error=reason))

    # ------------------------------------------------------------------ entry
    def execute(self) -> RunResult:
        """The whole run under the output's lock (no lock for a dry run)."""
        from batchsum.lock import RunLock

        cfg = self.cfg
        if cfg.log_file is not None:
            from batchsum.events import EventLog

            self.events = EventLog(cfg.log_file, cfg.log_format)
            handler = self.events.handler()
            logging.getLogger("batchsum").addHandler(handler)
        try:
            if self.dry_run:
                return self._run_locked()
            cfg.state_dir.mkdir(parents=True, exist_ok=True)
            with RunLock(cfg.out, wait=cfg.wait_lock) as lock:
                if lock.stale:
                    self.event("stale_lock_taken_over", level="warning", previous=lock.stale)
                return self._run_locked()
        finally:
            if self.events is not None:
                logging.getLogger("batchsum").removeHandler(handler)
                self.events.close()

    def _run_locked(self) -> RunResult:
        import gc

        # The synchronous part (walk, manifest, unchanged files, records) allocates a few objects per
        # file and no reference cycles: the cyclic collector only cost time there (~10 % of an
        # unchanged re-run of 1,253 files). It runs as usual during the task graph.
        self._gc = gc.isenabled()
        gc.disable()
        try:
            return self._run_walked()
        finally:
            if self._gc:
                gc.enable()

    def _run_walked(self) -> RunResult:
        cfg = self.cfg
        self.event("run_started", run_id=self.run_id, out=str(cfg.out))
        self.sig = _config_signature(cfg, self.backend_name, self.backend_model)
        if cfg.git and not self.dry_run:
            from batchsum.gitver import ensure_repo

            ensure_repo(cfg.out)
        walk = discover(
            cfg.paths,
            out=cfg.out,
            extra_ignore=cfg.ignore,
            corpus_ignores=cfg.corpus_ignores,
            type_overrides=cfg.type_overrides,
        )
        for p in walk.problems:
            self._problem(p.path, p.reason)
        manifest = self.state.load_manifest()
        self.manifest = manifest
        seen = {r.relpath for r in walk.refs}
        roots = {str(r) for r in walk.roots}
        self.plans: list[FilePlan] = []
        show = _show_progress(cfg) and not self.dry_run
        self._init_bars(show, len(walk.refs))
        try:
            for rel, entry in sorted(manifest.items()):
                if entry.root in roots and rel not in seen:
                    self._delete(entry)
            # Trees written by an earlier run that crashed before indexing are re-indexed now.
            self.changed.extend(rel for rel, e in sorted(manifest.items()) if not e.indexed and rel in seen)
            # Files whose size and mtime match the manifest are settled here, without an event
            # loop: an unchanged nightly re-run never starts one.
            todo = [ref for ref in walk.refs if not self._settled(ref)]
            if todo:
                import asyncio
                import gc

                if self._gc:
                    gc.enable()
                try:
                    asyncio.run(self._schedule(todo))
                finally:
                    gc.disable()
        finally:
            self._close_bars()
        return self._finish()

    def _settled(self, ref: SourceRef) -> bool:
        """True (and recorded as unchanged) when the file's stat matches its manifest entry."""
        rel = ref.relpath
        self.roots[rel] = ref.root  # the corpus root as given, for deletion detection next time
        entry = self.manifest.get(rel)
        if entry is None or entry.config_sig != self.sig:
            return False
        try:
            st = os.stat(ref.fspath)
        except OSError:
            return False  # _prepare reports why
        if entry.size == st.st_size and entry.mtime_ns == st.st_mtime_ns and self._tree_intact(entry):
            self._unchanged(entry)
            return True
        return False

    async def _schedule(self, refs: list[SourceRef]) -> None:
        """Prepare files one by one and put each one's nodes into the graph at once."""
        import asyncio

        try:
            tasks: list[asyncio.Task[None]] = []
            for ref in refs:
                if self.aborted:
                    break
                if self.cfg.llm.enabled and not self.dry_run:
                    # Reading and tokenizing happen off the event loop so requests already scheduled
                    # keep flowing while the next file is prepared.
                    plan = await asyncio.to_thread(self._prepare, ref)
                else:
                    plan = self._prepare(ref)
                if plan is not None and not self.dry_run:
                    tasks.append(asyncio.create_task(self._process(plan)))
                    await asyncio.sleep(0)  # let the new file's L1s start before reading the next file
            if tasks:
                await self._wait_all(tasks)
        finally:
            if self._backends is not None:
                await self._backends[0].aclose()

    async def _wait_all(self, tasks: list[asyncio.Task[None]]) -> None:
        import asyncio

        pending = set(tasks)
        while pending:
            done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_EXCEPTION)
            for t in done:
                exc = t.exception()
                if isinstance(exc, AbortRun):
                    self.aborted = exc
                elif exc is not None:
                    raise exc
            if self.aborted:
                for t in pending:
                    t.cancel()
                await asyncio.gather(*pending, return_exceptions=True)
                return

    # ------------------------------------------------------------------ per file
    def _prepare(self, ref: SourceRef) -> FilePlan | None:
        """Read, tokenize and plan a file whose stat differs from its manifest entry (see ``_settled``);
        a file that was only touched is recorded as unchanged."""
        rel = ref.relpath
        entry = self.manifest.get(rel)
        try:
            ref.path.stat()
        except OSError as exc:
            reason = "broken symlink" if ref.path.is_symlink() else f"cannot stat: {exc.strerror or exc}"
            if exc.errno == 40:
                reason = "symlink loop"
            self._problem(str(ref.path), reason, rel)
            self._tick_file()
            return None
        try:
            doc = read_document(ref, self.cfg.content_type)
        except InputError as exc:
            self._problem(exc.path, exc.reason, rel)
            self._tick_file()
            return None
        if doc.decode_note and doc.decode_note.startswith("lossy"):
            self.warnings.append(f"{ref.path}: {doc.decode_note}")
            self.event("decode_lossy", path=str(ref.path), note=doc.decode_note, level="warning")
        if (
            entry is not None
            and entry.sha256 == doc.sha256
            and entry.config_sig == self.sig
            and self._tree_intact(entry)
        ):
            # Touched but not changed: remember the new stat so the next run skips reading it.
            entry.size, entry.mtime_ns = doc.size, doc.mtime_ns
            if not self.dry_run:
                self.state.save_entry(entry)
            self._unchanged(entry)
            return None
        starts = self.tokenizer.token_starts(doc.text) if doc.text.strip() else []
        from batchsum.plan import plan_file

        plan = plan_file(doc, starts, self.cfg, self.tokenizer)
        self._attach_prior(plan, entry)
        self.plans.append(plan)
        if self._node_bar is not None:
            self._node_bar.total += len(plan.nodes)
            self._node_bar.refresh()
        return plan if not self.dry_run else None

    def _tree_intact(self, entry: ManifestEntry) -> bool:
        if entry.level == SummaryLevel.NONE.value:
            return True
        # Plain strings: this runs once per file on every re-run (layout of tree.node_path).
        return os.path.exists(f"{self._out_str}/{entry.relpath}/summaries/L3/final.md")

    def _entry_record(self, entry: ManifestEntry, status: str) -> FileRecord:
        """A file record filled from what the manifest knows of a file this run did not read."""
        return self._file_record(
            entry.relpath,
            sha256=entry.sha256,
            bytes=entry.size,
            content_type=entry.content_type,
            level=entry.level,
            input_tokens=entry.tokens,
            status=status,
        )

    def _unchanged(self, entry: ManifestEntry) -> None:
        self.levels[entry.level] += 1
        rec = self._entry_record(entry, "unchanged")
        if entry.final_id is not None:  # an unchanged file keeps the output size of its existing final
            rec.output_tokens = entry.final_tokens or self._final_tokens(entry.relpath)
            rec.compression_ratio = min(1.0, rec.output_tokens / rec.input_tokens) if rec.input_tokens else 0.0
        self.files.append(rec)
        self._tick_file()

    def _attach_prior(self, plan: FilePlan, entry: ManifestEntry | None) -> None:
        """Rolling chain: build the new final on the previous one, up to the depth cap."""
        if entry is None or entry.final_id is None or plan.final_id is None:
            return
        if plan.level is SummaryLevel.BRIEF:
            return
        depth = entry.depth + 1
        if depth > self.cfg.max_chain_depth:
            self.event("chain_reset", relpath=plan.doc.relpath, depth=entry.depth)
            return  # fresh summary from source to stop drift
        try:
            _, body = read_node(node_path(self.cfg.out, entry.relpath, 3, None))
        except (OSError, ValueError):
            return
        body = body.split("\n\n## ", 1)[0].strip()  # drop the facets section
        if not body:
            return
        plan.prior_context = body
        plan.depth = depth
        plan.parent_id = entry.final_key

    async def _process(self, plan: FilePlan) -> None:
        import asyncio

        t0 = time.perf_counter()
        doc = plan.doc
        rel = doc.relpath
        tasks: dict[str, asyncio.Task[NodeResult]] = {}
        heights = _heights(plan)
        for node in plan.nodes:
            tasks[node.node_id] = asyncio.create_task(self._node(plan, node, tasks, heights[node.node_id]))
        try:
            results = await asyncio.gather(*tasks.values())
        except AbortRun:
            for t in tasks.values():
                t.cancel()
            await asyncio.gather(*tasks.values(), return_exceptions=True)
            raise
        except (SummarizationError, BatchsumError, OSError) as exc:
            for t in tasks.values():
                t.cancel()
            await asyncio.gather(*tasks.values(), return_exceptions=True)
            reason = str(exc)
            self.problems.append(Problem(str(doc.path), f"summarization failed: {reason}"))
            self.files.append(
                self._doc_record(
                    doc,
                    level=doc.level.value,
                    status="failed",
                    error=reason,
                    wall_ms=(time.perf_counter() - t0) * 1000,
                )
            )
            self.event("file_failed", relpath=rel, error=reason, level="error")
            self._tick_file()
            return
        self._commit_file(plan, list(results), (time.perf_counter() - t0) * 1000)

    def node_key(
        self,
        kind: str,
        content_type: str,
        text: str,
        node: PlannedNode,
        max_tokens: int,
        prior: str | None,
        facets: bool,
    ) -> str:
        """Hash of everything that determines a node's output. Leaves the chunk count out on purpose:
        appending a chunk must not invalidate the summaries of the chunks before it."""
        return node_key(
            NODE_FORMAT,
            self.backend.name,
            self.backend.model,
            getattr(self.backend, "version", None),
            kind,
            content_type,
            text,
            node.target_tokens,
            max_tokens,
            node.index if node.level == 1 else None,
            prior,
            facets,
        )

    async def _node(
        self, plan: FilePlan, node: PlannedNode, tasks: dict[str, asyncio.Task[NodeResult]], height: int = 1
    ) -> NodeResult:
        doc = plan.doc
        parts: list[str] = []
        if node.inputs:
            children = [await tasks[c] for c in node.inputs]
            parts = [c.output.text for c in children if c.output.text.strip()]
            text = "\n\n".join(parts)
            input_tokens = sum(c.output_tokens for c in children)
        else:
            text = node.text or ""
            input_tokens = node.source_tokens
        kind = node.kind
        prior = None
        if node.level == 3 and plan.prior_context:
            prior = plan.prior_context
            if kind == "meta":
                kind = "rolling"
            elif kind == "brief":
                prior = None
        from batchsum.plan import leaf_max_tokens

        max_tokens = leaf_max_tokens(max(input_tokens, 2), node.target_tokens)
        llm = self.cfg.llm
        facets = (
            node.level == 3
            and llm.enabled
            and (llm.facets is True or (llm.facets is None and doc.content_type == "conversation"))
        )
        key = self.node_key(kind, doc.content_type, text, node, max_tokens, prior, facets)
        stored = self.state.get_node(key)
        if stored is not None:
            out, reused = stored, True
        else:
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
            )
            out = await self.backend.summarize(request)
            if not out.text.strip() and text.strip():
                # A backend returning nothing must not silently empty a node: fall back.
                out = await self.fallback.summarize(request)
                out.backend = f"{self.fallback.name} (fallback)"
                out.error = "empty output"
            if len(plan.nodes) > 1:
                # A single-node file is redone whenever it changes and its tree is written at once;
                # only multi-node trees gain from per-node records (resume, incremental reuse).
                self.state.put_node(key, out)
            reused = False
        if self._node_bar is not None:
            self._node_bar.update(1)
        return NodeResult(node, out, key, input_tokens, self.tokenizer.count(out.text), reused)

    # ------------------------------------------------------------------ tree + records
    def _commit_file(self, plan: FilePlan, results: list[NodeResult], wall_ms: float) -> None:
        cfg = self.cfg
        doc = plan.doc
        rel = doc.relpath
        created = utc_now()
        written: set[Path] = set()
        final_out = 0
        final_key: str | None = None
        for res in results:
            node = res.node
            path = node_path(cfg.out, rel, node.level, node.index)
            written.add(path)
            meta = self._front_matter(plan, res, created)
            if node.level == 3:
                final_out = res.output_tokens
                final_key = res.key
            if path.exists():
                try:
                    old_meta, _ = read_node(path)
                except (OSError, ValueError):
                    old_meta = {}
                if old_meta.get("node_key") == res.key and old_meta.get("source_sha256") == doc.sha256:
                    continue  # identical node already on disk: keep its file (and created_at)
                if node.level == 3:
                    hist = summaries_dir(cfg.out, rel) / "history" / f"{self.stamp}.md"
                    hist.parent.mkdir(parents=True, exist_ok=True)
                    import shutil

                    shutil.copy2(path, hist)
            write_node(path, meta, self._body(res))
        # Nodes of the previous tree that no longer exist are moved to deleted/, not destroyed.
        sdir = summaries_dir(cfg.out, rel)
        stale = (
            [p for lvl in ("L1", "L2", "L3") for p in sorted((sdir / lvl).glob("*.md")) if p not in written]
            if sdir.is_dir()
            else []
        )
        if stale:
            soft_delete(cfg.out, rel, stale, self.stamp)
        existed = rel in self.manifest
        if existed:
            self.modified += 1
        else:
            self.added += 1
        entry = ManifestEntry(
            relpath=rel,
            root=str(self.roots[rel]),
            size=doc.size,
            mtime_ns=doc.mtime_ns,
            sha256=doc.sha256,
            content_type=doc.content_type,
            level=plan.level.value,
            tokens=doc.tokens,
            doc_date=doc.doc_date,
            chunks=len(plan.chunks),
            node_ids=[r.node.node_id for r in results],
            node_keys={r.node.node_id: r.key for r in results},
            final_id=plan.final_id,
            final_key=final_key,
            depth=plan.depth if plan.prior_context else 0,
            parent_id=plan.parent_id if plan.prior_context else None,
            indexed=False,
            updated_at=created,
            config_sig=self.sig,
            final_tokens=final_out,
        )
        self.state.save_entry(entry)
        self.manifest[rel] = entry
        if plan.final_id is not None or existed:
            self.changed.append(rel)
        self.levels[plan.level.value] += 1
        recs = [self._node_record(plan, r) for r in results]
        self.nodes.extend(recs)
        computed = [r for r in results if not r.reused]
        self.files.append(
            self._doc_record(
                doc,
                level=plan.level.value,
                output_tokens=final_out,
                compression_ratio=min(1.0, final_out / doc.tokens) if doc.tokens else 0.0,
                chunks=len(plan.chunks),
                nodes=len(results),
                llm_calls=sum(n.llm_calls for n in recs),
                prompt_tokens=sum(n.prompt_tokens for n in recs),
                completion_tokens=sum(n.completion_tokens for n in recs),
                wall_ms=wall_ms,
                status="done",
                fallback_nodes=sum(1 for r in results if "fallback" in r.output.backend),
                nodes_recomputed=len(computed),
            )
        )
        self.event(
            "file_done",
            relpath=rel,
            summary_level=plan.level.value,
            content_type=doc.content_type,
            input_tokens=doc.tokens,
            output_tokens=final_out,
            nodes=len(results),
            recomputed=len(computed),
        )
        self._tick_file()

    def _front_matter(self, plan: FilePlan, res: NodeResult, created: str) -> dict[str, Any]:
        doc = plan.doc
        node = res.node
        out = res.output
        meta: dict[str, Any] = {
            "id": node.node_id,
            "doc_id": doc.doc_id,
            "source_path": doc.relpath,
            "source_sha256": doc.sha256,
            "role": "summary",
            "level": node.level,
        }
        if node.level == 1:
            meta["chunk_index"] = node.index
            if node.parent_group is not None:
                meta["parent_group"] = node.parent_group
            if node.chunk is not None:
                meta["source_span"] = [node.chunk.start, node.chunk.end]
        elif node.level == 2:
            meta["group_index"] = node.index
        meta["is_final"] = node.level == 3
        meta["summary_level"] = plan.level.value
        meta["input_tokens"] = res.input_tokens
        meta["output_tokens"] = res.output_tokens
        meta["compression_ratio"] = (
            round(min(1.0, res.output_tokens / res.input_tokens), 4) if res.input_tokens else 0.0
        )
        if node.level == 3:
            meta["source_tokens"] = doc.tokens
            meta["source_compression_ratio"] = round(min(1.0, res.output_tokens / doc.tokens), 4) if doc.tokens else 0.0
        meta["content_type"] = doc.content_type
        meta["content_type_reason"] = doc.type_reason
        meta["backend"] = out.backend
        meta["model"] = out.model
        if out.error:
            meta["error"] = out.error[:500]
        if out.trimmed:
            meta["trimmed"] = True
        meta["created_at"] = created
        meta["doc_date"] = doc.doc_date
        meta["node_key"] = res.key
        if node.level == 3:
            meta["parent_id"] = plan.parent_id if plan.prior_context else None
            meta["depth"] = plan.depth if plan.prior_context else 0
            if doc.decode_note:
                meta["decode_note"] = doc.decode_note
            if out.facets:
                meta["facets"] = out.facets
        return meta

    @staticmethod
    def _body(res: NodeResult) -> str:
        text = res.output.text.strip()
        f = res.output.facets
        if not f:
            return text
        sections: list[str] = [text]

        def bullets(title: str, items: list[Any]) -> None:
            if items:
                sections.append(f"## {title}\n" + "\n".join(f"- {i}" for i in items))

        bullets("Key points", list(f.get("key_points") or []))
        bullets("Decisions", list(f.get("decisions") or []))
        actions = []
        for a in f.get("action_items") or []:
            if isinstance(a, dict):
                owner = a.get("owner") or "unassigned"
                due = f" (due {a['due']})" if a.get("due") else ""
                actions.append(f"{owner}: {a.get('task', '')}{due}")
        bullets("Action items", actions)
        bullets("Unresolved", list(f.get("unresolved") or []))
        bullets("Entities", list(f.get("entities") or []))
        return "\n\n".join(sections)

    def _node_record(self, plan: FilePlan, res: NodeResult) -> NodeRecord:
        node = res.node
        parent: str | None = None
        if node.level == 1:
            parent = (
                f"{plan.doc.doc_id}:summary:L2:{node.parent_group}" if node.parent_group is not None else plan.final_id
            )
        elif node.level == 2:
            parent = plan.final_id
        out = res.output
        sent = not res.reused and out.llm_calls > 0
        return NodeRecord(
            run_id=self.run_id,
            relpath=plan.doc.relpath,
            node_id=node.node_id,
            level=f"L{node.level}",
            index=node.index,
            parent=parent,
            input_tokens=res.input_tokens,
            output_tokens=res.output_tokens,
            compression_ratio=min(1.0, res.output_tokens / res.input_tokens) if res.input_tokens else 0.0,
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

    def _delete(self, entry: ManifestEntry) -> None:
        """Soft-delete the tree of a source that disappeared."""
        rel = entry.relpath
        if not self.dry_run:
            sdir = summaries_dir(self.cfg.out, rel)
            if sdir.exists():
                dest = self.cfg.out / rel / "deleted" / self.stamp / "summaries"
                dest.parent.mkdir(parents=True, exist_ok=True)
                import shutil

                shutil.move(str(sdir), str(dest))
            self.state.remove_entry(rel)
        self.deleted.append(rel)
        self.files.append(self._entry_record(entry, "deleted"))
        self.event("file_deleted", relpath=rel)

    # ------------------------------------------------------------------ end of run
    def _collect_garbage(self) -> None:
        from batchsum.state import NODE_GRACE_DAYS, prune_store

        cutoff = time.time() - NODE_GRACE_DAYS * 86400
        try:
            removed = self.state.collect_garbage(cutoff)
            # LLM responses outlive their use once the node records exist; past the grace period an
            # entry only helps a config change that keeps the prompt, which is rare.
            responses = prune_store(self.cfg.state_dir / LLM_CACHE_DIR, cutoff)
        except OSError as exc:  # housekeeping: never fails a run
            log.warning("could not clean old records in %s: %s", self.cfg.state_dir, exc)
            return
        if removed or responses:
            self.event("nodes_collected", removed=removed, responses_removed=responses, grace_days=NODE_GRACE_DAYS)

    def _finish(self) -> RunResult:
        cfg = self.cfg
        if not self.dry_run:
            # One flush for the whole run's trees and manifest (power-cut durability) instead of per file.
            if self.plans or self.state.writes:
                os.sync()
            self._sync_index()
            self.state.write_snapshot()
        files = self.files
        status_counts = Counter(f.status for f in files)
        done = [f for f in files if f.status == "done"]
        live = [f for f in files if f.status in ("done", "unchanged")]
        out_tokens = sum(f.output_tokens for f in live)
        failed = status_counts["failed"]
        computed = [n for n in self.nodes if not n.reused]
        status = "aborted" if self.aborted else ("partial" if failed or self.problems else "ok")
        run = RunRecord(
            run_id=self.run_id,
            started_at=self.started,
            finished_at=utc_now(),
            command=_scrub_command(cfg.command_line),
            backend=self.backend_name,
            model=self.backend_model,
            status=status,
            out_dir=str(cfg.out),
            files_total=len(live) + failed + status_counts["skipped"],
            files_done=len(done),
            files_unchanged=status_counts["unchanged"],
            files_failed=failed,
            files_skipped=status_counts["skipped"],
            files_deleted=status_counts["deleted"],
            input_tokens=sum(f.input_tokens for f in live),
            output_tokens=out_tokens,
            llm_calls=sum(n.llm_calls for n in computed),
            cache_hits=sum(1 for n in self.nodes if n.cache_hit),
            prompt_tokens=sum(n.prompt_tokens for n in computed),
            completion_tokens=sum(n.completion_tokens for n in computed),
            nodes_computed=len(computed),
            nodes_reused=len(self.nodes) - len(computed),
            wall_ms=(time.perf_counter() - self.t0) * 1000,
        )
        if not self.dry_run:
            self._record_metrics(run)
            if (self.plans or self.state.writes) and not self.aborted:
                self._collect_garbage()
            if cfg.git:
                from batchsum.gitver import commit_run

                commit_run(
                    cfg.out, added=self.added, changed=self.modified, deleted=len(self.deleted), run_id=self.run_id
                )
        exit_code = 1 if (self.aborted or failed or self.problems or self._index_failed) else 0
        self.event("run_finished", run_id=self.run_id, status=status, exit_code=exit_code, wall_ms=run.wall_ms)
        return RunResult(
            run=run,
            files=files,
            nodes=self.nodes,
            problems=self.problems,
            levels=self.levels,
            exit_code=exit_code,
            out=cfg.out,
            warnings=self.warnings,
            tokenizer=self._tokenizer.name if self._tokenizer is not None else "",
        )

    _index_failed = False

    def _final_tokens(self, rel: str) -> int:
        try:
            meta, _ = read_node(node_path(self.cfg.out, rel, 3, None))
            return int(meta.get("output_tokens") or 0)
        except (OSError, ValueError):
            return 0

    def _sync_index(self) -> None:
        cfg = self.cfg
        if not cfg.index:
            return
        if not self.changed and not self.deleted:
            # index: a quiet run still repairs an interrupted, partial or outdated index (a few stats).
            from batchsum.index.state import index_needs_work

            if index_needs_work(cfg) is None:
                return
        changed = sorted(set(self.changed))
        try:
            from batchsum.index import sync_index

            sync_index(cfg, changed, sorted(set(self.deleted)))
        except Exception as exc:
            self._index_failed = True
            msg = f"search index not updated ({exc}); it will be repaired by the next run or `batchsum index {cfg.out}`"
            self.warnings.append(msg)
            self.event("index_failed", error=str(exc), level="error")
            return
        for rel in changed:
            e = self.manifest.get(rel)
            if e is not None and not e.indexed:
                e.indexed = True
                self.state.save_entry(e)

    def _record_metrics(self, run: RunRecord) -> None:
        if not self.cfg.metrics:
            return
        try:
            from batchsum.metrics.store import MetricsStore, defer_run

            parquet = self.cfg.state_dir / "parquet"
            # A run that changed nothing skips DuckDB (~0.3 s to start): its rows wait as JSON
            # that reports read and the next recording run folds into the database.
            quiet = not self.nodes and all(f.status in ("unchanged", "skipped") for f in self.files)
            if quiet and defer_run(parquet, run, self.files, self.nodes):
                return
            MetricsStore(self.cfg.metrics_path, parquet).record_run(run, self.files, self.nodes)
        except BatchsumError as exc:
            self.warnings.append(f"metrics not recorded: {exc}")
        except Exception as exc:
            self.warnings.append(f"metrics not recorded: {exc}")

    # ------------------------------------------------------------------ progress
    _file_bar: Any = None
    _node_bar: Any = None

    def _init_bars(self, show: bool, n_files: int) -> None:
        if not show:
            return
        from tqdm import tqdm

        self._file_bar = tqdm(total=n_files, unit="file", desc="files", position=0, leave=False)
        self._node_bar = tqdm(total=0, unit="node", desc="summaries", position=1, leave=False)

    def _tick_file(self) -> None:
        if self._file_bar is not None:
            self._file_bar.update(1)

    def _close_bars(self) -> None:
        for bar in (self._file_bar, self._node_bar):
            if bar is not None:
                bar.close()


def _heights(plan: FilePlan) -> dict[str, int]:
    """Per node: how many nodes the chain from it to the file's final holds (the final: 1)."""
    parent = {child: n.node_id for n in plan.nodes for child in n.inputs}
    heights: dict[str, int] = {}
    for n in reversed(plan.nodes):  # dependency order reversed: parents come first
        up = parent.get(n.node_id)
        heights[n.node_id] = 1 + (heights[up] if up is not None else 0)
    return heights


def _scrub_command(cmd: str) -> str:
    from batchsum.events import scrub_text

    parts = cmd.split()
    out: list[str] = []
    hide = False
    for p in parts:
        if hide:
            out.append("***")
            hide = False
            continue
        if p in ("--api-key", "--api_key"):
            hide = True
            out.append(p)
            continue
        if p.startswith("--api-key="):
            out.append("--api-key=***")
            continue
        out.append(p)
    return scrub_text(" ".join(out))


def run(cfg: RunConfig) -> RunResult:
    """Run batchsum over ``cfg.paths``; return what was done. Never raises for a single bad file."""
    return _Runner(cfg).execute()


@fast_dataclass
class PlanSummary:
    """What a run would do now (``batchsum plan``)."""

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


def plan_run(cfg: RunConfig) -> PlanSummary:
    """Dry run: what ``run`` would do now, without writing anything."""
    runner = _Runner(cfg, dry_run=True)
    result = runner.execute()
    summary = PlanSummary(backend=runner.backend_name, problems=result.problems)
    summary.deleted = list(runner.deleted)
    summary.unchanged = [f.relpath for f in result.files if f.status == "unchanged"]
    for plan in runner.plans:
        rel = plan.doc.relpath
        (summary.changed if rel in runner.manifest else summary.new).append(rel)
        summary.levels[plan.level.value] += 1
        summary.chunks += len(plan.chunks)
        summary.nodes += len(plan.nodes)
        summary.input_tokens += plan.doc.tokens
        summary.est_output_tokens += sum(n.target_tokens for n in plan.nodes)
        for n in plan.nodes:
            if n.inputs:
                continue
            # Leaves' keys are known before running; stored ones cost nothing.
            from batchsum.plan import leaf_max_tokens

            max_tokens = leaf_max_tokens(max(n.source_tokens, 2), n.target_tokens)
            key = runner.node_key(n.kind, plan.doc.content_type, n.text or "", n, max_tokens, None, False)
            if runner.state.get_node(key) is not None:
                summary.nodes_stored += 1
    if cfg.llm.enabled:
        summary.llm_calls = summary.nodes - summary.nodes_stored
    if cfg.price_per_1k is not None:
        summary.est_cost = round((summary.input_tokens + summary.est_output_tokens) / 1000 * cfg.price_per_1k, 4)
    return summary
