"""Speakers in brackets, as WhisperX diarizes ("[SPEAKER_00]: text") or an editor writes ("[Maya] text"), are
turns' labels: the file is no Markdown link definitions ("only markup", skipped) and its labels no sound cues
(cleaned away with the speakers). A link definition's target is one URL or path."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from batchsum.backends.noise import markdown_as_text
from batchsum.cli import main
from batchsum.index.passages import visible_markdown
from batchsum.tree import node_path, read_node

WHISPERX_SRT = (
    "1\n00:00:01,000 --> 00:00:04,000\n[SPEAKER_00]: Welcome back to Harbor Talk, I am your host Maya.\n\n"
    "2\n00:00:04,500 --> 00:00:08,000\n[SPEAKER_01]: Thanks Maya, glad to be here.\n"
)
NO_COLON_SRT = (
    "1\n00:00:01,000 --> 00:00:04,000\n[SPEAKER_00] Welcome back to Harbor Talk, I am your host Maya.\n\n"
    "2\n00:00:04,500 --> 00:00:08,000\n[SPEAKER_01] Thanks Maya, glad to be here.\n\n"
    "3\n00:00:08,500 --> 00:00:11,000\n[SPEAKER_00] Tell us about the lighthouse record.\n"
)
TURNS = [
    ("Maya", "Welcome back to Harbor Talk, I am your host."),
    ("Jonas", "Thanks, glad to be here and to talk about tides."),
    ("Maya", "Tell us about the new album you recorded."),
    ("Jonas", "We recorded it in a lighthouse on the coast."),
]


def _final(tmp_path: Path, name: str, text: str) -> tuple[dict, str]:
    corpus, out = tmp_path / "c", tmp_path / "o"
    corpus.mkdir(parents=True)
    (corpus / name).write_text(text, encoding="utf-8")
    r = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--json", "--no-index"])
    assert r.exit_code == 0, r.output
    assert not json.loads(r.stdout)["warnings"], r.stdout
    return read_node(node_path(out, name, 3, None))


def _turn_labels(body: str) -> list[str]:
    lines = [ln for ln in body.split("<!--")[0].split("## Facets")[0].splitlines() if ln.strip()]
    return [ln.split(":", 1)[0] for ln in lines]


def test_whisperx_srt_with_bracketed_speakers_is_a_conversation_of_them(tmp_path: Path) -> None:
    meta, body = _final(tmp_path, "wx.srt", WHISPERX_SRT)
    assert meta["content_type"] == "conversation" and "participants" not in meta  # placeholders name no one
    assert _turn_labels(body) == ["SPEAKER_00", "SPEAKER_01"] and "[" not in body.split("<!--")[0]


def test_bracketed_speakers_without_a_colon_stay_speakers(tmp_path: Path) -> None:
    meta, body = _final(tmp_path, "wx.srt", NO_COLON_SRT)
    assert meta["content_type"] == "conversation" and "participants" not in meta  # placeholders name no one
    assert _turn_labels(body)[:2] == ["SPEAKER_00", "SPEAKER_01"], body
    assert "Tell us about the lighthouse record" in body


def test_a_text_of_bracketed_turns_is_a_conversation(tmp_path: Path) -> None:
    for k, sep in enumerate((": ", " ")):
        text = "".join(f"[{who}]{sep}{said}\n" for who, said in TURNS)
        meta, body = _final(tmp_path / str(k), "ep.txt", text)
        assert meta["content_type"] == "conversation", meta
        assert _turn_labels(body) == [who for who, _ in TURNS], body


def test_a_link_definition_is_one_target_and_a_turn_is_no_definition() -> None:
    defs = '[1]: https://example.com/a\n[ch4]: ch04-02.html#refs "Chapter 4"\n[home]: <a b.html>\n'
    turn = "[Maya]: Welcome back, see example.com for the notes.\n[Jonas]: Yes.\n"
    assert not markdown_as_text(defs).strip() and not visible_markdown(defs).strip()
    assert markdown_as_text(turn) == turn and visible_markdown(turn) == turn
