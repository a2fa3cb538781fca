"""What an LLM answers, made usable: the structured facets schema, output cleaning, and log-safe snippets.

Shared by every caller of the LLM client (summaries, facts, compaction). pydantic validates the facets.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from batchsum.secrets import scrub_text

LOG_SNIPPET_CHARS = 200  # seed 002: how much of a bad output to show in the log

_THINK = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(r"^```[a-zA-Z]*\s*\n?|\n?```\s*$")
_LABEL = re.compile(
    r"^\s*(?:\*\*)?(?:(?:one[- ]sentence|section|synthesi[sz]ed|updated|final)\s+)?summary"
    r"(?:\s*\([^)\n]{0,60}\))?(?:\*\*)?\s*:\s*(?:\*\*)?\s*",
    re.IGNORECASE,
)
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


# ---- facets (seed 002) ------------------------------------------------------------------------
class ActionItem(BaseModel):
    """One action item of a conversation."""

    model_config = ConfigDict(extra="ignore", coerce_numbers_to_str=True)

    owner: str | None = None
    task: str = Field(min_length=1)
    due: str | None = None


class Facets(BaseModel):
    """Structured facets of a conversation summary; lists are capped, not rejected, when long."""

    model_config = ConfigDict(extra="ignore", coerce_numbers_to_str=True)

    summary: str = Field(min_length=1)
    key_points: list[str] = Field(default_factory=list)
    decisions: list[str] = Field(default_factory=list)
    action_items: list[ActionItem] = Field(default_factory=list)
    unresolved: list[str] = Field(default_factory=list)
    entities: list[str] = Field(default_factory=list)

    @field_validator("key_points", "decisions", "unresolved", "entities", mode="before")
    @classmethod
    def _cap_strings(cls, value: Any) -> Any:
        if value is None:
            return []
        if isinstance(value, list):
            return [str(v).strip() for v in value if v is not None and str(v).strip()][:30]
        return value

    @field_validator("action_items", mode="before")
    @classmethod
    def _cap_items(cls, value: Any) -> Any:
        if value is None:
            return []
        if isinstance(value, list):
            # Small models often answer with bare strings; they are tasks without owner or date.
            return [{"task": v} if isinstance(v, str) else v for v in value if v][:30]
        return value


def parse_facets(raw: str) -> dict[str, Any] | None:
    """The validated facets dict in ``raw`` (tolerating fences and chatter around it), or None."""
    text = _FENCE.sub("", _THINK.sub("", raw).strip()).strip()
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end <= start:
        return None
    try:
        data = json.loads(text[start : end + 1])
        facets = Facets.model_validate(data)
    except (ValueError, ValidationError):
        return None
    if not facets.summary.strip():
        return None
    return facets.model_dump()


def sanitize_for_log(text: str, secrets: Sequence[str] = (), limit: int = LOG_SNIPPET_CHARS) -> str:
    """First ``limit`` characters of ``text`` without control characters or anything key-like."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, "***")
    text = scrub_text(text)
    text = _CONTROL.sub(" ", text)
    return text[:limit]


def clean_output(raw: str) -> str:
    """Model output minus reasoning blocks, code fences and a leading "Summary:" label."""
    text = _THINK.sub("", raw).strip()
    text = _FENCE.sub("", text).strip()
    text = _LABEL.sub("", text, count=1).strip()
    return text
