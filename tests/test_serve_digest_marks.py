"""``serve`` injects a period's digest as it reads, as it does a file's summary: no bold marks around its day
labels ("**1 December.**" had gone in as such; docs/memory.md: "without ... bold and italic marks")."""

from __future__ import annotations

import re
from pathlib import Path

import openai
from click.testing import CliRunner

from batchsum.cli import main
from batchsum.index.snippets import emphasis_as_text
from batchsum.tree import read_node
from tests.fakeserver import FakeLLMServer
from tests.test_digests import DAYS, entry
from tests.test_serve import KEY, chat_requests, serving


def test_emphasis_as_text_keeps_paragraphs_and_stops_day_labels() -> None:
    text = "**12 March.** I ran to the *hardware* store.\n\n**1. Mai** Heute sind wir an den _Wannsee_ gefahren."
    plain = emphasis_as_text(text)
    assert "*" not in plain and "_" not in plain and plain.count("\n\n") == 1
    assert plain.startswith("12 March. I ran") and "1. Mai. Heute" in plain


def test_serve_injects_a_digest_without_bold_marks(tmp_path: Path, upstream: FakeLLMServer) -> None:
    src = tmp_path / "journal"
    src.mkdir()
    for i, day in enumerate(DAYS):
        (src / f"{day}.md").write_text(entry(day, i), encoding="utf-8")
    out = tmp_path / "out"
    ran = CliRunner().invoke(main, ["run", str(src), "--out", str(out), "-q"])
    assert ran.exit_code == 0, ran.output
    _, body = read_node(out / "digests" / "2025" / "2025-12.md")
    labels = re.findall(r"\*\*([^*\n]+)\*\*", body)
    assert labels  # the digest's days are labelled in bold on its page
    with serving(out, upstream.base_url, "--no-facts") as (url, _proc):
        client = openai.OpenAI(base_url=url, api_key=KEY, max_retries=0, timeout=60)
        client.chat.completions.create(
            model="fake", messages=[{"role": "user", "content": "What happened in December 2025?"}]
        )
    context = str(chat_requests(upstream)[-1][0]["content"])
    digest = next(line for line in context.split("\n") if "(digest of the month" in line)
    assert "**" not in digest
    assert all(label.rstrip(".") in digest for label in labels)  # the labels' words stay
