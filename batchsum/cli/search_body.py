"""What ``batchsum search`` does: a thin wrapper over :mod:`batchsum.index.search` (``--role memory``:
:mod:`batchsum.memory.search`, by :mod:`batchsum.cli.search_memory`); the options and help are declared in
:mod:`batchsum.cli.search`."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

import click

from batchsum.cli._schema_options import index_config
from batchsum.index.hit_texts import SOURCE_CHANGED
from batchsum.index.search import MIN_RELEVANCE
from batchsum.index.search import search as run_search
from batchsum.index.snippets import highlight
from batchsum.index.state import check_output_folder, completeness
from batchsum.lazy import load
from batchsum.options import absolute, filtered_out, path_filter, unmatched_path
from batchsum.settings import resolved_path
from batchsum.walk_paths import shown


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
    """Print the hits of QUERY in the index of OUT (or, with ``role="memory"``, its facts)."""
    resolved_path(out, "--out")  # a link loop is said as one, not as an index of another version
    cfg = index_config(out, params)
    check_output_folder(cfg)
    found = completeness(cfg)
    if found is not None and not (found[0] or strict):  # fatal or --strict: search() raises it
        click.echo(f"Warning: {found[1]}", err=True)
    if role == "memory":
        load("batchsum.cli.search_memory:print_facts")(cfg, query, k, as_json)
        return
    path_glob = path_filter(cfg, path_glob)
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
    if not hits:
        # With --json the explanation goes to stderr when a filter is to blame (stdout stays the JSON list).
        why = _no_match(cfg, query, level, content_type, path_glob, since, reranker)
        if not as_json or why[1]:
            click.echo(why[0], err=as_json)
    if as_json:
        # Absolute: the same path whether --out was given relative, absolute or as ".".
        click.echo(json.dumps([h.to_dict() for h in absolute(hits)], indent=2, ensure_ascii=False))
        return
    for h in hits:
        where = "final" if h.is_final else ("period" if h.level == 4 else f"L{h.level}")
        click.echo(
            f"{h.rank}. {h.score:.3f}  {click.style(where, fg='cyan')}  {click.style(shown(h.source_path), bold=True)}"
            f"  {h.doc_date or '-'}"
        )
        if h.snippet_from == SOURCE_CHANGED:
            click.echo("   " + click.style("(source changed since it was indexed; the next run updates it)", dim=True))
        else:
            origin = click.style("source: ", dim=True) if h.snippet_from == "source" else ""
            click.echo("   " + origin + highlight(h.snippet, h.terms, lambda s: click.style(s, fg="yellow", bold=True)))
        click.echo(f"   {shown(str(h.summary_path))}")


def _no_match(
    cfg: Any,
    query: str,
    level: str | None,
    content_type: str | None,
    path_glob: str | None,
    since: datetime | None,
    reranker: Path | None,
) -> tuple[str, bool]:
    """Why a search printed nothing, and whether a filter is to blame: a ``--path`` that matches no source, the
    filters leaving out what is relevant, or no passage relevant enough."""
    if path_glob and (unmatched := unmatched_path(cfg, path_glob)):
        return f"No match for {query!r}: {unmatched}.", True
    given = {
        "level": level,
        "type": content_type,
        "path": path_glob,
        "since": since.date().isoformat() if since else None,
    }
    if (why := filtered_out(cfg, query, given, reranker)) is not None:
        return f"{why}.", True
    return f"No good match for {query!r} (no summary or source passage reached relevance {MIN_RELEVANCE}).", False
