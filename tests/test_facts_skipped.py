"""``batchsum facts`` counts the files a run skips by design (a note template, a Logseq backup) as skipped with
the run's reason, not as failures: a nightly ``run --facts`` over a vault exits 0; a file that cannot be read
still fails."""

from __future__ import annotations

import json
from pathlib import Path

from tests.fakeserver import FakeLLMServer
from tests.test_facts import extraction_requests, facts_cli, facts_json

NOTE = "## 2024-03-05\nRepaired the shed roof with Marta; the felt should last ten years.\n"


def test_facts_skip_what_a_run_skips_by_design_and_fail_a_bad_file(tmp_path: Path, fake_llm: FakeLLMServer) -> None:
    src = tmp_path / "src"
    (src / "Templates").mkdir(parents=True)
    (src / "Templates" / "Daily.md").write_text("## {{date}}\n\n- [ ] \n", encoding="utf-8")
    backup = src / "logseq" / "bak" / "journals" / "2024_03_05"
    backup.mkdir(parents=True)
    (backup / "2024-03-05T10_00_00.000Z.Desktop.md").write_text(NOTE, encoding="utf-8")
    (src / "journal").mkdir()
    (src / "journal" / "2024-03-05.md").write_text(NOTE, encoding="utf-8")
    fake_llm.configure(rules=[{"match": "The journal entry:", "content": facts_json("The user repairs a shed.")}])

    result = facts_cli(src, "--out", tmp_path / "out", base_url=fake_llm.base_url)
    assert result.exit_code == 0, result.output
    assert "0 failed; 2 skipped" in result.output and "failed:" not in result.output
    assert len(extraction_requests(fake_llm)) == 1  # the note, not its template or backup

    (src / "journal" / "bad.md").write_bytes(b"\x00\x01\x02binary\xff\xfe" * 50)
    result = facts_cli(src, "--out", tmp_path / "out", "--json", base_url=fake_llm.base_url)
    assert result.exit_code == 1
    assert [Path(p["path"]).name for p in json.loads(result.output)["problems"]] == ["bad.md"]
