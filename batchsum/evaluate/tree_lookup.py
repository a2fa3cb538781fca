"""The L3 finals of an existing output tree, found for the documents ``batchsum eval`` scores."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from batchsum.config import STATE_DIR
from batchsum.errors import ConfigError
from batchsum.tree import iter_tree


@dataclass(frozen=True)
class Final:
    """One file's L3 final: its body and the hash of the source it summarizes."""

    body: str
    source_sha256: str | None


def require_tree(out: Path) -> None:
    """ConfigError unless ``out`` is an output tree (its state folder holds a manifest, as every run writes)."""
    if not out.is_dir():
        raise ConfigError(f"--tree given but the output folder does not exist: {out}")
    if not (out / STATE_DIR / "manifest").is_dir():
        raise ConfigError(
            f"--tree given but {out} is not a batchsum output tree (no {STATE_DIR}/manifest): "
            "give --out the folder a `batchsum run` wrote"
        )


def final_index(out: Path) -> dict[str, Final]:
    """source relpath -> its L3 final, for every final in an existing tree."""
    finals: dict[str, Final] = {}
    for node in iter_tree(out):
        if node.path.parent.name == "L3" and node.path.name == "final.md":
            src = node.meta.get("source_path") or node.meta.get("doc_id")
            sha = node.meta.get("source_sha256")
            if isinstance(src, str):
                finals[src] = Final(node.body, sha if isinstance(sha, str) else None)
    return finals


def _root_labels(docs_dir: Path) -> set[str]:
    # A tree of several roots prefixes relpaths with a root's name and as many parents as tell the roots
    # apart, joined by '-' (walk_paths.root_names): "X-docs" for X/docs.
    parts = [p for p in docs_dir.resolve().parts if p != docs_dir.resolve().anchor]
    return {"-".join(parts[-k:]) for k in range(1, len(parts) + 1)}


def lookup_final(finals: dict[str, Final], relpath: str, docs_dir: Path) -> tuple[Final | None, str | None]:
    """(the final of ``docs_dir``'s ``relpath``, or None and why not: None when there is none)."""
    if relpath in finals:
        return finals[relpath], None
    hits = {src[: -len(relpath) - 1]: fin for src, fin in finals.items() if src.endswith("/" + relpath)}
    if len(hits) > 1:  # several roots hold the same relpath: the one named like the documents' folder
        labels = _root_labels(docs_dir)
        hits = {prefix: fin for prefix, fin in hits.items() if prefix in labels}
        if len(hits) != 1:
            return None, f"ambiguous: several roots of the tree hold {relpath}"
    return (next(iter(hits.values())), None) if hits else (None, None)
