"""``batchsum serve``: parse options, build a ServeConfig, run the endpoint until SIGINT/SIGTERM."""

from __future__ import annotations

import ipaddress
import os
from pathlib import Path
from typing import Any

import click

from batchsum.cli._common import setup_logging, translate_errors
from batchsum.cli._schema_options import build_config, index_options, llm_options
from batchsum.errors import ConfigError
from batchsum.watch import parse_duration_ms


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@click.command()
@click.option(
    "--out",
    "-o",
    type=click.Path(path_type=Path),
    default=Path("batchsum-out"),
    show_default=True,
    help="Output folder whose summaries and facts are served (conversations are written there).",
)
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True, help="Port (0: any free one).")
@click.option(
    "--serve-key",
    envvar="BATCHSUM_SERVE_KEY",
    metavar="KEY",
    help="Key clients must send as 'Authorization: Bearer KEY' [env BATCHSUM_SERVE_KEY].",
)
@llm_options
@index_options
@click.option(
    "--watch",
    "watch_paths",
    multiple=True,
    type=click.Path(path_type=Path, exists=True),
    help="Also summarize these sources incrementally whenever they change (repeatable).",
)
@click.option("--debounce", default="2s", show_default=True, help="--watch: wait this long after a change.")
@click.option("--no-facts", is_flag=True, help="Do not extract facts from the conversations.")
@click.option("--no-summaries", is_flag=True, help="Do not keep the conversations' summary trees.")
@click.option(
    "--top-k",
    type=click.IntRange(min=0),
    default=5,
    show_default=True,
    help="Facts and earlier turns injected per request.",
)
@click.option("--git", is_flag=True, help="Commit the written conversations, facts and summaries.")
@click.option("--quiet", "-q", is_flag=True, help="Print nothing but errors.")
@click.option("--verbose", "-v", is_flag=True, help="More log output.")
@translate_errors
def serve(out: Path, host: str, port: int, serve_key: str | None, watch_paths: tuple[Path, ...], debounce: str,
          no_facts: bool, no_summaries: bool, top_k: int, git: bool, quiet: bool, verbose: bool,
          **params: Any) -> None:  # fmt: skip
    """An OpenAI-compatible chat endpoint (POST /v1/chat/completions, GET /v1/models) that answers
    through the upstream --base-url/--model with the summaries and facts of OUT injected, and keeps
    each conversation's turns, facts and summary under OUT/conversations/."""
    # Lazy: the server loads aiohttp, asyncio and pydantic; `batchsum serve --help` does not.
    from batchsum.serve.app import run_server
    from batchsum.serve.config import ServeConfig

    setup_logging(quiet, verbose)
    if not params.get("base_url") or not params.get("model"):
        raise ConfigError("serve needs the upstream server: --base-url URL and --model NAME")
    if not _loopback(host) and not serve_key:
        raise ConfigError(f"--host {host} is reachable from other machines: set --serve-key (or BATCHSUM_SERVE_KEY)")
    cfg = build_config(list(watch_paths), out, params, git=git, quiet=True)
    scfg = ServeConfig(
        run=cfg, host=host, port=port, client_key=serve_key or None, watch=list(watch_paths),
        json_format=params["json_format"], top_facts=top_k, facts=not no_facts, summarize=not no_summaries,
        debounce_ms=parse_duration_ms(debounce),
    )  # fmt: skip
    out.mkdir(parents=True, exist_ok=True)

    def announce(url: str) -> None:
        click.echo(f"batchsum serve: listening on {url} (upstream {cfg.llm.base_url}, model {cfg.llm.model})",
                   err=False)  # fmt: skip
        if not quiet:
            click.echo(f"  point a client at it: OPENAI_BASE_URL={url}", err=True)

    os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
    run_server(scfg, announce)
