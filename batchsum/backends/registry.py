"""Backends by kind (the pipeline file's ``backend.kind``): each kind builds the run's backend and
the extractive fallback it falls back to. Backend modules are imported only when a run needs one,
by :func:`backend_class`, from the one table :data:`CLASSES`."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from batchsum.config import BACKEND_KINDS, LLM_CACHE_DIR
from batchsum.lazy import load

if TYPE_CHECKING:
    from pathlib import Path

    from batchsum.config import LLMConfig, RunConfig
    from batchsum.model import Backend, SummaryOutput, SummaryRequest
    from batchsum.tokens import Tokenizer


BackendFactory = Callable[["RunConfig", "Tokenizer"], "tuple[Backend, Backend]"]

# kind -> its backend class. Imported when a run builds one: numpy for the extractive backend (every run
# and plan loads this registry, LLM ones too), the event loop and the HTTP client for the LLM's.
CLASSES: dict[str, str] = dict(
    zip(BACKEND_KINDS, ("batchsum.backends.extractive:ExtractiveBackend", "batchsum.backends.llm:LLMBackend"),
        strict=True)
)  # fmt: skip


def backend_class(kind: str) -> Any:
    """The backend class of ``kind`` (one of :data:`~batchsum.config.BACKEND_KINDS`), its module imported now."""
    return load(CLASSES[kind])


def _extractive(cfg: RunConfig, tokenizer: Tokenizer) -> tuple[Backend, Backend]:
    extractive = backend_class("extractive")(tokenizer, final_words=cfg.final_words)
    return extractive, extractive


class LazyExtractive:
    """The extractive fallback of an LLM run, built on its first use: most LLM runs never fall back,
    and its import (numpy) is a tenth of a second before the first request."""

    name = "extractive"
    model: str | None = None

    def __init__(self, tokenizer: Tokenizer, final_words: int) -> None:
        self._tokenizer = tokenizer
        self._final_words = final_words
        self._backend: Backend | None = None

    async def summarize(self, request: SummaryRequest) -> SummaryOutput:
        """The extractive summary of ``request``."""
        if self._backend is None:
            self._backend = backend_class("extractive")(self._tokenizer, final_words=self._final_words)
        return await self._backend.summarize(request)

    async def aclose(self) -> None:
        """Nothing to release (the extractive backend holds no connections)."""


def response_cache_dir(cfg: RunConfig) -> Path | None:
    """The LLM response cache a run of ``cfg`` answers from and writes to (None: ``--no-cache``)."""
    return (cfg.state_dir / LLM_CACHE_DIR) if cfg.llm.cache else None


def _llm(cfg: RunConfig, tokenizer: Tokenizer) -> tuple[Backend, Backend]:
    extractive = LazyExtractive(tokenizer, cfg.final_words)
    cache_dir = response_cache_dir(cfg)
    return backend_class("llm")(cfg.llm, tokenizer=tokenizer, fallback=extractive, cache_dir=cache_dir), extractive


BACKENDS: dict[str, BackendFactory] = dict(zip(BACKEND_KINDS, (_extractive, _llm), strict=True))


def make_backends(cfg: RunConfig, tokenizer: Tokenizer) -> tuple[Backend, Backend]:
    """(the run's backend, the extractive fallback)."""
    return BACKENDS[cfg.backend_kind](cfg, tokenizer)


def check_llm_server(cfg: LLMConfig) -> None:
    """Raise :class:`~batchsum.errors.LLMUnavailable` when the configured server refuses connections
    or rejects the key (before any work, so a run does not fall back node by node)."""
    backend_class("llm").check_server(cfg)
