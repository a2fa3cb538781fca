"""What the LLM is sent of a transcript: its turns as the extractive summarizer reads them, without the
transcript's markup (``{disfmarker}``, ``{vocalsound}``), by ``run`` and by ``facts`` alike."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main
from tests.fakeserver import FakeLLMServer

MARKER = re.compile(r"\{[a-z]+\}")
TURNS = [
    "Project Manager: So , hello everyone . {vocalsound} We 're here for the kick-off of a {disfmarker} "
    "f for the new remote control project um {vocalsound} .",
    "Marketing: {vocalsound}",
    "Industrial Designer: I think the the casing should be made of rubber {disfmarker} of soft rubber .",
    "Project Manager: Okay , Anna will send the budget figures to everyone by Friday . {vocalsound}",
    "User Interface: The buttons should glow in the dark {gap} so people find them at night .",
]


def _meeting(tmp_path: Path) -> Path:
    src = tmp_path / "meetings"
    src.mkdir()
    (src / "kickoff.txt").write_text("\n".join(TURNS * 3) + "\n", encoding="utf-8")
    return src


def _sent(server: FakeLLMServer) -> list[str]:
    return [e.prompt_text for e in server.log]


def test_run_sends_no_transcript_markup(tmp_path: Path, fake_llm: FakeLLMServer) -> None:
    src = _meeting(tmp_path)
    argv = ["run", str(src), "--out", str(tmp_path / "out"), "--type", "conversation", "--no-index",
            "--base-url", fake_llm.base_url, "--model", "fake", "--rpm", "0", "--tpm", "0"]  # fmt: skip
    res = CliRunner().invoke(main, argv)
    assert res.exit_code == 0, res.output
    chunks = [p for p in _sent(fake_llm) if "budget figures" in p]
    assert chunks, _sent(fake_llm)
    for prompt in chunks:
        assert not MARKER.search(prompt), prompt
        assert "the the" not in prompt and " ," not in prompt  # stutters and tokenizer spacing cleaned too
        assert "Industrial Designer: " in prompt  # the speakers' labels are kept


def test_facts_sends_no_transcript_markup(tmp_path: Path, fake_llm: FakeLLMServer) -> None:
    src = _meeting(tmp_path)
    argv = ["facts", str(src), "--out", str(tmp_path / "out"), "--type", "conversation",
            "--base-url", fake_llm.base_url, "--model", "fake", "--rpm", "0", "--max-attempts", "1"]  # fmt: skip
    res = CliRunner().invoke(main, argv)
    extractions = [p for p in _sent(fake_llm) if "conversation turns" in p]
    assert extractions, (res.output, _sent(fake_llm))
    assert not any(MARKER.search(p) for p in extractions), extractions
