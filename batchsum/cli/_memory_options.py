"""Options shared by ``batchsum facts``, ``serve`` and ``watch``: the LLM server and the search index."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from batchsum.config import RunConfig
from batchsum.settings import BY_FIELD, click_option, from_params


def _apply(func: Callable[..., Any], opts: list[Callable[..., Any]]) -> Callable[..., Any]:
    for opt in reversed(opts):
        func = opt(func)
    return func


# The settings of ``batchsum run`` that these commands share: flags, defaults, bounds and help from the
# one schema, so a flag means the same in every command.
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
_INDEX_FIELDS = ("index", "collection", "chroma_host", "chroma_port", "embed_base_url", "embed_model")
_PARAMS = {BY_FIELD[f].param_name for f in (*_LLM_FIELDS, *_INDEX_FIELDS)}


def llm_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """--base-url, --api-key, --model, the request limits and --redact (as in ``run``), and --json-format."""
    return _apply(
        func,
        [
            *(click_option(BY_FIELD[f]) for f in _LLM_FIELDS),
            click.option(
                "--json-format",
                type=click.Choice(["json_schema", "json_object", "off"]),
                default="json_schema",
                show_default=True,
                help="How strict JSON is asked for: OpenAI json_schema, llama-cpp-python json_object, or "
                "only in the prompt.",
            ),
        ],
    )


def index_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """Where the search index lives (as in ``run``)."""
    return _apply(func, [click_option(BY_FIELD[f]) for f in _INDEX_FIELDS])


def build_config(paths: list[Path], out: Path, params: dict[str, Any], **extra: Any) -> RunConfig:
    """A RunConfig from the options above (plus any RunConfig field in ``extra``)."""
    cfg = RunConfig(paths=paths, out=out, **extra)
    from_params(cfg, {name: value for name, value in params.items() if name in _PARAMS})
    return cfg
