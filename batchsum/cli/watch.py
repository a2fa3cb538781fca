"""``batchsum watch``: parse options, build a RunConfig, watch until SIGINT/SIGTERM."""

from __future__ import annotations

import signal
import time
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

import click

from batchsum.cli._common import setup_logging, translate_errors
from batchsum.cli._schema_options import build_config, index_options, llm_options
from batchsum.errors import ConfigError
from batchsum.model import TYPE_CHOICES
from batchsum.remembered import reuse
from batchsum.settings import given_fields
from batchsum.watch import Watcher, parse_duration_ms, watch_config

if TYPE_CHECKING:
    from batchsum.config import RunConfig


def _reuse_remembered(cfg: RunConfig) -> None:
    """Options left out take the output folder's remembered settings, as with ``batchsum run``."""
    reuse(cfg, given_fields(click.get_current_context())[1])


@click.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--out",
    "-o",
    type=click.Path(path_type=Path),
    default=Path("batchsum-out"),
    show_default=True,
    help="Output folder for the summary tree and state.",
)
@click.option("--debounce", default="2s", show_default=True, help="Wait this long after a change (2s, 500ms).")
@click.option(
    "--type",
    "content_type",
    type=click.Choice(list(TYPE_CHOICES)),
    default="auto",
    show_default=True,
    help="Content type of every file (auto: decide per file).",
)
@click.option("--ignore", multiple=True, help="Extra gitignore-style pattern to skip (repeatable).")
@llm_options
@index_options
@click.option("--facts", "with_facts", is_flag=True, help="Also extract facts after each run (needs --base-url).")
@click.option("--no-metrics", is_flag=True, help="Do not record metrics.")
@click.option("--git", is_flag=True, help="Commit each run in the output folder's git repository.")
@click.option("--quiet", "-q", is_flag=True, help="Print nothing but errors.")
@click.option("--verbose", "-v", is_flag=True, help="More log output.")
@translate_errors
def watch(paths: tuple[Path, ...], out: Path, debounce: str, content_type: str, ignore: tuple[str, ...],
          with_facts: bool, no_metrics: bool, git: bool, quiet: bool, verbose: bool,
          **params: Any) -> None:  # fmt: skip
    """Summarize PATHS into OUT, then again (incrementally) whenever files are created, modified or
    deleted. Holds OUT's lock only while writing; stops cleanly on Ctrl-C or SIGTERM."""
    # Lazy: fact extraction loads asyncio and pydantic; `batchsum watch --help` does not.
    from batchsum.memory.ingest import FactsConfig

    setup_logging(quiet, verbose)
    if not paths:
        raise ConfigError("give at least one file or folder to watch")
    if with_facts and not params.get("base_url"):
        raise ConfigError("--facts needs an LLM: give --base-url (and --model)")
    cfg = build_config(list(paths), out, params, content_type=content_type, ignore=list(ignore), git=git,
                       metrics=not no_metrics, quiet=True, command_line="batchsum watch")  # fmt: skip
    _reuse_remembered(cfg)
    cfg = watch_config(cfg, list(paths))
    facts = FactsConfig(run=cfg, json_format=params["json_format"]) if with_facts else None

    def report(line: str) -> None:
        is_problem = line.startswith(("failed", "run failed", "facts failed", "warning"))
        if is_problem or not quiet:
            click.echo(f"[{time.strftime('%H:%M:%S')}] {line}", err=is_problem)

    watcher = Watcher(cfg, debounce_ms=parse_duration_ms(debounce), facts=facts, report=report)

    def on_signal(signum: int, frame: FrameType | None) -> None:
        if watcher.stopping:  # a second signal: stop now (a run in progress resumes next time)
            raise KeyboardInterrupt
        report("stopping (a run in progress finishes first)")
        watcher.stop(timeout=0)

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    try:
        watcher.loop()
    except KeyboardInterrupt:
        report("stopped")
        raise SystemExit(130) from None
    report("stopped")
