"""batchsum: summarize, measure and search large folders of text, offline by default.

The library API (the CLI is built on it); options are named like the command's flags::

    import batchsum

    result = batchsum.run("journal", out="journal-summaries", type="journal")
    print(result.summary_line())
    preview = batchsum.plan("journal", out="journal-summaries")   # what a run would do, writes nothing
    hits = batchsum.search("journal-summaries", "who moved to Lisbon?", k=5)
    facts = batchsum.search_facts("journal-summaries", "where does Anna live?")  # search --role memory
    stats = batchsum.report("journal-summaries", last=10)        # compression statistics from the metrics
    result = batchsum.compact(messages, context_window=8192)     # summary message + verbatim tail
    done = batchsum.facts("journal", out="journal-summaries", base_url=URL, model=M)  # facts memory
    check = batchsum.check_index("journal-summaries")            # the index against the tree
    files = batchsum.export("journal-summaries", "metrics-export", format="csv")
    scores = batchsum.eval_summaries("docs", "refs", baselines=True, budget="ref")  # ROUGE, as ``eval``

``watch`` and ``serve`` are services, run from the command line. The exceptions the functions raise
(:class:`ConfigError`, :class:`LockedError`, :class:`SettingsChanged`, :class:`RunInterrupted`, ...) are
importable from here as from :mod:`batchsum.errors`.

A :class:`~batchsum.config.RunConfig` (or :class:`~batchsum.config.IndexConfig`) may be passed
instead of paths and options. Each function imports its stage on first call (:data:`_STAGES`), so
``import batchsum`` stays cheap.
"""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from batchsum.event_loop import off_the_loop
from batchsum.lazy import load

if TYPE_CHECKING:
    from datetime import date

    # What ``__getattr__`` loads, as the type checker sees it (``import batchsum`` imports none of it).
    from batchsum.compact import _CallablePackage
    from batchsum.compact.api import CompactionResult
    from batchsum.config import IndexConfig, RunConfig
    from batchsum.engine.executor import ExecutorFactory
    from batchsum.engine.preview import PlanSummary
    from batchsum.engine.records import RunResult
    from batchsum.errors import (
        BatchsumError,
        ConfigError,
        IndexError_,
        InputError,
        LLMSummaryError,
        LockedError,
        MetricsError,
        RunInterrupted,
        SettingsChanged,
        SummarizationError,
    )
    from batchsum.evaluate.runner import EvalReport
    from batchsum.index.search import SearchHit
    from batchsum.index.store import IndexCheck, IndexStats
    from batchsum.memory.ingest import FactsResult
    from batchsum.memory.search import FactHit
    from batchsum.metrics.report import Report
    from batchsum.walk import Problem

    compact: _CallablePackage

__version__ = "0.1.0"

# The named exceptions and the types the functions take and return, importable from here: each is loaded
# from its module on first use, by ``__getattr__`` (the imports above are the type checker's view of them).
_LAZY: dict[str, str] = {
    **dict.fromkeys(
        ("BatchsumError", "ConfigError", "IndexError_", "InputError", "LLMSummaryError", "LockedError",
         "MetricsError", "RunInterrupted", "SettingsChanged", "SummarizationError"),
        "batchsum.errors",
    ),
    "CompactionResult": "batchsum.compact.api",
    "EvalReport": "batchsum.evaluate.runner",
    "FactHit": "batchsum.memory.search",
    "FactsResult": "batchsum.memory.ingest",
    "IndexCheck": "batchsum.index.store",
    "IndexConfig": "batchsum.config",
    "IndexStats": "batchsum.index.store",
    "PlanSummary": "batchsum.engine.preview",
    "Problem": "batchsum.walk",
    "Report": "batchsum.metrics.report",
    "RunConfig": "batchsum.config",
    "RunResult": "batchsum.engine.records",
    "SearchHit": "batchsum.index.search",
}  # fmt: skip
# The other names the functions' annotations use, by module: typing.get_type_hints loads them as it loads _LAZY's.
_TYPE_ONLY: dict[str, str] = {
    "date": "datetime",
    "ExecutorFactory": "batchsum.engine.executor",
    "Backend": "batchsum.model",  # ExecutorFactory's own forward references
}
# Spelled out (not built from _LAZY): a type checker reads the list as written.
__all__ = [
    "BatchsumError",
    "CompactionResult",
    "ConfigError",
    "EvalReport",
    "FactHit",
    "FactsResult",
    "IndexCheck",
    "IndexConfig",
    "IndexError_",
    "IndexStats",
    "InputError",
    "LLMSummaryError",
    "LockedError",
    "MetricsError",
    "PlanSummary",
    "Problem",
    "Report",
    "RunConfig",
    "RunInterrupted",
    "RunResult",
    "SearchHit",
    "SettingsChanged",
    "SummarizationError",
    "__version__",
    "check_index",
    "compact",
    "eval_summaries",
    "export",
    "facts",
    "plan",
    "repair_index",
    "report",
    "run",
    "search",
    "search_facts",
]

