"""``batchsum eval`` end to end through the CLI on a three-document fixture (real runner, real DuckDB)."""

from __future__ import annotations

import codecs
import json
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner

from batchsum.cli import main

DOCS = {
    "harbor": (
        "The harbor town of Velmar depended on its fishing fleet for two centuries. Every spring the fleet "
        "sailed north to the cod banks and returned in late summer. Captain Ora Lind led the fleet for twelve "
        "years and was known for her caution in bad weather. In 1911 a series of storms sank four boats near "
        "the cape, and eleven sailors drowned. After the storms the town council voted to build a stone "
        "breakwater across the mouth of the harbor. The breakwater took three years to finish and cost the "
        "town most of its savings. Fishermen said the new harbor saved the town, because boats could now "
        "shelter during storms. Trade with the inland villages grew every year after the breakwater opened. "
        "Ora Lind retired when the breakwater was complete, and her daughter Mira took command of the fleet. "
        "Mira Lind moved the spring departure two weeks later to avoid the worst of the storms."
    ),
    "orchard": (
        "Professor Hale studied apple orchards in the Keswick valley for a decade. His team measured the yield "
        "of 240 trees every autumn and recorded frost dates, rainfall and the number of bees counted at "
        "blossom time. The main finding was that late frosts reduced the harvest far more than dry summers. "
        "Trees on the higher slopes blossomed later and escaped most frosts, so their yield was steadier. "
        "The team also found that orchards with hedgerows nearby had more bees and set more fruit. Hale "
        "recommended planting hedgerows and moving new orchards uphill. The growers association adopted "
        "both recommendations in 2019, and yields rose by about 18 percent over the next three seasons. "
        "The methodology relied on simple counts that any grower can repeat with a notebook and a ladder."
    ),
    "meeting": (
        "Anna: Good morning, let us start with the release plan for the mobile app.\n"
        "Ben: The build is green and the payment screen is finished.\n"
        "Anna: Then the open question is whether we ship on Friday or wait for the translation work.\n"
        "Chloe: The German and French translations are done, the Japanese one needs another week.\n"
        "Ben: I would ship on Friday without Japanese and add it in the next update.\n"
        "Anna: Agreed. We ship on Friday with English, German and French.\n"
        "Chloe: I will tell the Tokyo office that Japanese comes in the update after that.\n"
        "Ben: I will prepare the release notes and the store screenshots by Thursday.\n"
        "Anna: Good. Decision: release on Friday, Japanese follows one week later. Meeting closed.\n"
    ),
}

REFS = {
    "harbor": "After storms in 1911 sank four boats, Velmar built a stone breakwater that saved the harbor town. "
    "Captain Ora Lind retired and her daughter Mira took command of the fleet.",
    "orchard": "Professor Hale found that late frosts hurt apple yields more than dry summers and that hedgerows "
    "bring bees. Growers adopted his advice in 2019 and yields rose 18 percent.",
    "meeting": "The team decided to release the app on Friday in English, German and French. Japanese follows a "
    "week later; Ben prepares release notes and Chloe informs the Tokyo office.",
}


def _fixture(tmp_path: Path) -> tuple[Path, Path]:
    docs, refs = tmp_path / "docs", tmp_path / "refs"
    docs.mkdir()
    refs.mkdir()
    for name, text in DOCS.items():
        (docs / f"{name}.txt").write_text(text, encoding="utf-8")
        (refs / f"{name}.txt").write_text(REFS[name], encoding="utf-8")
    return docs, refs


