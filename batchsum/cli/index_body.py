"""What ``batchsum index`` does: check, repair, rebuild or measure the search index of an output folder (a
thin wrapper over :mod:`batchsum.index.store`; the options and help are declared in :mod:`batchsum.cli.index`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from batchsum.cli._common import EXIT_SOME_FAILED
from batchsum.cli._schema_options import index_config
from batchsum.config import IndexConfig
from batchsum.errors import ConfigError
from batchsum.index.readonly import readable_index
from batchsum.index.state import recorded_server
from batchsum.index.store import check_index, index_stats, rebuild_index, repair_index


def index(
    out: Path,
    rebuild: bool,
    check: bool,
    stats: bool,
    as_json: bool,
    wait: bool,
    **params: Any,
) -> None:
    """Check, repair, rebuild or measure the index of OUT (``--check``: exit 1 when it differs from the tree)."""
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
            # A folder indexed on a Chroma server is repaired there (without the host, a repair would build a
            # second, embedded Chroma no run updates).
            kept_at = recorded_server(cfg) or cfg
            if result.damaged:
                click.echo(f"run `{kept_at.index_command('--rebuild')}` to rebuild it")
            else:
                click.echo("index OK" if result.ok else f"run `{kept_at.index_command()}` to repair")
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
