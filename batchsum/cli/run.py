"""``batchsum run`` and ``batchsum plan``: parse options, build a RunConfig, call the library, render."""

from __future__ import annotations

import json
import shlex
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

import batchsum
from batchsum import jsonio
from batchsum.cli._common import (
    EXIT_LOCKED,
    EXIT_USAGE,
    one_destination,
    price_per_million,
    setup_logging,
    translate_errors,
)
from batchsum.config import RunConfig
from batchsum.engine.changes import EDITED
from batchsum.engine.ledger import worst_exit
from batchsum.errors import ConfigError, LockedError, RunInterrupted
from batchsum.events import EventLog
from batchsum.lazy import load
from batchsum.pipeline_file import apply_pipeline, load_pipeline
from batchsum.remembered import reuse
from batchsum.settings import SETTINGS, click_option, from_params, given_fields, validate
from batchsum.walk_paths import shown
from batchsum.warmup import start_llm_imports

if TYPE_CHECKING:
    from batchsum.engine.preview import PlanSummary
    from batchsum.engine.records import RunResult
    from batchsum.memory.ingest import FactsResult


def _options(scope: str) -> list[Any]:
    return [click_option(s) for s in SETTINGS if s.flag is not None and s.scope == scope]


def common_options(f: Any) -> Any:
    """Options shared by ``run`` and ``plan``: the inputs, then the settings schema's."""
    opts = [
        click.argument("paths", nargs=-1, type=click.Path(path_type=Path)),
        click.option(
            "--pipeline",
            type=click.Path(path_type=Path, dir_okay=False),
            help="Declarative pipeline YAML (corpora, output, backend, limits); flags override it.",
        ),
        *_options("common"),
    ]
    for opt in reversed(opts):
        f = opt(f)
    return f


def run_options(f: Any) -> Any:
    """The schema's options of ``run`` only: outputs, locking and logging."""
    for opt in reversed(_options("run")):
        f = opt(f)
    return f


def report_options(f: Any) -> Any:
    """How a run reports itself: --progress, --quiet, --verbose."""
    opts = [
        click.option("--progress/--no-progress", default=None, help="Progress bars [default: only on a TTY]."),
        click.option("--quiet", "-q", is_flag=True, help="Print nothing but errors."),
        click.option("--verbose", "-v", is_flag=True, help="More log output."),
    ]
    for opt in reversed(opts):
        f = opt(f)
    return f


def build_config(ctx: click.Context, params: dict[str, Any]) -> RunConfig:
    """RunConfig from parsed parameters (+ pipeline file, whose values flags override), validated."""
    cfg = RunConfig(
        paths=list(params.get("paths") or ()),
        quiet=params.get("quiet", False) or params.get("as_json", False),
        command_line=shlex.join(["batchsum", *sys.argv[1:]]),
    )
    from_params(cfg, params)
    # The options this command line (or its environment or config file) gave win over a pipeline file
    # and over the output folder's remembered settings.
    cli_set, given = given_fields(ctx, {"paths": "paths"})
    pipeline = params.get("pipeline")
    if pipeline is not None:
        spec = load_pipeline(pipeline, corpora_used=not params.get("paths"))
        if not params.get("paths"):
            cli_set.discard("paths")
        cfg = apply_pipeline(spec, cfg, cli_set)
        given |= {k for k in spec.settings if k != "thresholds"} | {
            f"thresholds.{k}" for k in spec.settings.get("thresholds", {})
        }
        if any(c.type != "auto" for c in spec.corpora):
            given.add("content_type")
    if not cfg.rebuild:
        reuse(cfg, given)
    if not cfg.paths:
        raise ConfigError("no input: give one or more PATHs or --pipeline FILE")
    validate(cfg)
    return cfg


