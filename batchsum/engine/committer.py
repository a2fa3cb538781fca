"""What a run makes durable: the node store, each file's tree and manifest entry, soft deletes, and
the end-of-run flush, snapshot and index page.

The committer owns the output's :class:`~batchsum.state.StateStore` and the run's view of the
manifest. Every executor commits through it, one file at a time, so a run killed at any point leaves
either a file's old tree and entry or its new ones.
"""

from __future__ import annotations

import datetime as dt
import itertools
import os
import re
import shutil
import threading
from collections.abc import Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from batchsum.config import RunConfig
from batchsum.digest_pages import entry_words
from batchsum.digest_state import Final, final_of, index_view, period_id
from batchsum.engine.changes import (
    Known,
    config_signature,
    known_content,
    own_signatures,
    place_changed,
    record_place,
    recorded_places,
)
from batchsum.engine.records import NodeResult, utc_now
from batchsum.model import Document, SummaryOutput, level_and_index_of
from batchsum.navigation import IndexRow, index_names, index_path, md_link, write_index
from batchsum.state import ManifestEntry, StateStore
from batchsum.summary_files import write_node_file, write_tree
from batchsum.tree import (
    LINKS_MARKER,
    TreeNode,
    atomic_write_text,
    flush_to_disk,
    node_path,
    soft_delete_tree,
    summaries_dir,
)
from batchsum.walk import READER_VERSION, SourceRef

if TYPE_CHECKING:
    from batchsum.planning import FilePlan  # a type only: planning loads the tokenizer's modules


def new_run_id() -> str:
    """A sortable, unique id: the UTC start time and three random bytes."""
    return dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%SZ") + "-" + os.urandom(3).hex()


@dataclass
class Committed:
    """A file's commit: its manifest entry, the tree nodes written, and whether it was known before."""

    entry: ManifestEntry
    live: list[TreeNode]
    existed: bool


