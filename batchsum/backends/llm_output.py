"""What an LLM answers, made usable: the structured facets, output cleaning, and log-safe snippets.

Shared by every caller of the LLM client (summaries, facts, compaction). pydantic validates the facets
(:mod:`batchsum.backends.llm_facets`), imported with the first facets answer: a run without facets
never loads it (~0.2 s of start-up before the first request).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

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
# A chat model's frame around the summary: "Sure! Here is a concise summary of the meeting:" before it,
# "Let me know if you would like more detail!" after it. Neither is the source's content, and both had
# gone on into digests, index.md and search.
_PREAMBLE = re.compile(
    r"^\s*(?:(?:sure|certainly|of course|absolutely|okay|ok)\b[!,.]?\s*)?"
    r"(?:here(?:'s| is| are)|below is|the following is)\b[^\n:]{0,150}:\s*",
    re.IGNORECASE,
)
_CLOSER = re.compile(
    r"(?:\n|(?<=[.!?])\s)\s*(?:let me know|i hope (?:this|that) helps|feel free to|if you(?:'d| would) like|"
    r"would you like)\b[^\n]*\s*$",
    re.IGNORECASE,
)


def parse_facets(raw: str) -> dict[str, Any] | None:
    """The validated facets dict in ``raw`` (tolerating fences and chatter around it), or None."""
    text = _FENCE.sub("", _THINK.sub("", raw).strip()).strip()
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end <= start:
        return None
    from batchsum.backends.llm_facets import Facets  # pydantic: only when facets are asked for

    try:
        data = json.loads(text[start : end + 1])
        facets = Facets.model_validate(data)
    except ValueError:  # pydantic's ValidationError is a ValueError
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
    """Model output minus reasoning blocks, code fences, a leading "Summary:" label and a chat model's
    frame ("Sure! Here is a summary:", "Let me know if ...")."""
    text = _THINK.sub("", raw).strip()
    text = _FENCE.sub("", text).strip()
    text = _PREAMBLE.sub("", text, count=1).strip()
    text = _LABEL.sub("", text, count=1).strip()
    return _CLOSER.sub("", text).strip() or text
