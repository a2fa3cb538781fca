"""A run that did not get what it paid for says so: fast stops, degraded status and exit code."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from batchsum.cli import main
from tests.conftest import SAMPLE_CORPUS
from tests.fakeserver import FakeLLMServer

JOURNAL = SAMPLE_CORPUS / "journal"


def _run(out: Path, *args: str) -> tuple[int, dict[str, Any], str]:
    res = CliRunner().invoke(
        main, ["run", str(JOURNAL), "--out", str(out), "--no-index", "--json", "--rpm", "0", "--tpm", "0", *args]
    )
    return res.exit_code, json.loads(res.stdout), res.stderr


def test_a_refused_connection_stops_the_run_before_any_work(tmp_path: Path) -> None:
    import socket

    with socket.socket() as s:  # a loopback port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    code, data, err = _run(tmp_path / "out", "--base-url", f"http://127.0.0.1:{port}/v1", "--model", "m")
    assert code == 1
    assert data["run"]["status"] == "aborted"
    assert data["run"]["files_total"] == 17 and data["run"]["files_skipped"] == 17
    assert data["run"]["llm_calls"] == 0
    assert "cannot connect to the LLM server" in data["stopped_by"]
    assert "run aborted: cannot connect" in err
    assert not list((tmp_path / "out").rglob("final.md")), "nothing was summarized"
    # The run's one line says so too: a nightly job that logs only it (or a library caller's summary_line())
    # had read "0 failed; 17 skipped".
    line = (
        CliRunner()
        .invoke(
            main,
            [
                "run",
                str(JOURNAL),
                "--out",
                str(tmp_path / "out"),
                "--no-index",
                "--base-url",
                f"http://127.0.0.1:{port}/v1",
                "--model",
                "m",
            ],
        )
        .stdout
    )
    assert "17 skipped" in line and "ABORTED: cannot connect to the LLM server" in line, line
    assert not (tmp_path / "out" / "index.md").exists(), "nor indexed"


def test_a_rejected_key_stops_the_run_instead_of_falling_back(tmp_path: Path) -> None:
    with FakeLLMServer().start() as server:
        server.configure(any_model=True, require_key="right-key")
        code, data, err = _run(
            tmp_path / "out", "--base-url", server.base_url, "--model", "m", "--api-key", "wrong-key"
        )
    assert code == 1 and data["run"]["status"] == "aborted"
    assert "rejected the credentials" in data["stopped_by"] and "wrong-key" not in err + data["stopped_by"]
    assert not any(f.get("fallback_nodes") for f in data["files"])


def test_fallbacks_make_a_degraded_run_with_its_own_exit_code(tmp_path: Path) -> None:
    with FakeLLMServer().start() as server:
        server.configure(any_model=True, rules=[{"status": 500}])
        code, data, _ = _run(tmp_path / "out", "--base-url", server.base_url, "--model", "m", "--max-attempts", "1")
    assert code == 4
    run = data["run"]
    assert run["status"] == "degraded" and run["fallback_nodes"] > 0
    # The files' fallbacks and the digests' (made by the fallback too: every request fails).
    assert run["fallback_nodes"] > sum(f["fallback_nodes"] for f in data["files"]) > 0
    # The closing line says it too.
    res = CliRunner().invoke(main, ["report", "--out", str(tmp_path / "out"), "--json"])
    assert res.exit_code == 0


def test_closing_line_names_the_fallbacks(tmp_path: Path) -> None:
    with FakeLLMServer().start() as server:
        server.configure(any_model=True, rules=[{"status": 500}])
        res = CliRunner().invoke(
            main,
            ["run", str(JOURNAL), "--out", str(tmp_path / "out"), "--no-index", "--base-url", server.base_url,
             "--model", "m", "--max-attempts", "1", "--rpm", "0", "--tpm", "0"],
        )  # fmt: skip
    assert res.exit_code == 4
    assert "DEGRADED:" in res.stdout and "fell back to extractive" in res.stdout


def test_fallback_nodes_are_provisional_and_redone_once_the_server_recovers(tmp_path: Path) -> None:
    from batchsum.tree import read_node

    out = tmp_path / "out"
    with FakeLLMServer().start() as server:
        server.configure(any_model=True, rules=[{"status": 500}])
        base = ["--base-url", server.base_url, "--model", "m", "--max-attempts", "1"]
        code, data, _ = _run(out, *base)
        assert code == 4
        fell_back = {f["relpath"] for f in data["files"] if f["fallback_nodes"]}
        assert fell_back
        server.configure(rules=[], reset_log=True)  # the server recovers
        code, data, _ = _run(out, *base)
        assert code == 0 and data["run"]["status"] == "ok"
        redone = {f["relpath"] for f in data["files"] if f["status"] == "done"}
        assert redone == fell_back  # only the provisional files, nothing else
        assert server.request_count > 0
        for rel in fell_back:
            meta, _ = read_node(out / rel / "summaries" / "L3" / "final.md")
            assert meta["backend"] == "llm", rel
        server.configure(reset_log=True)
        code, data, _ = _run(out, *base)
        assert code == 0 and data["run"]["files_done"] == 0  # converged: a quiet re-run again
        assert server.request_count == 0


def test_json_is_printed_on_errors_too(tmp_path: Path) -> None:
    """`--json` with a held lock (exit 3) or a usage error (exit 2) still prints one JSON object."""
    from batchsum.lock import RunLock

    out = tmp_path / "out"
    with RunLock(out):
        res = CliRunner().invoke(main, ["run", str(JOURNAL), "--out", str(out), "--json"])
    assert res.exit_code == 3
    err = json.loads(res.stdout)
    assert err["exit_code"] == 3 and err["kind"] == "LockedError" and str(out) in err["error"]
    res = CliRunner().invoke(main, ["run", str(JOURNAL), "--out", str(JOURNAL), "--json"])
    assert res.exit_code == 2 and json.loads(res.stdout)["exit_code"] == 2
    res = CliRunner().invoke(main, ["report", "--out", str(tmp_path / "nothing"), "--json"])
    assert res.exit_code == 2 and "error" in json.loads(res.stdout)
    for fmt in (["--format", "json"], ["--format=json"]):  # the same as --json
        res = CliRunner().invoke(main, ["report", "--out", str(tmp_path / "nothing"), *fmt])
        assert res.exit_code == 2 and "error" in json.loads(res.stdout)
    # click's own usage errors too: an option out of range.
    res = CliRunner().invoke(main, ["run", str(JOURNAL), "--out", str(out), "--json", "--chunk-size", "10"])
    err = json.loads(res.stdout)
    assert res.exit_code == 2 and err["exit_code"] == 2 and "--chunk-size" in err["error"]


def test_a_repaired_tree_is_the_tree_a_healthy_run_makes(tmp_path: Path) -> None:
    """One chunk of the logbook falls back; once the server recovers, that chunk is redone and so is every
    node above it (their recorded keys were made from the fallback's text): the tree is the one a
    healthy run makes, not a final still built on the fallback."""
    from batchsum.tree import read_node

    logbook = SAMPLE_CORPUS / "logbook"

    def run(out: Path, server: FakeLLMServer) -> int:
        args = ["run", str(logbook), "--out", str(out), "--no-index", "--no-digests", "--rpm", "0", "--tpm", "0"]
        args += ["--base-url", server.base_url, "--model", "m", "--max-attempts", "1"]
        return CliRunner().invoke(main, args).exit_code

    healed, clean = tmp_path / "healed", tmp_path / "clean"
    with FakeLLMServer().start() as server:
        server.configure(any_model=True, rules=[{"match": "Took the reference probe out to buoy 3", "status": 500}])
        assert run(healed, server) == 4  # chunk 0 fell back; the nodes above it were made from its text
        server.configure(rules=[])
        assert run(healed, server) == 0
        assert run(clean, server) == 0
    tree = healed / "harbor-logbook-2025-2026.md" / "summaries"
    for node in ("L1/chunk_0.md", "L2/group_0.md", "L3/final.md"):
        meta, body = read_node(tree / node)
        assert meta["backend"] == "llm", node
        assert body == read_node(clean / "harbor-logbook-2025-2026.md" / "summaries" / node)[1], node


def test_a_server_that_goes_away_mid_run_stops_the_run(tmp_path: Path) -> None:
    """A server gone after the run started: the first node that cannot reach it in all its attempts stops
    the run (finished work kept), instead of every remaining node spending its attempts and falling back."""
    import threading
    import time

    out = tmp_path / "out"
    server = FakeLLMServer().start()
    server.configure(any_model=True, rules=[{"latency": 0.2}])
    args = ["run", str(SAMPLE_CORPUS / "logbook"), "--out", str(out), "--no-index", "--no-digests", "--json"]
    args += ["--base-url", server.base_url, "--model", "m", "--max-attempts", "2", "--concurrency", "1"]
    args += ["--rpm", "0", "--tpm", "0"]
    result: dict[str, Any] = {}
    runner = threading.Thread(target=lambda: result.update(res=CliRunner().invoke(main, args)))
    runner.start()
    for _ in range(600):  # bounded: at most 60 s for the first request to arrive
        if server.request_count:
            break
        time.sleep(0.1)
    server.close()
    runner.join(120)
    res = result["res"]
    data = json.loads(res.stdout)
    assert res.exit_code == 1 and data["run"]["status"] == "aborted", res.output
    assert "stopped accepting connections" in data["stopped_by"]
    assert data["run"]["fallback_nodes"] <= 1


def test_an_aborted_run_names_its_node_once(tmp_path: Path) -> None:
    with FakeLLMServer().start() as server:
        server.configure(any_model=True, rules=[{"status": 500}])
        llm = ["--base-url", server.base_url, "--model", "m", "--max-attempts", "1", "--on-error", "abort"]
        code, data, _ = _run(tmp_path / "out", *llm)
    assert code == 1 and data["run"]["status"] == "aborted"
    node = data["stopped_by"].split(": ", 1)[0].removeprefix("node ")
    assert data["stopped_by"].count(node) == 1, data["stopped_by"]


def test_a_run_stopped_by_a_missing_model_names_the_file_not_a_node_id(tmp_path: Path) -> None:
    with FakeLLMServer(models=["other"]) as server:
        code, data, err = _run(tmp_path / "out", "--base-url", server.base_url, "--model", "m", "--max-attempts", "1")
    assert code == 1 and data["run"]["status"] == "aborted"
    stopped_by = data["stopped_by"]
    (failed,) = [f for f in data["files"] if f["status"] == "failed"]
    assert stopped_by.startswith(f"{failed['relpath']} (") and "has no model m (it offers: other)" in stopped_by
    for said in (err, stopped_by, *(f["error"] or "" for f in data["files"])):
        assert "node " not in said and ":summary:" not in said, said


@pytest.mark.parametrize("sigint", ["default", "ignored"])
def test_sigterm_stops_a_run_that_keeps_and_records_what_finished(tmp_path: Path, sigint: str) -> None:
    """A nightly job's timeout sends SIGTERM: the run stops as Ctrl-C stops it, its closing line says so,
    the run is recorded (it had ended at once with exit 143, no line and no run in the metrics), and the
    next run summarizes only the rest. Also for a job started in the background by a script (``&``), whose
    SIGINT is ignored."""
    import os
    import signal
    import subprocess
    import sys
    import time

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for i in range(6):
        turns = "\n".join(f"Ana: We counted boat {i}-{k} at the harbour and logged it." for k in range(40))
        (corpus / f"call{i}.txt").write_text(turns + "\n", encoding="utf-8")
    out = tmp_path / "out"
    with FakeLLMServer().start() as server:
        server.configure(any_model=True, latency=1.0)  # a file a second, one at a time
        args = ["run", str(corpus), "--out", str(out), "--no-index", "--base-url", server.base_url,
                "--model", "m", "--concurrency", "1", "--rpm", "0", "--no-digests"]  # fmt: skip
        ignore = (lambda: signal.signal(signal.SIGINT, signal.SIG_IGN)) if sigint == "ignored" else None
        proc = subprocess.Popen(
            [sys.executable, "-m", "batchsum", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}, preexec_fn=ignore,
        )  # fmt: skip
        try:
            deadline = time.monotonic() + 120
            while not list(out.glob("*/summaries/L3/final.md")) and time.monotonic() < deadline:
                time.sleep(0.1)  # until the first file is done; each of the rest waits a second for its answer
            proc.send_signal(signal.SIGTERM)
            stdout, stderr = proc.communicate(timeout=120)
        finally:
            if proc.poll() is None:
                proc.kill()
        assert proc.returncode == 1, stderr
        assert "ABORTED: interrupted by SIGTERM; finished work was kept" in stdout, stdout
        assert "Traceback" not in stderr and "never retrieved" not in stderr, stderr
        done = len(list(out.glob("*/summaries/L3/final.md")))
        assert 1 <= done < 6
        report = CliRunner().invoke(main, ["report", "--out", str(out), "--format", "json"])
        assert json.loads(report.stdout)["runs"][-1]["status"] == "aborted"
        server.configure(latency=0.0)
        again = CliRunner().invoke(main, [*args, "--json"])
    assert again.exit_code == 0, again.output
    run = json.loads(again.stdout)["run"]
    assert run["files_done"] == 6 - done and run["files_unchanged"] == done  # resumed, nothing redone


def test_ctrl_c_stops_a_library_run_after_recording_it_and_reaches_the_caller(tmp_path: Path) -> None:
    """A script summarizing several folders is stopped by Ctrl-C: the run in progress keeps and records
    what finished, then the script gets KeyboardInterrupt (carrying the run's result), so the next folder
    is never started (each Ctrl-C had only aborted the current run)."""
    import os
    import signal
    import subprocess
    import sys
    import time

    folders = []
    for name in ("a", "b"):
        folder = tmp_path / name
        folder.mkdir()
        for i in range(5):
            turns = "\n".join(f"Ana: We counted boat {name}{i}-{k} at the harbour and logged it." for k in range(40))
            (folder / f"call{i}.txt").write_text(turns + "\n", encoding="utf-8")
        folders.append(str(folder))
    out = tmp_path / "out"
    with FakeLLMServer().start() as server:
        server.configure(any_model=True, latency=1.0)
        script = (
            "import signal, sys, batchsum\n"
            "signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a terminal, whatever pytest's is\n"
            "try:\n"
            "    for folder in sys.argv[3:]:\n"
            "        batchsum.run(folder, out=sys.argv[1] + '-' + folder[-1], base_url=sys.argv[2], model='m',\n"
            "                     concurrency=1, rpm=0, no_index=True, digests=False)\n"
            "        print('finished', folder[-1], flush=True)\n"
            "except KeyboardInterrupt as stop:\n"
            "    print('stopped:', stop.result.run.status, stop.result.run.files_done, flush=True)\n"
        )
        proc = subprocess.Popen(
            [sys.executable, "-c", script, str(out), server.base_url, *folders],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)},
        )  # fmt: skip
        try:
            deadline = time.monotonic() + 120
            while not list(Path(f"{out}-a").glob("*/summaries/L3/final.md")) and time.monotonic() < deadline:
                time.sleep(0.1)
            proc.send_signal(signal.SIGINT)
            stdout, stderr = proc.communicate(timeout=120)
        finally:
            if proc.poll() is None:
                proc.kill()
    assert stdout.startswith("stopped: aborted "), (stdout, stderr)
    assert 1 <= int(stdout.split()[-1]) < 5 and "finished" not in stdout
    assert not Path(f"{out}-b").exists()
    assert "Traceback" not in stderr and "never retrieved" not in stderr, stderr