class Committer:
    """The run's writes to the output folder and its state store."""

    def __init__(self, cfg: RunConfig, run_id: str) -> None:
        self.cfg = cfg
        self.out = cfg.out
        self.stamp = run_id.split("-")[0]  # names history and deleted/ folders
        self.sig = config_signature(cfg)
        self.state = StateStore(cfg.state_dir)
        self.manifest: dict[str, ManifestEntry] = self.state.load_manifest()
        # Recorded once as a commit records them now, so the folder's next word cap re-plans only the files it
        # shapes: an unchanged file is never committed again to get its own signature otherwise.
        for entry in own_signatures(self.manifest, self.sig):
            self.state.save_entry(entry)
            self.manifest[entry.relpath] = entry
        self.roots: dict[str, str] = {}  # relpath -> corpus root it was found under
        self.names: dict[str, str] = {}  # corpus root -> its name in the relpaths ("" when the only one)
        self.writer: ThreadPoolExecutor | None = None  # see start_writer
        self._pending: dict[str, SummaryOutput] = {}  # node records handed to the writer, not yet on disk
        self._failed: dict[str, OSError] = {}  # node records (or early node files) the writer could not write
        # Per file: the nodes of its new tree written as they finished, by node id (None: its tree
        # existed before this run, so its nodes wait for the commit, which settles the old files).
        self._early: dict[str, dict[str, TreeNode] | None] = {}
        # The finals this run wrote, as the digests take them: they are made after the files and would
        # otherwise parse each final's file back, most of their time on a first run (make bench).
        self.finals: dict[str, Final] = {}
        self._flushing: Future[None] | None = None  # see start_flush
        self.places = recorded_places(cfg)  # the output folder moved: touched files' links are rewritten too

    def start_writer(self) -> None:
        """From now on node records and file commits are written by one background thread, in order."""
        if self.writer is None:
            self.writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="batchsum-writer")

    def stop_writer(self) -> None:
        """Wait for every write handed to the writer thread, then end it. The node files of new trees
        whose file was never committed (a run that stopped) are removed: no tree without its entry."""
        writer, self.writer = self.writer, None
        if writer is not None:
            writer.shutdown(wait=True)
        for rel in list(self._early):
            self._discard(rel)

    def write_node_later(self, plan: FilePlan, result: NodeResult) -> None:
        """Write a finished node's file now (on the writer thread) when its file's tree is new."""
        assert self.writer is not None, "start_writer first"
        self.writer.submit(self._write_early, plan, result)

    def discard_later(self, plan: FilePlan) -> None:
        """A file failed: remove the node files of its new tree written so far (on the writer thread)."""
        if self.writer is not None:
            self.writer.submit(self._discard, plan.doc.relpath)

    def _write_early(self, plan: FilePlan, result: NodeResult) -> None:
        rel = plan.doc.relpath
        if rel not in self._early:
            self._early[rel] = None if summaries_dir(self.out, rel).is_dir() else {}
        nodes = self._early[rel]
        if nodes is None:
            return
        try:
            nodes[result.node.node_id] = write_node_file(self.out, plan, result, utc_now())
        except OSError as exc:  # the file fails when it is committed, as if its tree failed then
            self._failed[result.key] = exc

    def _discard(self, rel: str) -> None:
        if not self._early.pop(rel, None):
            return
        folder = summaries_dir(self.out, rel)
        shutil.rmtree(folder, ignore_errors=True)
        for parent in folder.parents:  # the folders made for it, when nothing else is in them
            if parent == self.out or self.out not in parent.parents:
                break
            try:
                parent.rmdir()
            except OSError:
                break

    def commit_later(self, plan: FilePlan, results: list[NodeResult]) -> Future[Committed]:
        """:meth:`commit_file` on the writer thread (after the node records handed to it before)."""
        assert self.writer is not None, "start_writer first"
        return self.writer.submit(self.commit_file, plan, results)

    # ------------------------------------------------------------------ reading
    def known(self, ref: SourceRef) -> Known | None:
        """What ``ref`` must still be to count as only touched since its summaries were made, if anything."""
        return known_content(self.manifest.get(ref.relpath), self.sig, self.out)

    def stored(self, key: str) -> SummaryOutput | None:
        """A node output recorded by an earlier run (resume, incremental reuse), or by this one."""
        pending = self._pending.get(key)
        return pending if pending is not None else self.state.get_node(key)

    @property
    def wrote(self) -> bool:
        """Whether this run changed the manifest."""
        return bool(self.state.writes)

    # ------------------------------------------------------------------ writing
    def store_node(self, key: str, output: SummaryOutput) -> None:
        """Record a computed node at once (next on the writer thread, if any), so a killed run resumes from it."""
        if self.writer is None:
            self.state.put_node(key, output)
            return
        self._pending[key] = output
        self.writer.submit(self._put, key, output)

    def _put(self, key: str, output: SummaryOutput) -> None:
        try:
            self.state.put_node(key, output)
        except OSError as exc:  # the file whose node this is fails when it is committed
            self._failed[key] = exc
        finally:
            self._pending.pop(key, None)

    def touched(self, entry: ManifestEntry, doc: Document) -> bool:
        """Remember a touched (or re-read) file's new stat, bytes and reading so the next run skips reading
        it: its read text is the one its summaries were made from. Returns whether its bytes changed (its
        nodes then name the new hash, by which search finds the source's passages: index them again)."""
        resaved = entry.sha256 != doc.sha256
        entry.size, entry.mtime_ns, entry.sha256 = doc.size, doc.mtime_ns, doc.sha256
        entry.reader, entry.text_sha = READER_VERSION, doc.text_sha
        root = self.roots.get(entry.relpath, entry.root)
        moved = root != entry.root or place_changed(self.cfg, root, self.places)
        entry.root, entry.prefix = root, self.names.get(root, entry.prefix)
        if moved or resaved:
            self._rewrite_nodes(entry, doc.path if moved else None, doc.sha256 if resaved else None)
        self.state.save_entry(entry)
        return resaved

    def rehome(self, entry: ManifestEntry, root: str, source: Path) -> None:
        """An unchanged file found under another root (its folder moved or renamed, reached through a
        symlink): its entry records the root now, so a later deletion there is noticed, and its nodes'
        Source links point at ``source``. Only the link lines are rewritten: nothing is summarized again."""
        entry.root, entry.prefix = root, self.names.get(root, entry.prefix)
        self._rewrite_nodes(entry, source, None)
        self.state.save_entry(entry)

    def _rewrite_nodes(self, entry: ManifestEntry, source: Path | None, sha256: str | None) -> None:
        """Point the entry's node files at ``source`` (their Source link) and its bytes ``sha256`` (their
        front matter), each when given; the final's recorded stat follows our own rewrite."""
        for nid in entry.node_ids or ([entry.final_id] if entry.final_id else []):
            path = node_path(self.out, entry.relpath, *level_and_index_of(nid))
            try:
                _rewrite_node(path, source, sha256)
            except (OSError, ValueError):  # a damaged node file: the tree check redoes it on the next run
                continue
            if path.name == "final.md" and entry.final_stat:
                entry.final_stat = _final_stat(self.out, entry.relpath)  # not someone else's edit

    def commit_file(self, plan: FilePlan, results: list[NodeResult]) -> Committed:
        """Write a finished file's tree, then its manifest entry. Raises OSError when the tree cannot
        be written (a foreign file in the way, a full or read-only disk); nothing is recorded then."""
        doc = plan.doc
        rel = doc.relpath
        for r in results:
            if r.key in self._failed:
                raise self._failed[r.key]  # its record could not be written: nor, likely, its tree
        created = utc_now()
        live = write_tree(self.out, plan, results, self.stamp, created, self._early.pop(rel, None))
        final = next((r for r in results if r.node.level == 3), None)
        existed = rel in self.manifest
        chained = bool(plan.prior_context)
        entry = ManifestEntry(
            relpath=rel,
            root=self.roots[rel],
            prefix=self.names.get(self.roots[rel]),
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
            final_key=final.key if final is not None else None,
            depth=plan.depth if chained else 0,
            parent_id=plan.parent_id if chained else None,
            indexed=False,
            updated_at=created,
            config_sig=self.sig.of(plan.level.value),
            final_tokens=final.output_tokens if final is not None else 0,
            fallback_nodes=sum(1 for r in results if "fallback" in r.output.backend),
            final_stat=_final_stat(self.out, rel) if plan.final_id is not None else [],
            language=doc.language,
            reader=READER_VERSION,
            text_sha=doc.text_sha,
        )
        self.state.save_entry(entry)
        self.manifest[rel] = entry
        self.finals.pop(rel, None)
        if self.cfg.digests and final is not None:
            final_path = node_path(self.out, rel, 3, None)
            for node in live:
                if node.path == final_path:
                    self.finals[rel] = final_of(entry, node.meta, node.body)
        return Committed(entry, live, existed)

    def delete(self, entry: ManifestEntry) -> None:
        """Soft-delete the tree of a source that disappeared and forget its entry."""
        soft_delete_tree(self.out, entry.relpath, self.stamp)
        self.state.remove_entry(entry.relpath)
        self.manifest.pop(entry.relpath, None)  # the index page and the digests list live sources only
        self.finals.pop(entry.relpath, None)

    def mark_indexed(self, relpaths: list[str]) -> None:
        """These files' trees are in the search index."""
        self.state.mark_indexed(relpaths)
        for rel in relpaths:
            entry = self.manifest.get(rel)
            if entry is not None:
                entry.indexed = True

    # ------------------------------------------------------------------ end of run
    def flush(self) -> None:
        """One flush of the output's filesystem for the whole run's trees and manifest (or the end of the
        one :meth:`start_flush` began: what it raised is raised here)."""
        flushing, self._flushing = self._flushing, None
        if flushing is not None:
            flushing.result()
            return
        flush_to_disk(self.out)

    def start_flush(self) -> None:
        """Begin :meth:`flush` in a thread, once every tree and entry is written: what the run writes
        next (the digests, which a lost write only makes the next run redo) does not wait for the disk.
        A flush waits for every write of the filesystem, other programs' too: 20-470 ms of a first run
        on a busy machine (make bench timeline)."""
        flushing: Future[None] = Future()

        def run() -> None:
            try:
                flush_to_disk(self.out)
            except BaseException as exc:  # raised by flush(), in the run's own thread
                flushing.set_exception(exc)
            else:
                flushing.set_result(None)

        threading.Thread(target=run, name="batchsum-flush", daemon=True).start()
        self._flushing = flushing

    def write_snapshot(self) -> None:
        """The one-file manifest snapshot an unchanged re-run reads, and the place the links were written from."""
        self.state.write_snapshot()
        record_place(self.cfg, self.manifest, self.roots)

    def write_index_page(self, changed: bool, digests: Mapping[str, str] | None = None) -> str | None:
        """The root index.md, rewritten when the tree changed (or when it is missing); a warning when
        it cannot be written (a convenience page never fails a run whose trees are written).
        ``digests``: the digests this run wrote, by period id (their summaries are not read back)."""
        if not changed and index_path(self.out).exists():
            return None
        facts, pages = index_view(self.cfg, digests) if self.cfg.digests else ({}, {})
        rows = []
        for e in self.manifest.values():
            if e.final_id is None:
                continue
            f = facts.get(e.relpath)
            # A file's words as its digests write them: no dateline of its own, shown by the row's date.
            line, period = (
                (entry_words(f), period_id(f)) if f is not None and f.final_key == e.final_key else ("", None)
            )
            row = IndexRow(e.relpath, e.content_type, e.level, e.doc_date, e.tokens, e.final_tokens, line, period)
            rows.append(row)
        try:
            path = write_index(self.out, rows, pages or None)
        except OSError as exc:
            return f"index page not written: {exc}"
        # The names passed over for files batchsum did not write (a source's tree is no one's page).
        names = itertools.takewhile(lambda name: name != path.name, index_names())
        taken = [self.out / name for name in names if not (self.out / name).is_dir()]
        if taken:
            left = "left as it is" if len(taken) == 1 else "left as they are"
            named = ", ".join(map(str, taken))
            return f"{named}: not written by batchsum, {left}; the index page is {path} instead"
        return None


