"""Nightly re-runs: only changed chunks are recomputed; rolling chain; deletions; lock; git; pipelines."""

from __future__ import annotations

import itertools
import json
import os
import random
import subprocess
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from batchsum.cli import main
from batchsum.lock import RunLock
from batchsum.tree import iter_tree, read_node

WORDS = (
    "river garden budget lighthouse morning letter walk neighbour harvest winter rain lamp kitchen "
    "friend train market doctor school church field orchard storm bridge candle paper ink"
).split()


def journal_text(seed: int, entries: int) -> str:
    rng = random.Random(seed)
    out = []
    for i in range(entries):
        out.append(f"## 1850-{1 + i // 28:02d}-{1 + i % 28:02d}")
        for _ in range(rng.randint(2, 4)):
            sents = [
                " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 18))).capitalize() + "."
                for _ in range(rng.randint(2, 5))
            ]
            out.append(" ".join(sents))
    return "\n\n".join(out) + "\n"


def run_json(corpus: Path, out: Path, *extra: str) -> dict:
    r = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--no-index", "--json", *extra])
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


def keys(out: Path, rel: str) -> dict[str, str]:
    return {n.meta["id"]: n.meta["node_key"] for n in iter_tree(out) if n.meta["doc_id"] == rel}


def changed_levels(before: dict[str, str], after: dict[str, str]) -> dict[str, int]:
    counts = {"L1": 0, "L2": 0, "L3": 0}
    for nid, key in after.items():
        if before.get(nid) != key:
            counts[nid.split(":")[-2]] += 1
    return counts


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    c = tmp_path / "corpus"
    (c / "journal").mkdir(parents=True)
    (c / "journal" / "long.md").write_text(journal_text(1, 170))
    (c / "journal" / "short.md").write_text(journal_text(2, 3))
    return c


