"""A single-node file's final is kept in the node store like any node: a settings change that leaves its
key as it was (another bound between levels it is not near) reuses it instead of a paid request."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from batchsum.cli import main
from batchsum.config import STATE_DIR
from tests.fakeserver import FakeLLMServer

MEETING = """\
Alice: Good morning, let us start the planning meeting for the garden project.
Bob: Thanks. The budget for the new fence was approved yesterday by the board.
Alice: Great. We decided to use cedar wood for the fence instead of pine.
Bob: I will order the cedar planks from the supplier by Friday.
Carol: I can call the landscaper tomorrow to book a date for the work.
Alice: What about the irrigation system? Nobody has priced it yet.
Bob: That is still open. We need a quote before the next meeting.
"""


def _run(src: Path, out: Path, *args: str) -> dict[str, Any]:
    res = CliRunner().invoke(main, ["run", str(src), "--out", str(out), "--no-index", "--no-digests", "--json", *args])
    assert res.exit_code == 0, res.output
    data: dict[str, Any] = json.loads(res.stdout)
    return data


def test_a_word_cap_change_reuses_single_node_finals(tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    (src / "meeting.txt").write_text(MEETING * 3, encoding="utf-8")
    (src / "standup.txt").write_text(MEETING.replace("garden", "office") * 4, encoding="utf-8")
    with FakeLLMServer().start() as server:
        llm = ["--base-url", server.base_url, "--model", "m", "--rpm", "0", "--tpm", "0", "--no-facets", "--yes"]
        _run(src, out, *llm)
        assert server.request_count == 2
        assert not list(out.rglob("summaries/L1")), "each file is one node, its final"
        records = list((out / STATE_DIR / "nodes").rglob("*.json"))
        assert len(records) == 2, "one small record per single-node final"
        assert all(r.stat().st_size < 20_000 for r in records)
        server.configure(reset_log=True)
        for words in ("300", "500"):  # and back: the cap shapes HIERARCHICAL finals only
            data = _run(src, out, *llm, "--final-words", words)
            assert data["run"]["files_done"] == 0 and server.request_count == 0, f"--final-words {words}"
        # A level bound neither file is near: both planned again, their finals' keys as they were.
        data = _run(src, out, *llm, "--thresholds", "100,500,3000,20000")
        assert data["run"]["files_done"] == 2, "planned again: the settings changed"
        assert server.request_count == 0, "their finals came from the store"
