"""The ``batchsum`` command line. Commands live in sibling modules, loaded by name when one runs
(:data:`COMMANDS`), so ``batchsum --help`` never imports chromadb, onnxruntime, duckdb or openai.

A command whose work needs a heavy library (pydantic, aiohttp, numpy, the event loop) declares only its
options and help in ``<cmd>.py``, which ``batchsum <cmd> --help`` and the config file's defaults load;
its work lives in ``<cmd>_body.py``, which imports those libraries at the top and is loaded, like the
command modules, by :func:`batchsum.lazy.load` when the command runs."""

from __future__ import annotations

import atexit
import itertools
import json
import os
import sys
import threading
from typing import Any

import click

from batchsum import __version__
from batchsum.blas import single_threaded_blas
from batchsum.cli.defaults import apply_out_envvar, command_defaults, find_config_file, load_config_file
from batchsum.errors import BatchsumError
from batchsum.lazy import load

# command name -> "module:attribute": the module declaring it (loaded when the command runs or shows its help).
COMMANDS: dict[str, str] = {
    "run": "batchsum.cli.run:run",
    "plan": "batchsum.cli.run:plan",
    "report": "batchsum.cli.report:report",
    "export": "batchsum.cli.report:export",
    "index": "batchsum.cli.index:index",
    "search": "batchsum.cli.search:search",
    "eval": "batchsum.cli.eval:eval_",
    "compact": "batchsum.cli.compact:compact_cmd",
    "facts": "batchsum.cli.facts:facts",
    "serve": "batchsum.cli.serve:serve",
    "watch": "batchsum.cli.watch:watch",
}

SHORT_HELP: dict[str, str] = {
    "run": "Summarize files and folders into a Markdown tree.",
    "plan": "Show what a run would do now, without writing anything.",
    "report": "Compression statistics from the metrics store.",
    "export": "Export all metrics as Parquet, CSV or JSON.",
    "index": "Check or rebuild the search index of an output folder.",
    "search": "Search every summary of an output folder.",
    "eval": "Score summaries against reference summaries (ROUGE).",
    "compact": "Compact a chat or agent session into a summary plus its recent tail.",
    "facts": "Extract and reconcile facts from journals and conversations.",
    "serve": "OpenAI-compatible chat endpoint with the output's memory.",
    "watch": "Re-run incrementally whenever sources change.",
}


class _ConfigFileFailure(click.ClickException):
    """A bad config file, shown as click shows an error (and, with ``--json``, as JSON too)."""

    exit_code = 2

    def __init__(self, message: str, kind: str) -> None:
        super().__init__(message)
        self.kind = kind


class LazyGroup(click.Group):
    """A click group that imports a command's module only when that command runs."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        cmd: Any = load(target)
        if not isinstance(cmd, click.Command):
            return None
        apply_out_envvar(cmd)
        return cmd

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        ctx.meta["batchsum.json"] = _wants_json(args)
        return super().parse_args(ctx, args)

    def invoke(self, ctx: click.Context) -> Any:
        # `--json` promises one JSON object on stdout whatever goes wrong; click prints its own usage
        # errors (an option out of range, a bad config file) to stderr only. Asked after the fact: the group's
        # callback records a config file's `json: true` only once it has read that file.
        try:
            return super().invoke(ctx)
        except click.ClickException as exc:
            if ctx.meta.get("batchsum.json"):
                kind = getattr(exc, "kind", type(exc).__name__)
                error = {"error": exc.format_message(), "kind": kind, "exit_code": exc.exit_code}
                click.echo(json.dumps(error))
            raise
        except KeyboardInterrupt:
            # Ctrl-C outside summarizing (a run still walking or starting its workers, a search): stopped at
            # once, said as any error is, not click's bare "Aborted!" with nothing on stdout.
            message = "interrupted by Ctrl-C: stopped at once, nothing half-written; the next run picks up"
            if ctx.meta.get("batchsum.json"):
                click.echo(json.dumps({"error": message, "kind": "Interrupted", "exit_code": 1}))
            click.echo(f"Error: {message}", err=True)
            raise SystemExit(1) from None

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # The group's own --help needs only names and one-liners: import nothing heavy for it.
        rows = [(name, SHORT_HELP.get(name, "")) for name in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="batchsum")
@click.pass_context
def main(ctx: click.Context) -> None:
    """Summarize, measure and search large folders of journals, transcripts and documents.

    Offline by default (extractive summarizer); any OpenAI-compatible server with --base-url.
    Option defaults may come from BATCHSUM_OUT and a config file (./batchsum.yaml, then
    ~/.config/batchsum/config.yaml); command-line flags always win.
    """
    _load_config_defaults(ctx)


def _load_config_defaults(ctx: click.Context) -> None:
    """Fill the invoked command's defaults from the config file (flags and env still win)."""
    name = ctx.invoked_subcommand
    if name is None:
        return
    try:
        path = find_config_file()
        if path is None:
            return
        group = ctx.command if isinstance(ctx.command, click.Group) else None
        cmd = group.get_command(ctx, name) if group is not None else None
        if cmd is not None and group is not None:

            def commands() -> list[click.Command]:
                return [c for n in group.list_commands(ctx) if (c := group.get_command(ctx, n)) is not None]

            defaults = command_defaults(cmd, name, load_config_file(path), path, commands)
            ctx.default_map = {name: defaults}
            # `json: true` in the file is `--json` (a flag no command line turns off): its errors are JSON too.
            ctx.meta["batchsum.json"] = bool(ctx.meta.get("batchsum.json") or defaults.get("as_json"))
    except BatchsumError as exc:
        raise _ConfigFileFailure(str(exc), type(exc).__name__) from None


def entry() -> None:
    """The ``batchsum`` executable and ``python -m batchsum``."""
    single_threaded_blas()  # the command's own process; workers set theirs (engine/pool_worker.py)
    try:
        main()
    except SystemExit as exc:
        if sys.argv[1:2] == ["run"] and _nothing_left_to_close():
            # The interpreter's teardown frees every module and the tokenizer's tables: 0.1-0.2 s
            # after the work is done and written. Exit handlers (log files) still run.
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            if not isinstance(exc.code, int | None):
                print(exc.code, file=sys.stderr)
            # Private: atexit has no public call that runs its handlers before the interpreter exits.
            atexit._run_exitfuncs()
            for stream in (sys.stdout, sys.stderr):
                try:
                    stream.flush()
                except (OSError, ValueError):  # a closed pipe: nothing more can be said there
                    pass
            os._exit(code)
        raise


def _nothing_left_to_close() -> bool:
    """No thread but daemons, and no library whose clients are closed by the teardown (Chroma keeps
    one per process; DuckDB and Ray are left to theirs as well)."""
    if any(t.is_alive() and not t.daemon for t in threading.enumerate() if t is not threading.main_thread()):
        return False
    return not any(name in sys.modules for name in ("chromadb", "duckdb", "ray"))


def _wants_json(args: list[str]) -> bool:
    """Whether the command prints JSON, so its error is one JSON object on stdout too: ``--json``, or
    ``report --format json`` (which is ``--json``)."""
    if "--json" in args:
        return True
    asked = "--format=json" in args or ("--format", "json") in itertools.pairwise(args)
    return args[:1] == ["report"] and asked
