"""Reading and planning one file (`prepare_file`), as a run and `batchsum plan` do."""

from __future__ import annotations

import json
import os
from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main
from batchsum.config import LLMConfig, RunConfig
from batchsum.engine.prepare import prepare_file
from batchsum.tokens import get_tokenizer
from batchsum.walk import Problem, SourceRef
from tests.fakeserver import FakeLLMServer

MEETING = "".join(
    f"Ana: Item {i}: we decided to move the buoy calibration to week {i} after the storm report.\n"
    f"Ben: I'll send the revised schedule for site {i} by Friday, and check the sensor logs.\n"
    for i in range(400)
)

N_FILES = 8


def _corpus(root: Path, n: int) -> list[SourceRef]:
    root.mkdir()
    (root / "meeting.txt").write_text(MEETING)
    (root / "notes.md").write_text("# Notes\n\n" + "The harbour survey found three damaged moorings. " * 60)
    for i in range(n - 2):
        (root / f"day{i}.txt").write_text(f"Day {i}: walked to the lighthouse and counted {i} gulls on the pier.")
    return [SourceRef(p, p.name, root) for p in sorted(root.iterdir())]


def test_a_file_is_read_and_planned_unless_its_content_is_the_recorded_one(tmp_path: Path) -> None:
    refs = _corpus(tmp_path / "in", 3)
    refs.append(SourceRef(tmp_path / "in" / "gone.txt", "gone.txt", tmp_path / "in"))
    cfg = RunConfig(paths=[tmp_path / "in"], out=tmp_path / "out", llm=LLMConfig(base_url="http://127.0.0.1:9/v1"))
    tokenizer = get_tokenizer(cfg.encoding)
    by_name = {r.relpath: r for r in refs}
    meeting = prepare_file(by_name["meeting.txt"], cfg, tokenizer)
    assert not isinstance(meeting.doc, Problem) and meeting.plan is not None
    assert meeting.plan.doc is meeting.doc and meeting.doc.tokens > 3000 and len(meeting.plan.nodes) > 1
    gone = prepare_file(by_name["gone.txt"], cfg, tokenizer)
    assert isinstance(gone.doc, Problem) and gone.plan is None and "gone.txt" in gone.doc.path
    same = prepare_file(by_name["meeting.txt"], cfg, tokenizer, same_sha=meeting.doc.sha256)
    assert same.plan is None and not isinstance(same.doc, Problem) and same.doc.sha256 == meeting.doc.sha256


def test_touched_files_of_an_llm_run_are_read_compared_and_not_sent_again(tmp_path: Path) -> None:
    _corpus(tmp_path / "in", N_FILES)
    out = tmp_path / "out"
    args = ["run", str(tmp_path / "in"), "--out", str(out), "--no-index", "--json", "--rpm", "0", "--tpm", "0"]
    with FakeLLMServer().start() as server:
        server.configure(any_model=True)
        args += ["--base-url", server.base_url, "--model", "m", "--log-file", str(tmp_path / "run.log")]
        first = CliRunner().invoke(main, args)
        assert first.exit_code == 0, first.output
        data = json.loads(first.stdout)
        assert data["run"]["files_done"] == N_FILES and data["run"]["llm_calls"] == len(server.requests())
        assert data["run"]["llm_calls"] > 2
        finals = sorted(out.rglob("final.md"))
        assert len(finals) == N_FILES
        # Touched, not changed: read again, found identical, nothing sent.
        calls = len(server.requests())
        for p in (tmp_path / "in").iterdir():
            os.utime(p, ns=(p.stat().st_atime_ns, p.stat().st_mtime_ns + 10**9))
        again = CliRunner().invoke(main, args)
        assert again.exit_code == 0, again.output
        data = json.loads(again.stdout)
        assert data["run"]["files_unchanged"] == N_FILES and len(server.requests()) == calls


def test_plan_previews_an_agent_session_as_the_run_summarizes_it(tmp_path: Path) -> None:
    """`batchsum plan` plans the digested session (tool output reduced), like `batchsum run`."""
    from tests.test_compact_cli import _markdown_session

    corpus = tmp_path / "in"
    corpus.mkdir()
    (corpus / "session.md").write_text(_markdown_session())
    res = CliRunner().invoke(main, ["plan", str(corpus), "--out", str(tmp_path / "out"), "--json"])
    assert res.exit_code == 0, res.output
    preview = json.loads(res.stdout)
    run = CliRunner().invoke(
        main, ["run", str(corpus), "--out", str(tmp_path / "out"), "--no-index", "--no-metrics", "--json"]
    )
    assert run.exit_code == 0, run.output
    done = json.loads(run.stdout)
    assert preview["input_tokens"] == done["run"]["input_tokens"] < 1000
    assert preview["nodes"] == sum(f["nodes"] for f in done["files"])