def _invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["eval", *args])
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def test_eval_three_documents_end_to_end(tmp_path: Path) -> None:
    docs, refs = _fixture(tmp_path)
    out = tmp_path / "out"
    code, stdout, stderr = _invoke(str(docs), str(refs), "--out", str(out), "--budget", "ref", "--json")
    assert code == 0, stderr
    report = json.loads(stdout)
    assert report["n_documents"] == 3 and report["n_with_reference"] == 3 and report["failed"] == 0
    by_method = {m["method"]: m for m in report["methods"]}
    assert set(by_method) == {"batchsum", "batchsum (as-is)"}
    cut = by_method["batchsum"]
    assert cut["budget"] == "ref" and cut["n_docs"] == 3 and cut["n_scored"] == 3
    assert 0 < cut["rouge1"] <= 1 and 0 <= cut["rouge2"] <= cut["rouge1"]
    assert cut["seconds_per_doc"] > 0
    # The real pipeline wrote the summaries it was scored on.
    for name in DOCS:
        assert (out / f"{name}.txt" / "summaries" / "L3" / "final.md").is_file()
    # Budgeted summaries are no longer than the reference.
    for d in cut["docs"]:
        assert d["summary_words"] <= len(REFS[d["doc_id"]].split())
    # Results landed in the metrics store: one row per document and method.
    con = duckdb.connect(str(out / ".batchsum" / "metrics.duckdb"), read_only=True)
    try:
        rows = con.execute("SELECT method, budget, count(*) FROM evals GROUP BY 1, 2 ORDER BY 2").fetchall()
    finally:
        con.close()
    assert rows == [("batchsum", "none", 3), ("batchsum", "ref", 3)]
    assert list((out / ".batchsum" / "parquet" / "evals").iterdir())


def test_eval_tree_mode_and_baselines_table(tmp_path: Path) -> None:
    docs, refs = _fixture(tmp_path)
    out = tmp_path / "out"
    code, _, stderr = _invoke(str(docs), str(refs), "--out", str(out), "--no-metrics", "--json")
    assert code == 0, stderr
    code, stdout, stderr = _invoke(
        str(docs), str(refs), "--out", str(out), "--tree", "--budget", "30", "--baselines", "--no-metrics"
    )
    assert code == 0, stderr
    lines = stdout.splitlines()
    assert "budget 30 words" in lines[0]
    header = lines[1].split()
    assert header[:4] == ["method", "R-1", "R-2", "R-Lsum"] and "s/doc" in header
    methods = [ln.split()[0] for ln in lines[3:] if ln and not ln.startswith(("batchsum rank", "("))]
    assert methods == ["batchsum", "batchsum", "lead", "lexrank", "textrank", "lsa", "luhn"]
    assert any(ln.startswith("batchsum rank: ROUGE-1 ") and "/6" in ln for ln in lines)

    # Without --budget the baselines are held to batchsum's own length, document by document.
    code, stdout, stderr = _invoke(str(docs), str(refs), "--out", str(out), "--tree", "--baselines", "--json")
    assert code == 0, stderr
    methods = {m["method"]: m for m in json.loads(stdout)["methods"]}
    own = {d["doc_id"]: d["summary_words"] for d in methods["batchsum"]["docs"]}
    for name in ("lead", "lexrank", "textrank", "lsa", "luhn"):
        assert methods[name]["budget"] == "match"
        for d in methods[name]["docs"]:
            assert 0 < d["summary_words"] <= own[d["doc_id"]]


