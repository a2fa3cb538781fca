"""Budgets (seeds 003/004), middle truncation (seed 000 §4.5), context-window fitting, custom prompts."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from batchsum.backends.budget import (
    count_message_tokens,
    fit_parts,
    middle_truncate,
    output_budget,
    trim_to_sentence_boundary,
)
from batchsum.backends.extractive import ExtractiveBackend
from batchsum.backends.llm import LLMBackend
from batchsum.backends.prompts import PROMPT_NAMES, PromptSet
from batchsum.config import LLMConfig
from batchsum.errors import ConfigError
from batchsum.model import SummaryOutput, SummaryRequest
from batchsum.tokens import get_tokenizer

if TYPE_CHECKING:
    from tests.fakeserver import FakeLLMServer


TOK = get_tokenizer()


def numbered(prefix: str, n: int) -> str:
    return " ".join(f"{prefix} sentence {i} reports that the budget for item {i} was approved." for i in range(n))


def run_one(server: FakeLLMServer, request: SummaryRequest, **overrides: Any) -> SummaryOutput:
    settings: dict[str, Any] = {"base_url": server.base_url, "model": "fake", "rpm": None, "tpm": None}
    settings.update(overrides)
    backend = LLMBackend(LLMConfig(**settings), tokenizer=TOK, fallback=ExtractiveBackend(TOK), cache_dir=None)

    async def main() -> SummaryOutput:
        try:
            return await backend.summarize(request)
        finally:
            await backend.aclose()

    return asyncio.run(main())


def request(kind: str = "standard", text: str = "", max_tokens: int = 200, **kw: Any) -> SummaryRequest:
    fields: dict[str, Any] = {
        "node_id": "f.md:summary:L3:final",
        "kind": kind,
        "content_type": "document",
        "text": text,
        "input_tokens": TOK.count(text),
        "target_tokens": max_tokens,
        "max_tokens": max_tokens,
    }
    fields.update(kw)
    return SummaryRequest(**fields)


# ---- pure budget functions ---------------------------------------------------------------------
@pytest.mark.parametrize(
    ("input_tokens", "target", "expected"),
    [
        (100, 500, 128),  # the 128 floor keeps tiny summaries readable ...
        (1252, 1000, 626),  # seed 004's example: at most half of what is replaced
        (10_000, 300, 300),  # ... and the level target is the absolute cap
        (3000, 360, 360),
        (50, 20, 20),
        (0, 0, 1),
    ],
)
def test_output_budget_formula(input_tokens: int, target: int, expected: int) -> None:
    assert output_budget(input_tokens, target) == expected


def test_a_brief_line_may_run_ten_percent_over_its_target() -> None:
    from batchsum.planning import leaf_max_tokens

    assert leaf_max_tokens(350, 70, "brief") == 77  # room for a last whole sentence
    assert leaf_max_tokens(350, 70, "standard") == leaf_max_tokens(350, 70) == 70
    assert leaf_max_tokens(72, 70, "brief") == 71  # never as long as the input


def test_middle_truncate_keeps_head_and_tail_within_budget() -> None:
    text = numbered("Alpha", 200)
    out, removed = middle_truncate(text, 150, TOK)
    assert TOK.count(out) <= 150 and removed > 0
    assert out.startswith("Alpha sentence 0 reports")
    assert out.endswith("item 199 was approved.")
    assert "tokens omitted" in out and "sentence 100 " not in out
    assert middle_truncate("short text", 150, TOK) == ("short text", 0)


def test_fit_parts_truncates_only_the_big_parts_and_keeps_each_head_and_tail() -> None:
    small = "SMALL part stays whole."
    bigs = [f"BIG{i}-START " + numbered(f"B{i}", 80) + f" BIG{i}-END" for i in range(3)]
    parts, removed = fit_parts([small, *bigs], 600, TOK)
    assert parts[0] == small and removed > 0
    assert sum(TOK.count(p) for p in parts) <= 600
    for i, part in enumerate(parts[1:]):
        assert part.startswith(f"BIG{i}-START") and part.endswith(f"BIG{i}-END")
    assert fit_parts(["a", "b"], 100, TOK) == (["a", "b"], 0)


def test_trim_to_sentence_boundary() -> None:
    text = numbered("Gamma", 30)
    out, trimmed = trim_to_sentence_boundary(text, 50, TOK)
    assert trimmed and TOK.count(out) <= 50 and out.endswith("approved.")
    assert trim_to_sentence_boundary("One. Two.", 50, TOK) == ("One. Two.", False)
    words, trimmed = trim_to_sentence_boundary("word " * 200, 20, TOK)
    assert trimmed and TOK.count(words) <= 20 and words.endswith("…")


# ---- the backend keeps to budgets ---------------------------------------------------------------
def test_max_tokens_is_sent_and_overrunning_output_is_trimmed(fake_llm: FakeLLMServer) -> None:
    fake_llm.configure(rules=[{"content": numbered("Chatty", 40)}])  # ignores max_tokens, as some servers do
    out = run_one(fake_llm, request(text=numbered("Src", 60), max_tokens=60))
    assert fake_llm.log[0].max_tokens == 60
    assert out.trimmed and TOK.count(out.text) <= 60 and out.text.endswith("approved.")


def test_meta_prompt_never_exceeds_the_context_window(fake_llm: FakeLLMServer) -> None:
    parts = [f"PART{i}-HEAD " + numbered(f"P{i}", 45) + f" PART{i}-TAIL" for i in range(12)]
    req = request("meta", text="\n\n".join(parts), max_tokens=300, parts=parts)
    out = run_one(fake_llm, req, context_window=2048)
    [entry] = fake_llm.log
    assert entry.max_tokens == 300
    assert count_message_tokens(entry.messages, TOK) + 300 <= 2048
    user = entry.messages[1]["content"]
    for i in range(12):  # every section survives with its head and its tail
        assert f"PART{i}-HEAD" in user and f"PART{i}-TAIL" in user
    assert "tokens omitted" in user and out.backend == "llm"


def test_oversized_single_input_and_prior_context_are_middle_truncated(fake_llm: FakeLLMServer) -> None:
    text = "DOC-HEAD " + numbered("D", 200) + " DOC-TAIL"
    prior = "PRIOR-HEAD " + numbered("Old", 150) + " PRIOR-TAIL"
    req = request("rolling", text=text, max_tokens=200, prior_context=prior, content_type="journal")
    out = run_one(fake_llm, req, context_window=1024)
    entry = fake_llm.log[0]
    assert count_message_tokens(entry.messages, TOK) + 200 <= 1024
    user = entry.messages[1]["content"]
    for mark in ("DOC-HEAD", "DOC-TAIL", "PRIOR-HEAD", "PRIOR-TAIL"):
        assert mark in user
    assert out.backend == "llm"


def test_an_understated_input_count_is_not_trusted(fake_llm: FakeLLMServer) -> None:
    text = "HEAD " + numbered("U", 150) + " TAIL"  # ~2000 tokens
    out = run_one(fake_llm, request(text=text, max_tokens=100, input_tokens=10), context_window=1024)
    entry = fake_llm.log[0]
    assert count_message_tokens(entry.messages, TOK) + 100 <= 1024
    assert "HEAD" in entry.messages[1]["content"] and "TAIL" in entry.messages[1]["content"]
    assert out.backend == "llm"


def test_facets_requests_fit_the_window_too(fake_llm: FakeLLMServer) -> None:
    text = numbered("Conv", 300)
    req = request(text=text, max_tokens=400, content_type="conversation", facets=True)
    out = run_one(fake_llm, req, context_window=2048)
    entry = fake_llm.log[0]
    assert entry.max_tokens is not None and entry.max_tokens <= 1024
    assert count_message_tokens(entry.messages, TOK) + entry.max_tokens <= 2048
    assert out.facets is not None and TOK.count(out.text) <= 400


# ---- prompts -----------------------------------------------------------------------------------
def test_custom_prompts_dir_replaces_only_the_given_files(fake_llm: FakeLLMServer, tmp_path: Path) -> None:
    (tmp_path / "brief.txt").write_text("CUSTOM-BRIEF for a {content_type}:\n{content}\nOne line:")
    (tmp_path / "journal.txt").write_text("CUSTOM-JOURNAL focus.\n{prior_context}")
    prompts = tmp_path

    async def main() -> None:
        backend = LLMBackend(
            LLMConfig(base_url=fake_llm.base_url, model="fake", rpm=None, tpm=None, prompts_dir=prompts),
            tokenizer=TOK,
            fallback=ExtractiveBackend(TOK),
            cache_dir=None,
        )
        await backend.summarize(request("brief", text=numbered("J", 20), content_type="journal"))
        await backend.summarize(request("standard", text=numbered("D", 20)))
        await backend.aclose()

    asyncio.run(main())
    brief, standard = (e.messages[1]["content"] for e in fake_llm.log)
    assert "CUSTOM-BRIEF for a journal:" in brief and "CUSTOM-JOURNAL focus." in brief
    assert "concise paragraph" in standard and "Summarize this document:" in standard


def test_unknown_placeholder_is_a_config_error_naming_the_file(tmp_path: Path) -> None:
    (tmp_path / "chunk.txt").write_text("Section {chunk_index} of {total}:\n{content}")
    with pytest.raises(ConfigError, match=r"chunk\.txt.*\{total\}"):
        PromptSet.load(tmp_path)


def test_unknown_prompt_file_and_missing_input_placeholder_are_config_errors(tmp_path: Path) -> None:
    (tmp_path / "breif.txt").write_text("{content}")
    with pytest.raises(ConfigError, match=r"breif\.txt.*unknown prompt name"):
        PromptSet.load(tmp_path)
    (tmp_path / "breif.txt").unlink()
    (tmp_path / "meta.txt").write_text("Combine everything.")
    with pytest.raises(ConfigError, match=r"meta\.txt.*must contain"):
        PromptSet.load(tmp_path)
    with pytest.raises(ConfigError, match="does not exist"):
        PromptSet.load(tmp_path / "nope")


def test_default_prompts_load_and_json_braces_are_literal() -> None:
    prompts = PromptSet.load(None)
    assert set(prompts.templates) == set(PROMPT_NAMES)
    messages = prompts.build_messages(
        request("standard", text="Body {content} stays literal."),
        text="Body {content} stays literal.",
        parts=[],
        prior=None,
        max_tokens=100,
        facets=True,
    )
    user = messages[1]["content"]
    assert "Body {content} stays literal." in user
    assert '{"summary":' in user and "at most 75 words" in user
