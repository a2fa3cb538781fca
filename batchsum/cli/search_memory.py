"""``batchsum search --role memory``: the facts of an output folder, ranked like summaries. A module of
its own: the facts' search opens the index writer, which the summaries' query path never loads."""

from __future__ import annotations

import json

import click

from batchsum.config import IndexConfig
from batchsum.memory.search import search_facts


def print_facts(cfg: IndexConfig, query: str, k: int, as_json: bool) -> None:
    """``--role memory``: the facts, ranked like summaries (see :mod:`batchsum.memory.search`)."""
    facts = search_facts(cfg, query, k=k)
    if as_json:
        click.echo(json.dumps([h.to_dict() for h in facts], indent=2, ensure_ascii=False))
    elif not facts:
        click.echo("No matching facts.")
    for h in [] if as_json else facts:
        click.echo(f"{h.rank}. {h.score:.3f}  {click.style(h.scope, fg='cyan')}  {h.text}")
        click.echo(f"   {h.source_path}  {h.doc_date or '-'}  {h.path}")
