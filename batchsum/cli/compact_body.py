"""What ``batchsum compact`` does: compact one chat or agent session file (the options and help are
declared in :mod:`batchsum.cli.compact`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from batchsum.agent_transcript import read_transcript, render_transcript
from batchsum.cli._common import setup_logging
from batchsum.cli._schema_options import llm_config
from batchsum.compact import CompactConfig, compact
from batchsum.compact.record import SummaryRecord
from batchsum.errors import InputError


def compact_cmd(
    session: Path,
    context_window: int,
    preserve_recent: int,
    max_summary_tokens: int,
    history_path: Path | None,
    out_path: Path | None,
    as_json: bool,
    quiet: bool,
    **params: Any,
) -> None:
    """Compact SESSION and print (or write) the result."""
    setup_logging(quiet=quiet)
    transcript = read_transcript(session)
    history: list[SummaryRecord] | None = None
    if history_path is not None:
        history = _read_history(history_path)
    llm = llm_config(params)
    config = CompactConfig(
        preserve_recent=preserve_recent, max_summary_tokens=max_summary_tokens, redact_secrets=params.get("redact")
    )
    result = compact(
        transcript.messages,
        context_window=context_window,
        config=config,
        history=history,
        base_url=llm.base_url,
        model=llm.model,
        # OPENAI_API_KEY is often set for other tools: a key without a server asks for no LLM.
        api_key=llm.api_key if llm.base_url else None,
        timeout=llm.timeout,
        max_attempts=llm.max_attempts,
    )
    if as_json:
        text = json.dumps(result.to_dict(), ensure_ascii=False, indent=2) + "\n"
    else:
        text = render_transcript(
            result.messages, transcript.format, preamble=transcript.preamble, extra=transcript.extra
        )
    if out_path is not None:
        out_path.write_text(text, encoding="utf-8")
    else:
        click.echo(text, nl=False)
    if not quiet:
        verdict = "compacted" if result.compacted else "unchanged"
        click.echo(
            f"{session}: {verdict}, {result.tokens_before} -> {result.tokens_after} tokens ({result.mode}): "
            f"{result.reason}",
            err=True,
        )
        for note in result.notes:
            if not (result.llm_error and result.llm_error in note):  # said once, below
                click.echo(f"note: {note}", err=True)
    if result.llm_error:
        click.echo(f"warning: the LLM summary failed ({result.llm_error}); the rule-based summary was used", err=True)


def _read_history(path: Path) -> list[SummaryRecord]:
    """Summary records from a --json result (its ``record``) or a JSON list of records."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(str(path), "no such file") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(str(path), f"not a JSON file ({exc})") from None
    if isinstance(data, dict) and "record" in data:
        data = [data["record"]] if data["record"] else []
    if not isinstance(data, list):
        raise InputError(str(path), "expected a --json result or a list of summary records")
    try:
        return [SummaryRecord.from_dict(item) for item in data]
    except (KeyError, TypeError, ValueError) as exc:
        raise InputError(str(path), f"not a summary record ({exc})") from None
