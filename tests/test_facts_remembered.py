"""``batchsum facts`` reads a folder as the runs that built its output did: options it leaves out take the
settings the output folder remembers (``--type``, ``--ignore``, the server...), so a file the folder ignores
never reaches the LLM and a folder remembered as journals is not split into conversations. A pipeline
file asking for facts with an offline backend says which of its lines drops the server."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner, Result

from batchsum.cli import main
from batchsum.memory.files import iter_facts
from tests.fakeserver import FakeLLMServer
from tests.test_facts import facts_cli, facts_json

MEETING = "Ana: I moved to Lisbon last month.\nBen: How is the new flat?\nAna: Small, but I love the light.\n" * 2
SECRET = "# 1825-12-06\n\nSecret llama plans. I told Lockhart about the hidden llama farm in Selkirk.\n"
LISBON = "The user moved to Lisbon."


def _notes(tmp_path: Path) -> Path:
    src = tmp_path / "notes"
    (src / "meetings").mkdir(parents=True)
    (src / "meetings" / "standup.txt").write_text(MEETING, encoding="utf-8")
    (src / "meetings" / "plans.tmp.md").write_text(SECRET, encoding="utf-8")
    return src


def _cli(*args: str | Path) -> Result:
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def _answer_everything(server: FakeLLMServer) -> None:
    server.configure(
        reset_log=True,
        rules=[
            {"match": "The journal entry:", "content": facts_json(LISBON)},
            {"match": "The conversation turns:", "content": facts_json(LISBON)},
        ],
    )


def test_facts_walks_with_the_folders_remembered_ignore_and_type(fake_llm: FakeLLMServer, tmp_path: Path) -> None:
    src, out = _notes(tmp_path), tmp_path / "out"
    ran = _cli("run", src, "--out", out, "--type", "journal", "--ignore", "*.tmp.md")
    assert ran.exit_code == 0, ran.output
    assert not (out / "meetings" / "plans.tmp.md").exists()

    _answer_everything(fake_llm)
    day_two = facts_cli(src, "--out", out, base_url=fake_llm.base_url)  # neither --type nor --ignore
    assert day_two.exit_code == 0, day_two.output
    prompts = [e.prompt_text for e in fake_llm.log]
    assert prompts
    assert not any("llama" in p for p in prompts), "an ignored file's text reached the LLM"
    assert day_two.output.startswith("1 files")
    # Read as the journal it was remembered as: one entry, facts in the folder's scope.
    assert any("The journal entry:" in p for p in prompts)
    assert not any("The conversation turns:" in p for p in prompts)
    assert {f.path.parent.parent.relative_to(out).as_posix() for f in iter_facts(out) if f.path} == {"meetings"}


def test_facts_options_given_still_win_over_the_remembered_ones(fake_llm: FakeLLMServer, tmp_path: Path) -> None:
    src, out = _notes(tmp_path), tmp_path / "out"
    assert _cli("run", src, "--out", out, "--type", "journal", "--ignore", "*.tmp.md").exit_code == 0

    _answer_everything(fake_llm)
    given = facts_cli(src, "--out", out, "--type", "conversation", "--ignore", "*.md", base_url=fake_llm.base_url)
    assert given.exit_code == 0, given.output
    prompts = [e.prompt_text for e in fake_llm.log]
    assert any("The conversation turns:" in p for p in prompts)
    assert not any("llama" in p for p in prompts)


def test_facts_uses_the_server_the_folder_was_summarized_with(fake_llm: FakeLLMServer, tmp_path: Path) -> None:
    src, out = _notes(tmp_path), tmp_path / "out"
    ran = _cli("run", src, "--out", out, "--ignore", "*.tmp.md", "--base-url", fake_llm.base_url, "--model", "fake",
               "--rpm", "0")  # fmt: skip
    assert ran.exit_code == 0, ran.output

    _answer_everything(fake_llm)
    day_two = _cli("facts", src, "--out", out, "--rpm", "0", "--max-attempts", "1")
    assert day_two.exit_code == 0, day_two.output
    assert fake_llm.request_count > 0
    assert {e.model for e in fake_llm.log} == {"fake"}
    assert not any("llama" in e.prompt_text for e in fake_llm.log)


def _pipeline(tmp_path: Path, src: Path, base_url: str) -> Path:
    path = tmp_path / "p.yaml"
    path.write_text(
        f"version: 1\ncorpora:\n  - {src}\noutput: {tmp_path / 'out'}\nfacts: true\n"
        f"backend:\n  kind: extractive\n  base_url: {base_url}\n  model: fake\n",
        encoding="utf-8",
    )
    return path


def test_pipeline_facts_with_an_extractive_backend_names_the_kind_line(fake_llm: FakeLLMServer, tmp_path: Path) -> None:
    src = _notes(tmp_path)
    pipeline = _pipeline(tmp_path, src, fake_llm.base_url)
    for command in ("run", "plan"):
        refused = _cli(command, "--pipeline", pipeline)
        assert refused.exit_code == 2, refused.output
        assert f"{pipeline}:7:" in refused.output and "extractive" in refused.output
        assert "give --base-url" not in refused.output  # the file gives it: that was not what was wrong
    assert fake_llm.request_count == 0 and not (tmp_path / "out").exists()
    # A server given on the command line overrides the file's backend: facts can be extracted then.
    assert _cli("plan", "--pipeline", pipeline, "--base-url", fake_llm.base_url).exit_code == 0
