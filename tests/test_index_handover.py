"""A run hands its finished trees to the index in memory: the records equal what the tree reads back,
and the source words the run read are searchable without the index reading the source again
(real run, real Chroma, real ONNX model)."""

from __future__ import annotations

import contextlib
import shutil
import sqlite3
from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main
from batchsum.config import RunConfig
from batchsum.index.lexical import LexFilter, LexicalStore, lexical_path, query_tokens, stem
from batchsum.index.records import tree_nodes
from batchsum.index.store import check_index
from tests.conftest import SAMPLE_CORPUS
from tests.test_index import indexed

# A word deep inside a long document, indexed with the source passages the run handed over.
NEEDLE = "Ottoline calibrated the quartz hygrometer beside the orangery on Thursday."
ROUTINE = "The committee reviewed the quarterly figures and agreed the budget remains on track. "
KEY = "sk-proj-" + "Zq8Xv2Lp9Rt4Wm6Nb3Hc7Jd5Kf1Gs0Ay"


def _corpus(tmp_path: Path) -> Path:
    corpus = tmp_path / "corpus"
    shutil.copytree(SAMPLE_CORPUS, corpus)
    body = ROUTINE * 120 + NEEDLE + " " + ROUTINE * 120
    (corpus / "report.md").write_text(f"# Quarterly report\n\n{body}\n\nThe deploy key is {KEY} for now.\n")
    return corpus


def _run(corpus: Path, out: Path) -> None:
    res = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--no-metrics"])
    assert res.exit_code == 0, res.output


def test_records_from_memory_equal_the_tree_read_back(tmp_path: Path) -> None:
    out = tmp_path / "out"
    _run(_corpus(tmp_path), out)
    cfg = RunConfig(paths=[], out=out)
    check = check_index(cfg)
    assert check.ok, (check.missing, check.stale, check.orphans)
    # Every metadata field, not only the hash: what the run indexed is what a repair would index.
    from_tree = {n.id: n.metadata for n in tree_nodes(out)}
    assert indexed(cfg) == from_tree
    assert CliRunner().invoke(main, ["index", str(out), "--check"]).exit_code == 0


def _source_units_with(cfg: RunConfig, doc_id: str, term: str) -> int:
    """How many source passages (not summary passages) of ``doc_id`` hold ``term``."""
    import array

    from batchsum.index.segments import split_docs

    with contextlib.closing(sqlite3.connect(lexical_path(cfg))) as db:
        dkey, nkeys, seg = db.execute("SELECT dkey, nkeys, seg FROM lex_docs WHERE doc_id = ?", (doc_id,)).fetchone()
        row = db.execute("SELECT data FROM lex_postings WHERE term = ? AND seg = ?", (term, seg)).fetchone()
    if row is None:
        return 0
    owners = array.array("i")
    owners.frombytes(nkeys)
    units = next((u for d, u, _ in split_docs(row[0]) if d == dkey), [])
    return sum(1 for u in units if owners[int(u)] == -1)  # -1: a passage of the source


def test_source_words_are_searchable_and_secrets_are_not(tmp_path: Path) -> None:
    out = tmp_path / "out"
    _run(_corpus(tmp_path), out)
    cfg = RunConfig(paths=[], out=out)
    with contextlib.closing(LexicalStore(lexical_path(cfg))) as store:
        scores = store.scores(query_tokens("quartz hygrometer orangery"), LexFilter())
        assert any(node.startswith("report.md:") for node in scores)
    # The run did not redact (no text left the machine, so its local summaries may quote the key), yet
    # the key is no word of the source passages indexed for report.md.
    assert _source_units_with(cfg, "report.md", stem(KEY.rsplit("-", 1)[-1])) == 0
    assert _source_units_with(cfg, "report.md", stem("hygrometer")) >= 1
    res = CliRunner().invoke(main, ["search", "quartz hygrometer orangery", "--out", str(out), "-k", "3"])
    assert res.exit_code == 0, res.output
    assert "report.md" in res.output
