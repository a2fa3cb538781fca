"""The one-line-per-event log."""

from __future__ import annotations

import io
import json
import logging
import re
import threading
from pathlib import Path

import pytest

from batchsum.events import EventLog, scrub, scrub_argv

TS = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"


def test_json_lines_have_envelope_and_fields(tmp_path: Path) -> None:
    path = tmp_path / "logs" / "run.jsonl"
    with EventLog(path, "json") as log:
        log.event("run_start", files=3, out=Path("batchsum-out"))
        log.event("file_failed", level="WARNING", path="a b.md", reason="binary file\nskipped")
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 2
    first, second = (json.loads(line) for line in lines)
    assert list(first)[:3] == ["ts", "event", "level"]
    assert re.fullmatch(TS, first["ts"])
    assert first == {"ts": first["ts"], "event": "run_start", "level": "info", "files": 3, "out": "batchsum-out"}
    assert second["level"] == "warning" and second["reason"] == "binary file\nskipped"


def test_text_lines_quote_values_that_would_break_the_line(tmp_path: Path) -> None:
    path = tmp_path / "run.log"
    with EventLog(path) as log:
        log.event("file_done", path="journal/2026-10-01.md", tokens=412, ok=True, note=None)
        log.event("file_failed", level="error", path="my notes.md", reason='says "no"\nreally')
    first, second = path.read_text(encoding="utf-8").splitlines()
    assert re.fullmatch(TS + r" info file_done path=journal/2026-10-01\.md tokens=412 ok=true note=null", first)
    assert second.endswith('error file_failed path="my notes.md" reason="says \\"no\\"\\nreally"')


def test_secrets_never_reach_the_file(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    with EventLog(path, "json") as log:
        log.event(
            "llm_config",
            api_key="sk-abcdef1234567890",
            headers={"Authorization": "Bearer eyJhbGciOi.payload", "X-Api-Key": "k123"},
            token="t0ps3cret",
            input_tokens=1200,
            detail="retrying with key sk-proj-ZZZZZZZZZZZZ after 429",
            argv=["batchsum", "--api-key", "sk-live-1234567890"],
        )
    raw = path.read_text(encoding="utf-8")
    for secret in ("abcdef1234567890", "eyJhbGciOi", "k123", "t0ps3cret", "ZZZZZZZZZZZZ", "live-1234567890"):
        assert secret not in raw
    rec = json.loads(raw)
    assert rec["api_key"] == "***" and rec["token"] == "***" and rec["input_tokens"] == 1200
    assert rec["headers"] == {"Authorization": "***", "X-Api-Key": "***"}
    assert rec["detail"] == "retrying with key sk-*** after 429"


def test_scrub_helpers() -> None:
    assert scrub_argv(["run", "--api-key", "abc", "--api-key=def", "--model", "m"]) == [
        "run",
        "--api-key",
        "***",
        "--api-key=***",
        "--model",
        "m",
    ]
    assert scrub({"password": "", "nested": [{"secret": "s"}]}) == {"password": "", "nested": [{"secret": "***"}]}


def test_reserved_names_do_not_overwrite_the_envelope(tmp_path: Path) -> None:
    stream = io.StringIO()
    log = EventLog(None, "json", stream=stream)
    log.event("node_done", name="chunk_1", ts="bogus", event="bogus")
    rec = json.loads(stream.getvalue())
    assert rec["event"] == "node_done" and rec["name"] == "chunk_1"
    assert rec["field_ts"] == "bogus" and rec["field_event"] == "bogus" and rec["ts"] != "bogus"


def test_disabled_and_closed_logs_ignore_events(tmp_path: Path) -> None:
    EventLog(None).event("nothing")  # no destination: a no-op
    path = tmp_path / "run.log"
    log = EventLog(path)
    log.event("one")
    log.close()
    log.event("after_close")
    log.close()
    assert len(path.read_text().splitlines()) == 1
    with pytest.raises(ValueError, match="unknown log format"):
        EventLog(None, "xml")  # type: ignore[arg-type]


def test_appends_across_runs_and_threads(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    with EventLog(path, "json") as log:
        log.event("run_start")

    with EventLog(path, "json") as log:

        def work(worker: int) -> None:
            for i in range(200):
                log.event("node_done", worker=worker, i=i, text="x" * 300)

        threads = [threading.Thread(target=work, args=(w,)) for w in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 1 + 4 * 200
    records = [json.loads(line) for line in lines]  # every line is a whole record
    assert records[0]["event"] == "run_start"
    assert {(r["worker"], r["i"]) for r in records[1:]} == {(w, i) for w in range(4) for i in range(200)}


def test_logging_handler_forwards_library_warnings(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    logger = logging.getLogger("batchsum.test_events")
    with EventLog(path, "json") as log:
        handler = log.handler()
        logger.addHandler(handler)
        try:
            logger.warning("skipped %s: binary file", "img.png")
            logger.info("not forwarded below WARNING")
        finally:
            logger.removeHandler(handler)
    (rec,) = (json.loads(line) for line in path.read_text().splitlines())
    assert rec["event"] == "log" and rec["level"] == "warning"
    assert rec["logger"] == "batchsum.test_events" and rec["message"] == "skipped img.png: binary file"
