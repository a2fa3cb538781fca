"""What the LLM is sent of a transcript: its turns as the extractive summarizer reads them, without the
transcript's markup (``{disfmarker}``, ``{vocalsound}``), by ``run`` and by ``facts`` alike."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from batchsum.backends.llm_requests import as_sent
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


def _sent_for(tmp_path: Path, server: FakeLLMServer, name: str, text: str, kind: str) -> list[str]:
    """The prompts ``run`` sends for one file of ``text`` read as ``kind``."""
    src = tmp_path / "src"
    src.mkdir()
    (src / name).write_text(text, encoding="utf-8")
    argv = ["run", str(src), "--out", str(tmp_path / "out"), "--type", kind, "--no-index", "--no-digests",
            "--base-url", server.base_url, "--model", "fake", "--rpm", "0", "--tpm", "0"]  # fmt: skip
    res = CliRunner().invoke(main, argv)
    assert res.exit_code == 0, res.output
    return _sent(server)


SPEECH = [
    "Alice: set x[0] to 5 and read the [design doc](https://ex.com/d) first .",
    "Bob: the the budget is (approx) 5k , see [JIRA-12] . [laughter]",
    "Carol: I mean , it 's in `a [b] c` and `x x` .",
    "Dan: um {disfmarker}",
    "Erin:",
    "Frank: we 'll ship the remote on Friday .",
]


def test_a_speakers_own_brackets_and_code_reach_the_model(tmp_path: Path, fake_llm: FakeLLMServer) -> None:
    sent = _sent_for(tmp_path, fake_llm, "chat.txt", "\n".join(SPEECH * 2) + "\n", "conversation")
    prompts = [p for p in sent if "ship the remote" in p]
    assert prompts, sent
    for prompt in prompts:
        for kept in ("x[0]", "design doc", "(approx)", "[JIRA-12]", "`a [b] c`", "`x x`"):
            assert kept in prompt, (kept, prompt)
        assert "[laughter]" not in prompt and "the the" not in prompt and not MARKER.search(prompt)


def test_a_turn_with_nothing_said_is_not_sent_as_a_name(tmp_path: Path, fake_llm: FakeLLMServer) -> None:
    sent = _sent_for(tmp_path, fake_llm, "chat.txt", "\n".join(SPEECH * 2) + "\n", "conversation")
    prompts = [p for p in sent if "ship the remote" in p]
    assert prompts, sent
    for prompt in prompts:
        lines = prompt.split("\n")
        assert not any(line.strip() in ("Dan", "Dan:", "Erin", "Erin:") for line in lines), prompt
        assert not re.search(r"\b(?:Dan|Erin)\b", prompt), prompt


CODE = ["```python", "row = ' , '.join(cols)", 'print ( "don \'t" )', "```", "", "    indented = f( a , b )"]


def test_fenced_and_indented_code_is_sent_as_written() -> None:
    # Called directly: a run's readers leave code out of the text a model is sent (tried on .md and .txt
    # documents and a journal), so no request of a run holds any today; as_sent must not depend on that.
    text = "Setup notes , we 're nearly done .\n\n" + "\n".join(CODE) + "\n"
    for kind in ("document", "journal"):
        sent = as_sent(text, kind)
        assert "we're nearly done" in sent, sent  # prose outside the code is still cleaned
        for line in CODE:
            assert line in sent.split("\n"), (line, sent)
