"""A text whose lines are caption cues ("[Music]", "(laughs)", "[MUSIC PLAYING]", "(upbeat music)") is a
transcript (Whisper's .txt, a segment a line): typed a conversation, so its cues are cleaned out of the final
instead of standing in it as a document's sentences."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main
from batchsum.tree import node_path, read_node

CUES = ("[MUSIC PLAYING]", "(laughs)", "[Music]", "(upbeat music)")
SAID = [
    "Welcome back to Harbor Talk, the show about people who work on the water.",
    "I'm Maya, and my guest today studies how tides move sediment.",
    "Thanks for having me, Maya.",
    "We put nine sensors across the harbor mouth.",
    "Two storms a year move more sediment than all the ordinary tides combined.",
    "That's all for this week.",
]


def _final(tmp_path: Path, text: str) -> tuple[dict, str]:
    corpus, out = tmp_path / "c", tmp_path / "o"
    corpus.mkdir()
    (corpus / "ep12-whisper.txt").write_text(text, encoding="utf-8")
    r = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--no-index"])
    assert r.exit_code == 0, r.output
    meta, body = read_node(node_path(out, "ep12-whisper.txt", 3, None))
    return meta, body.split("<!--")[0].split("## Facets")[0]


def test_a_text_of_caption_cue_lines_is_a_transcript_without_its_cues(tmp_path: Path) -> None:
    lines = [x for pair in zip(CUES, SAID, strict=False) for x in pair] + SAID[len(CUES) :]
    meta, body = _final(tmp_path, "\n".join(lines) + "\n")
    assert meta["content_type"] == "conversation" and meta["content_type_reason"].startswith("caption cues")
    assert not any(cue.lower() in body.lower() for cue in CUES), body
    assert "Thanks for having me" in body


def test_one_aside_in_parentheses_leaves_a_document_one(tmp_path: Path) -> None:
    meta, _ = _final(tmp_path, "\n".join([*SAID[:3], "(laughs)", *SAID[3:]]) + "\n")
    assert meta["content_type"] == "document"
