"""Kill -9 at several points of a real run against the loopback LLM server, then resume.

The property: no finished node is lost and no request that had finished is ever sent again
(the node store and the response cache, both written atomically the moment a node finishes).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from batchsum.backends.cache import cache_key
from batchsum.config import LLMConfig
from batchsum.tree import iter_tree, node_path
from tests.fakeserver import FakeLLMServer, LogEntry
from tests.test_incremental import journal_text

REPO = Path(__file__).resolve().parent.parent


def _cmd(corpus: Path, out: Path, base_url: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "batchsum",
        "run",
        str(corpus),
        "--out",
        str(out),
        "--base-url",
        base_url,
        "--model",
        "fake",
        "--concurrency",
        "2",
        "--rpm",
        "0",
        "--tpm",
        "0",
        "--no-index",
        "--no-metrics",
        "--no-facets",
        "-q",
        "--json",
    ]


def _wait_for(pred, limit: float = 60.0) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if pred():
            return True
        time.sleep(0.02)
    return False


def test_kill9_at_several_points_then_resume_repeats_nothing(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    (corpus / "journal").mkdir(parents=True)
    (corpus / "journal" / "long.md").write_text(journal_text(7, 120))
    for i in range(4):
        (corpus / f"note{i}.md").write_text(journal_text(20 + i, 6))
    out = tmp_path / "out"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    cache_root = out / ".batchsum" / "llm-cache"
    persisted: list[set[str]] = []  # response-cache keys on disk right after each kill
    kill_times: list[float] = []
    with FakeLLMServer(latency=0.3) as server:
        for target in (1, 4, 9):
            proc = subprocess.Popen(
                _cmd(corpus, out, server.base_url), env=env, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE
            )
            reached = _wait_for(lambda t=target, p=proc: server.request_count >= t or p.poll() is not None)
            assert reached
            assert proc.poll() is None, "run finished before it could be killed; make the corpus larger"
            kill_times.append(time.time())
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=30)
            persisted.append({p.stem for p in cache_root.glob("*/*.json")})
        final = subprocess.run(
            _cmd(corpus, out, server.base_url), env=env, cwd=REPO, capture_output=True, text=True, timeout=300
        )
        assert final.returncode == 0, final.stderr
        log = server.log
    summary = json.loads(final.stdout)
    assert summary["run"]["files_done"] + summary["run"]["files_unchanged"] == 5
    assert persisted[-1], "no response was persisted before the last kill; the kill points test nothing"
    # Every request whose answer its (later killed) run had persisted is never sent again. Persisted is
    # what the client wrote, not what the server sent: a reply still in a socket when the kill lands was
    # never received, and sending it again is right.
    temperature = LLMConfig().temperature

    def key(e: LogEntry) -> str:
        return cache_key(e.model, e.messages, {"max_tokens": e.max_tokens, "temperature": temperature})

    # The server log rebuilds the client's cache keys (else the check below could never fail).
    assert persisted[-1] <= {key(e) for e in log}
    for i, kill_at in enumerate(kill_times):
        later = {key(e) for e in log if e.arrival > kill_at}
        assert not persisted[i] & later, f"kill {i}: {len(persisted[i] & later)} finished request(s) sent again"
    # And overall, no prompt completed twice except ones cut off in flight by a kill.
    completed: dict[str, int] = {}
    for e in log:
        if e.status == 200:
            completed[e.prompt_sha256] = completed.get(e.prompt_sha256, 0) + 1
    repeats = sum(n - 1 for n in completed.values() if n > 1)
    assert repeats <= 2 * len(kill_times)  # at most the in-flight requests (concurrency 2) per kill
    # The tree is complete and every file in it parses.
    for rel in ["journal/long.md", *(f"note{i}.md" for i in range(4))]:
        assert node_path(out, rel, 3, None).exists()
    nodes = list(iter_tree(out))
    assert all(n.meta["backend"] == "llm" for n in nodes)
    assert sum(1 for n in nodes if n.meta["doc_id"] == "journal/long.md" and n.meta["level"] == 1) >= 5
