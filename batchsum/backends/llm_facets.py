"""The structured facets an LLM is asked for (seed 002), validated by pydantic.

Imported only when a facets answer is parsed (:func:`batchsum.backends.llm_output.parse_facets`).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator


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
