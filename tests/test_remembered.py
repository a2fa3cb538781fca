"""An output folder remembers how it was built: a re-run without options reuses its settings, a changed
option is reported with the files it redoes, and an LLM's spend on them needs --yes or --rebuild."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from batchsum.cli import main
from tests.conftest import SAMPLE_CORPUS
from tests.fakeserver import FakeLLMServer

JOURNAL = SAMPLE_CORPUS / "journal"


def _run(*args: str) -> tuple[int, dict[str, Any], str]:
    res = CliRunner().invoke(main, ["run", *args, "--no-index", "--json"])
    return res.exit_code, (json.loads(res.stdout) if res.stdout.strip() else {}), res.stderr


def _statuses(data: dict[str, Any]) -> set[str]:
    return {f["status"] for f in data["files"]}


def test_the_day_two_command_reuses_the_first_runs_settings(tmp_path: Path) -> None:
    out = tmp_path / "out"
    code, first, _ = _run(str(JOURNAL), "--out", str(out), "--type", "document", "--thresholds", "50,400,3000,15000")
    assert code == 0 and _statuses(first) == {"done"}
    code, again, err = _run(str(JOURNAL), "--out", str(out))
    assert code == 0
    assert _statuses(again) == {"unchanged"}, "nothing is redone"
    assert "settings changed" not in err
    saved = json.loads((out / ".batchsum" / "settings.json").read_text())["settings"]
    assert saved["content_type"] == "document" and saved["thresholds.none"] == 50


def test_a_changed_option_says_so_and_how_many_files_it_redoes(tmp_path: Path) -> None:
    out, log = tmp_path / "out", tmp_path / "run.log"
    _run(str(JOURNAL), "--out", str(out), "--type", "journal")
    code, data, err = _run(str(JOURNAL), "--out", str(out), "--type", "document", "--log-file", str(log))
    assert code == 0
    n = len(data["files"])
    assert any(f"(--type journal -> document): {n} of {n} files" in w for w in data["warnings"])
    res = CliRunner().invoke(main, ["run", str(JOURNAL), "--out", str(out), "--no-index", "--type", "journal"])
    assert "warning: settings changed since this folder was built (--type document -> journal)" in res.stderr
    assert any("--type journal -> document" in w for w in data["warnings"])
    text = log.read_text()
    assert "settings_changed" in text and "--type journal -> document" in text
    # The new settings are the folder's now: the next bare re-run keeps them.
    code, data, err = _run(str(JOURNAL), "--out", str(out))
    assert _statuses(data) == {"unchanged"} and "settings changed" not in err


def test_an_llm_run_refuses_to_spend_on_changed_settings_without_yes_or_rebuild(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with FakeLLMServer().start() as server:
        server.configure(any_model=True)
        llm = ["--base-url", server.base_url, "--model", "m", "--rpm", "0"]
        code, _, _ = _run(str(JOURNAL), "--out", str(out), "--type", "journal", *llm)
        assert code == 0
        calls = server.request_count
        # The day-two command: no --type, no --base-url, no --model: all remembered, nothing sent.
        code, data, _ = _run(str(JOURNAL), "--out", str(out), "--rpm", "0")
        assert code == 0 and _statuses(data) == {"unchanged"} and server.request_count == calls
        # A changed level bound with an LLM: refused before any request, with exit code 5.
        code, data, err = _run(str(JOURNAL), "--out", str(out), "--thresholds", "50,400,3000,15000", "--rpm", "0")
        assert code == 5, err
        assert "--yes" in err and "--rebuild" in err and "would be planned again" in err and "batchsum plan" in err
        assert data["exit_code"] == 5 and server.request_count == calls
        code, data, err = _run(
            str(JOURNAL), "--out", str(out), "--thresholds", "50,400,3000,15000", "--rpm", "0", "--yes"
        )
        assert code == 0 and "done" in _statuses(data) and server.request_count > calls
        # --rebuild: defaults for what is not given (type auto instead of the remembered journal).
        code, data, err = _run(str(JOURNAL), "--out", str(out), *llm, "--rebuild")
        assert code == 0 and any("--type journal -> auto" in w for w in data["warnings"])
        saved = json.loads((out / ".batchsum" / "settings.json").read_text())["settings"]
        assert saved["content_type"] == "auto" and saved["thresholds.none"] == 100
        assert "api_key" not in json.dumps(saved)


def _keys(out: Path) -> dict[str, str]:
    """Each summary node file's stored key, by its path under ``out``."""
    keys = {}
    for path in out.rglob("summaries/L*/*.md"):
        line = next(ln for ln in path.read_text(encoding="utf-8").splitlines() if ln.startswith("node_key:"))
        keys[str(path.relative_to(out))] = line.split(":", 1)[1].strip()
    return keys


