"""On-disk cache of LLM completions, so a re-run or resumed run never pays twice for one call.

Key: sha256 of the canonical JSON of (model, messages, parameters) - everything that decides the
answer, nothing else (no base URL, no API key). One small JSON file per entry under
``<root>/<key[:2]>/<key>.json``, written to a temp file and ``os.replace``d into place, so a
``kill -9`` leaves either the whole entry or none. An unreadable entry counts as a miss.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from batchsum import jsonio, statefile
from batchsum.tree import atomic_write_text

log = logging.getLogger(__name__)

CACHE_VERSION = 1


@dataclass
class CachedCompletion:
    """What we keep of one successful completion."""

    model: str
    content: str
    prompt_tokens: int
    completion_tokens: int


def cache_key(model: str, messages: Sequence[Mapping[str, str]], params: Mapping[str, Any]) -> str:
    """sha256 hex of the canonical JSON of (model, messages, params)."""
    payload = {"v": CACHE_VERSION, "model": model, "messages": list(messages), "params": dict(params)}
    blob = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class ResponseCache:
    """A folder of cached completions; safe to share between concurrent tasks and processes."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> CachedCompletion | None:
        """The cached completion for ``key``, or None."""
        path = self._path(key)
        try:
            # Depth-safe and link-safe: a planted or damaged entry is a miss, not a crash or a hang.
            data = jsonio.loads(statefile.read_bytes(path))
            entry = CachedCompletion(
                model=str(data["model"]),
                content=str(data["content"]),
                prompt_tokens=int(data.get("prompt_tokens", 0)),
                completion_tokens=int(data.get("completion_tokens", 0)),
            )
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            log.warning("ignoring unreadable LLM cache entry %s (%s)", path, exc)
            return None
        return entry

    def lookup(
        self,
        models: Sequence[str],
        messages: Sequence[Mapping[str, str]],
        params: Mapping[str, Any],
        accept: Callable[[str], bool] | None = None,
    ) -> CachedCompletion | None:
        """The cached answer to a request of ``messages`` with ``params`` under the first model of
        ``models`` that has one (and whose answer ``accept`` takes), or None."""
        for model in models:
            hit = self.get(cache_key(model, messages, params))
            if hit is not None and (accept is None or accept(hit.content)):
                return hit
        return None

    def put(self, key: str, entry: CachedCompletion) -> None:
        """Store ``entry`` atomically; a failure to write only costs a future cache miss."""
        path = self._path(key)
        record = {
            "v": CACHE_VERSION,
            "model": entry.model,
            "content": entry.content,
            "prompt_tokens": entry.prompt_tokens,
            "completion_tokens": entry.completion_tokens,
            "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }
        try:
            # No fsync: atomic against kill -9; an entry lost to a power cut only repeats one call.
            atomic_write_text(path, json.dumps(record, ensure_ascii=False), durable=False)
        except OSError as exc:
            log.warning("could not write LLM cache entry %s (%s)", path, exc)
