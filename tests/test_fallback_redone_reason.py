"""Files redone because nodes of theirs had fallen back to extractive on an earlier night say so, in ``plan``
and in the run's warnings, like an upgrade's reasons: not "changed" with no reason."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner, Result

from batchsum.cli import main
from tests.conftest import SAMPLE_CORPUS
from tests.fakeserver import FakeLLMServer

DAYS = ("2026-10-01.md", "2026-10-02.md", "2026-10-03.md")


def _invoke(command: str, corpus: Path, out: Path, server: FakeLLMServer, *args: str) -> Result:
    return CliRunner().invoke(
        main,
        [command, str(corpus), "--out", str(out), "--no-index", "--no-digests", "--base-url", server.base_url,
         "--model", "fake", "--json", *args],
    )  # fmt: skip


def test_files_redone_after_fallbacks_are_named(tmp_path: Path) -> None:
    corpus = tmp_path / "journal"
    corpus.mkdir()
    for name in DAYS:
        shutil.copy(SAMPLE_CORPUS / "journal" / name, corpus)
    out = tmp_path / "out"
    with FakeLLMServer().start() as server:
        server.configure(rules=[{"status": 500}])  # a bad night: every node falls back
        bad = _invoke("run", corpus, out, server, "--max-attempts", "1", "--rpm", "0", "--tpm", "0")
        assert bad.exit_code == 4, bad.output
        fell = json.loads(bad.stdout)["run"]["fallback_nodes"]
        assert fell > 0
        server.configure(rules=[])  # healthy again
        plan = json.loads(_invoke("plan", corpus, out, server).stdout)
        assert plan["changed"] and all("fallen back" in plan["reasons"][rel] for rel in plan["changed"]), plan
        notes = [n for n in plan["change_notes"] if "fallen back" in n]
        assert notes and f"{len(plan['changed'])} files" in notes[0] and f"{fell} nodes" in notes[0], notes
        res = _invoke("run", corpus, out, server, "--rpm", "0", "--tpm", "0")
        assert res.exit_code == 0, res.output
        warnings = json.loads(res.stdout)["warnings"]
        assert any("fallen back" in w and f"{fell} nodes" in w for w in warnings), warnings