def test_a_new_word_cap_redoes_the_hierarchical_finals_only(tmp_path: Path) -> None:
    """`--final-words` caps HIERARCHICAL finals: only they are summarized again. It had been part of the
    extractive summarizer's identity, in every node's key, so a new cap redid every node of every file."""
    out = tmp_path / "out"
    assert _run(str(SAMPLE_CORPUS), "--out", str(out))[0] == 0
    before = _keys(out)
    code, data, _ = _run(str(SAMPLE_CORPUS), "--out", str(out), "--final-words", "300")
    assert code == 0 and any("--final-words 500 -> 300" in w for w in data["warnings"]), data["warnings"]
    after = _keys(out)
    final = "logbook/harbor-logbook-2025-2026.md/summaries/L3/final.md"
    assert after[final] != before[final]
    assert {p: k for p, k in after.items() if p != final} == {p: k for p, k in before.items() if p != final}
    words = len((out / final).read_text(encoding="utf-8").split("---", 2)[2].split("<!--")[0].split())
    assert words <= 300


def test_a_new_word_cap_reaches_an_llms_hierarchical_final(tmp_path: Path, fake_llm: FakeLLMServer) -> None:
    """With an LLM the cap is in the final's target: another cap plans every file again (confirmed with
    --yes), the logbook's final gets a new key, and every other node comes from the node store. (Its
    request here is the same as before, the fake server's summaries being short, so the response cache
    answers it.)"""
    fake_llm.configure(any_model=True)
    llm = ["--base-url", fake_llm.base_url, "--model", "m", "--rpm", "0"]
    out = tmp_path / "out"
    assert _run(str(SAMPLE_CORPUS), "--out", str(out), *llm)[0] == 0
    before, calls = _keys(out), fake_llm.request_count
    code, _, err = _run(str(SAMPLE_CORPUS), "--out", str(out), "--final-words", "300", "--rpm", "0", "--yes")
    assert code == 0, err
    after = _keys(out)
    final = "logbook/harbor-logbook-2025-2026.md/summaries/L3/final.md"
    assert after[final] != before[final]
    assert {p: k for p, k in after.items() if p != final} == {p: k for p, k in before.items() if p != final}
    assert fake_llm.request_count - calls <= 1


def test_a_new_word_cap_costs_an_llm_folder_without_hierarchical_files_nothing(
    tmp_path: Path, fake_llm: FakeLLMServer
) -> None:
    """No file of the journal is HIERARCHICAL: another cap would send no request, so the run is not refused
    (exit 5 had asked to confirm spending on "8 of 8 files" while `plan` counted 0 requests)."""
    fake_llm.configure(any_model=True)
    llm = ["--base-url", fake_llm.base_url, "--model", "m", "--rpm", "0"]
    out = tmp_path / "out"
    assert _run(str(JOURNAL), "--out", str(out), *llm)[0] == 0
    calls = fake_llm.request_count
    code, data, err = _run(str(JOURNAL), "--out", str(out), "--final-words", "300", "--rpm", "0")
    assert code == 0, err
    assert any("--final-words 500 -> 300" in w and ": 0 of " in w for w in data["warnings"]), data["warnings"]
    assert fake_llm.request_count == calls


def test_the_digests_choice_and_budgets_are_remembered_and_an_llm_asks_before_redoing_them(tmp_path: Path) -> None:
    out = tmp_path / "out"
    # --no-digests stays the folder's choice on the day-two command; --digests turns them back on.
    code, _, _ = _run(str(JOURNAL), "--out", str(out), "--no-digests")
    assert code == 0 and not (out / "digests").exists()
    code, _, err = _run(str(JOURNAL), "--out", str(out))
    assert code == 0 and not (out / "digests").exists() and "settings changed" not in err
    code, _, _ = _run(str(JOURNAL), "--out", str(out), "--digests")
    assert code == 0 and list((out / "digests").rglob("*.md"))
    with FakeLLMServer().start() as server:
        server.configure(any_model=True)
        llm = ["--base-url", server.base_url, "--model", "m", "--rpm", "0"]
        llm_out = tmp_path / "llm"
        code, _, _ = _run(str(JOURNAL), "--out", str(llm_out), "--month-words", "200", *llm)
        assert code == 0
        calls = server.request_count
        # The month budget is remembered: a bare re-run redoes no digest.
        code, _, err = _run(str(JOURNAL), "--out", str(llm_out), "--rpm", "0")
        assert code == 0 and server.request_count == calls and "settings changed" not in err
        # Another budget would write every digest again through the LLM: refused before any request.
        code, _, err = _run(str(JOURNAL), "--out", str(llm_out), "--month-words", "400", "--rpm", "0")
        assert code == 5 and "digest written again" in err and server.request_count == calls
        code, data, err = _run(str(JOURNAL), "--out", str(llm_out), "--month-words", "400", "--rpm", "0", "--yes")
        assert code == 0 and server.request_count > calls
        # Confirmed, the warning says the digests too, as the refusal did.
        assert any(w.endswith("and every month, year and folder digest written again") for w in data["warnings"])
        # The year's digest at this budget is in the response cache: a change that costs no request is not refused.
        calls = server.request_count
        code, _, err = _run(str(JOURNAL), "--out", str(llm_out), "--year-words", "200", "--rpm", "0")
        assert code == 0 and server.request_count == calls, err
        # Turning digests off costs nothing: no confirmation asked.
        code, _data, err = _run(str(JOURNAL), "--out", str(llm_out), "--no-digests", "--rpm", "0")
        assert code == 0, err


