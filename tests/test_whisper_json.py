"""Whisper's own ``.json`` (``text``, ``segments`` with ``start``/``end``/``text``, ``language``) is a transcript,
not a refused "JSON is not a conversation": its segments' text in order, and with WhisperX's ``speaker`` per
segment, a speaker's consecutive segments one turn."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main
from batchsum.tree import node_path, read_node

SEGMENTS = [
    ("SPEAKER_00", " Welcome back to Harbor Talk."),
    ("SPEAKER_00", " I am your host Maya."),
    ("SPEAKER_01", " Thanks Maya, glad to be here."),
    ("SPEAKER_01", " We recorded the album in a lighthouse."),
    ("SPEAKER_00", " How did the tides sound?"),
]


def _whisper(with_speakers: bool) -> str:
    segments = [
        {"id": i, "start": 2.0 * i, "end": 2.0 * i + 1.5, "text": text} | ({"speaker": who} if with_speakers else {})
        for i, (who, text) in enumerate(SEGMENTS)
    ]
    return json.dumps({"text": "".join(t for _, t in SEGMENTS), "segments": segments, "language": "en"})


def _final(tmp_path: Path, text: str) -> tuple[dict, str]:
    corpus, out = tmp_path / "c", tmp_path / "o"
    corpus.mkdir()
    (corpus / "ep12.json").write_text(text, encoding="utf-8")
    r = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--no-index"])
    assert r.exit_code == 0, r.output
    meta, body = read_node(node_path(out, "ep12.json", 3, None))
    return meta, body.split("<!--")[0].split("## Facets")[0]


def test_whisperx_json_is_turns_by_speaker(tmp_path: Path) -> None:
    meta, body = _final(tmp_path, _whisper(with_speakers=True))
    assert meta["content_type"] == "conversation"
    assert "participants" not in meta  # WhisperX's placeholders name no one; the turns keep them
    turns = [ln.split(":", 1)[0] for ln in body.splitlines() if ln.strip()]
    assert turns == ["SPEAKER_00", "SPEAKER_01", "SPEAKER_00"], body  # consecutive segments are one turn


def test_whisper_json_without_speakers_is_its_segments_in_order(tmp_path: Path) -> None:
    _, body = _final(tmp_path, _whisper(with_speakers=False))
    said = [" ".join(t.split()) for _, t in SEGMENTS]
    at = [body.find(s) for s in said]
    assert all(k >= 0 for k in at) and at == sorted(at), body
    assert "SPEAKER" not in body
