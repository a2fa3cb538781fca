"""``batchsum report`` and ``batchsum export``."""

from __future__ import annotations

from pathlib import Path

import click

import batchsum
from batchsum.cli._common import finite_price, price_per_million, translate_errors
from batchsum.errors import ConfigError
from batchsum.metrics.export import export_metrics
from batchsum.metrics.html import render_html
from batchsum.metrics.render import render
from batchsum.model import CONTENT_TYPES
from batchsum.tree import atomic_write_text

_OUT_HELP = "Output folder of a run (its metrics live in <out>/.batchsum/)."
out_option = click.option(
    "-o",
    "--out",
    "out",
    type=click.Path(path_type=Path),
    default=Path("batchsum-out"),
    show_default=True,
    help=_OUT_HELP,
)


@click.command("report")
@out_option
@click.option(
    "--metrics-db",
    type=click.Path(path_type=Path),
    default=None,
    help="Metrics database moved with `run --metrics-db` (read when there are no Parquet snapshots).",
)
@click.option("--run", "run_id", metavar="ID", default=None, help="Report on this run (id or unique prefix).")
@click.option(
    "--last",
    type=click.IntRange(min=1),
    metavar="N",
    default=None,
    help="Report on the last N runs (default: the latest run).",
)
@click.option(
    "--type",
    "content_type",
    type=click.Choice(list(CONTENT_TYPES)),
    default=None,
    help="Only files of this content type.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "md", "json", "csv"]),
    default="table",
    show_default=True,
    help="Output format on stdout.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON (same as --format json).")
@click.option(
    "--html",
    "html_file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Also write a self-contained HTML report with charts to FILE.",
)
@click.option(
    "--price",
    callback=price_per_million,
    metavar="IN[,OUT]",
    help="Price per million prompt tokens (and completion tokens, if different), as `plan --price`: estimates cost.",
)
@click.option(
    "--price-per-1k",
    type=click.FloatRange(min=0),
    callback=finite_price,
    default=None,
    help="One price per 1,000 LLM tokens of either kind.",
)
@translate_errors
def report(
    out: Path,
    metrics_db: Path | None,
    run_id: str | None,
    last: int | None,
    content_type: str | None,
    fmt: str,
    as_json: bool,
    html_file: Path | None,
    price: tuple[float, float | None] | None,
    price_per_1k: float | None,
) -> None:
    """Compression statistics from the metrics store: per content type and level, worst files,
    failures, run-over-run trend and (with --price or --price-per-1k) estimated cost.

    Reads the per-run Parquet snapshots, so it works while a run is in progress and only shows
    completed runs.
    """
    if run_id is not None and last is not None:
        raise ConfigError("--run and --last cannot be combined")
    data = batchsum.report(
        out,
        metrics_db=metrics_db,
        run=run_id,
        last=last,
        content_type=content_type,
        price_per_1k=price_per_1k,
        price=price,
    )
    click.echo(render(data, "json" if as_json else fmt), nl=False)
    if html_file is not None:
        atomic_write_text(html_file, render_html(data))
        click.echo(f"HTML report written to {html_file}", err=True)


@click.command("export")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["parquet", "csv", "json"]),
    default="parquet",
    show_default=True,
    help="File format of the exported tables.",
)
@out_option
@click.option(
    "--metrics-db",
    type=click.Path(path_type=Path),
    default=None,
    help="Metrics database, when it was moved with `run --metrics-db`.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the written files as a JSON object.")
@click.argument("dest", type=click.Path(file_okay=False, path_type=Path))
@translate_errors
def export(fmt: str, out: Path, metrics_db: Path | None, as_json: bool, dest: Path) -> None:
    """Export all metrics (runs, files, nodes, evals of completed runs) to DEST/<table>.<format>."""
    paths = export_metrics(out, dest, fmt, metrics_db)
    if as_json:
        import json

        click.echo(json.dumps({"format": fmt, "dest": str(dest), "files": {p.stem: str(p) for p in paths}}))
        return
    for path in paths:
        click.echo(str(path))
