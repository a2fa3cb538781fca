"""The models an OpenAI-compatible server offers (``GET {base_url}/models``), for a run given a
server but no ``--model``: the message that stops it names what the server has."""

from __future__ import annotations

import json
import logging

from batchsum.config import LLMConfig
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
