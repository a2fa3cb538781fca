"""``batchsum run`` and ``batchsum plan``: parse options, build a RunConfig, call the runner, render."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

import click

from batchsum.cli._common import EXIT_USAGE, setup_logging, translate_errors
from batchsum.config import LLMConfig, RunConfig
from batchsum.errors import ConfigError
from batchsum.model import Thresholds

# CLI parameter name -> RunConfig field (dotted for LLMConfig); used to let flags override pipeline files.
PARAM_FIELDS: dict[str, str] = {
    "paths": "paths",
    "out": "out",
    "content_type": "content_type",
    "encoding": "encoding",
    "thresholds": "thresholds",
    "chunk_size": "chunk_size",
    "chunk_overlap": "chunk_overlap",
    "group_size": "group_size",
    "base_url": "llm.base_url",
    "model": "llm.model",
    "fallback_model": "llm.fallback_models",
    "timeout": "llm.timeout",
    "rpm": "llm.rpm",
    "tpm": "llm.tpm",
    "concurrency": "llm.concurrency",
    "max_attempts": "llm.max_attempts",
    "on_error": "llm.on_error",
    "prompts": "llm.prompts_dir",
    "context_window": "llm.context_window",
    "facets": "llm.facets",
    "no_cache": "llm.cache",
    "no_index": "index",
    "no_metrics": "metrics",
    "metrics_db": "metrics_db",
    "chroma_host": "chroma_host",
    "chroma_port": "chroma_port",
    "collection": "collection",
    "embed_base_url": "embed_base_url",
    "embed_model": "embed_model",
    "max_chain_depth": "max_chain_depth",
    "git": "git",
    "ignore": "ignore",
    "log_file": "log_file",
    "log_format": "log_format",
    "price_per_1k": "price_per_1k",
    "wait": "wait_lock",
    "api_key": "llm.api_key",
    "redact": "redact",
    "follow_symlinks": "follow_symlinks",
}


def _parse_thresholds(value: str | None) -> Thresholds:
    if not value:
        return Thresholds()
    try:
        nums = [int(x) for x in value.split(",")]
    except ValueError:
        raise ConfigError(f"--thresholds must be four integers like 100,500,3000,15000, got {value!r}") from None
    if len(nums) != 4 or not (0 <= nums[0] <= nums[1] <= nums[2] <= nums[3]):
        raise ConfigError(
            f"--thresholds must be four increasing integers (NONE,BRIEF,STANDARD,DETAILED), got {value!r}"
        )
    return Thresholds(*nums)


def common_options(f: Any) -> Any:
    """Options shared by ``run`` and ``plan``."""
    opts = [
        click.argument("paths", nargs=-1, type=click.Path(path_type=Path)),
        click.option(
            "--out",
            "-o",
            type=click.Path(path_type=Path),
            default=Path("batchsum-out"),
            show_default=True,
            help="Output folder for the summary tree and state.",
        ),
        click.option(
            "--type",
            "content_type",
            default="auto",
            show_default=True,
            help="journal | conversation (alias: transcript) | document | auto (decide per file).",
        ),
        click.option(
            "--pipeline",
            type=click.Path(path_type=Path, dir_okay=False),
            help="Declarative pipeline YAML (corpora, output, backend, limits); flags override it.",
        ),
        click.option(
            "--encoding", default="cl100k_base", show_default=True, help="tiktoken encoding for token counts."
        ),
        click.option("--thresholds", help="Level bounds NONE,BRIEF,STANDARD,DETAILED in tokens [100,500,3000,15000]."),
        click.option("--chunk-size", type=click.IntRange(50), default=3000, show_default=True),
        click.option("--chunk-overlap", type=click.IntRange(0), default=200, show_default=True),
        click.option("--group-size", type=click.IntRange(2), default=5, show_default=True, help="L1s per L2 group."),
        click.option("--ignore", multiple=True, help="Extra gitignore-style pattern to skip (repeatable)."),
        click.option(
            "--base-url",
            envvar="OPENAI_BASE_URL",
            help="OpenAI-compatible server, e.g. http://localhost:11434/v1 [env OPENAI_BASE_URL]. "
            "Without it: the offline extractive summarizer.",
        ),
        click.option(
            "--api-key", envvar="OPENAI_API_KEY", help="API key [env OPENAI_API_KEY]; never stored or logged."
        ),
        click.option("--model", envvar="BATCHSUM_MODEL", help="Model name [env BATCHSUM_MODEL]."),
        click.option(
            "--fallback-model", multiple=True, help="Models to try in order when --model is missing or keeps failing."
        ),
        click.option("--timeout", type=float, default=120.0, show_default=True, help="Seconds per LLM request."),
        click.option("--rpm", type=float, default=60.0, show_default=True, help="Requests per minute (0 = unlimited)."),
        click.option(
            "--tpm",
            type=float,
            default=60000.0,
            show_default=True,
            help="Prompt+max output tokens per minute (0 = unlimited).",
        ),
        click.option(
            "--concurrency", type=click.IntRange(1), default=4, show_default=True, help="Max LLM requests in flight."
        ),
        click.option(
            "--max-attempts",
            type=click.IntRange(1),
            default=5,
            show_default=True,
            help="Attempts per request (retries on 429/5xx/timeouts).",
        ),
        click.option(
            "--on-error",
            type=click.Choice(["fallback", "fail", "abort"]),
            default="fallback",
            show_default=True,
            help="When a node finally fails: extractive fallback, fail the file, or abort the run.",
        ),
        click.option(
            "--prompts", type=click.Path(path_type=Path, file_okay=False), help="Folder of custom prompt files."
        ),
        click.option("--context-window", type=click.IntRange(512), default=8192, show_default=True),
        click.option(
            "--facets/--no-facets", default=None, help="Structured facets in finals [default: on for conversations]."
        ),
        click.option("--no-cache", is_flag=True, help="Bypass the on-disk LLM response cache."),
        click.option(
            "--max-chain-depth",
            type=click.IntRange(0),
            default=3,
            show_default=True,
            help="Rolling summaries built on previous finals before a fresh one from source.",
        ),
        click.option("--price-per-1k", type=float, help="Price per 1k tokens, for cost estimates."),
        click.option(
            "--redact/--no-redact",
            default=None,
            help="Replace secrets (API keys, tokens, passwords, private keys) in source text by [REDACTED:<kind>] "
            "before it is summarized, indexed or sent [default: on when --base-url/--embed-base-url is not loopback].",
        ),
        click.option(
            "--follow-symlinks", is_flag=True, help="Read symlinks whose target lies outside every PATH given."
        ),
    ]
    for opt in reversed(opts):
        f = opt(f)
    return f


def build_config(ctx: click.Context, params: dict[str, Any]) -> RunConfig:
    """RunConfig from parsed parameters (+ pipeline file, whose values flags override)."""
    from batchsum.walk import normalize_type

    def nz(v: float | None) -> float | None:
        return None if v is None or v <= 0 else v

    llm = LLMConfig(
        base_url=params.get("base_url") or None,
        api_key=params.get("api_key") or None,
        model=params.get("model") or None,
        fallback_models=list(params.get("fallback_model") or ()),
        timeout=params.get("timeout", 120.0),
        rpm=nz(params.get("rpm")),
        tpm=nz(params.get("tpm")),
        concurrency=params.get("concurrency", 4),
        max_attempts=params.get("max_attempts", 5),
        on_error=params.get("on_error", "fallback"),
        prompts_dir=params.get("prompts"),
        context_window=params.get("context_window", 8192),
        facets=params.get("facets"),
        cache=not params.get("no_cache", False),
    )
    cfg = RunConfig(
        paths=list(params.get("paths") or ()),
        out=params["out"],
        content_type=normalize_type(params.get("content_type") or "auto"),
        encoding=params.get("encoding", "cl100k_base"),
        thresholds=_parse_thresholds(params.get("thresholds")),
        chunk_size=params.get("chunk_size", 3000),
        chunk_overlap=params.get("chunk_overlap", 200),
        group_size=params.get("group_size", 5),
        llm=llm,
        index=not params.get("no_index", False),
        metrics=not params.get("no_metrics", False),
        metrics_db=params.get("metrics_db"),
        chroma_host=params.get("chroma_host"),
        chroma_port=params.get("chroma_port"),
        collection=params.get("collection") or "batchsum",
        embed_base_url=params.get("embed_base_url"),
        embed_model=params.get("embed_model"),
        max_chain_depth=params.get("max_chain_depth", 3),
        git=params.get("git", False),
        wait_lock=params.get("wait", False),
        quiet=params.get("quiet", False) or params.get("as_json", False),
        ignore=list(params.get("ignore") or ()),
        log_file=params.get("log_file"),
        log_format=params.get("log_format") or "text",
        price_per_1k=params.get("price_per_1k"),
        redact=params.get("redact"),
        follow_symlinks=params.get("follow_symlinks", False),
        command_line=shlex.join(["batchsum", *sys.argv[1:]]),
    )
    pipeline = params.get("pipeline")
    if pipeline is not None:
        from batchsum.pipeline import apply_pipeline, load_pipeline

        spec = load_pipeline(pipeline)
        cli_set = {
            field
            for name, field in PARAM_FIELDS.items()
            if ctx.get_parameter_source(name)
            in (click.core.ParameterSource.COMMANDLINE, click.core.ParameterSource.ENVIRONMENT)
        }
        if not params.get("paths"):
            cli_set.discard("paths")
        cfg = apply_pipeline(spec, cfg, cli_set)
    if not cfg.paths:
        raise ConfigError("no input: give one or more PATHs or --pipeline FILE")
    if cfg.chunk_overlap >= cfg.chunk_size:
        raise ConfigError("--chunk-overlap must be smaller than --chunk-size")
    if cfg.llm.enabled and not cfg.llm.model:
        raise ConfigError("--base-url needs --model (or BATCHSUM_MODEL)")
    return cfg


@click.command()
@common_options
@click.option("--no-index", is_flag=True, help="Do not index summaries for search.")
@click.option("--no-metrics", is_flag=True, help="Do not record metrics in DuckDB/Parquet.")
@click.option(
    "--metrics-db",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Metrics DuckDB file [<out>/.batchsum/metrics.duckdb].",
)
@click.option("--chroma-host", help="Use a Chroma server instead of the embedded index.")
@click.option("--chroma-port", type=int, help="Chroma server port.")
@click.option("--collection", default="batchsum", show_default=True, help="Chroma collection name.")
@click.option("--embed-base-url", help="OpenAI-compatible embeddings endpoint instead of the packaged MiniLM.")
@click.option("--embed-model", help="Embedding model name for --embed-base-url.")
@click.option("--git", is_flag=True, help="Version the output folder with git (one commit per run).")
@click.option("--wait", is_flag=True, help="Wait for another run on the same output instead of exiting with code 3.")
@click.option(
    "--log-file", type=click.Path(path_type=Path, dir_okay=False), help="Append one line per event to this file."
)
@click.option("--log-format", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--progress/--no-progress", default=None, help="Progress bars [default: only on a TTY].")
@click.option("--quiet", "-q", is_flag=True, help="Print nothing but errors.")
@click.option("--json", "as_json", is_flag=True, help="Print a machine-readable run summary.")
@click.option("--verbose", "-v", is_flag=True, help="More log output.")
@click.pass_context
@translate_errors
def run(ctx: click.Context, **params: Any) -> None:
    """Summarize PATHS (files or folders) into a Markdown tree under --out.

    Exit codes: 0 all done, 1 some files failed, 2 usage/config error, 3 output locked by another run.
    """
    from batchsum.runner import run as run_corpus

    setup_logging(quiet=params["quiet"] or params["as_json"], verbose=params["verbose"])
    cfg = build_config(ctx, params)
    cfg.progress = params.get("progress")
    if cfg.llm.enabled:
        from batchsum.backends.warmup import start_llm_imports

        start_llm_imports()  # overlaps the client's import with walking and reading files
    result = run_corpus(cfg)
    if params["as_json"]:
        from batchsum import jsonio

        # One line, as bytes: the pretty-printer is pure Python and took longer than a whole unchanged
        # re-run, and click strips ANSI codes from text (a regex over every byte) but not from bytes.
        click.echo(jsonio.dumps(_result_json(result), default=str))
    else:
        for w in result.warnings:
            click.echo(f"warning: {w}", err=True)
        if result.problems:
            click.echo(f"{len(result.problems)} problem(s):", err=True)
            for p in result.problems:
                click.echo(f"  {p.path}: {p.reason}", err=True)
        if not cfg.quiet:
            click.echo(result.summary_line())
            if result.run.status == "aborted":
                click.echo("run aborted; finished work was kept", err=True)
    ctx.exit(result.exit_code)


def _result_json(result: Any) -> dict[str, Any]:
    from dataclasses import asdict

    # Records hold only flat values: a copy of the instance dict is ~10x cheaper than asdict's
    # deep copy, which matters for thousands of unchanged files on a nightly re-run.
    return {
        "run": asdict(result.run),
        "levels": dict(result.levels),
        "exit_code": result.exit_code,
        "out": str(result.out),
        "tokenizer": result.tokenizer,
        "problems": [{"path": p.path, "reason": p.reason} for p in result.problems],
        "warnings": result.warnings,
        "files": [dict(f.__dict__) for f in result.files],
    }


@click.command()
@common_options
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.pass_context
@translate_errors
def plan(ctx: click.Context, **params: Any) -> None:
    """Dry run: files new/changed/unchanged/deleted, levels, chunks, LLM calls, tokens and cost — writes nothing."""
    from batchsum.runner import plan_run

    setup_logging(quiet=True)
    params.setdefault("quiet", True)
    cfg = build_config(ctx, params)
    cfg.quiet = True
    summary = plan_run(cfg)
    if params["as_json"]:
        click.echo(json.dumps(summary.as_dict(), indent=2))
        return
    d = summary.as_dict()
    click.echo(f"backend: {d['backend']}")
    click.echo(
        f"files: {len(summary.new)} new, {len(summary.changed)} changed, {d['unchanged']} unchanged, "
        f"{len(summary.deleted)} deleted, {len(summary.problems)} unreadable"
    )
    if summary.levels:
        click.echo("levels: " + ", ".join(f"{k} {v}" for k, v in sorted(summary.levels.items())))
    click.echo(f"chunks: {summary.chunks}  nodes to build: {summary.nodes} ({summary.nodes_stored} already stored)")
    click.echo(f"LLM calls: {summary.llm_calls}")
    click.echo(f"input tokens: {summary.input_tokens:,}  est. output tokens: {summary.est_output_tokens:,}")
    if summary.est_cost is not None:
        click.echo(f"est. cost: {summary.est_cost:.4f}")
    for rel in summary.new:
        click.echo(f"  + {rel}")
    for rel in summary.changed:
        click.echo(f"  ~ {rel}")
    for rel in summary.deleted:
        click.echo(f"  - {rel}")
    for p in summary.problems:
        click.echo(f"  ! {p.path}: {p.reason}", err=True)


__all__ = ["EXIT_USAGE", "plan", "run"]
