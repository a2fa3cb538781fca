"""The models an OpenAI-compatible server offers (``GET {base_url}/models``), for a run given a
server but no ``--model``: the message that stops it names what the server has; and whether its
``--base-url`` can be asked at all (:func:`check_url`, before a run remembers it)."""

from __future__ import annotations

import json
import logging
from urllib.parse import urlsplit

from batchsum.config import LLMConfig
from batchsum.errors import ConfigError
from batchsum.secrets import scrub_text

log = logging.getLogger(__name__)

LIST_TIMEOUT_S = 5.0
SHOWN = 20  # a server with hundreds of models (a hosted API) gets the first ones and a count


def list_models(cfg: LLMConfig) -> list[str]:
    """The model ids ``cfg.base_url`` lists; OSError or ValueError when it cannot say."""
    import urllib.request

    url = (cfg.base_url or "").rstrip("/") + "/models"
    req = urllib.request.Request(url, headers={"Authorization": f"Bearer {cfg.api_key or 'not-needed'}"})
    with urllib.request.urlopen(req, timeout=min(cfg.timeout, LIST_TIMEOUT_S)) as resp:
        data = json.loads(resp.read())
    return sorted(str(m["id"]) for m in data.get("data", []) if isinstance(m, dict) and "id" in m)


def missing_model_message(cfg: LLMConfig) -> str:
    """Why a run with ``--base-url`` and no ``--model`` cannot start, with the server's models."""
    base = "--base-url needs --model (or BATCHSUM_MODEL)"
    try:
        names = list_models(cfg)
    except (OSError, ValueError, AttributeError) as exc:
        log.debug("listing models at %s: %s", cfg.base_url, exc)
        return f"{base}; the server at {cfg.base_url} did not list its models ({scrub_text(str(exc))})"
    if not names:
        return f"{base}; the server at {cfg.base_url} lists no models"
    more = f" and {len(names) - SHOWN} more" if len(names) > SHOWN else ""
    return f"{base}; the server at {cfg.base_url} offers: {', '.join(names[:SHOWN])}{more}"


def check_url(base_url: str) -> None:
    """ConfigError when ``base_url`` is no http:// or https:// URL with a host (``127.0.0.1:8080/v1`` reads
    as a path, and the request fails as if no server ran there), or carries a user name or password: the
    key travels as a Bearer token (``--api-key``), and an HTTP client cannot send both, so each request
    would fail the same way."""
    try:
        parts = urlsplit(base_url)
    except ValueError:
        return  # the first request reports it
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        shown = scrub_text(base_url)
        hint = f" (e.g. http://{shown})" if "://" not in base_url else ""
        raise ConfigError(f"--base-url {shown} needs http:// or https:// and a host{hint}")
    if parts.username is not None or parts.password is not None:
        raise ConfigError(
            f"--base-url {scrub_text(base_url)} carries a user name or password; batchsum authenticates with "
            "--api-key (or OPENAI_API_KEY), sent as a Bearer token: give the key that way and the URL without it"
        )
