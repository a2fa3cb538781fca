"""Settings that shape the summaries without being part of every file's text (the prompts' content,
facets on or off) redo the files they shape when they change, and only then."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from batchsum.backends.prompts import DEFAULTS_DIR
from batchsum.cli import main
from batchsum.tree import read_node
from tests.fakeserver import FakeLLMServer

MEETING = """\
Alice: Good morning, let us start the planning meeting for the garden project.
Bob: Thanks. The budget for the new fence was approved yesterday by the board.
Alice: Great. We decided to use cedar wood for the fence instead of pine.
Bob: I will order the cedar planks from the supplier by Friday.
Carol: I can call the landscaper tomorrow to book a date for the work.
Alice: What about the irrigation system? Nobody has priced it yet.
Bob: That is still open. We need a quote before the next meeting.
Carol: I will ask two companies for quotes next week.
Alice: Good. Let us meet again on Monday to review the quotes and the schedule.
"""


def _corpus(root: Path) -> Path:
    root.mkdir()
    (root / "meeting.txt").write_text(MEETING, encoding="utf-8")
    days = [f"On day {i} I walked to the harbour, counted {i} boats and wrote letter {i} home." for i in range(200)]
    (root / "long.md").write_text(" ".join(days) + "\n", encoding="utf-8")  # several chunks: stored nodes
    (root / "note.md").write_text("A short note about the cedar fence and the supplier.\n" * 3, encoding="utf-8")
    return root


def _run(src: Path, out: Path, *args: str) -> dict[str, Any]:
    res = CliRunner().invoke(
        main,
        [
            "run",
            str(src),
            "--out",
            str(out),
            "--no-index",
            "--no-digests",
            "--json",
            "--chunk-size",
            "200",
            "--chunk-overlap",
            "20",
            *args,
        ],
    )
    assert res.exit_code == 0, res.output
    data: dict[str, Any] = json.loads(res.stdout)
    return data


def test_an_edited_prompt_file_summarizes_every_file_again_with_it(tmp_path: Path) -> None:
    src, out, prompts = _corpus(tmp_path / "src"), tmp_path / "out", tmp_path / "prompts"
    prompts.mkdir()
    shutil.copy(DEFAULTS_DIR / "system.txt", prompts / "system.txt")
    with FakeLLMServer().start() as server:
        llm = ["--base-url", server.base_url, "--model", "m", "--rpm", "0", "--tpm", "0"]
        assert _run(src, out, *llm)["run"]["files_done"] == 3
        server.configure(reset_log=True)
        # An unedited copy of batchsum's own prompt is batchsum's prompt: nothing is redone.
        assert _run(src, out, *llm, "--prompts", str(prompts))["run"]["files_done"] == 0
        assert server.request_count == 0
        (prompts / "system.txt").write_text("EDITED-SYSTEM: summarize faithfully.\n", encoding="utf-8")
        data = _run(src, out, *llm, "--prompts", str(prompts), "--yes")
        assert data["run"]["files_done"] == 3
        sent = server.requests()
        assert sent and all("EDITED-SYSTEM" in e.messages[0]["content"] for e in sent)
        # The long file's stored chunk summaries were made with the old prompt: made again, not restored.
        assert len(sent) > 3
        server.configure(reset_log=True)
        assert _run(src, out, *llm, "--prompts", str(prompts))["run"]["files_done"] == 0
        assert server.request_count == 0


def _facets(out: Path) -> tuple[str | None, str]:
    meta, text = read_node(out / "meeting.txt" / "summaries" / "L3" / "final.md")
    return meta.get("facets_source"), text


def test_turning_facets_off_and_on_again_redoes_the_finals_facets(tmp_path: Path) -> None:
    src, out, fresh = _corpus(tmp_path / "src"), tmp_path / "out", tmp_path / "fresh"
    _run(src, fresh)
    expected = _facets(fresh)
    assert expected[0] == "extracted" and "Facets (extracted)" in expected[1]
    _run(src, out)
    data = _run(src, out, "--no-facets")
    assert {f["relpath"] for f in data["files"] if f["status"] == "done"} == {"meeting.txt", "long.md", "note.md"}
    source, text = _facets(out)
    assert source is None and "Facets" not in text
    _run(src, out, "--facets")
    assert _facets(out) == expected
    _run(src, out, "--no-facets")
    _run(src, out, "--rebuild")  # the default (facets unset) again, as a fresh run writes them
    assert _facets(out) == expected
