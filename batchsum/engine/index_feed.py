"""What a run hands to the search index: the trees it wrote, kept in memory until the run's end.

Each written tree is kept as its node records and the source text its spans point into, so the index
parses no node file the run just wrote. The source text kept is capped (:data:`INDEX_SOURCE_CHARS`);
past the cap the index reads a source back from disk, as a repair does.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from batchsum.config import RunConfig
from batchsum.index.records import DocUpdate, node_from_file
from batchsum.planning import FilePlan
from batchsum.secrets import redact
from batchsum.tree import TreeNode

# Source text kept in memory for the index until the run's end; past it, the index reads the rest
# back from disk. Bounds the peak memory of a first run over a large corpus (~1 byte per character).
INDEX_SOURCE_CHARS = 32_000_000


class IndexFeed:
    """The trees a run wrote or must re-index, and the summary vectors its executor computed."""

    def __init__(self, cfg: RunConfig) -> None:
        self.cfg = cfg
        self.changed: list[str] = []  # relpaths whose trees were written (or must be re-indexed)
        self.docs: dict[str, DocUpdate] = {}  # trees this run wrote, handed over in memory
        self.chars = 0  # source characters held in docs
        self.embedded: Mapping[str, Any] = {}  # summary vectors the executor's workers computed

    def keeps_text(self, plan: FilePlan) -> bool:
        """Whether the index would keep ``plan``'s source text in memory (else a run may let it go)."""
        return self.cfg.index and self.chars + len(plan.doc.text) <= INDEX_SOURCE_CHARS

    def written(self, plan: FilePlan, live: list[TreeNode]) -> None:
        """Keep what the index needs of a written tree: its records and the text its spans point into."""
        self.changed.append(plan.doc.relpath)
        if not self.cfg.index:
            return
        nodes = [node_from_file(self.cfg.out, n.path, n.meta, n.body) for n in live]
        text = plan.doc.text
        source: str | None = None  # None: read back at indexing time, as a repair does
        if not plan.text_released and self.chars + len(text) <= INDEX_SOURCE_CHARS:
            if not self.cfg.redact_secrets:
                # Secrets never reach the index or a search snippet, whatever the run sends elsewhere.
                text = redact(text)[0]
            source = text
            self.chars += len(text)
        self.docs[plan.doc.relpath] = DocUpdate(plan.doc.relpath, nodes, source)
