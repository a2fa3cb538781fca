"""Whether a page at one of the fixed names batchsum writes in an output folder (``index.md``, the
digests under ``digests/``) is batchsum's own.

An --out may already hold files batchsum did not write: one's own notes, another tool's ``index.md``.
Such a file is never overwritten or removed. batchsum writes its page under the alternative name it
takes when a source's tree owns the name (``batchsum-index.md``, ``batchsum-digests/``) and warns. A
page is batchsum's when its front matter says what batchsum's say: the index page's keys, a digest's
role.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path

from batchsum.periods import DIGESTS_DIR, DIGESTS_DIR_ALT, Period, digests_dir, owns_source_tree

INDEX_KEYS = ("title", "files", "generated_at")  # the front matter of every index page batchsum wrote
_SHOWN = 3  # foreign pages named in a warning


def _front_matter(path: Path) -> dict[str, str] | None:
    """The top-level keys of the front matter of the regular file at ``path``, with their values as
    written; None for anything else (a link, a folder, a page without front matter). Read line by line,
    not parsed as YAML: an unchanged re-run checks its index page and imports no YAML parser."""
    if path.is_symlink() or not path.is_file():
        return None
    try:
        with path.open(encoding="utf-8") as fh:
            if fh.readline().rstrip("\r\n") != "---":
                return None
            keys: dict[str, str] = {}
            for line in fh:
                if line.rstrip("\r\n") == "---":
                    return keys
                key = _KEY.match(line)
                if key:
                    keys[key.group(1)] = key.group(2).strip().strip("'\"")
    except (OSError, UnicodeDecodeError):
        return None
    return None  # never closed: no front matter


_KEY = re.compile(r"([A-Za-z_][\w-]*):(.*)")


def foreign_index(path: Path) -> bool:
    """Whether something is at ``path`` that is not an index page batchsum wrote."""
    if not os.path.lexists(path):
        return False
    meta = _front_matter(path)
    return meta is None or not all(k in meta for k in INDEX_KEYS)


def foreign_digest(path: Path) -> bool:
    """Whether something is at ``path`` that is not a digest page batchsum wrote."""
    if not os.path.lexists(path):
        return False
    meta = _front_matter(path)
    return meta is None or meta.get("role") != "digest"


def digests_folder(out: Path, relpaths: Iterable[str], periods: Iterable[Period]) -> tuple[str | None, str | None]:
    """The folder the digests of ``periods`` go to (``relpaths``: the output's sources): ``digests``, or
    ``batchsum-digests`` when a source's tree owns ``digests/`` (:func:`~batchsum.periods.digests_dir`) or
    a file batchsum did not write is where one of the digests would go in it; and then the warning naming
    those files. None (and a warning) when neither folder is free: the digests are not written."""
    wanted, rels = list(periods), list(relpaths)
    folder = digests_dir(rels, out)
    if folder is None:
        return None, (
            f"{out / DIGESTS_DIR} and {out / DIGESTS_DIR_ALT} both hold sources' summaries: digests not written "
            "(rename one of those source folders)"
        )
    taken = _foreign(out, folder, wanted)
    if not taken:
        return folder, None
    more = f" and {len(taken) - _SHOWN} more" if len(taken) > _SHOWN else ""
    left = "left as it is" if len(taken) == 1 else "left as they are"
    named = f"{', '.join(str(out / t) for t in taken[:_SHOWN])}{more}: not written by batchsum, {left}"
    # The other folder, when no source's tree owns it and no file there is another's either.
    alt = DIGESTS_DIR_ALT if folder == DIGESTS_DIR else None
    if alt and not owns_source_tree(rels, out, alt) and not _foreign(out, alt, wanted):
        return alt, f"{named}; the digests are written to {out / alt} instead"
    return None, f"{named}; digests not written"


def _foreign(out: Path, folder: str, periods: list[Period]) -> list[str]:
    """The paths in ``folder`` a digest of ``periods`` would take that hold a file batchsum did not write."""
    return sorted(p.path(folder) for p in periods if foreign_digest(out / p.path(folder)))