def _run_and_facts(cfg: RunConfig) -> tuple[RunResult, FactsResult | None, bool]:
    """``batchsum.run(cfg)`` and, with --facts, the facts pass, which a nightly job's timeout (SIGTERM)
    stops as Ctrl-C does: what finished is committed and recorded and the closing line says so (it had
    ended at once, unrecorded, exit 143). A SIGTERM while the run writes its index or metrics lets it
    finish them; then True (what follows the run, its facts, is not started)."""
    stopping = load("batchsum.engine.stopping")
    with stopping.sigterm_stops():
        try:
            result = batchsum.run(cfg)  # with --facts, the facts pass too (result.facts)
        except RunInterrupted as stopped:  # Ctrl-C: the run is recorded, and its line says so
            return stopped.result, None, False
        if result.facts is not None:  # a SIGTERM during it stopped the pass, which says so itself
            return result, result.facts, False
        return result, None, stopping.SUMMARIZING.requested and result.run.status != "aborted"


def _locked(cfg: RunConfig, exc: LockedError, *, quiet: bool, as_json: bool) -> None:
    """Another run holds the output folder: the event log (--log-file) records it. Under --quiet the run
    ends here with exit code 3 and nothing on stderr (a nightly job overlapping a slow one is no error to
    mail about); --json still prints its error object. Otherwise returns, and the error is reported."""
    if cfg.log_file is not None:
        with EventLog(cfg.log_file, cfg.log_format) as events:
            events.event("run_locked", level="warning", out=str(cfg.out), error=str(exc), exit_code=EXIT_LOCKED)
    if not quiet:
        return
    if as_json:
        click.echo(json.dumps({"error": str(exc), "kind": type(exc).__name__, "exit_code": EXIT_LOCKED}))
    raise SystemExit(EXIT_LOCKED)


def _report_facts(cfg: RunConfig, facts: FactsResult, exit_code: int) -> None:
    """The facts pass in the event log (--log-file), after the run's own events: its failures, then how it
    ended, with the process's exit code (the run's ``run_finished`` has the run's alone)."""
    if cfg.log_file is None:
        return
    with EventLog(cfg.log_file, cfg.log_format) as events:
        for p in facts.problems:
            events.event("facts_failed", level="error", path=p.path, reason=p.reason)
        level = "error" if facts.exit_code == 1 else "warning" if facts.exit_code else "info"
        c = facts.changes
        events.event(
            "facts_finished", level=level, status=facts.status, stopped_by=facts.stopped_by, units=facts.units,
            added=len(c.added), updated=len(c.updated), deleted=len(c.deleted), malformed=facts.malformed,
            failed=len(facts.problems), facts_exit_code=facts.exit_code, exit_code=exit_code,
        )  # fmt: skip


