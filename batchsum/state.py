"""Crash-safe run state in ``<out>/.batchsum/``.

* ``manifest/<sha1(relpath)>.json`` — one small file per source: what was summarized last
  (size, mtime, sha256, node ids and keys, chain depth, whether it reached the index).
  One file per source keeps every update atomic and O(1).
* ``manifest.json`` — all entries in one file, written at the end of a run that changed any,
  so an unchanged nightly re-run reads one file instead of one per source. It is removed
  before the first per-source write of a run, so a crash can leave it missing (the per-source
  files are read instead) but never stale.
* ``nodes/<kk>/<key>.json`` — the per-node completion record: a finished node's output keyed
  by a hash of everything that determines it. Written the moment a node finishes, so a killed
  run resumes without redoing (or re-paying for) finished nodes, and an edited file reuses
  the nodes of its unchanged chunks.

Every read goes through :mod:`batchsum.statefile`: a link or FIFO planted here reads as a missing
entry (that source is redone), never as another file's content or a hang.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from batchsum import jsonio, statefile
from batchsum.model import SummaryOutput
from batchsum.tree import atomic_write_bytes

MANIFEST_VERSION = 1
SNAPSHOT_NAME = "manifest.json"
NODE_GRACE_DAYS = 30  # unreferenced node records younger than this are kept (see collect_garbage)


@dataclass
class ManifestEntry:
    """What the last successful run did with one source file."""

    relpath: str
    root: str
    size: int
    mtime_ns: int
    sha256: str
    content_type: str
    level: str
    tokens: int
    doc_date: str | None
    chunks: int = 0
    node_ids: list[str] = field(default_factory=list)
    node_keys: dict[str, str] = field(default_factory=dict)
    final_id: str | None = None
    final_key: str | None = None
    depth: int = 0
    parent_id: str | None = None
    indexed: bool = False
    updated_at: str = ""
    config_sig: str = ""
    final_tokens: int = 0
    version: int = MANIFEST_VERSION
    # Nodes the configured LLM did not produce (extractive fallback): provisional, redone by the next run.
    fallback_nodes: int = 0
    # [size, mtime_ns] of the final as written: a different stat means someone else changed it.
    final_stat: list[int] = field(default_factory=list)
    # The language the file was read in: the metrics row of a run that does not read it again still names it.
    language: str | None = None
    # The reader version (walk.READER_VERSION) and hash of what the file was read as (its type, a date
    # from its name or text, its text); 0 and "" in entries of versions before either was recorded.
    reader: int = 0
    text_sha: str = ""
    # The name the walk put before the file's path under its root (walk_paths.root_names): "" when it walked
    # one root; None in entries from before it was recorded. What tells where the file is: see
    # engine.changes.source_path.
    prefix: str | None = None


_FIELDS = [f.name for f in fields(ManifestEntry)]


def _read_entry(path: Path) -> ManifestEntry | None:
    """One per-source manifest file, or None when it is unreadable (that source is then redone)."""
    try:
        return ManifestEntry(**jsonio.loads(statefile.read_bytes(path)))
    except (OSError, ValueError, TypeError):
        return None


def _name(relpath: str) -> str:
    import hashlib  # imported when first needed: an unchanged re-run never hashes anything

    return hashlib.sha1(relpath.encode("utf-8", errors="surrogatepass")).hexdigest() + ".json"


class StateStore:
    """Manifest and node store of one output folder."""

    def __init__(self, state_dir: Path) -> None:
        self.state_dir = state_dir
        self.manifest_dir = state_dir / "manifest"
        self.nodes_dir = state_dir / "nodes"
        self.snapshot_path = state_dir / SNAPSHOT_NAME
        self._entries: dict[str, ManifestEntry] = {}
        self._snapshot_valid = False  # the snapshot on disk matches the per-source files
        self.writes = 0  # manifest files written or removed by this store
        self._loaded = False

    # ------------------------------------------------------------------ manifest
    def load_manifest(self) -> dict[str, ManifestEntry]:
        """All manifest entries by relpath (unreadable entries are ignored: the file is redone)."""
        entries = self._load_snapshot()
        self._snapshot_valid = entries is not None
        if entries is None:
            entries = {}
            if self.manifest_dir.is_dir():
                for p in sorted(self.manifest_dir.glob("*.json")):
                    e = _read_entry(p)
                    if e is not None:
                        entries[e.relpath] = e
        self._entries = dict(entries)
        self._loaded = True
        return entries

    def entry(self, relpath: str) -> ManifestEntry | None:
        """One source's entry, read from its own file (always current, even mid-run)."""
        return _read_entry(self.manifest_dir / _name(relpath))

    def _load_snapshot(self) -> dict[str, ManifestEntry] | None:
        try:
            data = jsonio.loads(statefile.read_bytes(self.snapshot_path))
            if data.get("version") != MANIFEST_VERSION:
                return None
            columns = data["columns"]
            if columns == _FIELDS:
                entries = [ManifestEntry(*row) for row in data["rows"]]
            else:  # written by a version with other fields: match by name, new fields take defaults
                known = set(_FIELDS)
                entries = [
                    ManifestEntry(**{c: v for c, v in zip(columns, row, strict=True) if c in known})
                    for row in data["rows"]
                ]
            return {e.relpath: e for e in entries}
        except (OSError, ValueError, TypeError, KeyError, AttributeError):
            return None

    def _invalidate_snapshot(self) -> None:
        if self._snapshot_valid or self.snapshot_path.exists():
            try:
                os.unlink(self.snapshot_path)
            except FileNotFoundError:
                pass
        self._snapshot_valid = False

    def save_entry(self, entry: ManifestEntry) -> None:
        """Atomically write one manifest entry."""
        self._invalidate_snapshot()
        self.writes += 1
        # Atomic against kill -9; a run flushes the disk once at its end, since an fsync
        # per file cost ~2.5 ms each (most of a 1,253-file run).
        data = asdict(entry)  # a deep copy: the entry kept is not the caller's (its lists may change)
        atomic_write_bytes(self.manifest_dir / _name(entry.relpath), jsonio.dumps(data, sort_keys=True), durable=False)
        self._entries[entry.relpath] = ManifestEntry(**data)

    def remove_entry(self, relpath: str) -> None:
        """Forget a source (after its tree was soft-deleted)."""
        self._invalidate_snapshot()
        self.writes += 1
        try:
            os.unlink(self.manifest_dir / _name(relpath))
        except FileNotFoundError:
            pass
        self._entries.pop(relpath, None)

    def mark_indexed(self, relpaths: Iterable[str]) -> None:
        """Record that these sources' trees are in the search index, in the end-of-run snapshot only.

        Not a second write of each entry's file: a crash before the snapshot costs a sync that finds
        those trees already indexed, not lost work."""
        for rel in relpaths:
            entry = self._entries.get(rel)
            if entry is not None and not entry.indexed:
                entry.indexed = True
                self._snapshot_valid = False

    def write_snapshot(self) -> None:
        """Write every entry to the one-file snapshot unless it is already current."""
        if self._snapshot_valid:
            return
        # Columns once and rows as lists: two thirds of the size and a third of the load time of objects.
        rows = [[getattr(self._entries[k], f) for f in _FIELDS] for k in sorted(self._entries)]
        doc = {"version": MANIFEST_VERSION, "columns": _FIELDS, "rows": rows}
        atomic_write_bytes(self.snapshot_path, jsonio.dumps(doc), durable=False)
        self._snapshot_valid = True

    # ------------------------------------------------------------------ node store
    def collect_garbage(self, older_than: float, keep: Iterable[str] = ()) -> int:
        """Delete node records that no manifest entry references (nor ``keep``: the digests') and that
        were last written before ``older_than`` (epoch seconds), plus temp files left that long by
        killed runs; returns how many.

        Every edit leaves the records of the replaced chunks behind, so a nightly run over growing
        journals would otherwise grow the store forever. The grace period keeps what a recent failed
        or killed run finished (its file's entry does not name those records yet) and what a revert
        of a recent edit would reuse.
        """
        if not self._loaded:
            self.load_manifest()
        live = {k for e in self._entries.values() for k in e.node_keys.values()}
        live.update(e.final_key for e in self._entries.values() if e.final_key)
        live.update(keep)
        return prune_store(self.nodes_dir, older_than, live)

    def _node_path(self, key: str) -> Path:
        return self.nodes_dir / key[:2] / f"{key}.json"

    def get_node(self, key: str) -> SummaryOutput | None:
        """A finished node's output, or None."""
        p = self._node_path(key)
        try:
            data = jsonio.loads(statefile.read_bytes(p))
            return SummaryOutput(**data)
        except (OSError, ValueError, TypeError):
            return None

    def put_node(self, key: str, output: SummaryOutput) -> None:
        """Record a finished node atomically."""
        # Not fsynced: a record lost to a power cut is simply recomputed; kill -9 cannot tear it.
        atomic_write_bytes(self._node_path(key), jsonio.dumps(asdict(output), sort_keys=True), durable=False)


