"""``batchsum plan`` announces the requests and prompt tokens a run then really sends (counted by a
loopback server), and their cost at a price."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from click.testing import CliRunner

from batchsum.backends.budget import count_message_tokens
from batchsum.cli import main
from batchsum.tokens import get_tokenizer
from tests.test_chunk_budget import prose, transcript

if TYPE_CHECKING:
    from tests.fakeserver import FakeLLMServer

TOK = get_tokenizer()


def _invoke(*args: str) -> dict[str, Any]:
    r = CliRunner().invoke(main, [*args, "--json"])
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


def _server_prompt_tokens(server: FakeLLMServer, since: int) -> int:
    """Prompt tokens of the requests the server logged after the first ``since``, in our tokenizer."""
    return sum(count_message_tokens(e.messages, TOK) for e in server.log[since:])


def test_plan_counts_the_requests_and_tokens_a_run_sends(tmp_path: Path, fake_llm: FakeLLMServer) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "standup.txt").write_text(transcript(1, 60), encoding="utf-8")  # one request
    (corpus / "review.txt").write_text(transcript(2, 400), encoding="utf-8")  # chunks + final
    (corpus / "notes.md").write_text(prose(3, 700), encoding="utf-8")  # chunks, groups, final
    out = tmp_path / "out"
    llm = ["--base-url", fake_llm.base_url, "--model", "fake", "--rpm", "0", "--tpm", "0", "--no-digests"]
    run = ["run", str(corpus), "--out", str(out), "--no-index", "--no-metrics", "--no-cache", *llm]

    plan = _invoke("plan", str(corpus), "--out", str(out), *llm, "--price", "2,8")
    assert plan["levels"] == {"STANDARD": 1, "DETAILED": 1, "HIERARCHICAL": 1}
    _invoke(*run)
    assert fake_llm.request_count == plan["llm_calls"] == plan["nodes"]
    sent = _server_prompt_tokens(fake_llm, 0)
    # Leaves are counted exactly; a group's or final's input is estimated from its children's targets.
    assert 0 < plan["prompt_tokens_estimated"] < 0.25 * plan["prompt_tokens"]
    assert abs(plan["prompt_tokens"] - sent) <= plan["prompt_tokens_estimated"] + 0.01 * sent
    assert plan["cost"] == round((plan["prompt_tokens"] * 2 + plan["est_output_tokens"] * 8) / 1e6, 6)

    # An append: the stored chunks, and the groups over them, cost nothing.
    with open(corpus / "notes.md", "a", encoding="utf-8") as fh:
        fh.write("\n" + prose(4, 10))
    again = _invoke("plan", str(corpus), "--out", str(out), *llm)
    assert again["changed"] == ["notes.md"] and again["nodes_already_stored"] > 0
    before = fake_llm.request_count
    _invoke(*run)
    assert fake_llm.request_count - before == again["llm_calls"] <= 5
    sent = _server_prompt_tokens(fake_llm, before)
    assert abs(again["prompt_tokens"] - sent) <= again["prompt_tokens_estimated"] + 0.01 * sent


def test_plan_refuses_a_malformed_price(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("hello there. " * 50, encoding="utf-8")
    r = CliRunner().invoke(main, ["plan", str(tmp_path), "--out", str(tmp_path / "out"), "--price", "cheap"])
    assert r.exit_code == 2 and "--price" in r.output


def test_plan_bounds_the_retries_a_model_with_invalid_facets_json_costs(
    tmp_path: Path, fake_llm: FakeLLMServer
) -> None:
    """A conversation's final asks for facets as JSON; invalid JSON gets one plain-text retry, so the run may
    send up to one request more per such final than plan counts, and plan says so."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for i in range(3):
        (corpus / f"call{i}.txt").write_text(transcript(10 + i, 60), encoding="utf-8")  # one request each
    out = tmp_path / "out"
    llm = ["--base-url", fake_llm.base_url, "--model", "fake", "--rpm", "0", "--tpm", "0", "--no-digests"]
    plan = _invoke("plan", str(corpus), "--out", str(out), *llm)
    assert plan["llm_calls"] == 3 and plan["llm_facet_requests"] == 3
    shown = CliRunner().invoke(main, ["plan", str(corpus), "--out", str(out), *llm]).output
    assert "LLM requests: 3 (up to 3 more if the model's facets JSON is invalid)" in shown
    fake_llm.configure(malformed_json=True)
    _invoke("run", str(corpus), "--out", str(out), "--no-index", "--no-metrics", "--no-cache", *llm)
    assert plan["llm_calls"] < fake_llm.request_count <= plan["llm_calls"] + plan["llm_facet_requests"]
