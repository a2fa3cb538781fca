"""The index's state file and the cheap question "does the index need work?".

``<out>/.batchsum/index-<collection>.json`` records the layout and whether the index is complete: it
is written "incomplete" before any change and "complete" after, so an interrupted sync or rebuild is
noticed and repaired by the next run, and ``search`` can warn. Everything here costs a few stats and a
small JSON read (no numpy, no database), so a quiet re-run can ask without slowing down.
"""

from __future__ import annotations

import dataclasses
import errno
import json
import logging
import shlex
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from batchsum.errors import IndexError_
from batchsum.lock import running_holder
from batchsum.own_pages import foreign_index
from batchsum.tree import atomic_target

if TYPE_CHECKING:
    from batchsum.config import IndexConfig
    from batchsum.index.embed import Embedder

log = logging.getLogger(__name__)

# 1: MiniLM vectors with documents in Chroma, MaxSim token vectors in tokvecs-*.sqlite3 (no state file).
# 2: static vectors, no documents in Chroma, vectors-*.sqlite3, this state file.
# 3: summary texts as Chroma documents; filter fields and metadata in vectors-*.sqlite3 (searched without
#    Chroma); Snowball stems and CJK bigrams in the lexical layer.
LAYOUT = 3


def _index_dir(cfg: IndexConfig) -> Path:
    return cfg.index_copy or cfg.state_dir


def chroma_dir(cfg: IndexConfig) -> Path:
    """Where the embedded Chroma database lives."""
    return _index_dir(cfg) / "chroma"


def lexical_path(cfg: IndexConfig) -> Path:
    """Where the lexical index of this output and collection lives."""
    return _index_dir(cfg) / f"lexical-{cfg.collection}.sqlite3"


def state_path(cfg: IndexConfig) -> Path:
    """The index's state file (layout, complete or not)."""
    return _index_dir(cfg) / f"index-{cfg.collection}.json"


def vectors_path(cfg: IndexConfig) -> Path:
    """The node vector store of this output and collection."""
    return _index_dir(cfg) / f"vectors-{cfg.collection}.sqlite3"


def drop_leftovers(path: Path) -> None:
    """Remove the new files a killed rebuild left beside ``path`` (``tree.atomic_target``'s ``.<name>.<pid>.<n>.tmp``,
    with their -wal, -shm and -journal). The caller holds the output's lock: no live writer of the index has one."""
    for left in path.parent.glob(f".{path.name}.*.tmp*"):
        left.unlink(missing_ok=True)


def read_only(folder: Path) -> bool:
    """True when ``folder`` exists but cannot be written (read-only storage, or no write permission)."""
    import os

    try:
        return bool(os.statvfs(folder).f_flag & os.ST_RDONLY) or not os.access(folder, os.W_OK)
    except OSError:
        return False  # missing: whoever opens it reports that


def legacy_files(cfg: IndexConfig) -> list[Path]:
    """Files of the layout before the state file existed (MaxSim token vectors)."""
    base = cfg.state_dir / f"tokvecs-{cfg.collection}.sqlite3"
    return [p for p in (base, Path(f"{base}-wal"), Path(f"{base}-shm")) if p.exists()]


def read_state(cfg: IndexConfig) -> dict[str, Any] | None:
    """The state file's content; None when absent, {} when unreadable. The system refusing to open it (out of
    file descriptors, no permission) raises :func:`refused_error`: it says nothing of the index, which {} would
    have called one of an older batchsum, to rebuild."""
    path = state_path(cfg)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno in _REFUSED_ERRNOS and (refused := refused_error("the index's state file", path, exc)):
            raise refused from None
        return {}
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


_REFUSALS = ("too many open files", "unable to open database file")
_REFUSED_ERRNOS = frozenset({errno.EMFILE, errno.ENFILE, errno.EACCES, errno.EPERM})  # no verdict on the file


def refused_by_system(exc: BaseException) -> bool:
    """True when ``exc`` or its cause is an OSError, or the message of one that chromadb rewrapped
    (SQLite's "unable to open database file", CANTOPEN, is the system refusing the file, not its content)."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, OSError) or any(m in str(seen).lower() for m in _REFUSALS):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def refused_error(what: str, path: Path, exc: BaseException) -> IndexError_ | None:
    """The error for ``what`` at ``path`` (a SQLite file of the index) when the system refused to open it
    (out of file descriptors, no permission), else None. Not damage: no rebuild is offered, and a rebuild
    failing so leaves the index where it is, as for the Chroma folder (:func:`~batchsum.index.chroma._unopenable`)."""
    if not refused_by_system(exc):
        return None
    refused = IndexError_(
        f"cannot open {what} {path} ({short_error(exc)}); check the open-files limit (`ulimit -n`)"
        " and the folder's permissions"
    )
    refused.damaged = False
    return refused


def short_error(exc: BaseException) -> str:
    """``exc`` as one line of at most 160 characters."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= 160 else text[:157] + "..."


