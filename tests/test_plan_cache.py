"""``batchsum plan`` counts a request the LLM response cache answers as free, as the run finds it there:
after a change that plans files (or digests) again while their prompts stay the same, the plan predicts
exactly the requests a loopback server then receives, none when the cache has them all, and every one
with ``--no-cache``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

from click.testing import CliRunner

from batchsum.cli import main
from batchsum.config import STATE_DIR
from tests.test_chunk_budget import prose, transcript
from tests.test_digests import DAYS, entry

if TYPE_CHECKING:
    from tests.fakeserver import FakeLLMServer


def _invoke(*args: str) -> dict[str, Any]:
    r = CliRunner().invoke(main, [*args, "--json"], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


def _forget_node_records(out: Path) -> None:
    """Remove the node store's records, as the cleanup of old records does."""
    shutil.rmtree(out / STATE_DIR / "nodes")


class _Night:
    """``plan`` and ``run`` over one corpus and output folder through the loopback server."""

    def __init__(self, src: Path, out: Path, server: FakeLLMServer) -> None:
        self.src, self.out, self.server = src, out, server
        self.llm = ["--base-url", server.base_url, "--model", "fake", "--rpm", "0", "--tpm", "0"]

    def plan(self, *extra: str) -> dict[str, Any]:
        return _invoke("plan", str(self.src), "--out", str(self.out), *self.llm, *extra)

    def run(self, *extra: str) -> int:
        """Runs; returns the requests the server received."""
        before = self.server.request_count
        _invoke("run", str(self.src), "--out", str(self.out), "--no-index", "--no-metrics", *self.llm, *extra)
        return self.server.request_count - before


def test_a_renamed_entry_and_a_moved_meeting_cost_no_request_when_the_cache_has_their_prompts(
    tmp_path: Path, fake_llm: FakeLLMServer
) -> None:
    src = tmp_path / "life"
    (src / "journal").mkdir(parents=True)
    (src / "meetings").mkdir()
    for i, day in enumerate(DAYS[:3]):
        (src / "journal" / f"{day}.md").write_text(entry(day, i), encoding="utf-8")  # one request each
    # A conversation's summary asks for facets JSON; tonight the model answers it with broken JSON, so the
    # run asks once more for plain text: two requests, both answers cached.
    (src / "meetings" / "standup.txt").write_text(transcript(1, 60), encoding="utf-8")
    (src / "notes.md").write_text(prose(3, 250), encoding="utf-8")  # chunks and a final: the node store
    night = _Night(src, tmp_path / "out", fake_llm)
    fake_llm.configure(malformed_json=True)
    first = night.plan("--no-digests")
    assert night.run("--no-digests") == first["llm_calls"] + 1  # the retry after the broken JSON: unforeseeable
    fake_llm.configure(malformed_json=False)

    # A rename and a folder move: both files are planned again, with the very prompts they had. Their
    # finals are in the node store too; its records are what the 30-day cleanup removes, the cache's
    # answers are what this test is about.
    _forget_node_records(night.out)
    (src / "journal" / "2025-11-17.md").rename(src / "journal" / "2025-11-17-harbour.md")
    (src / "work").mkdir()
    (src / "meetings").rename(src / "work" / "meetings")
    cached = night.plan()
    assert sorted(cached["new"]) == ["journal/2025-11-17-harbour.md", "work/meetings/standup.txt"]
    assert cached["llm_calls"] == 0 and cached["llm_cached"] == 3  # the entry's, the facets JSON and the retry
    # The cache is off: the run sends each file's first request (the JSON one is answered well now).
    uncached = night.plan("--no-cache")
    assert uncached["llm_calls"] == 2 and uncached["llm_cached"] == 0
    assert uncached["prompt_tokens"] > 0 and cached["prompt_tokens"] == 0
    assert night.run() == 0

    # Back where they were, without the cache (nor their node records): the plan's count is what the server receives.
    _forget_node_records(night.out)
    (src / "journal" / "2025-11-17-harbour.md").rename(src / "journal" / "2025-11-17.md")
    (src / "work" / "meetings").rename(src / "meetings")
    uncached = night.plan("--no-cache")
    assert uncached["llm_calls"] == 2
    assert night.run("--no-cache") == 2


def test_digests_whose_prompts_a_new_budget_leaves_alone_are_answered_by_the_cache(
    tmp_path: Path, fake_llm: FakeLLMServer
) -> None:
    src = tmp_path / "journal"
    src.mkdir()
    for i, day in enumerate(DAYS):  # three months of two short entries, two years
        (src / f"{day}.md").write_text(entry(day, i), encoding="utf-8")
    night = _Night(src, tmp_path / "out", fake_llm)
    first = night.plan()
    assert night.run() == first["llm_calls"] == len(DAYS) + 3 + 2

    # A rename inside its month: the entry is summarized again from the cache, and its month and year are
    # redone from the same text, which the node store holds (known only once the entry's final is known).
    (src / "2025-12-24.md").rename(src / "2025-12-24-evening.md")
    moved = night.plan()
    assert moved["periods"]["periods"] == ["month:2025-12", "year:2025"]
    # The entry's final is in the node store (a single-node final is stored like any node).
    assert moved["llm_calls"] == 0 and moved["llm_cached"] + moved["nodes_already_stored"] == 1
    assert night.run() == 0

    # A smaller month budget: every digest is redone, but a short month's output cap (and so its prompt)
    # stays the same: the months are answered by the cache, and the years, made from the same months with
    # their own budget, are in the node store.
    budget = night.plan("--month-words", "200")
    assert sorted(budget["periods"]["periods"]) == ["month:2025-11", "month:2025-12", "month:2026-01",
                                                     "year:2025", "year:2026"]  # fmt: skip
    assert budget["llm_calls"] == 0 and budget["llm_cached"] == 3
    assert night.run("--month-words", "200", "--yes") == 0


def test_a_reverted_edit_is_priced_with_the_previous_final_the_run_builds_on(
    tmp_path: Path, fake_llm: FakeLLMServer
) -> None:
    """A changed file's final is built on its previous one (the rolling chain): the plan looks that request
    up, not the one without it, whose answer the cache holds from the night the text was first seen."""
    src = tmp_path / "journal"
    src.mkdir()
    first = "".join(
        f"Day note {i}: we rowed out to buoy {i} at dawn and found its antenna bent by the gale; Jonas fixed it. "
        for i in range(25)
    )
    notes = src / "notes.md"
    night = _Night(src, tmp_path / "out", fake_llm)
    for text in (first, first + "\nEvening: the tide gauge at pier 4 drifted, so we logged the levels by hand.\n"):
        notes.write_text(text)
        night.run("--no-digests")
    notes.write_text(first)  # the edit undone: the text of night one, its final now built on night two's
    plan = night.plan("--no-digests")
    assert plan["levels"] == {"STANDARD": 1}
    sent = night.run("--no-digests")
    assert sent == plan["llm_calls"] == 1, plan