@click.command()
@common_options
@run_options
@report_options
@click.option("--json", "as_json", is_flag=True, help="Print a machine-readable run summary.")
@click.pass_context
@translate_errors
def run(ctx: click.Context, **params: Any) -> None:
    """Summarize PATHS (files or folders) into a Markdown tree under --out.

    An output folder remembers the settings it was built with (type, backend, model, levels...): an
    option left out reuses them; a changed one is reported with the files it redoes.

    Exit codes: 0 all done, 1 some files failed or could not be read, 2 usage/config error, 3 output
    locked by another run, 4 finished with nodes the LLM did not produce, 5 changed settings would make
    the LLM summarize files again (add --yes or --rebuild).
    """
    setup_logging(quiet=params["quiet"] or params["as_json"], verbose=params["verbose"], stops_reported=True)
    cfg = build_config(ctx, params)
    cfg.progress = params.get("progress")
    if cfg.llm.enabled:
        start_llm_imports()  # overlaps the client's import with walking and reading files
    try:
        result, facts, late_sigterm = _run_and_facts(cfg)
    except LockedError as exc:
        _locked(cfg, exc, quiet=params["quiet"], as_json=params["as_json"])
        raise  # reported as every error is
    exit_code = result.exit_code if facts is None else worst_exit(result.exit_code, facts.exit_code)
    if late_sigterm:  # the run was all but done: it finished; nothing more is started
        exit_code = 128 + signal.SIGTERM
    if facts is not None:
        _report_facts(cfg, facts, exit_code)
    if params["as_json"]:
        data = result.as_json()
        if facts is not None:  # the pass's failures are the command's problems too
            data["facts"] = facts.as_json()
            data["problems"] += data["facts"]["problems"]
        data["exit_code"] = exit_code  # the process's
        # One line, as bytes: the pretty-printer is pure Python and took longer than a whole unchanged
        # re-run, and click strips ANSI codes from text (a regex over every byte) but not from bytes.
        click.echo(jsonio.dumps(data, default=str))
    else:
        hidden = set(result.notices) if cfg.quiet else set()
        for w in result.warnings:
            if w not in hidden:
                click.echo(f"warning: {shown(w)}", err=True)
        if result.problems:
            click.echo(f"{len(result.problems)} problem(s):", err=True)
            for p in result.problems:
                click.echo(f"  {shown(p.path)}: {shown(p.reason)}", err=True)
        if not cfg.quiet:
            # Aborted, the error is said on stderr below: where stderr is stdout, the line does not repeat it.
            aborted_here = result.run.status == "aborted" and one_destination()
            click.echo(result.summary_line(reason=not aborted_here))
    if result.run.status == "aborted":  # an error, on stderr too: shown with --quiet or --json, mailed by cron
        click.echo(f"run aborted: {(result.stopped_by or '').rstrip('.')}; finished work was kept", err=True)
    if late_sigterm:
        click.echo("stopped by SIGTERM as the run finished: its files, index and metrics are written", err=True)
    if facts is not None:
        echo_facts = load("batchsum.cli.facts_body:echo_facts")
        echo_facts(facts, summary=not cfg.quiet, failures=not params["as_json"], prefix="facts: ")
    ctx.exit(exit_code)


