"""``batchsum eval``: score batchsum (and baselines) against reference summaries."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from batchsum.cli._common import EXIT_SOME_FAILED, translate_errors
from batchsum.errors import ConfigError
from batchsum.evaluate.runner import EvalOptions, evaluate, render_table


def _require_eval_extra() -> None:
    """ROUGE and the baselines are an optional extra: say how to get them instead of a traceback."""
    import importlib.util

    missing = [m for m in ("rouge_score", "nltk", "sumy") if importlib.util.find_spec(m) is None]
    if missing:
        raise ConfigError(
            f"batchsum eval needs {', '.join(missing)}: pip install 'batchsum[eval]' (make install includes it)"
        )


class _Budget(click.ParamType):
    """``ref`` or a positive number of words: a type, not a callback, so a config file's ``eval.budget`` is
    checked (and named) as every other key is."""

    name = "ref|N"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str | int:
        text = str(value).strip().lower()
        if text == "ref":
            return "ref"
        if text.isdigit() and int(text) > 0:
            return int(text)
        self.fail("use 'ref' or a positive number of words", param, ctx)


@click.command("eval")
@click.argument("docs_dir", type=click.Path(path_type=Path))
@click.argument("refs_dir", type=click.Path(path_type=Path))
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    default=None,
    help="Output tree: where summaries are written (default ./batchsum-eval-out), or read from with --tree "
    "(default ./batchsum-out).",
)
@click.option("--tree", is_flag=True, help="Score an existing output tree at --out instead of summarizing.")
@click.option(
    "--budget",
    type=_Budget(),
    help="Cut every summary to its reference's word count (ref) or to N words; as-is scores are shown too.",
)
@click.option("--baselines", is_flag=True, help="Also run lead-k and sumy LexRank/TextRank/LSA/Luhn at equal budget.")
@click.option("--only-present", is_flag=True, help="Leave documents without a reference out (default: they score 0).")
@click.option("--case-insensitive", is_flag=True, help="Match entities case-insensitively (lowercased data).")
@click.option("--dataset", default=None, help="Name recorded with the results (default: the documents' folder).")
@click.option("--metrics-db", type=click.Path(path_type=Path), default=None, help="Metrics database to record into.")
@click.option("--no-metrics", is_flag=True, help="Do not record the results in the metrics store.")
@click.option("--jobs", type=click.IntRange(1, 64), default=1, show_default=True, help="Processes for the baselines.")
@click.option("--no-cache", is_flag=True, help="Recompute baselines instead of reusing cached outputs.")
@click.option("--json", "as_json", is_flag=True, help="Print the full report (per-document scores) as JSON.")
@click.option("-q", "--quiet", is_flag=True, help="No progress or warnings on stderr.")
@translate_errors
def eval_(
    docs_dir: Path,
    refs_dir: Path,
    out: Path | None,
    tree: bool,
    budget: str | int | None,
    baselines: bool,
    only_present: bool,
    case_insensitive: bool,
    dataset: str | None,
    metrics_db: Path | None,
    no_metrics: bool,
    jobs: int,
    no_cache: bool,
    as_json: bool,
    quiet: bool,
) -> None:
    """Summarize DOCS_DIR and score each summary against REFS_DIR/<id>.txt (and <id>.N.txt).

    Reports ROUGE-1/2/Lsum F1 (stemmed), entity and number recall, compression ratio and seconds
    per document; with --baselines, one table of every method at the same budget.
    """
    _require_eval_extra()

    opts = EvalOptions(
        docs_dir=docs_dir,
        refs_dir=refs_dir,
        out=out,  # None: EvalOptions.output, the library's default too
        tree=tree,
        budget=budget,
        baselines=baselines,
        only_present=only_present,
        case_insensitive=case_insensitive,
        dataset=dataset,
        metrics=not no_metrics,
        metrics_db=metrics_db,
        jobs=jobs,
        cache=not no_cache,
    )
    progress = None if quiet or not sys.stderr.isatty() else (lambda msg: click.echo(msg, err=True))
    report = evaluate(opts, progress=progress)
    if not quiet:
        for problem in report.problems:
            click.echo(f"warning: {problem.line()}", err=True)
    if as_json:
        click.echo(json.dumps(report.to_dict(), indent=2))
    else:
        click.echo(render_table(report))
        if report.metrics_recorded:
            click.echo(f"recorded as eval {report.eval_id} in the metrics store")
    if report.failed:
        raise SystemExit(EXIT_SOME_FAILED)
