"""``run --facts`` runs one facts pass: the command had run the library's pass and then its own, sending
every unusable entry's requests twice and showing the second, empty pass. A real loopback server answers."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main
from tests.fakeserver import FakeLLMServer
from tests.test_facts import ENTRY_1


def test_run_facts_asks_each_entry_once(tmp_path: Path) -> None:
    src = tmp_path / "src" / "journal"
    src.mkdir(parents=True)
    (src / "life.md").write_text(ENTRY_1, encoding="utf-8")
    with FakeLLMServer().start() as server:  # prose for every request: no facts JSON, so the entry is asked again
        server.configure(any_model=True)
        res = CliRunner().invoke(main, ["run", str(tmp_path / "src"), "--out", str(tmp_path / "out"), "--no-index",
                                        "--no-digests", "--facts", "--base-url", server.base_url, "--model", "m",
                                        "--rpm", "0", "--tpm", "0", "--max-attempts", "1"])  # fmt: skip
        asked = [e for e in server.log if "The journal entry:" in e.prompt_text]
    assert len(asked) == 2, res.output  # the first answer and the one retry of its invalid JSON
    assert "1 new entries/turns" in res.output or "1 new entry" in res.output, res.output
