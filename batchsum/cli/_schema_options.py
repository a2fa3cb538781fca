"""Options that several commands take from the settings schema (:mod:`batchsum.settings`): the LLM
server and request limits, and where the search index lives. Flags, defaults, bounds and help are
those of ``batchsum run``, so a flag means the same in every command."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from batchsum.config import IndexConfig, LLMConfig, RunConfig
from batchsum.remembered import reuse
from batchsum.settings import BY_FIELD, click_option, from_params, given_fields

# The LLM settings of facts, serve and watch.
_LLM_FIELDS = (
    "llm.base_url",
    "llm.api_key",
    "llm.model",
    "llm.timeout",
    "llm.rpm",
    "llm.concurrency",
    "llm.max_attempts",
    "llm.cache",
    "redact",
)
# One request at a time, no cache: what ``compact`` sends.
COMPACT_LLM_FIELDS = ("llm.base_url", "llm.api_key", "llm.model", "llm.timeout", "llm.max_attempts")
# Where the index lives and which embedder builds it (``search`` and ``index`` read it, so no --no-index).
SEARCH_INDEX_FIELDS = ("collection", "chroma_host", "chroma_port", "embed_base_url", "embed_model")
_INDEX_FIELDS = ("index", *SEARCH_INDEX_FIELDS)


def _param_names(fields: tuple[str, ...]) -> set[str]:
    return {BY_FIELD[f].param_name for f in fields}


# The settings of a run's summary requests that ``watch`` takes too (its runs summarize; facts and serve
# do not): without them a watched folder could not keep a hosted API's token limit or fall back.
WATCH_RUN_FIELDS = (
    "llm.tpm",
    "llm.fallback_models",
    "llm.on_error",
    "llm.context_window",
    "llm.prompts_dir",
    "llm.facets",
)
_PARAMS = _param_names((*_LLM_FIELDS, *_INDEX_FIELDS, *WATCH_RUN_FIELDS))


def schema_options(*fields: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """A decorator adding the schema's click options of ``fields``, in that order."""

    def decorate(func: Callable[..., Any]) -> Callable[..., Any]:
        for f in reversed(fields):
            func = click_option(BY_FIELD[f])(func)
        return func

    return decorate


def llm_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """--base-url, --api-key, --model, the request limits and --redact (as in ``run``), and --json-format."""
    func = click.option(
        "--json-format",
        type=click.Choice(["json_schema", "json_object", "off"]),
        default="json_schema",
        show_default=True,
        help="How strict JSON is asked for: OpenAI json_schema, llama-cpp-python json_object, or only in the prompt.",
    )(func)
    return schema_options(*_LLM_FIELDS)(func)


def index_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """Where the search index lives (as in ``run``), and --no-index."""
    return schema_options(*_INDEX_FIELDS)(func)


def _given(params: dict[str, Any], names: set[str]) -> dict[str, Any]:
    return {name: value for name, value in params.items() if name in names}


def build_config(paths: list[Path], out: Path, params: dict[str, Any], **extra: Any) -> RunConfig:
    """A RunConfig from the LLM and index options (plus any RunConfig field in ``extra``)."""
    cfg = RunConfig(paths=paths, out=out, **extra)
    from_params(cfg, _given(params, _PARAMS))
    return cfg


def folder_config(paths: list[Path], out: Path, params: dict[str, Any], **extra: Any) -> RunConfig:
    """:func:`build_config` for a command that reads the sources of OUT (``facts``, ``watch``): the options
    this invocation left out take the settings OUT remembers, as ``run``'s do. Without them a day-two
    ``batchsum facts notes --out OUT`` walked past the folder's ``--ignore`` and ``--type``, and an
    ignored file reached the LLM."""
    cfg = build_config(paths, out, params, **extra)
    reuse(cfg, given_fields(click.get_current_context())[1])
    return cfg


def index_config(out: Path, params: dict[str, Any]) -> IndexConfig:
    """The IndexConfig of output folder ``out`` from the :data:`SEARCH_INDEX_FIELDS` options."""
    cfg = IndexConfig(out=out)
    from_params(cfg, _given(params, _param_names(SEARCH_INDEX_FIELDS)))
    return cfg


def llm_config(params: dict[str, Any]) -> LLMConfig:
    """The LLMConfig from the :data:`COMPACT_LLM_FIELDS` options (library defaults for the rest)."""
    cfg = RunConfig(paths=[])
    from_params(cfg, _given(params, _param_names(COMPACT_LLM_FIELDS)))
    return cfg.llm
