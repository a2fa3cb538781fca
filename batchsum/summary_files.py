"""What one source's summary files say, and writing them when the source's summaries are finished.

Each node becomes ``summaries/L<n>/...md``: YAML front matter (ids, level, token counts, how it was
made) and a Markdown body (the summary, then the facets of a final as sections). Receives results in
memory; reads nothing but the files it replaces.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

from batchsum.navigation import links_block, strip_links, title_for, with_links
from batchsum.tree import TreeNode, node_path, parse_markdown, read_node, soft_delete, summaries_dir, write_node

if TYPE_CHECKING:
    from batchsum.engine.records import NodeResult
    from batchsum.planning import FilePlan, PlannedNode


def front_matter(plan: FilePlan, res: NodeResult, created: str) -> dict[str, Any]:
    """The front matter of one node file."""
    doc = plan.doc
    node = res.node
    out = res.output
    meta: dict[str, Any] = {
        "id": node.node_id,
        "title": _title(doc.relpath, node),
        "doc_id": doc.doc_id,
        "source_path": doc.relpath,
        "source_sha256": doc.sha256,
        "role": "summary",
        "level": node.level,
    }
    if node.level == 1:
        meta["chunk_index"] = node.index
        if node.parent_group is not None:
            meta["parent_group"] = node.parent_group
        if node.chunk is not None:
            meta["source_span"] = [node.chunk.start, node.chunk.end]
    elif node.level == 2:
        meta["group_index"] = node.index
    meta["is_final"] = node.level == 3
    meta["summary_level"] = plan.level.value
    meta["input_tokens"] = res.input_tokens
    meta["output_tokens"] = res.output_tokens
    meta["compression_ratio"] = round(min(1.0, res.output_tokens / res.input_tokens), 4) if res.input_tokens else 0.0
    if node.kind == "source":
        meta["kept_whole"] = True  # the source text itself, too short to need a summary
    if node.level == 3:
        meta["source_tokens"] = doc.tokens
        meta["source_compression_ratio"] = round(min(1.0, res.output_tokens / doc.tokens), 4) if doc.tokens else 0.0
    meta["content_type"] = doc.content_type
    meta["content_type_reason"] = doc.type_reason
    if doc.language:
        meta["language"] = doc.language
        meta["language_source"] = doc.language_source
    meta["backend"] = out.backend
    meta["model"] = out.model
    if out.error:
        meta["error"] = out.error[:500]
    if out.trimmed:
        meta["trimmed"] = True
    meta["created_at"] = created
    meta["doc_date"] = doc.doc_date
    if doc.date_source:
        meta["date_source"] = doc.date_source  # search gives recency only to a real date (not an mtime)
    meta["node_key"] = res.key
    if node.level == 3:
        meta["parent_id"] = plan.parent_id if plan.prior_context else None
        meta["depth"] = plan.depth if plan.prior_context else 0
        if doc.decode_note:
            meta["decode_note"] = doc.decode_note
        if out.facets:
            meta["facets"] = out.facets
        if plan.extras is not None:
            for key, value in plan.extras.front_matter.items():
                meta.setdefault(key, value)  # what the backend itself wrote wins
    return meta


def _title(relpath: str, node: PlannedNode) -> str:
    # Named after the source, so a notes app lists "2026-10-01", not hundreds of notes called "final".
    name = title_for(relpath)
    if node.level == 1:
        return f"{name} · chunk {node.index}"
    if node.level == 2:
        return f"{name} · group {node.index}"
    return name


def body(res: NodeResult) -> str:
    """The Markdown body: the summary, then the facets (if any) as bulleted sections."""
    text = res.output.text.strip()
    f = res.output.facets
    if not f:
        return text
    sections: list[str] = [text]

    def bullets(title: str, items: list[Any]) -> None:
        if items:
            sections.append(f"## {title}\n" + "\n".join(f"- {i}" for i in items))

    bullets("Key points", list(f.get("key_points") or []))
    bullets("Decisions", list(f.get("decisions") or []))
    actions = []
    for a in f.get("action_items") or []:
        if isinstance(a, dict):
            owner = a.get("owner") or "unassigned"
            due = f" (due {a['due']})" if a.get("due") else ""
            actions.append(f"{owner}: {a.get('task', '')}{due}")
    bullets("Action items", actions)
    bullets("Unresolved", list(f.get("unresolved") or []))
    bullets("Entities", list(f.get("entities") or []))
    return "\n\n".join(sections)


def summary_text(text: str) -> str:
    """A final's summary without its facet sections (what a rolling summary builds on)."""
    return text.split("\n\n## ", 1)[0].strip()


def write_tree(
    out: Path,
    plan: FilePlan,
    results: list[NodeResult],
    stamp: str,
    created: str,
    early: dict[str, TreeNode] | None = None,
) -> list[TreeNode]:
    """Write the node files of a finished source; earlier finals go to ``history/``, nodes of the
    previous tree that no longer exist to ``deleted/<stamp>/`` (nothing is destroyed).

    ``early``: the nodes of a new tree already written as they finished (:func:`write_node_file`),
    by node id; the tree is then known to be new.

    Returns every live node as :func:`~batchsum.tree.read_node` would read it back (front matter and
    summary text), so the index is handed the tree without parsing it again."""
    doc = plan.doc
    rel = doc.relpath
    written: set[Path] = set()
    live: list[TreeNode] = []
    sdir = summaries_dir(out, rel)
    # A source without a summaries folder has nothing on disk to keep, move aside or soft-delete:
    # one stat instead of several per node (a first run's writing is mostly such lookups).
    new_tree = early is not None or not sdir.is_dir()
    language = (doc.language or "", doc.language_source if doc.language else "")
    dated = (str(doc.doc_date or ""), doc.date_source or "")
    for res in results:
        node = res.node
        done = early.get(node.node_id) if early is not None else None
        if done is not None:
            live.append(done)
            continue
        path = node_path(out, rel, node.level, node.index)
        written.add(path)
        if not new_tree:
            text = _node_text(plan, res, path)
            kept = _settle_previous(out, rel, path, res, doc.sha256, stamp, text, language, dated)
            if kept is not None:
                live.append(kept)
                continue  # identical node already on disk: keep its file (and created_at)
        live.append(write_node_file(out, plan, res, created))
    if not new_tree:
        stale = [p for lvl in ("L1", "L2", "L3") for p in sorted((sdir / lvl).glob("*.md")) if p not in written]
        if stale:
            soft_delete(out, rel, stale, stamp)
    return live


