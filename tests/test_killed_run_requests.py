"""A run killed while nodes wait for their next LLM request has paid for the requests already answered:
the next run records each of them once, in the killed run's ``interrupted`` row, never as its own cache
hits only (a BRIEF conversation's facets answer that was no JSON, its plain-text retry still to come)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main
from tests.fakeserver import FakeLLMServer

DIALOGUES = [
    "Ana: Shall we move the harbour survey to Friday?\nBen: Friday works, the boat is free then.\n"
    "Ana: Good, I will tell the crew and book the crane for the morning.\nBen: I will bring the sonar kit.\n"
    "Ana: The weather report says wind from the west after noon.\nBen: Then we start at seven and finish early.\n"
    "Ana: Who takes the samples to the lab afterwards?\nBen: Carla does, she has the cooler in her car.\n"
    "Ana: Perfect, I will send everyone the plan tonight with the tide table attached.",
    "Mia: The invoice from the printer is wrong again.\nTom: How much did they charge?\n"
    "Mia: Four hundred instead of three hundred.\nTom: I will call them tomorrow and ask for a credit note.\n"
    "Mia: Ask them to send the posters by Thursday as well.\nTom: Fine, and I will pay once the credit arrives.\n"
    "Mia: We should look for another printer before the spring catalogue.\nTom: I know two shops in town.\n"
    "Mia: Get quotes from both by the end of the month and we decide at the team meeting.",
    "Lee: Did the new tyres arrive for the van?\nKim: They came this morning, two are the wrong size.\n"
    "Lee: Send those back and ask for a refund.\nKim: Done, the courier collects them on Monday.\n"
    "Lee: Can the garage fit the two good ones this week?\nKim: Wednesday at ten, I booked it already.\n"
    "Lee: The van also needs its brakes checked before the long trip north.\nKim: I added that to the booking.\n"
    "Lee: Good, then we can load it on Thursday evening and leave early on Friday.",
]
JSON_ASK = '"key_points"'  # only a facets request asks for these keys
BOUND_S = 120.0  # how long the killed run may take to reach its retries (never an assertion on time)


def _killed_waiting_for_retries(corpus: Path, out: Path, server: FakeLLMServer) -> int:
    """Run in a subprocess until every node's plain-text retry reached the server (each first answer is
    then back at the client), SIGKILL it; returns how many requests the server had answered."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    cmd = [sys.executable, "-m", "batchsum", "run", str(corpus), "--out", str(out), "--base-url", server.base_url,
           "--model", "fake", "--concurrency", "3", "--no-index", "--no-digests", "-q"]  # fmt: skip
    proc = subprocess.Popen(cmd, env=env)
    try:
        deadline = time.monotonic() + BOUND_S
        while time.monotonic() < deadline and proc.poll() is None:
            if len([e for e in server.log if JSON_ASK not in e.prompt_text]) >= len(DIALOGUES):
                break
            time.sleep(0.05)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    assert proc.returncode == -signal.SIGKILL, "the run ended before it was killed"
    return len([e for e in server.log if e.finish is not None])


def test_requests_answered_before_a_kill_are_counted_once(tmp_path: Path) -> None:
    corpus, out = tmp_path / "corpus", tmp_path / "out"
    corpus.mkdir()
    for i, text in enumerate(DIALOGUES):
        (corpus / f"chat{i}.txt").write_text(text + "\n", encoding="utf-8")
    # Facets answers are no JSON, so each node asks again for plain text; that retry hangs until the kill.
    rules = [{"match": JSON_ASK, "malformed_json": True}, {"hang": 60.0}]
    with FakeLLMServer(rules=rules) as server:
        answered = _killed_waiting_for_retries(corpus, out, server)
        assert answered == len(DIALOGUES)  # the facets requests, answered; their retries still hanging
        resumed_and_counted(corpus, out, server, answered)


def resumed_and_counted(corpus: Path, out: Path, server: FakeLLMServer, answered: int) -> None:
    """A normal run after the killed one; then the report holds the killed run as interrupted with the
    ``answered`` requests, and every request the server saw, once over the two runs."""
    seen = server.request_count
    server.configure(rules=[{"match": JSON_ASK, "malformed_json": True}])
    res = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--base-url", server.base_url,
                                    "--model", "fake", "--no-index", "--no-digests", "-q"])  # fmt: skip
    assert res.exit_code == 0, res.output
    sent_after = server.request_count - seen
    report = json.loads(CliRunner().invoke(main, ["report", "--out", str(out), "--json", "--last", "5"]).stdout)
    runs = report["runs"]
    killed = [r for r in runs if r["status"] == "interrupted"]
    assert len(killed) == 1 and killed[0]["llm_calls"] == answered
    assert sum(r["llm_calls"] for r in runs) == answered + sent_after  # every request the server saw, once
