"""Chroma, the index's store of record: the client (local folder or ``--chroma-host`` server), the
collection checked against the embedder that built it, and Chroma's failures as one-line errors.

chromadb is imported only inside these functions: a search of a local index never loads it.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shlex
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from batchsum.errors import BatchsumError, ConfigError, IndexError_
from batchsum.index.clients import (
    LOCK,
    folder_client,
    keep_folder_client,
    keep_server_client,
    server_client,
)
from batchsum.index.embed import Embedder, chroma_embedding_function, register_embedding_function
from batchsum.index.state import LAYOUT, chroma_dir, not_an_output, refused_by_system, short_error
from batchsum.index.state import refused_error as refused_error
from batchsum.lock import running_holder

if TYPE_CHECKING:
    from batchsum.config import IndexConfig

SCHEMA_VERSION = LAYOUT
LEGACY_MODEL = "all-MiniLM-L6-v2-onnx-int8"  # what layout 1 embedded with


def _no_index_yet(cfg: IndexConfig) -> str:
    """Why an output folder has no index, and what to do: wait for the first run building it, or index (a folder
    that holds no output is said to be one: indexing it would only write an empty index there)."""
    not_output = not_an_output(cfg)
    if not_output is not None:
        return not_output
    holder = running_holder(cfg.out)
    if holder is not None:
        return f"no search index in {cfg.out} yet: a run ({holder}) is building it; search again when it ends"
    return f"no search index in {cfg.out}; run `{cfg.index_command('--rebuild')}`"


def _where(cfg: IndexConfig) -> str:
    if cfg.chroma_host:
        return f"Chroma server {cfg.chroma_host}:{cfg.chroma_port or 8000}"
    return str(chroma_dir(cfg))


def _settings() -> Any:
    # A fresh object per client: chromadb's client constructors mutate the settings they are given.
    os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
    from chromadb.config import Settings

    return Settings(anonymized_telemetry=False)


def open_client(cfg: IndexConfig, *, create: bool) -> Any:
    """A Chroma client: ``HttpClient`` with --chroma-host, else ``PersistentClient`` under the output.

    Clients are kept per process (building one parses settings: ~20 ms, too much per search); an
    embedded one while its folder is the one it opened, and, when opened by a library call, until
    that call ends (``released_clients``).
    """
    import chromadb

    if cfg.chroma_host:
        port = cfg.chroma_port or 8000
        key = f"http://{cfg.chroma_host}:{port}"
        if (kept := server_client(key)) is not None:
            return kept
        try:
            client = chromadb.HttpClient(host=cfg.chroma_host, port=port, settings=_settings())
            client.heartbeat()
        except Exception as exc:
            raise IndexError_(
                f"cannot reach Chroma server {cfg.chroma_host}:{port} ({short_error(exc)}); "
                "start it or drop --chroma-host to use the index inside the output folder"
            ) from None
        return keep_server_client(key, client)
    path = chroma_dir(cfg)
    if not create:
        if not cfg.out.is_dir():
            raise IndexError_(
                f"output folder {cfg.out} does not exist; run `batchsum run SOURCES --out {shlex.quote(str(cfg.out))}`"
            )
        if not (path / "chroma.sqlite3").is_file():
            raise IndexError_(_no_index_yet(cfg))
    with LOCK:
        return _embedded_client(cfg, path)


def _embedded_client(cfg: IndexConfig, path: Path) -> Any:
    """The kept client of ``path`` while its folder is the one it opened, else a new one (under LOCK)."""
    if (kept := folder_client(path)) is not None:
        return kept
    try:
        path.mkdir(parents=True, exist_ok=True)
        client = _persistent_client(path)
    except BaseException as exc:
        if not _engine_failure(exc):
            raise
        raise _unopenable(cfg, path, exc) from None
    keep_folder_client(path, client)
    return client


def _unopenable(cfg: IndexConfig, path: Path, exc: BaseException) -> IndexError_:
    """Why the Chroma folder ``path`` cannot be opened. Only a damaged database is worth a rebuild: the
    system refusing a resource (out of file descriptors, no permission) fails the same way in chromadb.
    Any other failure (a database SQLite reads but chromadb cannot use: a dropped table, another
    chromadb version's schema) is damage too, so ``--rebuild`` still replaces it; so is a refusal met
    on a database SQLite itself finds corrupt."""
    if (refused_by_system(exc) or _short_of_descriptors()) and not _damaged(path):
        refused = IndexError_(
            f"cannot open the Chroma folder {path} ({short_error(exc)}); its database is not damaged:"
            " check the open-files limit (`ulimit -n`) and the folder's permissions"
        )
        refused.damaged = False
        return refused
    return IndexError_(
        f"Chroma folder {path} is corrupt or unreadable ({short_error(exc)}); "
        f"run `{cfg.index_command('--rebuild')}` (it moves the broken folder aside)"
    )


def _engine_failure(exc: BaseException) -> bool:
    """True for a failure of chromadb, not a stop asked for: a panic of its Rust engine (pyo3's
    PanicException, a BaseException: out of descriptors, its runtime cannot start) is one too."""
    return isinstance(exc, Exception) or type(exc).__module__ == "pyo3_runtime"


_CLIENT_DESCRIPTORS = 11  # what an embedded client holds: SQLite connections and HNSW files


def _short_of_descriptors() -> bool:
    """True when this process cannot open the descriptors a Chroma client needs now. chromadb's engine
    may report a refused file as a failure of its own ("Failed to apply logs to the metadata segment"),
    the cause dropped: such a failure while the descriptors run short says nothing of the folder."""
    held: list[int] = []
    try:
        for _ in range(_CLIENT_DESCRIPTORS):
            held.append(os.open(os.devnull, os.O_RDONLY))
    except OSError as exc:
        return exc.errno in (errno.EMFILE, errno.ENFILE)
    finally:
        for fd in held:
            os.close(fd)
    return False


def _damaged(path: Path) -> bool:
    """True when SQLite itself finds the folder's database unreadable (a missing one is not damaged)."""
    db = path / "chroma.sqlite3"
    if not db.is_file():
        return False
    try:
        # as_uri() needs an absolute path (an --out typed relative gives a relative one)
        with contextlib.closing(sqlite3.connect(f"{db.absolute().as_uri()}?mode=ro", uri=True)) as con:
            return bool(con.execute("PRAGMA quick_check").fetchone()[0] != "ok")
    except ValueError:
        return True  # no URI for this path: its database cannot be checked, so it is not trusted
    except sqlite3.DatabaseError as exc:
        return "unable to open" not in str(exc)  # that one is the system's refusal, not the file's content


def _persistent_client(path: Path) -> Any:
    """A client of a Chroma System of our own for ``path``.

    ``chromadb.PersistentClient`` keeps one System per folder for the life of the process, even
    one that failed to start, so a folder that was broken (or moved aside) would stay broken
    in-process. A System started here joins that table only once it runs (``Client.from_system``
    replaces the folder's entry), and ``close()`` stops it when its last client goes.
    """
    from chromadb.api.client import Client
    from chromadb.config import System

    settings = _settings()
    settings.persist_directory = str(path)
    settings.is_persistent = True
    system = System(settings)
    try:
        system.start()
    except BaseException as exc:
        if not _engine_failure(exc):
            raise
        with contextlib.suppress(Exception):  # a half-started System is stopped as far as it can be
            system.stop()
        raise
    # A failure from here on releases the System itself (Client.__init__ closes what it opened).
    return Client.from_system(system)


def _collection_metadata(embedder: Embedder, cfg: IndexConfig) -> dict[str, Any]:
    meta: dict[str, Any] = {
        "embed_model": embedder.name,
        "embed_dim": int(embedder.dimension),
        "batchsum_schema": SCHEMA_VERSION,
        "role": "summary",
    }
    if cfg.chroma_host:  # a server's collection may be any folder's: it records whose it is
        meta["batchsum_out"] = _owner(cfg)
    return meta


def _owner(cfg: IndexConfig) -> str:
    return os.path.realpath(cfg.out)


def get_collection(client: Any, cfg: IndexConfig) -> Any | None:
    """The output's collection as it is (None when absent), not yet checked against an embedder."""
    from chromadb.errors import NotFoundError

    register_embedding_function()  # a persisted collection names our EmbeddingFunction
    try:
        # No embedding function here: we always pass vectors, and a foreign one must not raise a conflict
        # before we can compare the model recorded in the metadata.
        return client.get_collection(cfg.collection, embedding_function=None)
    except NotFoundError:
        return None
    except ValueError as exc:
        if "does not exist" in str(exc):
            return None
        raise _corrupt(cfg, exc) from None
    except Exception as exc:
        if "does not exist" in str(exc):
            return None
        raise _corrupt(cfg, exc) from None


@contextlib.contextmanager
def chroma_errors(cfg: IndexConfig) -> Iterator[None]:
    """Turn a failure inside chromadb (or its HTTP transport) into a one-line IndexError_."""
    try:
        yield
    except (BatchsumError, sqlite3.Error):
        raise
    except BaseException as exc:
        if not _engine_failure(exc):
            raise
        module = type(exc).__module__ or ""
        ours = module.startswith(("chromadb", "httpx", "httpcore", "pyo3_runtime"))
        if ours or isinstance(exc, (ConnectionError, TimeoutError)):
            raise _corrupt(cfg, exc) from None
        raise


def _corrupt(cfg: IndexConfig, exc: BaseException) -> IndexError_:
    if cfg.chroma_host:
        return IndexError_(f"{_where(cfg)} failed ({short_error(exc)}); check the server or drop --chroma-host")
    if refused_by_system(exc) or _short_of_descriptors():
        refused = IndexError_(f"cannot read the search index {chroma_dir(cfg)} ({short_error(exc)}); check `ulimit -n`")
        refused.damaged = False
        return refused
    return IndexError_(
        f"search index {chroma_dir(cfg)} is unreadable ({short_error(exc)}); run `{cfg.index_command('--rebuild')}`"
    )


def is_legacy(col: Any, embedder: Embedder) -> bool:
    """True for a collection of an older layout that a rebuild may replace: batchsum's own MiniLM
    model, or the configured one, recorded with an older schema (a foreign model is never replaced)."""
    meta = col.metadata or {}
    if str(meta.get("batchsum_schema")) == str(SCHEMA_VERSION):
        return False
    return meta.get("embed_model") in (LEGACY_MODEL, embedder.name)


def _check_compatible(cfg: IndexConfig, col: Any, embedder: Embedder) -> None:
    meta = col.metadata or {}
    owner = meta.get("batchsum_out")
    if cfg.chroma_host and owner and owner != _owner(cfg):
        # Two output folders writing one collection: each would delete the other's records as orphans.
        raise IndexError_(
            f"collection {cfg.collection!r} on {_where(cfg)} belongs to the output folder {owner};"
            f" give {cfg.out} a collection of its own with --collection NAME (or, if that folder moved here,"
            f" run `{cfg.index_command('--rebuild')}`)"
        )
    model, dim = meta.get("embed_model"), meta.get("embed_dim")
    if is_legacy(col, embedder):
        raise IndexError_(
            f"the search index in {_where(cfg)} was built by an older batchsum;"
            f" the next run or `{cfg.index_command()}` upgrades it"
        )
    if model != embedder.name or (dim is not None and int(dim) != int(embedder.dimension)):
        raise IndexError_(
            f"the index in {_where(cfg)} (collection {cfg.collection!r}) was built with {model or 'another model'}"
            f" ({dim or '?'} dims), not {embedder.name} ({embedder.dimension} dims);"
            f" run `{cfg.index_command('--rebuild')}`"
        )


def open_collection(cfg: IndexConfig, embedder: Embedder, *, create: bool) -> Any:
    """The output's collection, checked against ``embedder``; created when ``create`` and absent."""
    client = open_client(cfg, create=create)
    col = get_collection(client, cfg)
    if col is not None:
        _check_compatible(cfg, col, embedder)
        return col
    if not create:
        raise IndexError_(
            f"no search index (collection {cfg.collection!r}) in {_where(cfg)}; run `{cfg.index_command('--rebuild')}`"
        )
    return create_collection(client, cfg, embedder)


def create_collection(client: Any, cfg: IndexConfig, embedder: Embedder) -> Any:
    """A new, empty collection recording ``embedder``'s model and dimension (cosine HNSW)."""
    try:
        return client.create_collection(
            cfg.collection,
            metadata=_collection_metadata(embedder, cfg),
            configuration={"hnsw": {"space": "cosine", "ef_search": 100}},
            embedding_function=chroma_embedding_function(embedder),
        )
    except Exception as exc:
        if "name" in str(exc).lower() and "character" in str(exc).lower():
            raise ConfigError(
                f"--collection {cfg.collection!r}: use 3-512 letters, digits, '.', '_' or '-'"
                " (starting and ending with a letter or digit)"
            ) from None
        raise _corrupt(cfg, exc) from None
