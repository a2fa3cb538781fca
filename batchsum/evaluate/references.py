"""Reference summaries of ``batchsum eval``: finding them, matching them to documents, reading them."""

from __future__ import annotations

import re
from pathlib import Path

from batchsum.backends.noise import markdown_as_text
from batchsum.evaluate.scoring import plain_text
from batchsum.readers.decoding import decode_bytes

SUFFIXES = (".txt", ".md")  # compared case-insensitively: "a.TXT" is a reference too
_MULTI_REF = re.compile(r"^(?P<id>.+)\.(?P<n>\d+)$")
# A Markdown heading is 1-6 '#' then a space (or nothing): "#Person2# says ..." (DialogSum) is text.
_HEADING = re.compile(r"#{1,6}(?:[ \t]|$)")


def find_references(refs_dir: Path) -> dict[str, Path]:
    """Every ``*.txt`` or ``*.md`` (any case) under ``refs_dir`` (hidden files skipped), keyed by posix path
    without its suffix; a ``.txt`` wins over an ``.md`` of the same name."""
    found: dict[str, Path] = {}
    ranked = sorted(
        (p for p in refs_dir.rglob("*") if p.suffix.lower() in SUFFIXES),
        key=lambda p: (p.suffix.lower() == ".txt", str(p)),  # .md first, so a .txt of the same key replaces it
    )
    for p in ranked:
        rel = p.relative_to(refs_dir)
        if any(part.startswith(".") for part in rel.parts) or not p.is_file():
            continue
        found[rel.with_suffix("").as_posix()] = p
    return found


def _ref_order(key: str) -> tuple[int, str]:
    m = _MULTI_REF.match(key)
    return (int(m.group("n")) if m else -1, key)


def match_references(doc_ids: list[str], refs: dict[str, Path]) -> tuple[dict[str, list[Path]], list[Path]]:
    """Map each document id to ``<id>.txt`` and ``<id>.<N>.txt`` (or ``.md``); return (matches, orphans)."""
    wanted = set(doc_ids)
    matches: dict[str, list[Path]] = {d: [] for d in doc_ids}
    orphans: list[Path] = []
    for key in sorted(refs, key=_ref_order):
        if key in wanted:
            matches[key].append(refs[key])
            continue
        m = _MULTI_REF.match(key)
        if m and m.group("id") in wanted:
            matches[m.group("id")].append(refs[key])
        elif refs[key].suffix.lower() != ".md":  # a Markdown file no document names is a note (README.md)
            orphans.append(refs[key])
    for d in matches:
        matches[d].sort(key=lambda p: _ref_order(p.with_suffix("").name))
    return matches, orphans


def no_match_message(docs_dir: Path, refs_dir: Path, ids: list[str], refs: dict[str, Path]) -> str:
    """Why no document has a reference, with a few of the names on each side, so a naming mismatch shows."""
    message = (
        f"no document in {docs_dir} has a reference in {refs_dir} "
        "(expected <refs>/<id>.txt or <refs>/<id>.<N>.txt, or .md, for each <docs>/<id>.<ext>)"
    )
    if refs:
        names = sorted(p.relative_to(refs_dir).as_posix() for p in refs.values())
        shown = ", ".join(names[:3]) + (", …" if len(names) > 3 else "")
        message += f"; found {len(names)} reference(s): {shown}; document ids: " + ", ".join(ids[:3])
        message += ", …" if len(ids) > 3 else ""
    return message


def reference_text(path: Path) -> tuple[str, str | None]:
    """(text as scored, decoding note or None) of one reference; a ``.md`` one as its reader sees it."""
    text, note = decode_bytes(path.read_bytes())
    if path.suffix.lower() == ".md":  # no front matter, headings, link targets or marks
        shown = markdown_as_text(text).splitlines()
        text = plain_text("\n".join(line for line in shown if not _HEADING.match(line.lstrip())))
    return text.replace("\r\n", "\n").replace("\r", "\n"), note
