"""``batchsum eval`` on inputs a user's own data brought: stale or foreign trees, references named or
written in other ways, a references folder inside the documents', and the library's options."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import batchsum
from batchsum.cli import main
from batchsum.errors import ConfigError
from batchsum.evaluate.runner import EvalOptions, collect, evaluate
from batchsum.evaluate.scoring import entities
from tests.test_eval_cli import DOCS, REFS


def _fixture(tmp_path: Path, names: tuple[str, ...] = ("harbor", "orchard")) -> tuple[Path, Path]:
    docs, refs = tmp_path / "docs", tmp_path / "refs"
    docs.mkdir(parents=True)
    refs.mkdir()
    for name in names:
        (docs / f"{name}.txt").write_text(DOCS[name], encoding="utf-8")
        (refs / f"{name}.txt").write_text(REFS[name], encoding="utf-8")
    return docs, refs


def _finals(out: Path) -> set[str]:
    """Names of the sources with a final in the tree (not in deleted/ or the state folder)."""
    return {p.parent.parent.parent.name for p in out.glob("*/summaries/L3/final.md")}


def _invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["eval", *args])
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def test_stale_final_in_tree_is_a_failure_naming_the_file(tmp_path: Path) -> None:
    docs, refs = _fixture(tmp_path)
    out = tmp_path / "out"
    code, _, stderr = _invoke(str(docs), str(refs), "--out", str(out), "--no-metrics")
    assert code == 0, stderr
    # The document and its reference change after the tree was made.
    (docs / "harbor.txt").write_text(DOCS["meeting"], encoding="utf-8")
    (refs / "harbor.txt").write_text(REFS["meeting"], encoding="utf-8")
    code, stdout, stderr = _invoke(str(docs), str(refs), "--out", str(out), "--tree", "--no-metrics", "--json")
    assert code == 1
    assert any("harbor.txt" in ln and "older version" in ln for ln in stderr.splitlines()), stderr
    harbor = next(d for d in json.loads(stdout)["methods"][0]["docs"] if d["doc_id"] == "harbor")
    assert harbor["status"] == "failed"


def test_only_empty_references_stop_before_summarizing(tmp_path: Path) -> None:
    docs, refs = _fixture(tmp_path)
    for ref in refs.iterdir():
        ref.write_text("  \n", encoding="utf-8")
    out = tmp_path / "out"
    code, _, stderr = _invoke(str(docs), str(refs), "--out", str(out), "--no-metrics")
    assert code == 2 and "usable reference" in stderr
    assert not out.exists()  # nothing was summarized


@pytest.mark.parametrize("which", ["empty", "docs"])
def test_tree_that_is_no_output_tree_is_a_usage_error(tmp_path: Path, which: str) -> None:
    docs, refs = _fixture(tmp_path)
    folder = docs if which == "docs" else tmp_path / "empty"
    folder.mkdir(exist_ok=True)
    code, _, stderr = _invoke(str(docs), str(refs), "--out", str(folder), "--tree", "--no-metrics")
    assert code == 2 and "not a batchsum output tree" in stderr


def test_tree_of_several_roots_picks_the_documents_folder(tmp_path: Path) -> None:
    x_docs, x_refs = _fixture(tmp_path / "X")
    y_docs = tmp_path / "Y" / "docs"
    y_docs.mkdir(parents=True)
    (y_docs / "harbor.txt").write_text(DOCS["orchard"], encoding="utf-8")  # same name, other text
    (y_docs / "orchard.txt").write_text(DOCS["harbor"], encoding="utf-8")
    out = tmp_path / "out"
    batchsum.run([x_docs, y_docs], out=out, index=False, metrics=False, quiet=True)
    code, stdout, stderr = _invoke(str(x_docs), str(x_refs), "--out", str(out), "--tree", "--no-metrics", "--json")
    assert code == 0, stderr
    docs = json.loads(stdout)["methods"][0]["docs"]
    assert all(d["status"] == "ok" for d in docs) and len(docs) == 2


def test_md_reference_with_hash_names_is_text_not_heading(tmp_path: Path) -> None:
    docs, refs = _fixture(tmp_path, ("meeting",))
    (refs / "meeting.txt").unlink()
    (refs / "meeting.md").write_text(
        "# Summary\n\n#Person2# wants to ship on Friday; #Person1# agrees.\n", encoding="utf-8"
    )
    problems: list = []
    [doc] = collect(EvalOptions(docs_dir=docs, refs_dir=refs, out=tmp_path / "out"), problems)
    assert doc.has_reference and "Friday" in doc.ref_texts[0] and "Summary" not in doc.ref_texts[0]


def test_missing_reference_warning_names_what_was_tried(tmp_path: Path) -> None:
    docs, refs = _fixture(tmp_path)
    (refs / "orchard.txt").unlink()
    (refs / "orchard.md").write_text("# Only a heading\n", encoding="utf-8")
    problems: list = []
    collect(EvalOptions(docs_dir=docs, refs_dir=refs, out=tmp_path / "out"), problems)
    line = next(p.message for p in problems if p.kind == "no_reference")
    assert "orchard.md" in line and "orchard.txt" not in line


def test_reference_suffix_in_capitals_matches(tmp_path: Path) -> None:
    docs, refs = _fixture(tmp_path)
    (refs / "harbor.txt").rename(refs / "harbor.TXT")
    docs_found = collect(EvalOptions(docs_dir=docs, refs_dir=refs, out=tmp_path / "out"), [])
    assert all(d.has_reference for d in docs_found)


def test_no_match_error_lists_references_found(tmp_path: Path) -> None:
    docs, refs = _fixture(tmp_path)
    for ref in list(refs.iterdir()):
        ref.rename(refs / f"ref_{ref.name}")
    with pytest.raises(ConfigError, match=r"ref_harbor\.txt"):
        collect(EvalOptions(docs_dir=docs, refs_dir=refs, out=tmp_path / "out"), [])


def test_references_folder_inside_documents_is_not_scored(tmp_path: Path) -> None:
    docs, _ = _fixture(tmp_path)
    refs = docs / "refs"
    (tmp_path / "refs").rename(refs)
    found = collect(EvalOptions(docs_dir=docs, refs_dir=refs, out=tmp_path / "out"), [])
    assert sorted(d.doc_id for d in found) == ["harbor", "orchard"]


def test_library_tree_default_is_the_commands(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    docs, refs = _fixture(tmp_path)
    monkeypatch.chdir(tmp_path)
    batchsum.run(docs, out="batchsum-out", index=False, metrics=False, quiet=True)
    report = batchsum.eval_summaries(docs, refs, tree=True, metrics=False)
    assert report.out == Path.cwd() / "batchsum-out" and report.failed == 0  # absolute, as RunResult.out


def test_library_unknown_option_names_the_nearest_and_takes_flag_names(tmp_path: Path) -> None:
    docs, refs = _fixture(tmp_path)
    with pytest.raises(TypeError, match="did you mean 'metrics_db'"):
        batchsum.eval_summaries(docs, refs, metrics_dbb=tmp_path / "m.duckdb")
    out = tmp_path / "out"
    report = batchsum.eval_summaries(docs, refs, out=out, no_metrics=True, no_cache=True)
    assert not report.metrics_recorded and not (out / ".batchsum" / "metrics.duckdb").exists()


def test_sentence_openers_are_no_entities() -> None:
    text = "Lucky for us, the boat held. Four men rowed. Many cheered when Mira waved. Mira laughed."
    assert entities(text) == {"Mira"}
    assert "New" in entities("New York was loud.")  # a capitalized run names something


def test_decoding_note_is_not_doubled(tmp_path: Path) -> None:
    docs, refs = _fixture(tmp_path)
    (refs / "harbor.txt").write_bytes(REFS["harbor"].replace("Velmar", "Velmär").encode("cp1252"))
    problems: list = []
    collect(EvalOptions(docs_dir=docs, refs_dir=refs, out=tmp_path / "out"), problems)
    line = next(p.message for p in problems if p.kind == "decode")
    assert "decoded as decoded as" not in line and "decoded as" in line


def test_header_says_the_baselines_length(tmp_path: Path) -> None:
    docs, refs = _fixture(tmp_path)
    code, stdout, stderr = _invoke(str(docs), str(refs), "--out", str(tmp_path / "out"), "--baselines", "--no-metrics")
    assert code == 0, stderr
    assert "batchsum's length" in stdout.splitlines()[0]


def test_config_budget_error_names_file_and_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    docs, refs = _fixture(tmp_path)
    (tmp_path / "batchsum.yaml").write_text("eval:\n  budget: 0\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    code, _, stderr = _invoke(str(docs), str(refs), "--no-metrics")
    assert code == 2 and "batchsum.yaml" in stderr and "eval.budget" in stderr


@pytest.mark.parametrize("full_first", [False, True])
def test_subset_keeps_the_other_documents_summaries(tmp_path: Path, full_first: bool) -> None:
    docs, refs = _fixture(tmp_path, ("harbor", "meeting", "orchard"))
    out = tmp_path / "out"
    if full_first:
        evaluate(EvalOptions(docs_dir=docs, refs_dir=refs, out=out, metrics=False))
    evaluate(EvalOptions(docs_dir=docs, refs_dir=refs, out=out, metrics=False, half=0))
    kept = _finals(out)
    evaluate(EvalOptions(docs_dir=docs, refs_dir=refs, out=out, metrics=False, half=1))
    after = _finals(out)
    assert kept <= after == {"harbor.txt", "meeting.txt", "orchard.txt"}
    assert not (out / "deleted").exists()