Paths = str | Path | Iterable[str | Path]

# What each entry point calls, as "module:name" (or a module), imported on its first call: ``import batchsum``
# runs before every batchsum module, ``batchsum --help`` included, so it imports none of them.
_STAGES: dict[str, str] = {
    "config_for": "batchsum.options:config_for",
    "index_config": "batchsum.remembered:index_config",
    "run": "batchsum.engine.orchestrator:run",
    "plan": "batchsum.engine.preview:preview",
    "search": "batchsum.index.search:search",
    "search_args": "batchsum.options",
    "validate": "batchsum.settings:validate",
    "report": "batchsum.metrics.report:build_report",
    "facts": "batchsum.memory.ingest",
    "worst_exit": "batchsum.engine.ledger:worst_exit",
    "stopping": "batchsum.engine.stopping",
    "search_facts": "batchsum.memory.search:search_facts",
    "index": "batchsum.index.store",
    "export": "batchsum.metrics.export:export_metrics",
    "evaluate": "batchsum.evaluate.runner",
    # The compaction package, callable like its ``compact`` function (batchsum/compact/__init__.py).
    "compact": "batchsum.compact",
}


def _stage(name: str) -> Any:
    _library_logging()
    return load(_STAGES[name])


@cache
def _library_logging() -> None:
    """A library logs and leaves where to its caller (the logging HOWTO's "Configuring Logging for a
    Library"): with no handler anywhere, Python's last resort had printed its warnings on stderr."""
    import logging

    logging.getLogger("batchsum").addHandler(logging.NullHandler())


def _released() -> AbstractContextManager[None]:
    """The Chroma clients a library call opens are closed when it (and any call running beside it) ends."""
    return load("batchsum.index.clients:released_clients")()  # type: ignore[no-any-return]


def run(paths: RunConfig | Paths, /, *, executor: ExecutorFactory | str | None = None, **options: Any) -> RunResult:
    """Summarize ``paths`` (a folder, a file or several) into the tree under ``out``; incremental,
    crash-safe, never stopped by one bad file. ``options`` are the flags of ``batchsum run``
    (``out="summaries"``, ``type="journal"``, ``base_url=...``, ``model=...``, ``rpm=0``...); those left
    out take the settings the output folder remembers. ``executor``: ``"local"`` or ``"ray"``, or a
    factory building the executor from the backends. ``facts=True`` runs the facts pass after it, as
    ``run --facts`` does (``result.facts``; ``result.exit_code`` the worse of the two). Raises
    :class:`~batchsum.errors.LockedError` when another run holds the output,
    :class:`~batchsum.errors.SettingsChanged` when changed settings would make an LLM summarize files again
    (pass ``yes=True`` or ``rebuild=True``)."""
    if isinstance(executor, str):
        options["executor"] = executor
        executor = None
    cfg = _stage("config_for")(paths, options)
    with _released():
        result: RunResult = off_the_loop(lambda: _stage("run")(cfg, executor=executor))
        # A stop asked for (the command's SIGTERM) while the run wrote its index or metrics: nothing follows it.
        if cfg.facts and result.run.status != "aborted" and not _stage("stopping").SUMMARIZING.requested:
            ingest = _stage("facts")
            result.facts = ingest.run_facts(ingest.FactsConfig(run=cfg))
            result.exit_code = _stage("worst_exit")(result.exit_code, result.facts.exit_code)
    return result


