"""What ``batchsum index`` does: check, repair, rebuild or measure the search index of an output folder (a
thin wrapper over :mod:`batchsum.index.store`; the options and help are declared in :mod:`batchsum.cli.index`)."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import click

from batchsum.cli._common import EXIT_SOME_FAILED
from batchsum.cli._schema_options import index_config
from batchsum.config import IndexConfig
from batchsum.errors import ConfigError
from batchsum.index.sizes import index_stats
from batchsum.index.state import check_output_folder, recorded_server
from batchsum.index.store import IndexCheck, check_index, rebuild_index, repair_index
from batchsum.sources import manifest_reader
from batchsum.state import StateStore


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
    # Before anything opens or locks the folder: a repair or rebuild would write an empty index into it.
    check_output_folder(cfg)
    if stats:
        _print_stats(cfg, as_json)
        return
    if check:
        _check(cfg, as_json)
        return
    sources = SourceReads(cfg)
    done = (
        rebuild_index(cfg, wait=wait, read_source=sources)
        if rebuild
        else repair_index(cfg, wait=wait, read_source=sources)
    )
    unread = sources.note(cfg)
    if as_json:
        payload = {
            **done.to_dict(),
            "sources_read": len(sources.asked),
            "sources_not_found": sorted(sources.missed),
        }
        click.echo(json.dumps(payload, indent=2))
        return
    verb = "Rebuilt" if rebuild else "Indexed"
    click.echo(
        f"{verb}: {done.nodes_indexed} nodes embedded, {done.nodes_unchanged} unchanged, "
        f"{done.nodes_deleted} removed in {done.seconds:.1f}s"
        + (f" ({done.nodes_per_s:.0f} nodes/s)" if done.nodes_indexed else "")
    )
    if unread:
        click.echo(f"Note: {unread}")


class SourceReads:
    """The output's source reader (its manifest), counting the sources it could not give: each is indexed by
    its summaries alone, so a search finds none of its words that the summaries left out."""

    def __init__(self, cfg: IndexConfig) -> None:
        self.state_dir = cfg.state_dir
        self.read = manifest_reader(cfg.state_dir)
        self.asked: set[str] = set()
        self.missed: set[str] = set()

    def __call__(self, relpath: str, sha256: str | None) -> str | None:
        """The source's text as the run read it, or None (then it is counted)."""
        text = self.read(relpath, sha256)
        if sha256:  # a digest has no source to find
            self.asked.add(relpath)
            if text is None:
                self.missed.add(relpath)
        return text

    def note(self, cfg: IndexConfig) -> str | None:
        """What the user should know about the sources not found (None: all were)."""
        return unread_note(cfg, self.missed, len(self.asked))


def unread_note(cfg: IndexConfig, missed: set[str], total: int) -> str | None:
    """The sources indexed by their summaries alone, how many of ``total``, where they were looked for and how
    to index them again (None: none)."""
    if not missed:
        return None
    entries = StateStore(cfg.state_dir).load_manifest()
    roots = sorted({e.root for rel in missed if (e := entries.get(rel)) is not None and e.root})
    where = f" under {', '.join(roots)}" if roots else ""
    return (
        f"{len(missed)} of {total} sources were not found{where} (moved, changed or deleted since the run; e.g. "
        f"{min(missed)}): indexed by their summaries alone, so search finds none of their words that the "
        f"summaries left out; put them back, or `batchsum run` their new folder "
        f"--out {shlex.quote(str(cfg.out))}, then "
        f"`{cfg.index_command('--rebuild')}`"
    )


def _check(cfg: IndexConfig, as_json: bool) -> None:
    """``--check``: :func:`~batchsum.index.store.check_index` rendered; exit 1 on any difference, as a missing
    part makes the index incomplete (search warns, ``--strict`` refuses)."""
    result = check_index(cfg)
    if as_json:
        click.echo(json.dumps(result.to_dict(), indent=2, ensure_ascii=False))
    else:
        _print_check(cfg, result, unread_note(cfg, set(result.sources_not_found), result.sources))
    if not result.ok:
        raise SystemExit(EXIT_SOME_FAILED)


def _print_check(cfg: IndexConfig, result: IndexCheck, unread: str | None) -> None:
    click.echo(f"{result.nodes_in_tree} nodes in the tree, {result.nodes_in_index} in the index")
    for part in result.missing_parts:
        click.echo(f"missing part: {part}")
    for label, ids in (("missing", result.missing), ("stale", result.stale), ("orphan", result.orphans)):
        click.echo(f"{len(ids)} {label}")
        for nid in ids[:20]:
            click.echo(f"  {nid}")
        if len(ids) > 20:
            click.echo(f"  ... and {len(ids) - 20} more")
    for problem in result.damaged:
        click.echo(f"damaged: {problem}")
    for part in result.outdated:
        click.echo(f"outdated: {part}")
    if result.incomplete:
        click.echo(f"incomplete: {result.incomplete}")
    if unread:
        click.echo(f"note: {unread}")
    if result.rebuilding:
        # Whatever differs, the running rebuild brings in line: no repair to advise (it would exit 3 meanwhile).
        click.echo(
            f"a run ({result.rebuilding}) is rebuilding it: checked the files search reads until it ends; "
            "check again when it ends"
        )
        return
    if result.incomplete and result.incomplete.startswith("a run ("):
        click.echo("check again when it ends")  # the run completes it; a repair would exit 3 on its lock meanwhile
        return
    # A folder indexed on a Chroma server is repaired there (without the host, a repair would build a
    # second, embedded Chroma no run updates).
    kept_at = recorded_server(cfg) or cfg
    if result.damaged:
        click.echo(f"run `{kept_at.index_command('--rebuild')}` to rebuild it")
    else:
        click.echo("index OK" if result.ok else f"run `{kept_at.index_command()}` to repair")


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
