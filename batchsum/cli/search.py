"""``batchsum search``: a thin Click wrapper over :mod:`batchsum.index.search` (and, for ``--role memory``,
:mod:`batchsum.memory.search`)."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

import click

from batchsum.cli._common import translate_errors
from batchsum.cli._schema_options import SEARCH_INDEX_FIELDS, index_config, schema_options
from batchsum.config import IndexConfig
from batchsum.index.search import MIN_RELEVANCE
from batchsum.index.search import search as run_search
from batchsum.index.snippets import highlight
from batchsum.index.state import completeness
from batchsum.model import CONTENT_TYPES

DEFAULT_OUT = Path("batchsum-out")


@click.command()
@click.argument("query")
@click.option("--out", "-o", type=click.Path(path_type=Path), default=DEFAULT_OUT, show_default=True,
              help="Output folder of a batchsum run.")  # fmt: skip
@click.option("-k", "k", type=click.IntRange(min=1), default=5, show_default=True, help="Number of results.")
@click.option(
    "--level",
    type=click.Choice(["1", "2", "3", "final", "period"]),
    help="Only this tree level (final: top nodes; period: month, year and folder digests).",
)
@click.option("--type", "content_type", type=click.Choice(list(CONTENT_TYPES)), help="Only this content type.")
@click.option("--path", "path_glob", metavar="GLOB", help="Only sources whose relative path matches, e.g. 'notes/*'.")
@click.option("--since", type=click.DateTime(formats=["%Y-%m-%d"]), metavar="DATE",
              help="Only documents dated on or after DATE (YYYY-MM-DD).")  # fmt: skip
@click.option("--json", "as_json", is_flag=True, help="Print the hits as JSON.")
@click.option("--role", type=click.Choice(["summary", "memory"]), default="summary", show_default=True,
              help="Search summaries, or the facts of `batchsum facts` / `batchsum serve` (memory).")  # fmt: skip
@click.option("--reranker", type=click.Path(path_type=Path), metavar="PATH",
              help="ONNX cross-encoder (file or folder, tokenizer.json beside it) to score hits.")  # fmt: skip
@click.option("--strict", is_flag=True, help="Fail when the index is incomplete or outdated (else: a warning).")
@schema_options(*SEARCH_INDEX_FIELDS)
@translate_errors
def search(
    query: str,
    out: Path,
    k: int,
    level: str | None,
    content_type: str | None,
    path_glob: str | None,
    since: datetime | None,
    as_json: bool,
    role: str,
    reranker: Path | None,
    strict: bool,
    **params: Any,
) -> None:
    """Search every summary of an output folder for QUERY (all tree levels; scores are absolute, 0..1).

    Only hits of at least a minimum relevance are shown; a query nothing answers says so.
    """
    cfg = index_config(out, params)
    found = completeness(cfg)
    if found is not None and not (found[0] or strict):  # fatal or --strict: search() raises it
        click.echo(f"Warning: {found[1]}", err=True)
    if role == "memory":
        _search_memory(cfg, query, k, as_json)
        return
    hits = run_search(
        cfg,
        query,
        k=k,
        level=level,
        content_type=content_type,
        path_glob=path_glob,
        since=since.date() if since else None,
        reranker=reranker,
        strict=strict,
        warn=False,
    )
    if as_json:
        click.echo(json.dumps([h.to_dict() for h in hits], indent=2, ensure_ascii=False))
        return
    if not hits:
        click.echo(f"No good match for {query!r} (no summary or source passage reached relevance {MIN_RELEVANCE}).")
        return
    for h in hits:
        where = "final" if h.is_final else ("period" if h.level == 4 else f"L{h.level}")
        click.echo(
            f"{h.rank}. {h.score:.3f}  {click.style(where, fg='cyan')}  {click.style(h.source_path, bold=True)}"
            f"  {h.doc_date or '-'}"
        )
        origin = click.style("source: ", dim=True) if h.snippet_from == "source" else ""
        click.echo("   " + origin + highlight(h.snippet, h.terms, lambda s: click.style(s, fg="yellow", bold=True)))
        click.echo(f"   {h.summary_path}")


def _search_memory(cfg: IndexConfig, query: str, k: int, as_json: bool) -> None:
    """``--role memory``: the facts, ranked like summaries (see :mod:`batchsum.memory.search`)."""
    # Lazy: the facts' search opens the index writer, which the query path never loads.
    from batchsum.memory.search import search_facts

    facts = search_facts(cfg, query, k=k)
    if as_json:
        click.echo(json.dumps([h.to_dict() for h in facts], indent=2, ensure_ascii=False))
    elif not facts:
        click.echo("No matching facts.")
    for h in [] if as_json else facts:
        click.echo(f"{h.rank}. {h.score:.3f}  {click.style(h.scope, fg='cyan')}  {h.text}")
        click.echo(f"   {h.source_path}  {h.doc_date or '-'}  {h.path}")