EMBEDDED = "embedded"


def chroma_location(cfg: IndexConfig) -> str:
    """Where ``cfg`` keeps its Chroma records: ``host:port`` of a server, or :data:`EMBEDDED`."""
    return f"{cfg.chroma_host}:{cfg.chroma_port or 8000}" if cfg.chroma_host else EMBEDDED


def recorded_server(cfg: IndexConfig) -> IndexConfig | None:
    """``cfg`` aimed at the Chroma server the state file names as the index's store of record, when ``cfg``
    names no server itself (None: it does, or the index is kept in the embedded Chroma)."""
    where = None if cfg.chroma_host else (read_state(cfg) or {}).get("chroma")
    host, _, port = str(where or "").rpartition(":")
    if not host or where == EMBEDDED or not port.isdigit():
        return None
    return dataclasses.replace(cfg, chroma_host=host, chroma_port=int(port))


def _described(where: str, cfg: IndexConfig) -> str:
    return f"the embedded Chroma in {chroma_dir(cfg)}" if where == EMBEDDED else f"Chroma server {where}"


def write_state(
    cfg: IndexConfig, complete: bool, embedder: Embedder | None = None, *, rebuilding: bool | None = None
) -> None:
    """Record the layout, where Chroma is and whether the index is complete (atomically). ``rebuilding``: a rebuild
    is under way, which swaps in the local search files only when they are whole; whether those it leaves in place
    until then could be searched as they were (:func:`completeness` was None)."""
    state: dict[str, Any] = {
        "layout": LAYOUT,
        "complete": complete,
        # The local search files are written whatever Chroma's location: a search without --chroma-host
        # reads them, and a run against another Chroma knows that one was never brought in line.
        "chroma": chroma_location(cfg),
        "updated_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }
    if embedder is not None:
        state["embed_model"] = embedder.name
    if rebuilding is not None:
        state["rebuilding"] = {"search_complete": rebuilding}
    path = state_path(cfg)
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_target(path) as tmp:
        tmp.write_text(json.dumps(state) + "\n", encoding="utf-8")


UPGRADE = "upgrade"
UNKNOWN = "unknown"
MOVED = "moved"  # complete, but written to another Chroma than this config's
NO_CHROMA = "chroma"  # no embedded Chroma folder (an index built on a server by an older batchsum, or deleted)


def index_needs_work(cfg: IndexConfig) -> tuple[str, str] | None:
    """Why the index must be repaired or rebuilt even when no source changed, or None when it is fine.

    Cheap: a few stats and a small JSON file, no database opened, so a quiet re-run can ask. Returns
    (kind, message): kind :data:`UPGRADE` (an older layout: rebuild), :data:`MOVED` (complete, but last
    written to another Chroma: a repair brings this one in line), :data:`NO_CHROMA` or ``"repair"``.
    """
    state = read_state(cfg)
    if state is None:
        if legacy_files(cfg):
            return (
                UPGRADE,
                f"the search index in {cfg.out} was built by an older batchsum; rebuilding it in the new layout",
            )
        if not cfg.chroma_host and (chroma_dir(cfg) / "chroma.sqlite3").exists():
            # An index without a state file: an older layout, or a state file lost. Whoever opens the
            # collection decides (see ``index.store``); a quiet run asks it once.
            return UNKNOWN, f"the search index in {cfg.out} has no state file; checking its layout"
        return None
    if state.get("layout") != LAYOUT:
        return UPGRADE, f"the search index in {cfg.out} has another layout ({state.get('layout')}); rebuilding it"
    if not state.get("complete"):
        return "repair", (
            f"the search index of {cfg.out} is incomplete (an indexing run was interrupted or its Chroma "
            "could not be reached); repairing it"
        )
    recorded, here = state.get("chroma"), chroma_location(cfg)
    if recorded is not None and recorded != here:  # no "chroma": a state written before it was recorded
        return MOVED, (
            f"the search index of {cfg.out} was last written to {_described(str(recorded), cfg)}; bringing "
            f"{_described(here, cfg)} in line with the tree (the other one is no longer updated)"
        )
    if not cfg.chroma_host and not (chroma_dir(cfg) / "chroma.sqlite3").is_file():
        return NO_CHROMA, f"the Chroma folder of {cfg.out} is missing; rebuilding it from the tree"
    if not lexical_path(cfg).is_file():
        return "repair", f"the lexical index of {cfg.out} is missing; rebuilding it from the tree"
    if not vectors_path(cfg).is_file():
        return "repair", f"the node vectors of {cfg.out} are missing; rebuilding them from the tree"
    return None


def marked_incomplete(cfg: IndexConfig) -> str | None:
    """Why the state file marks the index incomplete, when no missing part or rebuild does (``--check`` says it
    beside what it compares): a run syncing it now, or one killed before its sync ended. None otherwise."""
    state = read_state(cfg)
    if state is None or state.get("complete") or state.get("layout") != LAYOUT or state.get("rebuilding"):
        return None
    holder = running_holder(cfg.out)
    if holder is not None:
        return f"a run ({holder}) is indexing it"
    return "marked so by an indexing run that was interrupted or could not reach its Chroma"


def missing_parts(cfg: IndexConfig) -> list[str]:
    """The parts of a built index (one with a state file) that are gone, each named with its path: the
    embedded Chroma folder (when it is the store of record), the lexical index, the node vectors."""
    if read_state(cfg) is None:
        return []
    parts = []
    if not cfg.chroma_host and recorded_server(cfg) is None and not (chroma_dir(cfg) / "chroma.sqlite3").is_file():
        parts.append(f"the Chroma folder {chroma_dir(cfg)}")
    if not lexical_path(cfg).is_file():
        parts.append(f"the lexical index {lexical_path(cfg)}")
    if not vectors_path(cfg).is_file():
        parts.append(f"the node vectors {vectors_path(cfg)}")
    return parts


def completeness(cfg: IndexConfig) -> tuple[bool, str] | None:
    """None when the index can be searched as it is; else (fatal, message): fatal for an older layout,
    which must never be read with the new model, else a warning that results may be incomplete (an
    interrupted sync, or a missing part: docs/search.md calls the index incomplete then, and so does
    ``batchsum index --check``)."""
    work = index_needs_work(cfg)
    if work is None:
        return None
    marker = (read_state(cfg) or {}).get("rebuilding")
    if isinstance(marker, dict) and work[0] == "repair":
        return _during_rebuild(cfg, marker.get("search_complete") is True)
    kind, _ = work
    if kind == UNKNOWN:
        return None  # opening the collection tells: its recorded model and layout are checked there
    if kind == MOVED and not cfg.chroma_host:
        return None  # search reads the local files, complete whichever Chroma the runs write to
    if kind == MOVED:
        return False, (
            f"the search index in {cfg.out} was last written to another Chroma than {chroma_location(cfg)}; "
            f"results may miss documents until the next run or `{cfg.index_command()}`"
        )
    if kind == UPGRADE:
        return True, (
            f"the search index in {cfg.out} was built by an older batchsum; run `{cfg.index_command()}` to upgrade it"
        )
    gone = missing_parts(cfg)
    if gone:
        # The Chroma folder alone costs no hit (search reads the local files), but the store of record is gone.
        effect = "" if gone[0].startswith("the Chroma") and len(gone) == 1 else " (results may miss documents)"
        return False, (
            f"the search index in {cfg.out} is incomplete: {' and '.join(gone)} {'is' if len(gone) == 1 else 'are'} "
            f"missing{effect}; the next run or `{cfg.index_command()}` rebuilds it"
        )
    holder = running_holder(cfg.out)
    if holder is not None:
        # A live run marks the index incomplete while it syncs: nothing was interrupted, and `batchsum index`
        # would exit 3 on its lock, so the advice is to wait for it.
        return False, (
            f"the search index in {cfg.out} is being updated: a run ({holder}) is indexing it; results may miss "
            "the documents it is adding; search again when it ends"
        )
    return False, (
        f"the search index in {cfg.out} is incomplete (an indexing run was interrupted or a part is missing); "
        f"results may miss documents until the next run or `{cfg.index_command()}`"
    )


def rebuilding_run(cfg: IndexConfig) -> str | None:
    """The run rebuilding the index now ("pid 4242 (started ...)"): its marker is in the state file
    (:func:`write_state`) and it holds the output's lock; None otherwise (no rebuild, or one that was killed)."""
    marker = (read_state(cfg) or {}).get("rebuilding")
    return running_holder(cfg.out) if isinstance(marker, dict) else None


def rebuild_state(cfg: IndexConfig) -> str | None:
    """What ``batchsum index --stats`` says of an index a rebuild marked (None: none did, or it ended): a run is
    rebuilding it, or the rebuild was interrupted. Never "repairing it": a reader repairs nothing."""
    marker = (read_state(cfg) or {}).get("rebuilding")
    if not isinstance(marker, dict):
        return None
    holder = running_holder(cfg.out)
    search_complete = marker.get("search_complete") is True and cfg.chroma_host is None
    if holder is None:
        verdict = _during_rebuild(cfg, search_complete)
        return verdict[1] if verdict else None
    meanwhile = "search reads the index as it was" if search_complete else "search may miss documents"
    return f"being rebuilt: a run ({holder}) is rebuilding it; {meanwhile} until it ends"


def _during_rebuild(cfg: IndexConfig, search_complete: bool) -> tuple[bool, str] | None:
    """:func:`completeness` of an index whose state a rebuild marked (:func:`write_state`): the local search files
    stay those of before it until the new ones are whole, so a search of them is as complete as the index was; the
    Chroma records (what ``--chroma-host`` searches) are rebuilt in place."""
    local = cfg.chroma_host is None
    holder = running_holder(cfg.out)
    if holder is not None:
        if local and search_complete:
            log.info("a run (%s) is rebuilding the search index in %s; searching it as it was before", holder, cfg.out)
            return None
        return False, (
            f"the search index in {cfg.out} is being rebuilt: a run ({holder}) is building it; results may miss "
            "documents; search again when it ends"
        )
    if local and search_complete:
        # Killed before the switch: the local files are the whole index of before; only Chroma's records are not.
        return False, (
            f"a rebuild of the search index in {cfg.out} was interrupted: search reads the index as it was before "
            f"it; the next run or `{cfg.index_command()}` brings its Chroma records in line"
        )
    return False, (
        f"the search index in {cfg.out} is incomplete (a rebuild was interrupted); results may miss documents "
        f"until the next run or `{cfg.index_command()}`"
    )


def not_an_output(cfg: IndexConfig) -> str | None:
    """Why ``cfg.out`` cannot be a batchsum output, or None: a file, or a folder batchsum never wrote to (a
    mistyped --out, or the sources themselves). Search and index refuse those rather than read them as an index
    to rebuild, which would write an empty index into someone's folder."""
    out = cfg.out
    if out.exists() and not out.is_dir():
        return f"--out {out} is not a folder; give the output folder of a batchsum run"
    # A tree without its state (copied, or its .batchsum removed) is an output: its index can be rebuilt
    # from it; an index on a Chroma server needs no local state.
    if out.is_dir() and not cfg.state_dir.is_dir() and cfg.chroma_host is None and not _holds_a_tree(out):
        return (
            f"{out} holds no batchsum output (no {cfg.state_dir.name} folder); check --out, or fill it with "
            f"`batchsum run SOURCES --out {shlex.quote(str(out))}`"
        )
    return None


def check_output_folder(cfg: IndexConfig) -> None:
    """Raise IndexError_ when ``cfg.out`` cannot be a batchsum output (:func:`not_an_output`): what a search, an
    index check or a repair of a folder that does not exist raises too (the command exits 2 for either)."""
    why = not_an_output(cfg)
    if why is not None:
        err = IndexError_(why)
        err.damaged = False  # no index to move aside: there is none
        raise err


def _holds_a_tree(out: Path) -> bool:
    """Whether ``out`` holds a summary tree: batchsum's index page, or a source's ``summaries/`` among the first
    two levels (a bounded look: a wrong --out may be a large folder)."""
    if any(page.is_file() and not foreign_index(page) for page in (out / "index.md", out / "batchsum-index.md")):
        return True
    level = [out]
    for _ in range(2):
        level = [c for d in level for c in _folders(d)]
        if any(c.name == "summaries" for c in level):
            return True
    return False


def _folders(path: Path) -> list[Path]:
    try:
        return [c for c in path.iterdir() if c.is_dir() and not c.is_symlink()]
    except OSError:
        return []
