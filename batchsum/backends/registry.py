"""Backends by kind (the pipeline file's ``backend.kind``): each kind builds the run's backend and
the extractive fallback it falls back to. Backend modules are imported only when a run needs one."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from batchsum.config import RunConfig
    from batchsum.model import Backend
    from batchsum.tokens import Tokenizer

LLM_CACHE_DIR = "llm-cache"  # LLM responses, in the state folder

BackendFactory = Callable[["RunConfig", "Tokenizer"], "tuple[Backend, Backend]"]


def _extractive(cfg: RunConfig, tokenizer: Tokenizer) -> tuple[Backend, Backend]:
    from batchsum.backends.extractive import ExtractiveBackend

    extractive = ExtractiveBackend(tokenizer)
    return extractive, extractive


def _llm(cfg: RunConfig, tokenizer: Tokenizer) -> tuple[Backend, Backend]:
    from batchsum.backends.extractive import ExtractiveBackend
    from batchsum.backends.llm import LLMBackend

    extractive = ExtractiveBackend(tokenizer)
    cache_dir = (cfg.state_dir / LLM_CACHE_DIR) if cfg.llm.cache else None
    return LLMBackend(cfg.llm, tokenizer=tokenizer, fallback=extractive, cache_dir=cache_dir), extractive


BACKENDS: dict[str, BackendFactory] = {"extractive": _extractive, "llm": _llm}


def make_backends(cfg: RunConfig, tokenizer: Tokenizer) -> tuple[Backend, Backend]:
    """(the run's backend, the extractive fallback)."""
    return BACKENDS[cfg.backend_kind](cfg, tokenizer)