@click.command()
@common_options
@run_options
@report_options
@click.option(
    "--price",
    callback=price_per_million,
    metavar="IN[,OUT]",
    help="Price per million prompt tokens (and completion tokens, if different): prints the run's cost.",
)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.pass_context
@translate_errors
def plan(ctx: click.Context, **params: Any) -> None:
    """Dry run: files new/changed/unchanged/deleted, levels, chunks, LLM calls, tokens and cost — writes nothing.

    Takes every option of `batchsum run`, so a run's command line (a cron line) works as it is and
    a changed remembered setting (--collection, --embed-model, ...) is previewed. The options that
    change only how a run executes or reports change nothing here: where it indexes and records
    metrics, --executor, --processes, --ray-*, --git, --wait, --yes, --log-file, --log-format,
    --progress, --quiet and --verbose. With --facts it estimates the facts pass's requests apart.
    """
    setup_logging(quiet=True)
    price = params.pop("price")
    cfg = build_config(ctx, params)
    cfg.quiet = True
    summary = batchsum.plan(cfg)
    if price is None and cfg.price_per_1k is not None:  # --price-per-1k: one price for both kinds of token
        price = (cfg.price_per_1k * 1000, None)
    cost = round(summary.cost(*price), 6) if price is not None else None
    if params["as_json"]:
        click.echo(json.dumps({**summary.as_dict(), "cost": cost}, indent=2))
        return
    d = summary.as_dict()
    if summary.held_by:
        click.echo(
            f"note: another run ({summary.held_by}) is working on this folder: this plan reads its state as it "
            "is now, and a run started before it ends waits (--wait) or exits with code 3"
        )
    click.echo(f"backend: {d['backend']}")
    if summary.settings_changed:
        click.echo(
            f"settings changed since this folder was built ({', '.join(summary.settings_changed)}): "
            "the files they shape are planned again"
        )
    click.echo(
        f"files: {len(summary.new)} new, {len(summary.changed)} changed, {len(summary.unchanged)} unchanged, "
        f"{len(summary.deleted)} deleted, {len(summary.problems)} unreadable"
        + (f", {len(summary.skipped)} skipped (not sources)" if summary.skipped else "")
    )
    if (reread := summary.reread_note()) is not None:
        click.echo(reread)
    for line in summary.change_notes():
        click.echo(line)
    if (note := summary.passed_over_note()) is not None:
        click.echo(note)
    if summary.levels:
        click.echo("levels: " + ", ".join(f"{k} {v}" for k, v in sorted(summary.levels.items())))
    click.echo(f"chunks: {summary.chunks}  nodes to build: {summary.nodes} ({summary.nodes_stored} already stored)")
    cached = f" (and {summary.llm_cached} answered by the response cache)" if summary.llm_cached else ""
    if summary.llm_facet_requests:  # a model that answers them with invalid JSON is asked once more, in plain text
        cached += f" (up to {summary.llm_facet_requests} more if the model's facets JSON is invalid)"
    click.echo(
        f"LLM requests: {summary.llm_calls}{cached}  prompt tokens: {summary.prompt_tokens:,} "
        f"({summary.prompt_tokens_estimated:,} of them summaries this run writes, taken at their targets)"
    )
    if (fp := summary.facts) is not None:
        click.echo(
            f"facts pass (--facts), not counted above: {fp.units} new entries/turns in {fp.files} files; "
            f"est. {fp.requests} LLM requests ({fp.extract_requests} extraction, up to {fp.reconcile_requests} "
            "reconciliation; each asked once more if its JSON is invalid)"
        )
    if summary.periods is not None and summary.periods.periods:
        dp = summary.periods
        cached = f" (and {dp.llm_cached} from the cache)" if dp.llm_cached else ""
        click.echo(
            f"digests to redo: {len(dp.periods)} ({_names(dp.periods)}); "
            f"{dp.llm_calls} LLM calls{cached}, {dp.input_tokens:,} input tokens, "
            f"est. {dp.est_output_tokens:,} output tokens"
        )
    if summary.periods is not None and summary.periods.removed:
        gone = summary.periods.removed
        why = "no files left" if cfg.digests else "--no-digests"
        click.echo(f"digests to remove ({why}): {len(gone)} ({_names(gone)})")
    est = summary.est_output_tokens
    click.echo(f"input tokens: {summary.input_tokens:,}  est. output tokens (every level): {est:,}")
    if cost is not None and price is not None:
        per_out = price[1] if price[1] is not None else price[0]
        why = "" if summary.backend == "llm" else "; the extractive backend sends no LLM request"
        click.echo(f"cost: {cost:.4f} (per million tokens: {price[0]:g} prompt, {per_out:g} output{why})")
    _echo_files(summary)


def _echo_files(summary: PlanSummary) -> None:
    """A plan's files a line each: a user's edit bare, as ever; what batchsum changed itself (an upgrade, settings)
    and a summary that moves named after it."""
    moved_to = {old: new for new, old in summary.moved.items()}
    for rel in summary.new:
        click.echo(f"  + {shown(rel)}" + (f" (moved from {shown(summary.moved[rel])})" if rel in summary.moved else ""))
    for rel in summary.changed:
        reason = summary.reasons.get(rel, EDITED)
        click.echo(f"  ~ {shown(rel)}" + ("" if reason == EDITED else f" ({reason})"))
    for rel in summary.deleted:
        click.echo(f"  - {shown(rel)}" + (f" (moved to {shown(moved_to[rel])})" if rel in moved_to else ""))
    for p in summary.skipped:
        click.echo(f"  = {shown(p.path)}: {shown(p.reason)}")
    for p in summary.problems:
        click.echo(f"  ! {shown(p.path)}: {shown(p.reason)}", err=True)


def _names(pids: list[str]) -> str:
    """The first six digests of ``pids`` as a run names them, "…" for more."""
    name = load("batchsum.digest_plan:period_name")  # loaded by the plan already
    return ", ".join(name(p) for p in pids[:6]) + (", …" if len(pids) > 6 else "")


__all__ = ["EXIT_USAGE", "plan", "run"]