def test_append_recomputes_only_the_tail(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    first = run_json(corpus, out)
    long_rec = next(f for f in first["files"] if f["relpath"] == "journal/long.md")
    assert long_rec["level"] == "HIERARCHICAL" and long_rec["chunks"] >= 7
    before = keys(out, "journal/long.md")
    with open(corpus / "journal" / "long.md", "a") as fh:
        fh.write("\n## 1851-01-01\n\nA new entry about the lighthouse keeper and the winter storm.\n")
    second = run_json(corpus, out)
    after = keys(out, "journal/long.md")
    ch = changed_levels(before, after)
    assert ch["L1"] <= 2 and ch["L2"] <= 2 and ch["L3"] == 1, ch
    rec = next(f for f in second["files"] if f["relpath"] == "journal/long.md")
    assert rec["nodes_recomputed"] == sum(ch.values())
    assert next(f for f in second["files"] if f["relpath"] == "journal/short.md")["status"] == "unchanged"
    # Rolling chain: the new final builds on the old one, which is kept in history/.
    meta, _ = read_node(out / "journal/long.md/summaries/L3/final.md")
    assert meta["depth"] == 1 and meta["parent_id"] == before["journal/long.md:summary:L3:final"]
    assert len(list((out / "journal/long.md/summaries/history").glob("*.md"))) == 1


def test_edit_in_the_middle_recomputes_that_path(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    run_json(corpus, out)
    before = keys(out, "journal/long.md")
    path = corpus / "journal" / "long.md"
    text = path.read_text()
    cut = text.index("\n\n", len(text) // 3)
    path.write_text(text[:cut] + "\n\nAn inserted paragraph about the orchard and the storm." + text[cut:])
    run_json(corpus, out)
    ch = changed_levels(before, keys(out, "journal/long.md"))
    total_l1 = sum(1 for k in before if ":L1:" in k)
    assert 1 <= ch["L1"] <= 2 < total_l1, ch
    assert ch["L2"] <= 2 and ch["L3"] == 1


def test_chain_depth_cap_forces_fresh_summary(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    run_json(corpus, out, "--max-chain-depth", "1")
    path = corpus / "journal" / "long.md"
    depths = []
    for i in range(3):
        with open(path, "a") as fh:
            fh.write(f"\n## 1852-01-0{i + 1}\n\nEntry {i} about the bridge and the market.\n")
        run_json(corpus, out, "--max-chain-depth", "1")
        depths.append(read_node(out / "journal/long.md/summaries/L3/final.md")[0]["depth"])
    assert depths == [1, 0, 1]


def test_deleted_source_moves_tree_to_deleted(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    run_json(corpus, out)
    (corpus / "journal" / "short.md").unlink()
    data = run_json(corpus, out)
    rec = next(f for f in data["files"] if f["relpath"] == "journal/short.md")
    assert rec["status"] == "deleted" and data["run"]["files_deleted"] == 1
    assert not (out / "journal/short.md/summaries").exists()
    moved = list((out / "journal/short.md/deleted").rglob("final.md"))
    assert len(moved) == 1
    assert all(n.meta["doc_id"] != "journal/short.md" for n in iter_tree(out))


def test_a_run_over_a_sub_folder_redoes_its_files_in_place(corpus: Path, tmp_path: Path) -> None:
    """`batchsum run corpus/calls --out out` after `batchsum run corpus --out out`: the calls keep their
    names (calls/x.txt) and trees, nothing is summarized a second time under another name."""
    calls = corpus / "calls"
    calls.mkdir()
    for i in range(3):
        (calls / f"call{i}.md").write_text(journal_text(10 + i, 4))
    out = tmp_path / "out"
    run_json(corpus, out)
    tops = sorted(p.name for p in out.iterdir())
    data = run_json(calls, out)
    assert data["run"]["files_done"] == 0 and data["run"]["files_unchanged"] == 3
    (calls / "call1.md").write_text(journal_text(99, 4))
    (calls / "call2.md").unlink()
    data = run_json(calls, out)
    status = {f["relpath"]: f["status"] for f in data["files"]}
    assert status == {"calls/call0.md": "unchanged", "calls/call1.md": "done", "calls/call2.md": "deleted"}
    assert sorted(p.name for p in out.iterdir()) == tops  # no "call0.md" beside "calls"
    again = run_json(corpus, out)  # the rest of the corpus was never touched
    assert again["run"]["files_done"] == 0 and again["run"]["files_deleted"] == 0


def test_second_run_on_locked_output_exits_3(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    with RunLock(out):
        r = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--no-index"])
    assert r.exit_code == 3
    assert "lock" in r.stderr.lower()


def test_git_versioning_one_commit_per_run(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    run_json(corpus, out, "--git")
    with open(corpus / "journal" / "short.md", "a") as fh:
        fh.write("\nOne more line about the garden and the rain and the lamp in the kitchen.\n")
    run_json(corpus, out, "--git")
    log = subprocess.run(["git", "-C", str(out), "log", "--format=%s"], capture_output=True, text=True, check=True)
    subjects = log.stdout.strip().splitlines()
    assert len(subjects) == 2
    assert "1 changed" in subjects[0] and "2 added" in subjects[1]
    ignored = subprocess.run(["git", "-C", str(out), "ls-files"], capture_output=True, text=True).stdout
    assert ".batchsum/" not in ignored


def test_plan_is_a_dry_run(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    r = CliRunner().invoke(main, ["plan", str(corpus), "--out", str(out), "--json", "--price-per-1k", "0.5"])
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    assert sorted(d["new"]) == ["journal/long.md", "journal/short.md"]
    # The extractive backend sends no LLM request: priced, it costs nothing.
    assert d["nodes"] > 8 and d["input_tokens"] > 15000 and d["cost"] == 0
    assert not out.exists()
    run_json(corpus, out)
    with open(corpus / "journal" / "long.md", "a") as fh:
        fh.write("\nAppended.\n")
    d2 = json.loads(CliRunner().invoke(main, ["plan", str(corpus), "--out", str(out), "--json"]).stdout)
    assert d2["changed"] == ["journal/long.md"] and d2["unchanged"] == ["journal/short.md"]
    assert d2["nodes_already_stored"] >= d2["nodes"] - 5 and d2["settings_changed"] == []
    # A changed setting is why every file would be redone: the plan says so.
    r = CliRunner().invoke(main, ["plan", str(corpus), "--out", str(out), "--final-words", "300"])
    assert "settings changed since this folder was built (--final-words 500 -> 300)" in r.stdout, r.stdout


def test_pipeline_file_runs_and_flags_override(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "from-pipeline"
    pipe = tmp_path / "p.yaml"
    pipe.write_text(f"output: {tmp_path / 'ignored-out'}\ncorpora:\n  - path: {corpus}\n    type: journal\n")
    r = CliRunner().invoke(main, ["run", "--pipeline", str(pipe), "--out", str(out), "--no-index", "-q"])
    assert r.exit_code == 0, r.output
    assert (out / "journal/long.md/summaries/L3/final.md").exists()
    assert not (tmp_path / "ignored-out").exists()
    bad = tmp_path / "bad.yaml"
    bad.write_text(f"corpora:\n  - path: {corpus}\n    typo_key: 1\n")
    r = CliRunner().invoke(main, ["run", "--pipeline", str(bad)])
    assert r.exit_code == 2
    assert "bad.yaml:3" in r.stderr


def test_old_unreferenced_node_records_are_collected(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    nodes_dir = out / ".batchsum" / "nodes"

    def stored() -> set[str]:
        return {p.stem for p in nodes_dir.glob("*/*.json")}

    def age_all(days: float) -> None:
        old = time.time() - days * 86400
        for p in nodes_dir.glob("*/*"):
            os.utime(p, (old, old))

    run_json(corpus, out)
    first = stored()
    assert set(keys(out, "journal/long.md").values()) <= first
    path = corpus / "journal" / "long.md"
    text = path.read_text()
    cut = text.index("\n\n", len(text) // 3)
    path.write_text(text[:cut] + "\n\nAn inserted paragraph about the orchard and the storm." + text[cut:])
    run_json(corpus, out)
    replaced = first - set(keys(out, "journal/long.md").values()) - set(keys(out, "journal/short.md").values())
    assert replaced and replaced <= stored()  # recent: kept, e.g. for reverting the edit
    age_all(31)
    stray = nodes_dir / "ab" / ".abcd.json.12345.1.tmp"  # left by a killed run
    stray.parent.mkdir(exist_ok=True)
    stray.write_text("{")
    os.utime(stray, (time.time() - 31 * 86400,) * 2)
    cache = out / ".batchsum" / "llm-cache" / "cd"  # LLM responses: collected by age alone
    cache.mkdir(parents=True)
    (cache / "cd01.json").write_text("{}")
    (cache / "cd02.json").write_text("{}")
    os.utime(cache / "cd01.json", (time.time() - 31 * 86400,) * 2)
    with open(corpus / "journal" / "short.md", "a") as fh:  # any run that changes something collects
        fh.write("\n## 1850-02-01\n\nA letter came by the morning train.\n")
    log_file = tmp_path / "events.jsonl"
    before = stored()
    third = run_json(corpus, out, "--log-file", str(log_file), "--log-format", "json")
    live = set(keys(out, "journal/long.md").values()) | set(keys(out, "journal/short.md").values())
    # Digests' records are named by digests.json, not the manifest: an old one still named is kept.
    digests = json.loads((out / ".batchsum" / "digests.json").read_text())
    named = {p["key"] for p in digests["periods"].values()}
    assert before & (live | named) <= stored() <= live | named  # old and referenced: kept; the rest: gone
    assert replaced <= before - live - named and not stray.exists()
    events = [json.loads(line) for line in log_file.read_text().splitlines()]
    assert [(e["removed"], e["responses_removed"]) for e in events if e["event"] == "nodes_collected"] == [
        (len(before - live - named) + 1, 1)
    ]
    assert [p.name for p in cache.iterdir()] == ["cd02.json"]
    assert next(f for f in third["files"] if f["relpath"] == "journal/long.md")["status"] == "unchanged"
    # The kept records still serve: an append to the long journal reuses every untouched chunk.
    with open(path, "a") as fh:
        fh.write("\n## 1851-01-01\n\nA new entry about the lighthouse keeper and the winter storm.\n")
    fourth = run_json(corpus, out)
    assert fourth["run"]["nodes_reused"] > 0
    assert next(f for f in fourth["files"] if f["relpath"] == "journal/long.md")["nodes_recomputed"] <= 4


def test_old_digest_records_still_named_by_digests_json_are_kept(tmp_path: Path) -> None:
    """Digests' records are named by digests.json, not by a file's manifest entry: the collection of
    old unreferenced records keeps them (a digest redone from the same inputs, its page deleted or an
    edit reverted, reuses its record instead of a new summary)."""
    corpus = tmp_path / "corpus"
    for folder, month, seed in (("a", "2025-03", 3), ("b", "2024-07", 4)):
        (corpus / folder).mkdir(parents=True)
        for day in (1, 2, 3):
            (corpus / folder / f"{month}-{day:02d}.md").write_text(journal_text(seed * 10 + day, 3))
    out = tmp_path / "out"
    nodes_dir = out / ".batchsum" / "nodes"
    run_json(corpus, out)
    old = time.time() - 31 * 86400
    for p in nodes_dir.glob("*/*"):
        os.utime(p, (old, old))
    before = {p.stem for p in nodes_dir.glob("*/*.json")}
    with open(corpus / "a" / "2025-03-02.md", "a") as fh:  # a change in a/ only: b/'s digests stay
        fh.write("\nA letter came by the morning train, and the harbour master read it twice.\n")
    run_json(corpus, out)
    periods = json.loads((out / ".batchsum" / "digests.json").read_text())["periods"]
    untouched = {p["key"] for p in periods.values() if "2024" in p["path"]} & before
    assert untouched and untouched <= {p.stem for p in nodes_dir.glob("*/*.json")}


def test_a_chunk_knows_its_overlap_and_the_summarizer_reads_it_as_context() -> None:
    """A chunk opens with the end of the chunk before it (the overlap): context for its first sentences,
    which the chunk before has already summarized, not sentences to pick again."""
    from batchsum.backends.extractive import summarize_text
    from batchsum.config import RunConfig
    from batchsum.model import Document
    from batchsum.planning import plan_file
    from batchsum.tokens import get_tokenizer

    tok = get_tokenizer()
    text = journal_text(5, 60)
    doc = Document(Path("log.md"), "log.md", text, "x", len(text), 0, "journal", "test")
    cfg = RunConfig(paths=[], chunk_size=600, chunk_overlap=200)
    leaves = [n for n in plan_file(doc, cfg, tok).nodes if n.level == 1]
    assert len(leaves) >= 5 and leaves[0].overlap_chars == 0
    for before, node in itertools.pairwise(leaves):
        assert before.chunk is not None and node.chunk is not None and node.overlap_chars > 0
        assert before.chunk.text.endswith(node.chunk.text[: node.overlap_chars])
    # The most central sentence of a chunk, in its overlap, is not picked again.
    central = "The harbour survey of the river boats and the winter repairs was the main work of the day."
    rest = " ".join(
        f"The {w} needed work on the river and the harbour boats before the winter survey." for w in WORDS[:12]
    )
    chunk = central + " " + rest
    kw = dict(target_tokens=40, max_tokens=40, kind="chunk", content_type="document", tokenizer=tok)
    assert central in summarize_text(chunk, **kw)  # type: ignore[arg-type]
    assert central not in summarize_text(chunk, context_chars=len(central) + 1, **kw)  # type: ignore[arg-type]


def test_a_final_edited_by_hand_is_restored_and_the_edit_kept(tmp_path: Path) -> None:
    """A summary changed by hand (or by another tool) is the run's to write: the next run restores it, so
    the final, index.md and the digests agree again, and the edited text goes to history/."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "note.md").write_text(journal_text(3, 3))
    out = tmp_path / "out"
    run_json(src, out)
    final = out / "note.md" / "summaries" / "L3" / "final.md"
    original = final.read_text(encoding="utf-8")
    edited = original.replace(read_node(final)[1].split()[0], "EDITED", 1)
    final.write_text(edited, encoding="utf-8")
    data = run_json(src, out)
    assert data["run"]["files_done"] == 1
    assert read_node_text(final.read_text(encoding="utf-8")) == read_node_text(original)
    assert [p.read_text(encoding="utf-8") for p in (final.parent.parent / "history").glob("*.md")] == [edited]
    assert run_json(src, out)["run"]["files_done"] == 0  # and quiet again


def test_a_copied_output_folder_is_restored_not_summarized_again(tmp_path: Path) -> None:
    """Copying the output folder gives every summary a new modification time, so the next run checks each
    tree again; its stored nodes restore it, and the run line says so rather than count it summarized."""
    import shutil

    src = tmp_path / "src"
    src.mkdir()
    (src / "long.md").write_text(journal_text(5, 60))  # chunks and a final, all stored
    (src / "short.md").write_text("A short note about the lighthouse and the harbour.\n")  # kept whole
    out = tmp_path / "out"
    first = run_json(src, out)
    assert first["run"]["files_done"] == 2 and first["run"]["nodes_computed"] > 3
    copy = tmp_path / "copy"
    shutil.copytree(out, copy, copy_function=shutil.copy)  # as `cp -r` does: new modification times
    res = CliRunner().invoke(main, ["run", str(src), "--out", str(copy), "--no-index"])
    assert res.exit_code == 0, res.output
    assert "0 summarized, 2 restored from stored summaries, 0 unchanged" in res.output
    assert not list(copy.glob("*/summaries/history/*.md"))  # nothing changed: no earlier final kept


def read_node_text(text: str) -> str:
    """The body of a node file's text."""
    from batchsum.tree import parse_markdown

    return parse_markdown(text)[1]


def test_rolling_summaries_are_for_standard_and_longer_files(tmp_path: Path) -> None:
    """As docs/run.md says: a changed STANDARD file's final builds on its previous final; a BRIEF one
    starts fresh from its source (no parent_id), its old final kept in history/ all the same."""
    corpus = tmp_path / "corpus"
    (corpus / "journal").mkdir(parents=True)
    texts = {"standard.md": journal_text(3, 12), "brief.md": journal_text(4, 2)}
    for name, text in texts.items():
        (corpus / "journal" / name).write_text(text)
    out = tmp_path / "out"
    run_json(corpus, out)
    for name, text in texts.items():
        (corpus / "journal" / name).write_text(text + "\nThe lamp in the kitchen was mended by the neighbour.\n")
    run_json(corpus, out)
    finals = {n.meta["doc_id"]: n.meta for n in iter_tree(out) if n.meta.get("is_final")}
    standard, brief = finals["journal/standard.md"], finals["journal/brief.md"]
    assert (standard["summary_level"], brief["summary_level"]) == ("STANDARD", "BRIEF")
    assert standard["depth"] == 1 and standard["parent_id"]
    assert brief["depth"] == 0 and brief["parent_id"] is None
    assert list((out / "journal" / "brief.md" / "summaries" / "history").glob("*.md"))