def write_node_file(out: Path, plan: FilePlan, res: NodeResult, created: str) -> TreeNode:
    """Write one node's file (replacing whatever is there); the node as :func:`read_node` reads it."""
    node = res.node
    path = node_path(out, plan.doc.relpath, node.level, node.index)
    text = _node_text(plan, res, path)
    meta = front_matter(plan, res, created)
    write_node(path, meta, text)
    return TreeNode(path, meta, _read_back(text))


def written_body(out: Path, plan: FilePlan, res: NodeResult) -> str:
    """The body of ``res``'s node file (links stripped) as :func:`write_node_file` writes it and
    :func:`~batchsum.tree.read_node` reads it back (``batchsum plan``: what the digests read of a final)."""
    node = res.node
    return _read_back(_node_text(plan, res, node_path(out, plan.doc.relpath, node.level, node.index)))


def _read_back(text: str) -> str:
    # The body as read_node returns it; the front matter is plain data that YAML gives back unchanged.
    return strip_links(text.rstrip().lstrip("\n"))


def _node_text(plan: FilePlan, res: NodeResult, path: Path) -> str:
    """The whole body of a node's file: its summary, a final's facets and extracted sections, its links."""
    text = body(res)
    if res.node.level == 3 and plan.extras is not None and plan.extras.markdown:
        extracted = plan.extras.section_under(text).strip()
        text = f"{text}\n\n{extracted}" if extracted else text
    return with_links(text, _links(plan, res.node, path.parent))


def _settle_previous(
    out: Path,
    rel: str,
    path: Path,
    res: NodeResult,
    sha256: str,
    stamp: str,
    text: str,
    language: tuple[str, str],
    dated: tuple[str, str],
) -> TreeNode | None:
    """What is on disk where ``res`` goes: the node itself when identical to ``text``, the body it would be
    written with, read in ``language`` (code, source) and dated ``dated`` (date, source) (returned, to keep);
    a previous final copied to ``history/``; a folder in the way soft-deleted. None: write ``res``."""
    if path.is_dir():  # a folder where this node's file belongs: moved aside, not destroyed
        soft_delete(out, rel, [path], stamp)
        return None
    if not path.exists():
        return None
    try:
        old_meta, old_body = parse_markdown(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        old_meta, old_body = {}, ""
    provisional = "fallback" in str(old_meta.get("backend") or "")
    same = old_meta.get("node_key") == res.key and old_meta.get("source_sha256") == sha256 and not provisional
    # A final edited by hand keeps its key: its whole body tells, a note added under its links or a ticked
    # action item too (the edit goes to history/, the summary back).
    if same and old_body.strip() == text.strip():
        # Its front matter says how its source was read: a source now read in another language (--language)
        # or dated otherwise (a reader that dates its name; its month is read from there) rewrites it.
        old_dated = (str(old_meta.get("doc_date") or ""), str(old_meta.get("date_source") or ""))
        if (old_meta.get("language") or "", old_meta.get("language_source") or "") == language and old_dated == dated:
            return TreeNode(path, old_meta, strip_links(old_body))
        return None
    if res.node.level == 3:
        hist = summaries_dir(out, rel) / "history" / f"{stamp}.md"
        hist.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, hist)
    return None


def _links(plan: FilePlan, node: PlannedNode, node_dir: Path) -> str:
    """Links from a node to its parent, its children and the source file."""
    nodes = plan.nodes
    parent: tuple[int, int | None] | None
    children: list[tuple[int, int | None]]
    l2: list[tuple[int, int | None]] = [(2, n.index) for n in nodes if n.level == 2]
    if node.level == 3:
        parent = None
        children = l2 or [(1, n.index) for n in nodes if n.level == 1]
    elif node.level == 2:
        parent = (3, None)
        children = [(1, n.index) for n in nodes if n.level == 1 and n.parent_group == node.index]
    else:
        parent = (2, node.parent_group) if node.parent_group is not None else (3, None)
        children = []
    return links_block(
        level=node.level, index=node.index, source=plan.doc.path, node_dir=node_dir, parent=parent, children=children
    )


def previous_final(out: Path, relpath: str) -> str | None:
    """The summary text of the final on disk, or None when there is none (or it is unreadable)."""
    try:
        _, text = read_node(node_path(out, relpath, 3, None))
    except (OSError, ValueError):
        return None
    return summary_text(text) or None


def final_tokens(out: Path, relpath: str) -> int:
    """The output tokens the final on disk records (0 when unreadable)."""
    try:
        meta, _ = read_node(node_path(out, relpath, 3, None))
        return int(meta.get("output_tokens") or 0)
    except (OSError, ValueError):
        return 0