def prune_store(root: Path, older_than: float, live: set[str] | None = None) -> int:
    """Delete ``<root>/<kk>/<key>.json`` records whose key is not in ``live`` (all, when None) and
    temp files, when last written before ``older_than``; returns how many went."""
    removed = 0
    try:
        buckets = [d.path for d in os.scandir(root) if d.is_dir()]
    except FileNotFoundError:
        return 0
    for bucket in buckets:
        for f in os.scandir(bucket):
            name = f.name
            if not name.endswith(".tmp") and (not name.endswith(".json") or (live is not None and name[:-5] in live)):
                continue
            try:
                if f.stat().st_mtime < older_than:
                    os.unlink(f.path)
                    removed += 1
            except FileNotFoundError:
                pass
    return removed


# Bump when node inputs/prompts change meaning, to invalidate stored nodes and trees. 2: a model is sent a
# leaf as its reader sees it, and a note kept whole is written so (no front matter, hidden comments,
# properties, link syntax): a tree written before, its private comments in a final, is redone once (an LLM's
# unchanged prompts are answered from its response cache).
NODE_FORMAT = 2


def node_key(*parts: Any) -> str:
    """Stable hash of everything that determines a node's output."""
    import hashlib  # imported when first needed: an unchanged re-run hashes nothing but its config

    h = hashlib.sha256()
    for part in parts:
        h.update(json.dumps(part, sort_keys=True, ensure_ascii=False, default=str).encode("utf-8", "surrogatepass"))
        h.update(b"\x1f")
    return h.hexdigest()
