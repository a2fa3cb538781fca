"""``batchsum plan`` announces the digests' requests and prompt tokens a run then really sends (counted
by a loopback server), with the run's own test of which digests are redone."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from click.testing import CliRunner

from batchsum.backends.budget import count_message_tokens
from batchsum.cli import main
from batchsum.tokens import get_tokenizer
from tests.test_digests import DAYS, entry

if TYPE_CHECKING:
    from tests.fakeserver import FakeLLMServer

TOK = get_tokenizer()


def _invoke(*args: str) -> dict[str, Any]:
    r = CliRunner().invoke(main, [*args, "--json"], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


def _journal(tmp_path: Path) -> Path:
    src = tmp_path / "journal"
    (src / "notes").mkdir(parents=True)
    for i, day in enumerate(DAYS):
        (src / f"{day}.md").write_text(entry(day, i), encoding="utf-8")
    # Dated by its front matter only: a month's entry whatever its name says.
    (src / "notes" / "harbour.md").write_text("---\ndate: 2025-12-10\n---\n" + entry("notes", 8), encoding="utf-8")
    (src / "notes" / "boats.md").write_text(entry("notes", 7).replace("I took", "We took"), encoding="utf-8")
    return src


def _check(plan: dict[str, Any], server: FakeLLMServer, before: int, made: list[str]) -> None:
    """The plan's requests are exactly the server's; its prompt tokens within the estimated part."""
    assert server.request_count - before == plan["llm_calls"]
    assert sorted(plan["periods"]["periods"]) == sorted(made)
    sent = sum(count_message_tokens(e.messages, TOK) for e in server.log[before:])
    assert abs(plan["prompt_tokens"] - sent) <= plan["prompt_tokens_estimated"] + 0.02 * sent, (plan, sent)


def _redone(log: Path) -> list[str]:
    events = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    return [p for e in events if e["event"] == "digests_updated" for p in e["redone"]]


def test_plan_counts_the_digest_requests_a_run_sends(tmp_path: Path, fake_llm: FakeLLMServer) -> None:
    src, out = _journal(tmp_path), tmp_path / "out"
    llm = ["--base-url", fake_llm.base_url, "--model", "fake", "--rpm", "0", "--tpm", "0"]
    n = 0

    def run(*extra: str) -> list[str]:
        nonlocal n
        n += 1
        log = tmp_path / f"log{n}.jsonl"
        args = ["run", str(src), "--out", str(out), "--no-index", "--no-metrics", "--no-cache", *llm]
        _invoke(*args, "--log-format", "json", "--log-file", str(log), *extra)
        return _redone(log)

    def plan(*extra: str) -> dict[str, Any]:
        return _invoke("plan", str(src), "--out", str(out), *llm, *extra)

    # Files first without digests: the plan reads their dates from their finals, as the run does (the
    # front-matter entry belongs to December, not to its folder). The folder remembers --no-digests: with
    # an LLM, turning them on is confirmed with --yes.
    run("--no-digests")
    first = plan("--digests")
    assert first["changed"] == first["new"] == [] and first["nodes"] == 0
    before = fake_llm.request_count
    made = run("--digests", "--yes")
    assert "month:2025-12" in made and "folder:notes" in made
    _check(first, fake_llm, before, made)
    # Exact but for the years' inputs: the months' digests this run writes, taken at their budgets.
    assert first["periods"]["llm_calls"] == 6 and 0 < first["prompt_tokens_estimated"] < first["prompt_tokens"] / 2

    # An append: the entry, its month and its year; the year's input is partly this run's month.
    with (src / "2025-12-24.md").open("a", encoding="utf-8") as fh:
        fh.write("Late in the evening a letter came from Ingrid about the new lighthouse keeper in Oslo.\n")
    again = plan()
    before = fake_llm.request_count
    made = run()
    assert made == ["month:2025-12", "year:2025"]
    _check(again, fake_llm, before, made)
    assert again["llm_calls"] == again["nodes"] + 2 and again["prompt_tokens_estimated"] > 0

    # New budgets redo every digest and no file (the loopback server's replies of a month can come out
    # the same under a new cap: the year budget changes too, so the years' requests change whatever).
    words = ("--month-words", "40", "--year-words", "100")
    budget = plan(*words)
    before = fake_llm.request_count
    made = run(*words, "--yes")  # every digest written again: confirmed, as a changed setting is
    assert len(made) == 6 and budget["nodes"] == 0
    _check(budget, fake_llm, before, made)

    # A deleted digest file is made again; an unchanged night plans and sends nothing.
    (out / "digests" / "2026.md").unlink()
    gone = plan(*words)
    before = fake_llm.request_count
    made = run(*words)
    assert made == ["year:2026"]
    _check(gone, fake_llm, before, made)
    quiet = plan(*words)
    assert quiet["llm_calls"] == 0 and quiet["periods"]["periods"] == []