def test_a_remembered_null_that_the_setting_cannot_hold_gives_way_to_the_default(tmp_path: Path) -> None:
    """An older batchsum let the library remember ``type=None``; every later run had crashed on it."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.md").write_text("Today I walked to the harbour and met Anna at the market about the boats.\n")
    out = tmp_path / "out"
    assert CliRunner().invoke(main, ["run", str(src), "--out", str(out), "--no-index"]).exit_code == 0
    path = out / ".batchsum" / "settings.json"
    data = json.loads(path.read_text())
    data["settings"]["content_type"] = None
    path.write_text(json.dumps(data))
    res = CliRunner().invoke(main, ["run", str(src), "--out", str(out), "--no-index"])
    assert res.exit_code == 0 and "1 unchanged" in res.output, res.output


def test_the_remembered_command_line_never_holds_the_api_key(tmp_path: Path) -> None:
    # The real command line (sys.argv) is what is remembered: run the CLI as a process, as a user does.
    out, key = tmp_path / "out", "sk-proj-AbCdEf1234567890AbCdEf1234567890xyz"
    with FakeLLMServer().start() as server:
        server.configure(any_model=True)
        for flag in (["--api-key", key], [f"--api-key={key}"]):
            args = [str(JOURNAL), "--out", str(out), "--base-url", server.base_url, "--model", "m", *flag]
            proc = subprocess.run(
                [sys.executable, "-m", "batchsum", "run", *args, "--rpm", "0", "--no-index", "-q", "--yes"],
                capture_output=True, text=True, timeout=300, check=False,
            )  # fmt: skip
            assert proc.returncode == 0, proc.stderr
            stored = (out / ".batchsum" / "settings.json").read_text()
            assert key not in stored and "--api-key" in stored


def test_a_changed_option_on_other_paths_says_none_of_them_was_in_the_folder(tmp_path: Path) -> None:
    """A folder built from one corpus, a run of another PATH with another option: none of its files was in the
    folder yet, which the warning says (it had read "0 of 0 files planned again")."""
    out, other = tmp_path / "out", tmp_path / "other"
    other.mkdir()
    (other / "2026-11-02.md").write_text((JOURNAL / "2026-10-01.md").read_text() + "\nThe fan arrived.\n")
    _run(str(JOURNAL), "--out", str(out), "--type", "journal")
    code, data, _ = _run(str(other), "--out", str(out), "--type", "document")
    assert code == 0
    assert any(
        w.endswith("(--type journal -> document): none of this run's files were in it yet") for w in data["warnings"]
    ), data["warnings"]
    assert not any("0 of 0" in w for w in data["warnings"])


def _digests(out: Path) -> dict[str, bytes]:
    pages = {str(p.relative_to(out)): p.read_bytes() for p in (out / "digests").rglob("*.md")}
    return {**pages, "state": (out / ".batchsum" / "digests.json").read_bytes()}


def test_another_backend_or_model_asks_before_writing_the_folders_digests_again_for_other_paths(
    tmp_path: Path,
) -> None:
    """A run of other PATHs into a folder with digests, under another backend or model, writes every digest
    the folder has again with the LLM (their files are not its own): refused before any request until --yes."""
    out, other, more = tmp_path / "out", tmp_path / "other", tmp_path / "more"
    for folder, day in ((other, "2026-11-02"), (more, "2026-12-05")):
        folder.mkdir()
        (folder / f"{day}.md").write_text((JOURNAL / "2026-10-01.md").read_text() + "\nThe fan arrived.\n")
    code, _, _ = _run(str(JOURNAL), "--out", str(out))
    assert code == 0
    before = _digests(out)
    with FakeLLMServer().start() as server:
        server.configure(any_model=True)
        llm = ["--base-url", server.base_url, "--model", "m", "--rpm", "0"]
        code, data, err = _run(str(other), "--out", str(out), *llm)
        assert code == 5 and data["exit_code"] == 5, err
        assert "2 digests it holds would be written again (month:2026-10, year:2026)" in err and "--yes" in err
        assert server.request_count == 0 and _digests(out) == before
        code, data, err = _run(str(other), "--out", str(out), *llm, "--yes")
        assert code == 0 and server.request_count > 0, err
        # Confirmed, the warning names the digests the refusal named (it had counted the files only).
        said = "; 2 digests it holds written again (month:2026-10, year:2026)"
        assert any(w.endswith(said) for w in data["warnings"]), data["warnings"]
        assert _digests(out)["digests/2026/2026-10.md"] != before["digests/2026/2026-10.md"]
        # Another model: the same question for the digests the first one wrote.
        calls, made = server.request_count, _digests(out)
        code, _, err = _run(str(more), "--out", str(out), "--model", "m2", "--rpm", "0")
        assert code == 5 and "digests it holds would be written again" in err and "month:2026-11" in err, err
        assert server.request_count == calls and _digests(out) == made
        code, _, err = _run(str(more), "--out", str(out), "--model", "m2", "--rpm", "0", "--yes")
        assert code == 0 and server.request_count > calls, err
