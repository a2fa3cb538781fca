"""Settings of ``batchsum serve``."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from pathlib import Path

from batchsum.config import RunConfig
from batchsum.memory.llm import JsonFormat
from batchsum.remembered import reuse

ENV_CLIENT_KEY = "BATCHSUM_SERVE_KEY"
# The options naming the chat upstream: what answers the clients, never what summarizes the sources.
CHAT_FIELDS = frozenset({"llm.base_url", "llm.model", "llm.api_key"})


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
    given: frozenset[str] = frozenset()  # the run's fields set on the command line (the rest may be remembered)

    @property
    def out(self) -> Path:
        return self.run.out


def watch_run(scfg: ServeConfig) -> RunConfig:
    """The settings of ``--watch``'s runs: what ``batchsum watch PATHS --out OUT`` would use, i.e. the
    options given (but the chat upstream's) over the output folder's remembered settings. The chat
    upstream is not the folder's summarizer: a folder built offline stays extractive, one built with an
    LLM keeps its own server and model (the chat upstream's key goes only to that same server)."""
    chat = scfg.run.llm
    cfg = copy.deepcopy(scfg.run)  # reuse() assigns into nested settings (the level bounds)
    cfg.paths = list(scfg.watch)
    cfg.llm.base_url = cfg.llm.model = cfg.llm.api_key = None
    reuse(cfg, set(scfg.given - CHAT_FIELDS))
    if cfg.llm.base_url and chat.base_url and cfg.llm.base_url.rstrip("/") == chat.base_url.rstrip("/"):
        cfg.llm.api_key = chat.api_key
    return cfg