def plan(
    paths: RunConfig | Paths, /, *, price: str | tuple[float, float | None] | float | None = None, **options: Any
) -> PlanSummary:
    """What :func:`run` would do now: new/changed/unchanged/deleted files, nodes, calls, tokens, cost.
    ``options`` are those of :func:`run`; ``price`` (``batchsum plan --price IN[,OUT]``: ``"0.15,0.60"``, a pair
    or one number, per million prompt and completion tokens) sets ``est_cost``, as ``price_per_1k`` does."""
    given = None if price is None else _stage("search_args").prices(price)
    cfg = _stage("config_for")(paths, options, "plan")
    _stage("validate")(cfg)  # as the command and a run check it: chunk_size=-1 had reached the chunker
    summary: PlanSummary = off_the_loop(lambda: _stage("plan")(cfg))
    if given is not None:
        summary.est_cost = round(summary.cost(*given), 6)
    return summary


def search(
    out: IndexConfig | str | Path,
    query: str,
    *,
    k: int = 5,
    level: str | int | None = None,
    content_type: str | None = None,
    path_glob: str | None = None,
    since: date | str | None = None,
    reranker: str | Path | None = None,
    strict: bool = False,
    chroma_host: str | None = None,
    chroma_port: int | None = None,
    collection: str | None = None,
    embed_base_url: str | None = None,
    embed_model: str | None = None,
    type: str | None = None,  # the command's --type
    path: str | Path | None = None,
) -> list[SearchHit]:
    """The ``k`` summaries of the output folder ``out`` that best answer ``query``, best first;
    ``level`` is 1, 2, 3, ``final`` or ``period``, ``type`` (or ``content_type``) one of ``run``'s types,
    ``path`` (or ``path_glob``) matches source paths relative to the corpus root (``--path``: a leading
    ``./`` or the root itself is taken off), ``since`` (a date, or ``YYYY-MM-DD``, ``YYYY-MM`` or ``YYYY``
    as ``--since`` takes) drops older documents, ``strict`` refuses an incomplete index. The
    folder's index settings (collection, embedder) are the ones it was built with unless given;
    ``chroma_host``/``chroma_port`` query a Chroma server, as ``--chroma-host``/``--chroma-port`` do.
    Raises :class:`~batchsum.errors.ConfigError` for a bad argument, as the command does. A hit's
    ``summary_path`` is absolute."""
    args = _stage("search_args")
    cfg = _index_options(
        _output(out),
        {"chroma_host": chroma_host, "chroma_port": chroma_port, "collection": collection,
         "embed_base_url": embed_base_url, "embed_model": embed_model},
    )  # fmt: skip
    glob = args.path_filter(cfg, args.one_of("path", path, "path_glob", path_glob))
    day = args.since_arg(since)
    with _released():
        hits: list[SearchHit] = _stage("search")(
            cfg,
            query,
            k=args.count("k", k),
            level=args.level_arg(level),
            content_type=args.type_arg(args.one_of("type", type, "content_type", content_type)),
            path_glob=glob,
            since=day,
            reranker=None if reranker is None else args.path_arg("reranker", reranker),
            strict=args.flag("strict", strict),
        )
    if not hits:
        given = {"level": level, "type": type or content_type, "since": day.isoformat() if day else None}
        with _released():
            _why_none(cfg, query, glob, given, reranker)
    return args.absolute(hits)


def _why_none(cfg: IndexConfig, query: str, glob: str | None, given: dict[str, Any], reranker: Any) -> None:
    """Log why a search found nothing when a filter is to blame, as the command prints it."""
    import logging  # only here: ``import batchsum`` stays cheap

    args = _stage("search_args")
    why = args.unmatched_path(cfg, glob) if glob else None
    if why is None:
        ranker = None if reranker is None else args.path_arg("reranker", reranker)
        why = args.filtered_out(cfg, query, {**given, "path": glob}, ranker)
    if why is not None:
        logging.getLogger("batchsum").warning("%s", why)


def search_facts(out: IndexConfig | str | Path, query: str, *, k: int = 5) -> list[FactHit]:
    """The ``k`` facts of ``out``'s memory that best answer ``query``, best first (``batchsum search --role
    memory``); [] when the folder holds no facts. Raises :class:`~batchsum.errors.ConfigError` for a bad
    argument."""
    args = _stage("search_args")
    cfg, text, count = _output(out), args.text("query", query) or "", args.count("k", k)
    with _released():
        hits: list[FactHit] = _stage("search_facts")(cfg, text, k=count)
    return hits


