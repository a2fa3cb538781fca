"""Reading one source that may have changed and planning its summary tree."""

from __future__ import annotations

from typing import TYPE_CHECKING

from batchsum.errors import InputError
from batchsum.walk import Problem, SourceRef, read_document

if TYPE_CHECKING:
    from batchsum.config import RunConfig
    from batchsum.model import Document
    from batchsum.planning import FilePlan
    from batchsum.tokens import Tokenizer


def read_source(ref: SourceRef, cfg: RunConfig) -> Document | Problem:
    """The decoded document, or the problem that kept it from being read."""
    try:
        return read_document(ref, cfg.content_type, redact=cfg.redact_secrets)
    except InputError as exc:
        return Problem(exc.path, exc.reason)


def plan_document(doc: Document, cfg: RunConfig, tokenizer: Tokenizer) -> FilePlan:
    """Tokenize ``doc`` and plan its nodes (sets ``doc.tokens`` and ``doc.level``)."""
    from batchsum.planning import plan_file

    starts = tokenizer.token_starts(doc.text) if doc.text.strip() else []
    return plan_file(doc, starts, cfg, tokenizer)