def test_eval_bad_input_is_listed_never_silently_dropped(tmp_path: Path) -> None:
    docs, refs = _fixture(tmp_path)
    # A document without a reference, a reference without a document, an empty reference,
    # a UTF-16 reference with BOM, a Latin-1 reference (lossy) and a multi-reference set.
    (docs / "lonely.txt").write_text(DOCS["harbor"].replace("Velmar", "Ostrava"), encoding="utf-8")
    (refs / "ghost.txt").write_text("A reference for a document that does not exist.", encoding="utf-8")
    (refs / "orchard.txt").write_text("  \n", encoding="utf-8")
    (refs / "orchard.1.txt").write_bytes(codecs.BOM_UTF16_LE + REFS["orchard"].encode("utf-16-le"))
    (refs / "meeting.txt").write_bytes(REFS["meeting"].replace("Tokyo", "Tōkyō").encode("latin-1", "replace"))
    (refs / "meeting.2.txt").write_bytes("Caf\xe9 r\xe9sum\xe9 of the meeting.".encode("latin-1"))
    out = tmp_path / "out"
    code, stdout, stderr = _invoke(str(docs), str(refs), "--out", str(out), "--no-metrics", "--json")
    assert code == 0, stderr
    report = json.loads(stdout)
    kinds = {(p["kind"], Path(p["path"]).name) for p in report["problems"]}
    assert ("no_reference", "lonely.txt") in kinds
    assert ("orphan_reference", "ghost.txt") in kinds
    assert ("empty_reference", "orchard.txt") in kinds
    assert ("decode", "orchard.1.txt") in kinds
    assert ("decode", "meeting.2.txt") in kinds
    assert "lonely.txt: no usable reference" in stderr and "scored 0" in stderr
    assert "ghost.txt: reference without a document" in stderr
    # The document without a reference is in the denominator with 0.
    m = report["methods"][0]
    assert m["n_docs"] == 4 and m["n_scored"] == 3 and m["n_zero"] == 1
    lonely = next(d for d in m["docs"] if d["doc_id"] == "lonely")
    assert lonely["status"] == "no_reference"
    mean_of_scored = sum(d["rouge1"] for d in m["docs"] if d["status"] == "ok") / 4
    assert m["rouge1"] == pytest.approx(mean_of_scored)

    code, stdout, stderr = _invoke(str(docs), str(refs), "--out", str(out), "--no-metrics", "--only-present", "--json")
    present = json.loads(stdout)["methods"][0]
    assert code == 0 and present["n_docs"] == 3 and present["n_zero"] == 0
    # Asked for: the documents left out are one line, not a warning each.
    assert "1 document(s) without a usable reference left out (--only-present): lonely" in stderr
    assert "lonely.txt: no usable reference" not in stderr
    assert present["rouge1"] > m["rouge1"]


def test_report_shows_the_means_eval_printed(tmp_path: Path) -> None:
    # A document without a reference counts 0 in eval's means; the report of that eval must agree.
    docs, refs = _fixture(tmp_path)
    (docs / "lonely.txt").write_text(DOCS["harbor"].replace("Velmar", "Ostrava"), encoding="utf-8")
    out = tmp_path / "out"
    code, stdout, stderr = _invoke(str(docs), str(refs), "--out", str(out), "--json")
    assert code == 0, stderr
    printed = json.loads(stdout)["methods"][0]
    result = CliRunner().invoke(main, ["report", "--out", str(out), "--json"])
    assert result.exit_code == 0, result.stderr
    (row,) = json.loads(result.stdout)["evals"]
    assert row["docs"] == 4 and row["scored_docs"] == 3
    for metric in ("rouge1", "rouge2", "rougeLsum", "entity_recall"):
        assert row[metric] == pytest.approx(printed[metric]), metric
    with duckdb.connect(str(out / ".batchsum" / "metrics.duckdb"), read_only=True) as con:
        stored = con.execute("SELECT status, rouge1 FROM evals WHERE doc_id = 'lonely'").fetchall()
    assert stored == [("no_reference", None)]  # nothing measured: no score is stored for it


def test_eval_usage_errors(tmp_path: Path) -> None:
    docs, refs = _fixture(tmp_path)
    code, _, stderr = _invoke(str(tmp_path / "nope"), str(refs))
    assert code == 2 and "documents folder does not exist" in stderr
    empty = tmp_path / "empty_refs"
    empty.mkdir()
    code, _, stderr = _invoke(str(docs), str(empty), "--out", str(tmp_path / "o"))
    assert code == 2 and "has a reference" in stderr
    code, _, stderr = _invoke(str(docs), str(refs), "--budget", "lots")
    assert code == 2 and "--budget" in stderr
    code, _, stderr = _invoke(str(docs), str(refs), "--tree", "--out", str(tmp_path / "missing"))
    assert code == 2 and "--tree" in stderr