def _rewrite_node(path: Path, source: Path | None, sha256: str | None) -> None:
    """The node file at ``path`` with its Source link pointing at ``source`` and its front matter's
    ``source_sha256`` at ``sha256`` (each when given); written only when that changes it."""
    text = path.read_text(encoding="utf-8")
    new = text
    if sha256 is not None:
        head = new.find("\n---\n", 3)  # the front matter's end
        if head < 0:
            raise ValueError(f"{path}: unterminated front matter")
        new = _SHA_LINE.sub(lambda _: f"source_sha256: {sha256}", new[:head], count=1) + new[head:]
    cut = new.find(LINKS_MARKER)
    if source is not None and cut >= 0:
        line = f"Source: {md_link(source.name, os.path.relpath(source, path.parent))}"
        new = new[:cut] + _SOURCE_LINE.sub(lambda _: line, new[cut:], count=1)
    if new != text:
        atomic_write_text(path, new, durable=False)


_SHA_LINE = re.compile(r"^source_sha256: .*$", re.M)
_SOURCE_LINE = re.compile(r"^Source: .*$", re.M)


def _final_stat(out: Path, relpath: str) -> list[int]:
    """[size, mtime_ns] of a final as this run left it (see changes.tree_intact)."""
    try:
        st = node_path(out, relpath, 3, None).stat()
    except OSError:
        return []
    return [st.st_size, st.st_mtime_ns]
