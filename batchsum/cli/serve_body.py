"""What ``batchsum serve`` does: build a ServeConfig, run the endpoint until SIGINT/SIGTERM (the options and
help are declared in :mod:`batchsum.cli.serve`)."""

from __future__ import annotations

import ipaddress
import os
from pathlib import Path
from typing import Any

import click

from batchsum.cli._common import setup_logging
from batchsum.cli._schema_options import build_config
from batchsum.errors import ConfigError
from batchsum.serve.app import run_server
from batchsum.serve.config import ServeConfig
from batchsum.settings import given_fields
from batchsum.watch import parse_duration_ms


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def serve(out: Path, host: str, port: int, serve_key: str | None, watch_paths: tuple[Path, ...], debounce: str,
          no_facts: bool, no_summaries: bool, top_k: int, git: bool, quiet: bool, verbose: bool,
          **params: Any) -> None:  # fmt: skip
    """Check the options, then serve OUT until SIGINT/SIGTERM."""
    setup_logging(quiet, verbose)
    if not params.get("base_url") or not params.get("model"):
        raise ConfigError("serve needs the upstream server: --base-url URL and --model NAME")
    if not _loopback(host) and not serve_key:
        raise ConfigError(f"--host {host} is reachable from other machines: set --serve-key (or BATCHSUM_SERVE_KEY)")
    cfg = build_config(list(watch_paths), out, params, git=git, quiet=True)
    scfg = ServeConfig(
        run=cfg, host=host, port=port, client_key=serve_key or None, watch=list(watch_paths),
        json_format=params["json_format"], top_facts=top_k, facts=not no_facts, summarize=not no_summaries,
        debounce_ms=parse_duration_ms(debounce), given=frozenset(given_fields(click.get_current_context())[1]),
    )  # fmt: skip
    out.mkdir(parents=True, exist_ok=True)

    def announce(url: str) -> None:
        click.echo(f"batchsum serve: listening on {url} (upstream {cfg.llm.base_url}, model {cfg.llm.model})",
                   err=False)  # fmt: skip
        if not quiet:
            click.echo(f"  point a client at it: OPENAI_BASE_URL={url}", err=True)

    os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
    run_server(scfg, announce)
