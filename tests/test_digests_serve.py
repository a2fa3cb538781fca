"""``batchsum serve`` injects a period's digest as what it is: the summary of a month (or year, or folder)
of files, with the whole period represented, not a path and the period's first days."""

from __future__ import annotations

from pathlib import Path

import openai
from click.testing import CliRunner

from batchsum.cli import main
from batchsum.navigation import period_context
from batchsum.tree import read_node
from tests.fakeserver import FakeLLMServer
from tests.test_digests import DAYS, entry
from tests.test_serve import KEY, chat_requests, serving


def test_period_context_names_the_period_and_keeps_every_paragraph() -> None:
    days = [f"_May_ {d}.--" + " ".join([f"word{d}"] * 60) + "." for d in (1, 14, 30)]
    body = "# May 1826\n\n" + "\n\n".join(days)
    meta = {"title": "May 1826", "period_kind": "month", "files": 27}
    text = period_context(meta, body, 600)
    assert text.startswith("May 1826 (digest of the month, from 27 files): _May_ 1.--word1")
    assert "_May_ 14.--" in text and "_May_ 30.--" in text and len(text) < 700
    one = period_context({"title": "notes", "period_kind": "folder", "files": 1}, "# notes\n\nShort.", 600)
    assert one == "notes (digest of the folder, from 1 file): Short."


def test_serve_injects_a_month_digest_as_the_summary_of_that_month(tmp_path: Path, upstream: FakeLLMServer) -> None:
    src = tmp_path / "journal"
    src.mkdir()
    for i, day in enumerate(DAYS):
        (src / f"{day}.md").write_text(entry(day, i), encoding="utf-8")
    out = tmp_path / "out"
    ran = CliRunner().invoke(main, ["run", str(src), "--out", str(out), "-q"])
    assert ran.exit_code == 0, ran.output
    _, body = read_node(out / "digests" / "2025" / "2025-12.md")
    last_day = body.strip().split("\n\n")[-1]  # the month's last paragraph: its last entry
    with serving(out, upstream.base_url, "--no-facts") as (url, _proc):
        client = openai.OpenAI(base_url=url, api_key=KEY, max_retries=0, timeout=60)
        client.chat.completions.create(
            model="fake", messages=[{"role": "user", "content": "What happened in December 2025?"}]
        )
    context = str(chat_requests(upstream)[-1][0]["content"])
    assert "[summary] December 2025 (digest of the month, from 2 files): " in context
    assert " ".join(last_day.replace("**", "").split()[:8]) in context  # the whole month, not only its first day
    assert "digests/" not in context and "# December 2025" not in context
