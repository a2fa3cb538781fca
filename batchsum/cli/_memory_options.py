"""Options shared by ``batchsum facts``, ``serve`` and ``watch``: the LLM server and the search index."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from batchsum.config import AUTO_RATE, LLMConfig, RunConfig


def _apply(func: Callable[..., Any], opts: list[Callable[..., Any]]) -> Callable[..., Any]:
    for opt in reversed(opts):
        func = opt(func)
    return func


def llm_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """--base-url, --api-key, --model and the request limits (same names and defaults as ``run``)."""
    return _apply(
        func,
        [
            click.option(
                "--base-url",
                envvar="OPENAI_BASE_URL",
                metavar="URL",
                help="OpenAI-compatible server [env OPENAI_BASE_URL].",
            ),
            click.option(
                "--api-key", envvar="OPENAI_API_KEY", help="Its API key [env OPENAI_API_KEY]; never stored or logged."
            ),
            click.option("--model", envvar="BATCHSUM_MODEL", help="Model name [env BATCHSUM_MODEL]."),
            click.option(
                "--timeout",
                type=click.FloatRange(min=0.1),
                default=120.0,
                show_default=True,
                help="Seconds per LLM request.",
            ),
            click.option(
                "--rpm",
                type=click.FloatRange(min=0),
                help="Requests per minute (0 = unlimited) [60 for a hosted API; unlimited for a server on this"
                " machine or the local network].",
            ),
            click.option("--concurrency", type=click.IntRange(min=1), default=4, show_default=True),
            click.option("--max-attempts", type=click.IntRange(min=1), default=5, show_default=True),
            click.option("--no-cache", is_flag=True, help="Do not reuse cached LLM responses."),
            click.option(
                "--redact/--no-redact",
                default=None,
                help="Replace secrets in text sent to the LLM server (and, for serve, in the summaries and facts "
                "injected into requests) by [REDACTED:<kind>] [default: on when --base-url/--embed-base-url is "
                "not loopback].",
            ),
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
    """Where the search index lives (same names and defaults as ``run``)."""
    return _apply(
        func,
        [
            click.option("--no-index", is_flag=True, help="Do not index (facts are reconciled by recency instead)."),
            click.option("--collection", default="batchsum", show_default=True, help="Chroma collection name."),
            click.option("--chroma-host", help="Use a Chroma server instead of OUT/.batchsum/chroma."),
            click.option("--chroma-port", type=int, help="Chroma server port."),
            click.option(
                "--embed-base-url", help="OpenAI-compatible embeddings endpoint instead of the packaged MiniLM."
            ),
            click.option("--embed-model", help="Embedding model name for --embed-base-url."),
        ],
    )


def build_config(paths: list[Path], out: Path, params: dict[str, Any], **extra: Any) -> RunConfig:
    """A RunConfig from the options above (plus any RunConfig field in ``extra``)."""
    llm = LLMConfig(
        base_url=params.get("base_url"),
        api_key=params.get("api_key"),
        model=params.get("model"),
        timeout=float(params.get("timeout") or 120.0),
        rpm=AUTO_RATE if params.get("rpm") is None else (params["rpm"] or None),
        concurrency=int(params.get("concurrency") or 4),
        max_attempts=int(params.get("max_attempts") or 5),
        cache=not params.get("no_cache", False),
    )
    return RunConfig(
        paths=paths,
        out=out,
        llm=llm,
        index=not params.get("no_index", False),
        collection=params.get("collection") or "batchsum",
        chroma_host=params.get("chroma_host"),
        chroma_port=params.get("chroma_port"),
        embed_base_url=params.get("embed_base_url"),
        embed_model=params.get("embed_model"),
        redact=params.get("redact"),
        **extra,
    )
