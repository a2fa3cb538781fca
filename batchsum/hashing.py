"""The one content hash of batchsum: sha256, of bytes in memory or of a file read in blocks."""

from __future__ import annotations

import hashlib
from pathlib import Path

BLOCK = 1 << 20  # a file is hashed in 1 MB blocks, so memory does not follow its size


def sha256_bytes(data: bytes | bytearray | memoryview) -> str:
    """Hex sha256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


def sha256_text(text: str, head: str = "") -> str:
    """Hex sha256 of ``head`` then ``text`` as UTF-8, encoded a block at a time (a book's text is not
    copied whole)."""
    h = hashlib.sha256(head.encode("utf-8", "surrogatepass"))
    for start in range(0, len(text), BLOCK):
        h.update(text[start : start + BLOCK].encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def sha256_file(path: Path) -> str:
    """Hex sha256 of the file at ``path`` (OSError when it cannot be read)."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(BLOCK), b""):
            h.update(block)
    return h.hexdigest()
