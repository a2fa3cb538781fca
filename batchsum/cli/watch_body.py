"""What ``batchsum watch`` does: build a RunConfig, watch until SIGINT/SIGTERM (the options and help are
declared in :mod:`batchsum.cli.watch`)."""

from __future__ import annotations

import signal
import time
from pathlib import Path
from types import FrameType
from typing import Any

import click

from batchsum.cli._common import setup_logging
from batchsum.cli._schema_options import folder_config
from batchsum.errors import ConfigError
from batchsum.memory.ingest import FactsConfig
from batchsum.watch import PROBLEM_LINES, Watcher, parse_duration_ms, watch_config


def watch(paths: tuple[Path, ...], out: Path, debounce: str, content_type: str, ignore: tuple[str, ...],
          with_facts: bool, no_metrics: bool, git: bool, quiet: bool, verbose: bool,
          **params: Any) -> None:  # fmt: skip
    """Summarize PATHS into OUT now and after every change, until SIGINT/SIGTERM."""
    setup_logging(quiet, verbose)
    if not paths:
        raise ConfigError("give at least one file or folder to watch")
    cfg = folder_config(list(paths), out, params, content_type=content_type, ignore=list(ignore), git=git,
                        metrics=not no_metrics, quiet=True, command_line="batchsum watch")  # fmt: skip
    if with_facts and not cfg.llm.enabled:  # a server OUT remembers serves as well as one given
        raise ConfigError("--facts needs an LLM: give --base-url (and --model)")
    cfg = watch_config(cfg, list(paths))
    facts = FactsConfig(run=cfg, json_format=params["json_format"]) if with_facts else None

    def report(line: str) -> None:
        is_problem = line.startswith(PROBLEM_LINES)
        if is_problem or not quiet:
            click.echo(f"[{time.strftime('%H:%M:%S')}] {line}", err=is_problem)

    watcher = Watcher(cfg, debounce_ms=parse_duration_ms(debounce), facts=facts, report=report)

    abandoned = False

    def on_signal(signum: int, frame: FrameType | None) -> None:
        nonlocal abandoned
        if watcher.stopping:  # a second signal: stop now (a run in progress resumes next time)
            abandoned = watcher.running
            raise KeyboardInterrupt
        watcher.stop(timeout=0)  # first: a second signal may come as soon as the line is out
        report("stopping after the current run (signal again to abandon it)" if watcher.running else "stopping")

    # The caller's handlers come back on return: `watch` called from Python (as tests do) must not leave ours.
    previous = signal.signal(signal.SIGINT, on_signal), signal.signal(signal.SIGTERM, on_signal)
    try:
        watcher.loop()
    except KeyboardInterrupt:
        if abandoned:
            report("stopped: the current run was abandoned; its finished files are kept and the next start resumes it")
        else:
            report("stopped")
        raise SystemExit(130) from None
    finally:
        signal.signal(signal.SIGINT, previous[0])
        signal.signal(signal.SIGTERM, previous[1])
    report("stopped")
