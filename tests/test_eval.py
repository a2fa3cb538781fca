"""Scoring, matching and baselines of ``batchsum eval`` on tiny hand-made cases with known values."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from batchsum.errors import ConfigError
from batchsum.evaluate import baselines
from batchsum.evaluate.runner import doc_id_for, find_references, match_references, parse_budget
from batchsum.evaluate.scoring import (
    entities,
    entity_recall,
    number_recall,
    numbers,
    plain_text,
    rouge,
    score,
    split_sentences,
    truncate_words,
    word_count,
)

REPO = Path(__file__).resolve().parent.parent


# ---------------------------------------------------------------- ROUGE


def test_rouge_unigram_and_bigram_by_hand() -> None:
    # summary: the cat sat on the mat / reference: the cat was on the mat
    # unigram overlap (with counts): the x2, cat, on, mat = 5 of 6 on each side -> F1 5/6
    # bigrams: the-cat, on-the, the-mat shared = 3 of 5 on each side -> F1 3/5
    # LCS: the cat on the mat = 5 -> 5/6
    r = rouge("the cat sat on the mat", "the cat was on the mat")
    assert r["rouge1"] == pytest.approx(5 / 6)
    assert r["rouge2"] == pytest.approx(3 / 5)
    assert r["rougeLsum"] == pytest.approx(5 / 6)


def test_rouge_uses_the_stemmer() -> None:
    # "running" -> "run", "dogs" -> "dog": full unigram match only with stemming on.
    assert rouge("running dogs", "run dog")["rouge1"] == pytest.approx(1.0)


def test_rouge_lsum_splits_sentences() -> None:
    # Sentence order swapped: one LCS over the whole text finds 3 of 6 tokens, but the
    # summary-level LCS (per reference sentence, union over summary sentences) finds all 6.
    r = rouge("A dog ran. The cat sat.", "The cat sat. A dog ran.")
    assert r["rouge1"] == pytest.approx(1.0)
    assert r["rougeLsum"] == pytest.approx(1.0)


def test_multi_reference_takes_the_max_per_metric() -> None:
    # ref A: same words reversed -> R1 1.0, R2 0. ref B: 2 of 4 words, 1 of 3 bigrams -> R1 0.5, R2 1/3.
    s = score("red green blue gold", ["gold blue green red", "red green pink teal"])
    assert s.rouge1 == pytest.approx(1.0)
    assert s.rouge2 == pytest.approx(1 / 3)
    single = score("red green blue gold", ["gold blue green red"])
    assert single.rouge2 == pytest.approx(0.0)


# ---------------------------------------------------------------- recall


def test_entity_recall_by_hand() -> None:
    ref = "Alice met Bob in Paris. They ate."
    assert entities(ref) == {"Bob", "Paris"}  # "They" is a stopword; "Alice" opens the only sentence naming her
    assert entity_recall("Alice went to Paris.", ref) == pytest.approx(1 / 2)
    assert entity_recall("alice went to paris", ref) == pytest.approx(0.0)
    assert entity_recall("alice went to paris", ref, case_insensitive=True) == pytest.approx(1 / 2)
    assert entity_recall("anything", "nothing capitalized here at all") is None


def test_section_labels_are_no_entities() -> None:
    # PubMed's abstracts open each section with a line of capitals; a summary is not asked to repeat it.
    ref = "BACKGROUND\nthe lupin genome of Poland was mapped.\n\nMATERIALS AND METHODS:\nwe used BRCA1.\nNASA\n"
    assert entities(ref) == {"Poland", "BRCA1"}
    assert entity_recall("Poland and BRCA1.", ref) == pytest.approx(1.0)
    assert entities("We met NASA in Paris.") == {"NASA", "Paris"}  # capitals inside a sentence are names


def test_possessives_count_as_the_entity() -> None:
    assert entity_recall("We saw Korvin today.", "The guard said Korvin’s cell was small.") == pytest.approx(1.0)


def test_number_recall_by_hand() -> None:
    ref = "They sold 1,000 units for 25 dollars in 2021."
    assert numbers(ref) == {"1000", "25", "2021"}
    assert number_recall("sold 1000 units in 2021", ref) == pytest.approx(2 / 3)
    assert number_recall("no digits", "no digits either") is None


# ---------------------------------------------------------------- budgets and text


def test_truncate_words_keeps_line_breaks() -> None:
    assert truncate_words("one two\nthree four five", 3) == "one two\nthree"
    assert truncate_words("one two", 5) == "one two"
    assert truncate_words("one two", 0) == ""
    assert word_count("one  two\n three") == 3


def test_budget_truncation_changes_the_score() -> None:
    summary = "the cat sat on the mat and more words here"
    # As is: precision 3/10, recall 1 -> F1 = 2 * 0.3 / 1.3
    assert score(summary, ["the cat sat"]).rouge1 == pytest.approx(0.6 / 1.3)
    # Cut to the reference's 3 words: exact match.
    assert score(summary, ["the cat sat"], budget_words=[3]).rouge1 == pytest.approx(1.0)


def test_budget_is_per_reference() -> None:
    # Two references of different lengths: each comparison uses its own cut; the best wins.
    s = score("alpha beta gamma delta", ["alpha beta", "alpha beta gamma delta"], budget_words=[2, 4])
    assert s.rouge1 == pytest.approx(1.0)


def test_sentence_splitter_knows_abbreviations() -> None:
    assert split_sentences("Mr. Smith went to Washington. He paid $5 on Jan. 5.\n\nNew one") == [
        "Mr. Smith went to Washington.",
        "He paid $5 on Jan. 5.",
        "New one",
    ]


def test_plain_text_strips_markdown() -> None:
    assert plain_text("## Decisions\n- **Ship** it.\n1. Test `this`.") == "Decisions\nShip it.\nTest this."


def test_parse_budget() -> None:
    assert parse_budget("ref") == "ref"
    assert parse_budget("120") == 120
    assert parse_budget(None) is None
    for bad in ("0", "-3", "short", 0):
        with pytest.raises(ConfigError, match="--budget"):
            parse_budget(bad)


# ---------------------------------------------------------------- matching


def test_matching_single_and_multi_references(tmp_path: Path) -> None:
    refs = tmp_path / "refs"
    (refs / "sub").mkdir(parents=True)
    for name in ("a.txt", "a.1.txt", "a.2.txt", "b.10.txt", "b.2.txt", "c.txt", "sub/d.txt", ".hidden.txt"):
        (refs / name).write_text("x", encoding="utf-8")
    found = find_references(refs)
    assert ".hidden" not in found
    matches, orphans = match_references(["a", "b", "sub/d", "e"], found)
    assert [p.name for p in matches["a"]] == ["a.txt", "a.1.txt", "a.2.txt"]
    assert [p.name for p in matches["b"]] == ["b.2.txt", "b.10.txt"]
    assert [p.name for p in matches["sub/d"]] == ["d.txt"]
    assert matches["e"] == []
    assert [p.name for p in orphans] == ["c.txt"]
    assert doc_id_for("sub/d.md") == "sub/d"


# ---------------------------------------------------------------- baselines

STORY = (
    "The harbor town of Velmar depended on its fishing fleet. In spring the fleet sailed north. "
    "Captain Ora Lind led the fleet for twelve years. Storms in 1911 sank four boats near the cape. "
    "After the storms the council built a stone breakwater. The breakwater took three years to finish. "
    "Fishermen said the new harbor saved the town. Trade with the inland villages grew every year. "
    "Ora Lind retired when the breakwater was complete. Her daughter took command of the fleet."
)


def test_lead_takes_first_sentences_until_budget() -> None:
    out = baselines.summarize("lead", STORY, 12)
    assert out.text.splitlines() == [
        "The harbor town of Velmar depended on its fishing fleet.",
        "In spring the fleet sailed north.",
    ]


@pytest.mark.parametrize("method", ["lexrank", "textrank", "lsa", "luhn"])
def test_sumy_baselines_pick_document_sentences_within_budget(method: str) -> None:
    out = baselines.summarize(method, STORY, 20)
    lines = out.text.splitlines()
    sentences = split_sentences(STORY)
    assert lines and all(line in sentences for line in lines)
    # Sentences are added until the budget is covered, never one more.
    assert word_count("\n".join(lines[:-1])) < 20 <= word_count(out.text) or len(lines) == len(sentences)
    # Document order is kept.
    assert [sentences.index(line) for line in lines] == sorted(sentences.index(line) for line in lines)


def test_transcripts_are_split_per_turn() -> None:
    text = "Anna: we should ship friday\nBen: agreed the build is green\nAnna: then it is decided"
    assert baselines.paragraphs(text) == [
        "Anna: we should ship friday",
        "Ben: agreed the build is green",
        "Anna: then it is decided",
    ]


def test_baselines_run_offline_without_nltk_data(tmp_path: Path) -> None:
    """A fresh process with every socket connect refused and no NLTK data path: all baselines run."""
    script = textwrap.dedent(
        f"""
        import json, socket, sys
        attempts = []
        def refuse(self, *args, **kwargs):
            attempts.append(repr(args))
            raise OSError("network disabled by test")
        socket.socket.connect = refuse
        socket.socket.connect_ex = refuse
        import nltk
        downloads = []
        nltk.download = lambda *a, **k: downloads.append(a) or False
        nltk.data.path[:] = [{str(tmp_path)!r}]
        from batchsum.evaluate import baselines, scoring
        text = {STORY!r}
        out = {{m: baselines.summarize(m, text, 15).text for m in baselines.BASELINES}}
        out["rouge1"] = scoring.rouge(out["lexrank"], text)["rouge1"]
        print(json.dumps({{"out": out, "attempts": attempts, "downloads": len(downloads)}}))
        """
    )
    env = {**os.environ, "NLTK_DATA": str(tmp_path), "PYTHONPATH": str(REPO)}
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["attempts"] == []
    assert result["downloads"] == 0
    for method in baselines.BASELINES:
        assert result["out"][method].strip(), method
    assert result["out"]["rouge1"] > 0


# ---------------------------------------------------------------- bench harness


def test_bench_harness_reports_a_broken_module_and_goes_on(tmp_path: Path) -> None:
    from bench.common import BenchContext, BenchResult
    from bench.run_all import discover, final_table, run_module

    assert "bench.bench_extractive" in discover()
    ctx = BenchContext(shared=None, quick=True, workdir=tmp_path)
    results, _, error = run_module("bench.bench_does_not_exist", ctx)
    assert results == [] and error is not None and "ModuleNotFoundError" in error
    # Without shared data the extractive benchmark skips with a clear line instead of failing.
    skipped, _, err = run_module("bench.bench_extractive", ctx)
    assert err is None and "SKIPPED" in skipped[0].name
    ok = BenchResult("x", "figure", 1.0, "s", "< 2 s", True)
    table = final_table([("bench.bench_a", [ok], 1.0, None), ("bench.bench_b", [], 0.5, error)], True, 1.5)
    assert "1 OK, 0 MISS, 1 module error(s)" in table and "ERROR: ModuleNotFoundError" in table


def test_ref_budget_is_equal_length_when_batchsum_is_shorter() -> None:
    from batchsum.evaluate.runner import EvalDoc, _budgets

    doc = EvalDoc.__new__(EvalDoc)
    doc.ref_texts = ["one two three four five six", "one two three"]
    # batchsum produced 4 words: every method is cut to at most 4 words per reference.
    assert _budgets("ref", doc, 4) == ([4, 3], 4)
    # batchsum longer than the references: the references' own lengths.
    assert _budgets("ref", doc, 50) == ([6, 3], 6)


def _numbered_set(tmp_path: Path, n: int, doc: str, ref: str) -> tuple[Path, Path]:
    """``docs/d<i>.txt`` and ``refs/d<i>.txt`` for i < n, from templates with ``{i}``."""
    docs, refs = tmp_path / "docs", tmp_path / "refs"
    docs.mkdir()
    refs.mkdir()
    for i in range(n):
        (docs / f"d{i}.txt").write_text(doc.format(i=i) * 30)
        (refs / f"d{i}.txt").write_text(ref.format(i=i))
    return docs, refs


def test_half_splits_the_documents_into_two_disjoint_halves(tmp_path: Path) -> None:
    from batchsum.evaluate.runner import EvalOptions, Problem, collect

    docs, refs = _numbered_set(
        tmp_path, 5, "Document {i} talks about the harbor buoys and the tide. ", "Reference {i} about buoys."
    )
    halves = []
    for half in (0, 1):
        problems: list[Problem] = []
        opts = EvalOptions(docs_dir=docs, refs_dir=refs, out=tmp_path / f"out{half}", half=half)
        halves.append([d.doc_id for d in collect(opts, problems)])
        assert not [p for p in problems if p.kind == "orphan_reference"]  # the other half is not an orphan
    assert halves == [["d0", "d2", "d4"], ["d1", "d3"]]
    with pytest.raises(ConfigError):
        collect(EvalOptions(docs_dir=docs, refs_dir=refs, half=2), [])


def test_skip_leaves_out_the_first_documents(tmp_path: Path) -> None:
    from batchsum.evaluate.runner import EvalOptions, Problem, collect

    docs, refs = _numbered_set(
        tmp_path, 5, "Document {i} talks about the harbor buoys and the tide. ", "Reference {i} about buoys."
    )
    problems: list[Problem] = []
    opts = EvalOptions(docs_dir=docs, refs_dir=refs, out=tmp_path / "out", skip=2, limit=2)
    assert [d.doc_id for d in collect(opts, problems)] == ["d2", "d3"]
    assert not [p for p in problems if p.kind == "orphan_reference"]  # the skipped ones are not orphans
    for bad in (-1, 5):
        with pytest.raises(ConfigError, match="skip"):
            collect(EvalOptions(docs_dir=docs, refs_dir=refs, skip=bad), [])


def test_a_half_is_summarized_and_scored(tmp_path: Path) -> None:
    from batchsum.evaluate.runner import EvalOptions, evaluate

    docs, refs = _numbered_set(
        tmp_path,
        4,
        "Buoy {i} reported the harbor tide at noon and again at dusk. ",
        "Buoy {i} reported the tide twice.",
    )
    report = evaluate(EvalOptions(docs_dir=docs, refs_dir=refs, out=tmp_path / "out", half=1, metrics=False))
    own = report.methods[0]
    assert [d.doc_id for d in own.docs] == ["d1", "d3"]
    assert own.n_scored == 2 and not report.problems and own.rouge1 > 0


def test_baseline_cache_key_survives_missing_sumy_metadata(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.metadata

    from batchsum.evaluate import baseline_runs

    task = ("lexrank", "doc", "Some text. More text.", 12)
    normal = baseline_runs._cache_path(task)

    def missing(name: str) -> str:
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "version", missing)
    # The same key from the module's own version: a reinstall under a running eval keeps its cache.
    assert baseline_runs._cache_path(task) == normal


def test_emphasis_underscores_make_no_entity() -> None:
    """A journal's "_May_ 17.--" heading had counted as the name "May_" in entity recall, so a digest
    that labelled the day "**17 May.**" lost a "name" its entries held."""
    from batchsum.evaluate.scoring import entities

    found = entities("_May_ 17.--Last night _Anne_ dropped suddenly down.")
    # "May" opens the sentence and is capitalized nowhere else: no entity by the sentence-start rule.
    assert "Anne" in found and not any("_" in e for e in found), found