def test_eval_unsummarized_document_in_tree_counts_as_failure(tmp_path: Path) -> None:
    docs, refs = _fixture(tmp_path)
    out = tmp_path / "out"
    code, _, _ = _invoke(str(docs), str(refs), "--out", str(out), "--no-metrics", "--json")
    assert code == 0
    (out / "harbor.txt" / "summaries" / "L3" / "final.md").unlink()
    code, stdout, stderr = _invoke(str(docs), str(refs), "--out", str(out), "--tree", "--no-metrics", "--json")
    assert code == 1
    assert "harbor.txt: no L3 summary" in stderr
    report = json.loads(stdout)
    assert report["failed"] == 1
    harbor = next(d for d in report["methods"][0]["docs"] if d["doc_id"] == "harbor")
    assert harbor["status"] == "failed"


def test_eval_scores_the_summary_not_the_extracted_sections(tmp_path: Path) -> None:
    from batchsum.evaluate.scoring import plain_text, word_count
    from batchsum.navigation import EXTRACTED_HEADINGS
    from batchsum.tree import read_node

    docs, refs = _fixture(tmp_path)
    out = tmp_path / "out"
    code, stdout, stderr = _invoke(str(docs), str(refs), "--out", str(out), "--no-metrics", "--json")
    assert code == 0, stderr
    _meta, body = read_node(out / "meeting.txt" / "summaries" / "L3" / "final.md")
    heading = EXTRACTED_HEADINGS[0]
    assert heading in body  # the run appended the meeting's decisions and action items for its reader
    summary = body[: body.index(heading)]
    words = {d["doc_id"]: d["summary_words"] for d in json.loads(stdout)["methods"][0]["docs"]}
    assert words["meeting"] == word_count(plain_text(summary))


def test_eval_reads_markdown_references_warns_of_an_empty_document_and_shows_undefined_recall(tmp_path: Path) -> None:
    """A Markdown user's references (refs/<id>.md) count; an empty document is named; a set whose references
    hold no number shows number recall as "-" (a 0.000 had stood for the documents without a reference)."""
    docs, refs = tmp_path / "docs", tmp_path / "refs"
    docs.mkdir()
    refs.mkdir()
    text = "The harbour committee met on Tuesday to plan the winter repairs of the northern pier. " * 12
    (docs / "pier.md").write_text(text, encoding="utf-8")
    (refs / "pier.md").write_text(  # read as a summary is: no front matter, no marks
        "---\ntitle: Minutes\nauthor: Jane Doe\n---\n# Summary\n\nThe committee planned the **repairs** of the "
        "[pier](https://example.org/Pier).\n",
        encoding="utf-8",
    )
    (refs / "README.md").write_text("# References\n\nWritten by hand.\n", encoding="utf-8")  # a note, no reference
    (docs / "empty.md").write_text("", encoding="utf-8")
    (refs / "empty.txt").write_text("Nothing was written.", encoding="utf-8")
    (docs / "lost.md").write_text(text.replace("pier", "jetty"), encoding="utf-8")  # no reference: scored 0
    code, out, err = _invoke(str(docs), str(refs), "--out", str(tmp_path / "out"), "--json")
    assert code == 0, err
    report = json.loads(out)
    assert "pier.md: no usable reference" not in err and "lost.md: no usable reference" in err
    assert "empty.md: empty document" in err
    batchsum = next(m for m in report["methods"] if m["method"] == "batchsum")
    assert batchsum["number_recall"] is None and batchsum["rouge1"] > 0
    pier = next(d for d in batchsum["docs"] if d["doc_id"] == "pier")
    assert pier["entity_recall"] is None  # "Minutes", "Jane Doe" and the link's target are no words of it
    assert "README.md" not in err
