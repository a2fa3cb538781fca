"""Which hits search lists and in what order: a month's digits are no words, an entry is never hidden behind a
digest repeating it, the top k is a prefix of the top k+1 with the rank-1 score capped by nothing below it, and
in an index of several languages the texts holding the query's word as written lead (reviewer's s8 defects)."""

from __future__ import annotations

import itertools
from pathlib import Path

import batchsum
from batchsum.config import RunConfig
from batchsum.index.search import RECENCY_BONUS, SearchHit, search

MONTHS = {
    "journal/2026-11-28.md": "Last week the ferry was cancelled because of the storm, so I walked along the harbour.",
    "journal/2026-12-01.md": "Dentist appointment moved to Thursday. The sourdough starter finally doubled.",
    "journal/1826-03-11.md": "March 11.--This day the Court rose after a long sitting. I walked home in the rain.",
    "journal/1826-03-12.md": "March 12.--Wrote all morning. Dined with Skene.",
}
SINTRA = {
    "notes/2024-03-05.md": "# Tuesday 5 March 2024\n\nMet Priya at the café on Rua Augusta to talk about the Lisbon "
    "offsite. We decided the offsite will be in Sintra, not Cascais, because the hotel there has a proper meeting "
    "room. My grandmother's cat died this morning; I ran to the vet but it was too late.\n\nAfterwards I went "
    "running along the river for forty minutes.",
    "notes/2024-03-12.md": "# Tuesday 12 March 2024\n\nThree meetings today. The budget meeting ran long: we agreed "
    "on a total budget of 21,700 euros for the quarter.\nPriya will book the Porto hotel by Friday.",
}
_SPEAKERS = ["Ms. Roy", "Mr. Lee", "Mr. Diaz", "Ms. Chen", "Mr. Park", "Ms. Obi"]
_TOPICS = ["the deficit", "the recovery", "the rail line", "the hospitals", "the schools", "the ferry"]
# An undated transcript repeating "budget" (ranked first by its BM25) and a dated note holding it in a shorter,
# closer passage (more relevant): shown with one capped score, the note is listed first.
BUDGET = {
    "notes/2024-03-12.md": SINTRA["notes/2024-03-12.md"],
    "meetings/council.txt": "\n".join(
        f"{_SPEAKERS[n % 6]}: The budget for {_TOPICS[n % 6]} must be tabled before the budget vote, and the budget "
        f"office should publish the numbers.\nThe Chair: Thank you. We now turn to petitions from members about "
        f"{_TOPICS[(n + 1) % 6]} and the schedule of sittings."
        for n in range(12)
    ),
}
DIED = {
    "notes/game.md": "At the fair you throw the die. The die rolls off the table; pick up the die and throw it again.",
    "notes/2024-04-02.md": "My grandmother died in the spring, and we buried her by the sea.",
    "notes/2024-05-09.md": "The old oak that died last winter was cut down today.",
    "notes/2024-06-01.md": "今天我们去了公园，天气很好，孩子们在草地上玩了一下午。",
    "notes/2024-06-03.md": "サイコロを振って、駒を前に進めます。",
}


def _output(tmp_path: Path, files: dict[str, str]) -> RunConfig:
    src, out = tmp_path / "src", tmp_path / "out"
    for name, text in files.items():
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        (src / name).write_text(text + "\n", encoding="utf-8")
    batchsum.run([src], out=out, metrics=False)
    return RunConfig(paths=[], out=out)


def _own_score(hit: SearchHit) -> float:
    return hit.relevance + RECENCY_BONUS * hit.recency * (1.0 - hit.relevance)


def test_a_month_query_lists_its_entries_and_no_entry_its_digits_name(tmp_path: Path) -> None:
    cfg = _output(tmp_path, MONTHS)
    for query, month in (("2026-11", "2026-11"), ("November 2026", "2026-11"), ("1826-03", "1826-03")):
        for level in (None, "final"):
            hits = search(cfg, query, k=10, level=level)
            dates = [h.doc_date or "" for h in hits]
            entries = [d for h, d in zip(hits, dates, strict=True) if h.level != 4]
            # Every entry of the month is listed (none hidden behind its digest quoting it), nothing else dated.
            assert sorted(entries) == sorted(n[8:18] for n in MONTHS if n[8:15] == month), (query, level, dates)
            # No other period's digest above the month's entries ("11" of "2026-11" is no word of "March 11").
            last = max(n for n, h in enumerate(hits) if h.level != 4)
            assert all(month.startswith(d) or d.startswith(month) for d in dates[:last]), (query, dates)


def test_a_digest_never_hides_the_only_entry_holding_a_query_word(tmp_path: Path) -> None:
    cfg = _output(tmp_path, SINTRA)
    hits = search(cfg, "budget Sintra", k=10)
    order = [h.source_path for h in hits]
    assert {"notes/2024-03-05.md", "notes/2024-03-12.md"} <= set(order), order
    # A digest repeating those entries ranks below them.
    entries = [n for n, h in enumerate(hits) if h.level != 4]
    assert all(n > max(entries) for n, h in enumerate(hits) if h.level == 4), order


def test_the_top_k_is_a_prefix_of_the_top_k_plus_one_and_rank_one_is_uncapped(tmp_path: Path) -> None:
    cfg = _output(tmp_path, BUDGET)
    lists = {k: search(cfg, "budget", k=k) for k in (1, 2, 3)}
    for k in (1, 2):
        assert [h.node_id for h in lists[k]] == [h.node_id for h in lists[k + 1]][:k], k
    for hits in lists.values():
        assert abs(hits[0].score - round(_own_score(hits[0]), 4)) < 1e-4, hits[0]
        assert all(a.score >= b.score for a, b in itertools.pairwise(hits))


def test_in_an_index_of_several_languages_the_written_word_leads(tmp_path: Path) -> None:
    cfg = _output(tmp_path, DIED)
    hits = search(cfg, "died", k=5)
    order = [h.source_path for h in hits]
    died = [n for n, p in enumerate(order) if p in ("notes/2024-04-02.md", "notes/2024-05-09.md")]
    assert len(died) == 2, order
    assert "notes/game.md" not in order[: max(died)], order
