"""A query of a day and words that phrase the request ("what happened on 12 March 2024?") is a query of the day:
"happened" had been searched for, and 26 January's "how the accident happened" came second (a journal keeper's
report)."""

from __future__ import annotations

import pytest

import batchsum
from batchsum.config import RunConfig
from batchsum.index.search import search

DAYS = {
    "2024-03-12.md": "Dentist at nine, then the train to Leeds for the workshop.\n",
    "2024-03-11.md": "Quiet day. Repotted the fern.\n",
    "2024-01-26.md": "Nobody knows how the accident happened; the van just slid into the ditch.\n",
}


@pytest.fixture(scope="module")
def cfg(tmp_path_factory: pytest.TempPathFactory) -> RunConfig:
    base = tmp_path_factory.mktemp("days")
    (base / "src").mkdir()
    for name, text in DAYS.items():
        (base / "src" / name).write_text(text, encoding="utf-8")
    batchsum.run([base / "src"], out=base / "out", content_type="journal", metrics=False)
    return RunConfig(paths=[], out=base / "out")


def test_request_words_and_a_day_ask_for_the_day(cfg: RunConfig) -> None:
    hits = search(cfg, "what happened on 12 March 2024?", k=3)
    assert [h.source_path for h in hits] == ["2024-03-12.md"], [(h.source_path, h.score) for h in hits]
    assert hits[0].score == search(cfg, "12 March 2024", k=1)[0].score


def test_a_day_without_an_entry_is_no_match_for_its_request_words(cfg: RunConfig) -> None:
    assert search(cfg, "what happened on 13 March 2024?", k=3) == []


def test_a_topic_word_beside_the_day_is_still_searched(cfg: RunConfig) -> None:
    hits = search(cfg, "the accident on 12 March 2024", k=3)
    assert hits[0].source_path == "2024-03-12.md" and "2024-01-26.md" in [h.source_path for h in hits]