def _output(out: IndexConfig | str | Path) -> IndexConfig:
    """The index settings of the output folder ``out``; ConfigError for an ``out`` that is no path, as
    :func:`report` and :func:`export` say it (a folder that holds no output is an IndexError_, where it is read)."""
    if not isinstance(out, load("batchsum.config:IndexConfig")):
        out = _stage("search_args").path_arg("out", out)
    return _stage("index_config")(out)  # type: ignore[no-any-return]


def _index_options(cfg: IndexConfig, given: dict[str, Any]) -> IndexConfig:
    """``cfg`` with the index keywords that were given (a copy: a caller's IndexConfig is left as it is)."""
    import dataclasses  # only here: ``import batchsum`` stays cheap

    given = {name: value for name, value in given.items() if value is not None}
    for name, value in given.items():
        kind = int if name == "chroma_port" else str
        if not isinstance(value, kind) or isinstance(value, bool):
            wanted = "a port number" if kind is int else "a string"
            raise load("batchsum.errors:ConfigError")(f"{name}={value!r}: give {wanted}")
    return dataclasses.replace(cfg, **given) if given else cfg


def report(
    out: str | Path,
    *,
    metrics_db: Path | None = None,
    run: str | None = None,
    last: int | None = None,
    content_type: str | None = None,
    price_per_1k: float | None = None,
    price: str | tuple[float, float | None] | None = None,
    type: str | None = None,  # the command's --type
) -> Report:
    """Compression statistics of the runs recorded for ``out`` (one ``run`` id or the ``last`` n), of the
    files of one ``type`` (or ``content_type``); the cost at ``price`` per million prompt (and completion)
    tokens, as ``plan --price`` (``"0.15,0.60"`` or a pair), or at one ``price_per_1k`` per thousand tokens.
    Raises :class:`~batchsum.errors.ConfigError` for a bad argument, as the command does."""
    args = _stage("search_args")
    stats: Report = _stage("report")(
        args.path_arg("out", out),
        metrics_db=None if metrics_db is None else args.path_arg("metrics_db", metrics_db),
        run=args.text("run", run),
        last=None if last is None else args.count("last", last),
        content_type=args.text("type", args.one_of("type", type, "content_type", content_type)),
        price_per_1k=None if price_per_1k is None else args.number("price_per_1k", price_per_1k),
        price=None if price is None else args.prices(price),
    )
    return stats


def facts(
    paths: RunConfig | Paths, /, *, scope: str | None = None, json_format: str = "json_schema", **options: Any
) -> FactsResult:
    """Extract and reconcile facts from the journals and conversations of ``paths`` into ``out``'s memory
    (``batchsum facts``); ``options`` as for :func:`run` (``base_url``, ``model``, ...); ``json_format`` is
    ``json_schema``, ``json_object`` or ``off`` (ConfigError for another)."""
    ingest = _stage("facts")
    cfg = ingest.FactsConfig(run=_stage("config_for")(paths, options, "facts"), scope=scope, json_format=json_format)
    with _released():
        return ingest.run_facts(cfg)  # type: ignore[no-any-return]


def check_index(out: IndexConfig | str | Path) -> IndexCheck:
    """Compare the search index of ``out`` with its tree (``batchsum index --check``), writing nothing:
    ``.ok``, ``.missing``, ``.stale``, ``.orphans``, ``.damaged``, ``.outdated``, ``.missing_parts`` and the
    ``.sources_not_found`` (indexed by their summaries alone). Raises :class:`~batchsum.errors.IndexError_`
    when ``out`` does not exist or holds no batchsum output."""
    cfg = _output(out)
    with _released():
        return _stage("index").check_index(cfg)  # type: ignore[no-any-return]


def repair_index(out: IndexConfig | str | Path, *, rebuild: bool = False, wait: bool = False) -> IndexStats:
    """Index the missing and stale nodes of ``out`` and remove orphans (``batchsum index``); ``rebuild``
    recreates the index from the tree (``--rebuild``); ``wait`` waits for a run holding the output. Raises
    :class:`~batchsum.errors.IndexError_` when ``out`` does not exist or holds no batchsum output."""
    store, cfg = _stage("index"), _output(out)
    with _released():
        return (store.rebuild_index if rebuild else store.repair_index)(cfg, wait=wait)  # type: ignore[no-any-return]


