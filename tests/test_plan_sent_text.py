"""``batchsum plan`` sizes a transcript's requests by the text the run sends (its markup, fillers and
stutters cleaned away, ``backends.llm_requests.as_sent``), not by the raw file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from batchsum.backends.budget import count_message_tokens
from batchsum.cli import main
from batchsum.tokens import get_tokenizer
from tests.fakeserver import FakeLLMServer
from tests.test_llm_sent_text import TURNS

TOK = get_tokenizer()


def _invoke(*args: str) -> dict[str, Any]:
    r = CliRunner().invoke(main, [*args, "--json"])
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


def test_plan_counts_the_cleaned_transcript_a_run_sends(tmp_path: Path, fake_llm: FakeLLMServer) -> None:
    corpus = tmp_path / "meetings"
    corpus.mkdir()
    (corpus / "kickoff.txt").write_text("\n".join(TURNS * 4) + "\n", encoding="utf-8")  # one request
    (corpus / "review.txt").write_text("\n".join(TURNS * 90) + "\n", encoding="utf-8")  # chunks and a final
    out = tmp_path / "out"
    llm = ["--type", "conversation", "--base-url", fake_llm.base_url, "--model", "fake", "--rpm", "0", "--tpm", "0",
           "--no-digests"]  # fmt: skip
    plan = _invoke("plan", str(corpus), "--out", str(out), *llm)
    _invoke("run", str(corpus), "--out", str(out), "--no-index", "--no-metrics", "--no-cache", *llm)
    assert fake_llm.request_count == plan["llm_calls"] > 2
    sent = sum(count_message_tokens(e.messages, TOK) for e in fake_llm.log)
    # Only the finals' inputs (summaries this run writes) are estimated; the rest is counted as sent.
    assert abs(plan["prompt_tokens"] - sent) <= plan["prompt_tokens_estimated"] + 0.01 * sent
