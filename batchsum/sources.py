"""The source a summary was built from, found again through the manifest (for search snippets and for
re-indexing a tree the run did not hand over in memory).

The manifest records each file's corpus root; the file is ``root`` itself (a file given on the command
line) or ``root/relpath`` (with or without the root-name prefix several roots add). Only a file whose
sha256 still equals the node's ``source_sha256`` is used: a moved, edited or deleted source gives None.
"""

from __future__ import annotations

import logging
import stat
from collections.abc import Callable
from pathlib import Path

from batchsum.errors import InputError
from batchsum.lazy import load
from batchsum.model import Document, TypeChoice
from batchsum.state import StateStore
from batchsum.walk import SourceRef, read_document

log = logging.getLogger(__name__)
# An agent session's digest (compaction's extractors, ~20 ms of imports): loaded for the first one only.
DIGEST = "batchsum.agent_transcript:digest_agent_transcript"


def source_text(state_dir: Path, relpath: str, sha256: str | None) -> str | None:
    """The rendered text of a source file as the run summarized it, or None when it is gone or changed."""
    if not sha256:
        return None
    entry = StateStore(state_dir).entry(relpath)
    if entry is None:
        return None
    # Secrets are never worth finding and must not reach the index or a snippet: always redacted here.
    doc = read_source(entry.root, relpath, sha256, redact=True)
    return None if doc is None else _as_summarized(doc.text, doc.type_reason, entry.content_type)


def read_source(
    root: str, relpath: str, sha256: str, type_choice: TypeChoice = "auto", *, redact: bool
) -> Document | None:
    """The source ``relpath`` of the corpus ``root`` (as the manifest has them) read again, or None when no file
    there still has the ``sha256`` it was summarized with. With several roots a relpath starts with its root's
    folder name, so the file is ``root``, ``root/relpath`` or ``root/`` the relpath without its first part."""
    if not root or not sha256:
        return None
    base = Path(root)
    for path in _candidates(base, relpath):
        if not path.is_file():
            continue
        try:
            doc = read_document(SourceRef(path=path, relpath=relpath, root=base), type_choice, redact=redact)
        except Exception as exc:  # an unreadable source only costs what it would have added
            log.debug("%s: source not used (%s)", path, exc)
            continue
        if doc.sha256 == sha256:  # hashed once, while it was read: a moved or edited source is not used
            return doc
    return None


def _candidates(base: Path, relpath: str) -> list[Path]:
    """The files :func:`read_source` tries for ``relpath`` under the corpus root ``base``, in its order."""
    tail = relpath.split("/", 1)[1] if "/" in relpath else relpath
    return list(dict.fromkeys((base, base / relpath, base / tail)))


def source_stamp(state_dir: Path, relpath: str) -> tuple[tuple[str, int, int], ...]:
    """(path, st_mtime_ns, st_size) of each file :func:`source_text` would try for ``relpath``: a few stats
    that change when the file is edited, replaced, moved or deleted, so a text cached under it is still current."""
    entry = StateStore(state_dir).entry(relpath)
    if entry is None or not entry.root:
        return ()
    stamp = []
    for path in _candidates(Path(entry.root), relpath):
        try:
            st = path.stat()
        except OSError:  # not there: its absence is part of the stamp
            continue
        if not stat.S_ISREG(st.st_mode):  # the root folder (read_source skips it): a sibling's edit changes its stat
            continue
        stamp.append((str(path), st.st_mtime_ns, st.st_size))
    return tuple(stamp)


def _as_summarized(text: str, type_reason: str, content_type: str) -> str:
    """``text`` as the run summarized it: an agent session (a conversation read as one) from its digested
    tool results, as :func:`batchsum.engine.prepare.prepare_file` has it. Its nodes' spans point into that
    text; the raw session had given search snippets from the wrong place and ``batchsum index --rebuild``
    other words to index than the run."""
    if content_type != "conversation" or not type_reason.removeprefix("--type; ").startswith("agent transcript"):
        return text
    try:
        return str(load(DIGEST)(text).text)
    except InputError:
        return text  # read by the run as a plain conversation too


def manifest_reader(state_dir: Path) -> Callable[[str, str | None], str | None]:
    """A :data:`batchsum.index.records.SourceReader` over the output's manifest."""
    return lambda relpath, sha256: source_text(state_dir, relpath, sha256)
