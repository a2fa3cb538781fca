"""The library runs the facts pass as ``run --facts`` does (``batchsum.run(..., facts=True)`` had accepted the
keyword and done nothing), and searches the facts as ``search --role memory`` does (``batchsum.search_facts``).
A real loopback server answers."""

from __future__ import annotations

from pathlib import Path

import batchsum
from batchsum.memory.files import iter_facts
from tests.fakeserver import FakeLLMServer
from tests.test_facts import ANA, ENTRY_1, ENTRY_2, PORTO, script


def test_run_with_facts_true_runs_the_facts_pass(tmp_path: Path) -> None:
    src = tmp_path / "src" / "journal"
    src.mkdir(parents=True)
    (src / "life.md").write_text("\n".join([ENTRY_1, ENTRY_2]), encoding="utf-8")
    out = tmp_path / "out"
    with FakeLLMServer().start() as server:
        script(server)
        server.configure(any_model=True)
        result = batchsum.run(
            tmp_path / "src", out=out, base_url=server.base_url, model="m", rpm=0, tpm=0, facts=True, digests=False
        )
    assert result.facts is not None and result.facts.units == 2
    assert result.exit_code == result.facts.exit_code == 0
    assert {PORTO, ANA} <= {f.text for f in iter_facts(out)}
    hits = batchsum.search_facts(out, "where does the user live", k=3)
    assert hits and hits[0].text == PORTO


def test_run_without_facts_leaves_none(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("A short note about the harbour and a lantern we bought on the quay.\n")
    result = batchsum.run(tmp_path / "a.md", out=tmp_path / "out", index=False)
    assert result.facts is None
