"""What an OpenAI-compatible server's answers mean to the LLM client: a completion's text (cut back to
its last whole sentence when the server stopped it at ``max_tokens``), and an error answer as a
retryable, missing-model or fatal failure. No event loop, no HTTP client: parsing only."""

from __future__ import annotations

import email.utils
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from batchsum.backends.llm_output import sanitize_for_log
from batchsum.backends.server_models import SHOWN, list_models
from batchsum.errors import LLMUnavailable
from batchsum.secrets import scrub_text
from batchsum.text import split_sentences

if TYPE_CHECKING:
    from batchsum.config import LLMConfig

RETRYABLE_STATUS = frozenset({408, 409, 425, 429})  # plus every 5xx
MAX_RETRY_AFTER_S = 600.0  # a Retry-After beyond this is clamped (and logged) rather than stalling a run
_ENDS_SENTENCE = re.compile(r"[.!?…。！？][\"')\]」』”’）》]*\s*$")


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delta-seconds or an HTTP date), or None."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


class CallFailure(Exception):
    """One request failed; ``retryable`` decides whether tenacity tries again."""

    def __init__(
        self, message: str, *, retryable: bool, retry_after: float | None = None, missing_model: bool = False
    ) -> None:
        super().__init__(message)
        self.retryable = retryable
        self.retry_after = retry_after
        self.missing_model = missing_model
        self.auth = False
        self.connection = False  # the server could not be reached (not an answer it gave)


@dataclass
class Completion:
    """One chat completion's text and usage; ``cut``: the server stopped it at ``max_tokens`` and its
    unfinished last sentence was dropped."""

    content: str
    usage: dict[str, Any] | None
    cut: bool = False


def parse_completion(raw: bytes) -> Completion:
    """The completion in a chat completion body; ValueError when it is not one (a garbled body, which
    the client retries: no choice at all is not an empty answer but a broken one)."""
    import orjson

    data = orjson.loads(raw)
    if not isinstance(data, dict) or not isinstance(data.get("choices"), list):
        raise ValueError("not a chat completion (no 'choices' list)")
    choices = data["choices"]
    if not choices or not isinstance(choices[0], dict):
        raise ValueError("a chat completion without a choice")
    message = choices[0].get("message")
    content = message.get("content") if isinstance(message, dict) else None
    usage = data.get("usage")
    text = content if isinstance(content, str) else ""
    cut = choices[0].get("finish_reason") == "length" and bool(text.strip())
    if cut:
        text = last_whole_sentence(text)
    return Completion(text, usage if isinstance(usage, dict) else None, cut)


def last_whole_sentence(text: str) -> str:
    """``text`` that was cut off mid-way, back to the end of its last whole sentence; with no whole
    sentence, back to its last whole word plus "…" (never mid-word)."""
    text = text.rstrip()
    spans = split_sentences(text)
    if spans and not _ENDS_SENTENCE.search(spans[-1].text):
        spans = spans[:-1]  # the sentence the server stopped in the middle of
    if spans:
        return text[: spans[-1].end].rstrip()
    cut = max(text.rfind(" "), text.rfind("\n"))
    return (text[:cut].rstrip(" ,;:-") + "…") if cut > 0 else ""


def classify_status(
    status: int, body: Any, headers: Mapping[str, str], model: str, secrets: Sequence[str]
) -> CallFailure:
    """Map an HTTP error to retryable / missing model / fatal."""
    code = str(body.get("code") or "") if isinstance(body, dict) else ""
    detail = body.get("message") if isinstance(body, dict) and body.get("message") else str(body or f"HTTP {status}")
    detail = sanitize_for_log(str(detail), secrets, limit=160)
    if status == 404 or code == "model_not_found":
        # Whether the model or the whole path is missing, the client asks the server's model list.
        return CallFailure(f"model {model} not found (HTTP {status}: {detail})", retryable=False, missing_model=True)
    if status in RETRYABLE_STATUS or status >= 500:
        retry_after = parse_retry_after(headers.get("retry-after"))
        return CallFailure(f"HTTP {status} from model {model}: {detail}", retryable=True, retry_after=retry_after)
    failure = CallFailure(f"HTTP {status} from model {model}: {detail}", retryable=False)
    failure.auth = status in (401, 403)
    return failure


def error_body(raw: bytes) -> Any:
    """The ``error`` object of an OpenAI-style error answer (or the whole JSON, or the text)."""
    import orjson

    try:
        data = orjson.loads(raw)
    except ValueError:
        return raw[:500].decode("utf-8", "replace")
    if isinstance(data, dict) and isinstance(data.get("error"), dict):
        return data["error"]
    return data


def no_model_error(
    cfg: LLMConfig, models: Sequence[str], causes: Mapping[str, str], node_id: str | None = None
) -> LLMUnavailable:
    """The error that stops a run when every model of its chain answered HTTP 404: the server's own model
    list (``GET {base_url}/models``) tells a missing model (it lists others) from a wrong path (it
    404s too: no OpenAI-compatible API there), so the message names the option to fix; ``node_id``: the
    request that found out."""
    import urllib.error

    base = scrub_text(cfg.base_url or "")
    tried = ", ".join(models)
    try:
        names = list_models(cfg)
    except urllib.error.HTTPError as exc:
        if exc.code == 404:
            return LLMUnavailable(
                f"no OpenAI-compatible API at --base-url {base}: both /chat/completions and /models answer HTTP "
                "404. Check --base-url (it usually ends in /v1, e.g. http://localhost:11434/v1)",
                node_id=node_id,
            )
        names = None
        why = f"HTTP {exc.code}"
    except (OSError, ValueError, AttributeError, KeyError, TypeError) as exc:
        names = None
        why = sanitize_for_log(str(exc) or type(exc).__name__, [cfg.api_key or ""], limit=160)
    if names is None:
        cause = causes.get(models[0], "HTTP 404") if models else "HTTP 404"
        return LLMUnavailable(
            f"the LLM server at {base} has no model {tried} ({cause}) and did not list its models ({why}); "
            "check --model and --base-url",
            node_id=node_id,
        )
    if any(m in names for m in models):  # listed, yet not served: the chat path is not where it should be
        return LLMUnavailable(
            f"the LLM server at {base} lists {tried} but answers HTTP 404 for /chat/completions; check --base-url",
            node_id=node_id,
        )
    more = f" and {len(names) - SHOWN} more" if len(names) > SHOWN else ""
    offers = f"it offers: {', '.join(names[:SHOWN])}{more}" if names else "it lists no models"
    return LLMUnavailable(f"the LLM server at {base} has no model {tried} ({offers}); check --model", node_id=node_id)
