"""A month digest that fails under ``--on-error abort`` still counts the requests the digest pass sent: the
server's request count equals the run's ``llm_calls``. Real HTTP to the loopback server, which fails every
digest request naming one marker (as in test_digest_failed_requests)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.test_digest_failed_requests import DIGEST, run_failing_february


def test_an_aborted_digest_pass_counts_the_requests_it_sent(tmp_path: Path) -> None:
    res, sent, failed, out = run_failing_february(tmp_path, "abort")
    data = json.loads(res.stdout)
    assert failed and all(DIGEST in e.prompt_text for e in failed), res.output
    assert data["run"]["llm_calls"] == sent, res.output
    assert not (out / "digests" / "2024" / "2024-02.md").exists()
