"""``batchsum search`` and ``batchsum index``: thin Click wrappers over :mod:`batchsum.index`."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

import click

from batchsum.cli._common import EXIT_SOME_FAILED, translate_errors
from batchsum.cli._schema_options import SEARCH_INDEX_FIELDS, index_config, schema_options
from batchsum.config import IndexConfig
from batchsum.errors import ConfigError
from batchsum.index.readonly import readable_index
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
    # Lazy: the query path loads numpy; `batchsum search --help` does not.
    from batchsum.index.search import MIN_RELEVANCE
    from batchsum.index.search import search as run_search
    from batchsum.index.snippets import highlight

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


@click.command()
@click.argument("out", type=click.Path(path_type=Path))
@click.option("--rebuild", is_flag=True, help="Drop the index and re-index from the Markdown tree alone.")
@click.option("--check", is_flag=True, help="Report nodes missing from the index, stale ones and orphans.")
@click.option("--stats", is_flag=True, help="Show the index's size on disk per part and per node (reads only).")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.option("--wait", is_flag=True, help="Wait for a run on the same output instead of exiting with code 3.")
@schema_options(*SEARCH_INDEX_FIELDS)
@translate_errors
def index(
    out: Path,
    rebuild: bool,
    check: bool,
    stats: bool,
    as_json: bool,
    wait: bool,
    **params: Any,
) -> None:
    """Check, repair or rebuild the search index of output folder OUT.

    Without options: index every node that is missing or stale and drop orphans.
    --check exits with code 1 when the index and the tree differ. Repairing and rebuilding take
    the output's lock, like a run (exit code 3 while a run holds it).
    """
    # Lazy: the index writer (numpy, the walker) stays off the query path (tests/test_search_imports.py).
    from batchsum.index.store import check_index, rebuild_index, repair_index

    if sum((rebuild, check, stats)) > 1:
        raise ConfigError("--rebuild, --check and --stats exclude each other; pick one")
    cfg = index_config(out, params)
    if stats:
        _print_stats(cfg, as_json)
        return
    if check:
        with readable_index(cfg) as readable:  # read-only storage: check a copy (opening writes)
            result = check_index(readable)
        if as_json:
            payload = {
                "ok": result.ok,
                "nodes_in_tree": result.nodes_in_tree,
                "nodes_in_index": result.nodes_in_index,
                "missing": result.missing,
                "stale": result.stale,
                "orphans": result.orphans,
                "damaged": result.damaged,
            }
            click.echo(json.dumps(payload, indent=2, ensure_ascii=False))
        else:
            click.echo(f"{result.nodes_in_tree} nodes in the tree, {result.nodes_in_index} in the index")
            for label, ids in (("missing", result.missing), ("stale", result.stale), ("orphan", result.orphans)):
                click.echo(f"{len(ids)} {label}")
                for nid in ids[:20]:
                    click.echo(f"  {nid}")
                if len(ids) > 20:
                    click.echo(f"  ... and {len(ids) - 20} more")
            for problem in result.damaged:
                click.echo(f"damaged: {problem}")
            if result.damaged:
                click.echo(f"run `batchsum index {out} --rebuild` to rebuild it")
            else:
                click.echo("index OK" if result.ok else f"run `batchsum index {out}` to repair")
        if not result.ok:
            raise SystemExit(EXIT_SOME_FAILED)
        return
    done = rebuild_index(cfg, wait=wait) if rebuild else repair_index(cfg, wait=wait)
    if as_json:
        payload = {
            "docs": done.docs,
            "nodes_indexed": done.nodes_indexed,
            "nodes_unchanged": done.nodes_unchanged,
            "nodes_deleted": done.nodes_deleted,
            "seconds": round(done.seconds, 3),
            "nodes_per_s": round(done.nodes_per_s, 1),
            "notes": done.notes,
        }
        click.echo(json.dumps(payload, indent=2))
        return
    verb = "Rebuilt" if rebuild else "Indexed"
    click.echo(
        f"{verb}: {done.nodes_indexed} nodes embedded, {done.nodes_unchanged} unchanged, "
        f"{done.nodes_deleted} removed in {done.seconds:.1f}s"
        + (f" ({done.nodes_per_s:.0f} nodes/s)" if done.nodes_indexed else "")
    )


def _print_stats(cfg: IndexConfig, as_json: bool) -> None:
    # Lazy: the index writer (numpy, the walker) stays off the query path (tests/test_search_imports.py).
    from batchsum.index.store import index_stats

    st = index_stats(cfg)
    if as_json:
        click.echo(json.dumps(st, indent=2))
        return
    nodes = st["nodes"]
    click.echo(f"Search index of {cfg.out}: {nodes} nodes, {st['state']}")
    for part in st["parts"]:
        per = f"{part['bytes'] / nodes:,.0f} B/node" if nodes else "-"
        click.echo(f"  {part['name']:<22} {_human(part['bytes']):>10}  {per:>14}  {part['path']}")
    per = f"{st['total_bytes'] / nodes:,.0f} B/node" if nodes else "-"
    click.echo(f"  {'total':<22} {_human(st['total_bytes']):>10}  {per:>14}")


def _human(n: int) -> str:
    size = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:,.0f} {unit}" if unit == "B" else f"{size:,.1f} {unit}"
        size /= 1024
    return f"{n} B"