def export(out: str | Path, dest: str | Path, *, format: str = "parquet", metrics_db: Path | None = None) -> list[Path]:
    """Write the metrics of ``out`` (runs, files, nodes, evals) to ``dest`` as ``parquet``, ``csv`` or
    ``json`` (``batchsum export``); returns the files written. Raises
    :class:`~batchsum.errors.MetricsError` when ``out`` holds no metrics, as :func:`report` does."""
    args = _stage("search_args")
    db = None if metrics_db is None else args.path_arg("metrics_db", metrics_db)
    written: list[Path] = _stage("export")(args.path_arg("out", out), args.path_arg("dest", dest), format, db)
    return written


def eval_summaries(docs: str | Path, refs: str | Path, /, **options: Any) -> EvalReport:
    """Score batchsum's summaries of ``docs`` against the reference summaries in ``refs``
    (``batchsum eval``); ``options`` are :class:`~batchsum.evaluate.runner.EvalOptions` fields
    (``out``, ``budget="ref"``, ``baselines=True``, ``tree=True``, ...)."""
    runner, args = _stage("evaluate"), _stage("search_args")
    fields = {f.name: f.type for f in dataclasses.fields(runner.EvalOptions)}
    named: dict[str, Any] = {}
    for key, value in options.items():
        # ``no_metrics=True`` as the flag --no-metrics says it; ``run`` takes its flags' names alike.
        field = key.removeprefix("no_")
        if key not in fields and key != field and fields.get(field) in (bool, "bool") and isinstance(value, bool):
            if field in options:
                raise TypeError(f"give {field}= or {key}=, not both")
            key, value = field, not value
        if key not in fields or key in ("docs_dir", "refs_dir"):
            flags = [*fields, *(f"no_{f}" for f, t in fields.items() if t in (bool, "bool"))]
            raise args.unknown_option(key, flags, "eval", "eval_summaries")
        named[key] = value
    # Checked before any work: a wrong type (``out`` as a str was fine until the end) fails at once.
    given = args.typed_fields(runner.EvalOptions, {"docs_dir": docs, "refs_dir": refs, **named})
    return runner.evaluate(runner.EvalOptions(**given))  # type: ignore[no-any-return]


# Why twins, not the annotation types imported at the top: typing.get_type_hints reads a function's globals only
# (never a module __getattr__), and the types live in the modules doing the work (numpy, asyncio, pydantic):
# importing them took ~35 times ``import batchsum`` itself (4.0 s against 113 ms, medians of 5 on a loaded
# machine), and evaluate.runner imports ``run`` from here (a cycle). Functions loaded on first access would move
# that cost to ``from batchsum import run`` (+1.5 s). A plain import needs the result types in light modules.
_F = TypeVar("_F", bound=Callable[..., Any])


class _Namespace(dict[str, Any]):
    """This module's names, and the lazy ones (:data:`_LAZY`, :data:`_TYPE_ONLY`) loaded when first looked up."""

    def __missing__(self, name: str) -> Any:
        if name in globals():
            return globals()[name]
        module = _LAZY.get(name) or _TYPE_ONLY.get(name)
        if module is None:
            raise KeyError(name)
        return load(f"{module}:{name}")


def _resolvable(func: _F) -> _F:
    """``func``, its annotations resolvable by ``typing.get_type_hints``: that evaluates them in the globals of
    the function ``__wrapped__`` leads to, and here the lazy names are none (``import batchsum`` loads none of
    their modules), so it leads to a twin, never called, whose globals load them when looked up."""
    assert isinstance(func, types.FunctionType)
    twin = types.FunctionType(func.__code__, _Namespace(), func.__name__, func.__defaults__, func.__closure__)
    twin.__kwdefaults__, twin.__annotations__, twin.__doc__ = func.__kwdefaults__, func.__annotations__, func.__doc__
    func.__dict__["__wrapped__"] = twin  # inspect.signature follows it too: the same code, defaults and annotations
    return func


for _name in __all__:
    if isinstance(globals().get(_name), types.FunctionType):
        _resolvable(globals()[_name])


def __dir__() -> list[str]:
    # The lazy names (the exceptions, the types, ``compact``) are listed as the ones defined here are.
    return sorted({*globals(), *__all__})


if not TYPE_CHECKING:  # the type checker knows the lazy names from the imports above: no catch-all for typos

    def __getattr__(name: str) -> Any:
        if name == "compact":
            return _stage("compact")
        if name in _LAZY:
            return load(f"{_LAZY[name]}:{name}")
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
