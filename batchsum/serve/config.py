"""Settings of ``batchsum serve``."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from batchsum.config import RunConfig
from batchsum.memory.llm import JsonFormat

ENV_CLIENT_KEY = "BATCHSUM_SERVE_KEY"


@dataclass
class ServeConfig:
    """The endpoint's settings. ``run`` carries the output folder, the upstream server (``run.llm``:
    base URL, key, model, timeout, limits) and the index; its ``paths`` are what ``--watch`` watches."""

    run: RunConfig
    host: str = "127.0.0.1"
    port: int = 8000
    client_key: str | None = None  # clients must send "Authorization: Bearer <key>"
    watch: list[Path] = field(default_factory=list)
    json_format: JsonFormat = "json_schema"
    top_facts: int = 5  # facts and earlier turns injected per request
    top_summaries: int = 3  # summary hits injected per request
    facts: bool = True  # extract and reconcile facts from each user turn
    summarize: bool = True  # keep each conversation's summary tree current
    debounce_ms: int = 2000  # --watch

    @property
    def out(self) -> Path:
        return self.run.out
