"""What ``batchsum serve`` injects of a summary hit: the summary as its reader sees it (no facets section, no
Markdown marks), and of a long one the sentences that match the question, wherever they stand."""

from __future__ import annotations

from pathlib import Path

import openai
from click.testing import CliRunner

from batchsum.cli import main
from batchsum.index.lexical import query_tokens
from batchsum.index.snippets import best_sentences, node_body
from batchsum.serve.context import SUMMARY_CHARS
from batchsum.tree import read_node
from tests.fakeserver import FakeLLMServer
from tests.test_serve import KEY, chat_requests, serving

GARDEN = (
    "# Garden plan\n\nThe tomatoes went into the raised bed on Saturday, next to the basil. The soil was still "
    "cold, so I covered the bed with fleece for the nights. The beans follow next week along the fence, and the "
    "courgettes get the corner by the water butt where the sun stays longest in the afternoon.\n\n"
    "## Open questions\n\n"
    "- Why do the lower tomato leaves turn yellow?\n- [ ] Buy **copper tape** against the slugs.\n"
    "- [ ] Ask Maria which compost she uses.\n"
)
TOPICS = ["harbour crane", "drainage design", "night shifts", "safety inspection", "concrete pour", "budget review",
          "lighthouse restoration", "ferry timetable", "fish market roof", "storm damage", "pier lighting",
          "dredging permit", "tugboat contract", "warehouse lease", "customs office", "container yard"]  # fmt: skip


def harbour_log() -> str:
    """A project log long enough for a STANDARD summary of several paragraphs' sentences."""
    paragraphs = [
        f"{who} reported on the {t}: the work is {'ahead of' if i % 3 else 'behind'} schedule after week {i + 2}, "
        f"and the contractor asked for a decision on the {t} before the end of the month. The team discussed "
        f"the cost of the {t} at length, because the city will only pay half of it. {who} will send the revised "
        f"{t} plan to the board, with photos from the site visit on day {i + 5}. Nobody objected, though the "
        f"{t} has caused delays before."
        for i, (t, who) in enumerate(zip(TOPICS, ["Lena", "Tom", "Ines", "Marco"] * 4, strict=True))
    ]
    return "# Harbour project log\n\n" + "\n\n".join(paragraphs) + "\n"


def summary_line(context: str, source: str) -> str:
    """The injected summary of ``source``: from its ``[summary]`` line to the next memory."""
    start = context.index(f"[summary] {source}: ")
    end = context.find("\n[", start + 1)
    return context[start : end if end >= 0 else len(context)]


def test_best_sentences_keeps_the_matching_ones_in_order_and_marks_the_gaps() -> None:
    text = (
        "Mic check, one two.\n\nWe looked at the table of results for a long while and compared every column.\n\n"
        "The baseline stays at eighty two percent on the mismatched set.\n\n"
        "For the exam you need the update rule of gradient descent."
    )
    kept = best_sentences(text, query_tokens("What is on the exam about gradient descent?"), 120, language="en")
    assert kept.endswith("For the exam you need the update rule of gradient descent.")
    assert "\n… For the exam" in kept and "baseline" not in kept and len(kept) <= 125  # the gap is marked
    assert best_sentences(text, query_tokens("exam"), 1000) == "\n".join(text.split("\n\n"))  # fits: all of it


def test_serve_injects_a_summary_without_facets_and_by_the_sentences_that_match(
    tmp_path: Path,
    upstream: FakeLLMServer,
) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "garden.md").write_text(GARDEN, encoding="utf-8")
    (src / "harbour.md").write_text(harbour_log(), encoding="utf-8")
    out = tmp_path / "out"
    ran = CliRunner().invoke(main, ["run", str(src), "--out", str(out), "-q", "--no-digests"])
    assert ran.exit_code == 0, ran.output
    garden = (out / "garden.md" / "summaries" / "L3" / "final.md").read_text(encoding="utf-8")
    assert "## Facets (extracted)" in garden  # a summary (BRIEF) under the note's own lists' facets
    _, body = read_node(out / "harbour.md" / "summaries" / "L3" / "final.md")
    whole = " ".join(node_body(body).split())
    closing = "Nobody objected, though the night shifts has caused delays before."
    assert whole.endswith(closing) and len(whole) > SUMMARY_CHARS  # the matching line is past the budget

    with serving(out, upstream.base_url, "--no-facts") as (url, _proc):
        client = openai.OpenAI(base_url=url, api_key=KEY, max_retries=0, timeout=60)
        for question in ("Why do the lower tomato leaves turn yellow?", "Did the night shifts cause delays?"):
            client.chat.completions.create(model="fake", messages=[{"role": "user", "content": question}])
    garden_context, harbour_context = (str(sent[0]["content"]) for sent in chat_requests(upstream)[-2:])

    injected = summary_line(garden_context, "garden.md")
    assert "Facets" not in injected and "Picked by rules" not in injected
    assert "**" not in injected and "#" not in injected and "tomatoes" in injected
    assert injected.count("lower tomato leaves turn yellow") <= 1  # the facets' copy of the note's question is not sent

    injected = summary_line(harbour_context, "harbour.md")
    assert closing in injected and "…" in injected
    assert len(injected) <= len("[summary] harbour.md: ") + SUMMARY_CHARS
