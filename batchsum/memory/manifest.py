"""Which sources and entries facts were already extracted from: ``<out>/.batchsum/facts/manifest.json``.

Per source relpath: the size, mtime and sha256 last seen (an unchanged file is skipped without being
read), the hashes of its processed units (an appended entry is the only new hash) and the corpus root it
was found under (a later pass over part of that root keeps its name). Written
atomically after every file, so an interrupted run repeats at most one file's work.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from pathlib import Path

from batchsum import jsonio, statefile
from batchsum.tree import atomic_write_text

log = logging.getLogger(__name__)

VERSION = 1


@dataclass
class SourceState:
    """What was processed of one source file."""

    size: int
    mtime_ns: int
    sha256: str
    scope: str
    units: set[str] = field(default_factory=set)
    root: str = ""  # the corpus root as given (absolute); "" in manifests written before it was recorded


class FactsManifest:
    """The manifest of one output folder."""

    def __init__(self, state_dir: Path) -> None:
        self.path = state_dir / "facts" / "manifest.json"
        self.files: dict[str, SourceState] = {}
        try:
            data = jsonio.loads(statefile.read_bytes(self.path))
        except FileNotFoundError:
            return
        except (OSError, ValueError) as exc:
            log.warning("%s unreadable (%s); facts are extracted again where needed", self.path, exc)
            return
        if not isinstance(data, dict) or data.get("version") != VERSION:
            log.warning("%s has another format; facts are extracted again where needed", self.path)
            return
        for rel, e in (data.get("files") or {}).items():
            try:
                self.files[rel] = SourceState(
                    int(e["size"]),
                    int(e["mtime_ns"]),
                    str(e["sha256"]),
                    str(e["scope"]),
                    set(e.get("units") or []),
                    str(e.get("root") or ""),
                )
            except (KeyError, TypeError, ValueError):
                continue

    def save(self) -> None:
        """Write the manifest atomically."""
        data = {
            "version": VERSION,
            "files": {
                rel: {
                    "size": s.size,
                    "mtime_ns": s.mtime_ns,
                    "sha256": s.sha256,
                    "scope": s.scope,
                    "units": sorted(s.units),
                    "root": s.root,
                }
                for rel, s in sorted(self.files.items())
            },
        }
        atomic_write_text(self.path, json.dumps(data, ensure_ascii=False), durable=False)


@dataclass
class FactsPlan:
    """What a facts pass would ask the model now (``plan --facts``): an estimate, as answers decide the rest.
    Here, beside the manifest it is counted from, since plan's PlanSummary holds one and must resolve its type
    without importing the facts pass (``memory.ingest`` imports it from here)."""

    files: int = 0  # files with entries or turns not yet done
    units: int = 0  # those entries and turns
    # One per entry; a conversation's consecutive new turns share one (ingest.TURN_BATCH_CHARS).
    extract_requests: int = 0
    # One per extraction whose facts meet facts already in their scope (the first of a new scope meets none);
    # fewer when an answer holds no facts.
    reconcile_requests: int = 0

    @property
    def requests(self) -> int:
        """Extraction and reconciliation requests (each asked once more when its JSON is invalid)."""
        return self.extract_requests + self.reconcile_requests
