"""Indexing the Markdown tree into a real Chroma PersistentClient: sync, check, repair, rebuild, bad input."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from batchsum.cli import main
from batchsum.config import RunConfig
from batchsum.errors import IndexError_
from batchsum.index.store import (
    check_index,
    chroma_dir,
    open_client,
    rebuild_index,
    repair_index,
    sync_index,
    vector_store,
)
from batchsum.lock import RunLock
from batchsum.tree import node_path, summaries_dir, write_node

SHA = "0" * 64


def node_meta(
    rel: str,
    level: int,
    index: int | None,
    *,
    content_type: str = "document",
    doc_date: str | None = "2024-05-01",
    summary_level: str = "STANDARD",
    parent_group: int | None = None,
    n_chunks: int = 0,
    date_source: str | None = None,
) -> dict[str, Any]:
    """Front matter as the runner writes it."""
    meta: dict[str, Any] = {
        "id": f"{rel}:summary:L{level}:{'final' if index is None else index}",
        "doc_id": rel,
        "source_path": rel,
        "source_sha256": SHA,
        "role": "summary",
        "level": level,
    }
    if level == 1:
        meta["chunk_index"] = index
        if parent_group is not None:
            meta["parent_group"] = parent_group
    if level == 2:
        meta["group_index"] = index
    meta.update(
        {
            "is_final": level == 3,
            "summary_level": summary_level,
            "input_tokens": 3000 if level < 3 else max(1, n_chunks) * 3000,
            "output_tokens": 120,
            "compression_ratio": 0.04,
            "content_type": content_type,
            "backend": "extractive",
            "model": None,
            "created_at": "2025-06-01T12:00:00Z",
            "doc_date": doc_date,
        }
    )
    if date_source is not None:
        meta["date_source"] = date_source
    if level == 3:
        meta["parent_id"] = None
        meta["depth"] = 1
    return meta


def write_doc(
    out: Path,
    rel: str,
    final: str,
    *,
    chunks: list[str] | None = None,
    groups: list[str] | None = None,
    content_type: str = "document",
    doc_date: str | None = "2024-05-01",
    date_source: str | None = None,
) -> list[str]:
    """Write one source file's summary tree; return its node ids (``date_source``: where the date came from,
    e.g. "front matter"; without it only a date in the file name counts for recency)."""
    chunks = chunks or []
    groups = groups or []
    level_name = "HIERARCHICAL" if groups else ("DETAILED" if chunks else "STANDARD")
    ids = []
    for i, body in enumerate(chunks):
        meta = node_meta(rel, 1, i, content_type=content_type, doc_date=doc_date, summary_level=level_name,
                         parent_group=(i // 5) if groups else None, date_source=date_source)  # fmt: skip
        write_node(node_path(out, rel, 1, i), meta, body)
        ids.append(meta["id"])
    for j, body in enumerate(groups):
        meta = node_meta(rel, 2, j, content_type=content_type, doc_date=doc_date, summary_level=level_name,
                         date_source=date_source)  # fmt: skip
        write_node(node_path(out, rel, 2, j), meta, body)
        ids.append(meta["id"])
    meta = node_meta(rel, 3, None, content_type=content_type, doc_date=doc_date, summary_level=level_name,
                     n_chunks=len(chunks), date_source=date_source)  # fmt: skip
    write_node(node_path(out, rel, 3, None), meta, final)
    ids.append(meta["id"])
    return ids


def indexed(cfg: RunConfig) -> dict[str, dict[str, Any]]:
    """All records of the collection: id -> metadata (read through chromadb directly)."""
    col = open_client(cfg, create=False).get_collection(cfg.collection, embedding_function=None)
    res = col.get(include=["metadatas"])
    return dict(zip(res["ids"], res["metadatas"], strict=True))


@pytest.fixture()
def tree(tmp_path: Path) -> tuple[RunConfig, list[str]]:
    out = tmp_path / "out"
    ids = write_doc(
        out,
        "books/long.txt",
        "A sailor crosses the ocean, survives a storm and reaches a new harbour.",
        chunks=[
            "The sailor prepares the ship and loads fresh water.",
            "A storm breaks the mast; the crew repairs it at night.",
            "They sight land and enter the harbour at dawn.",
        ],
        groups=["The voyage: preparation, a storm and the arrival in the harbour."],
    )
    ids += write_doc(out, "notes/budget.md", "The committee cut the travel budget by ten percent.")
    ids += write_doc(
        out, "journal/2024-03-05.md", "Walked by the river and saw a heron.", content_type="journal",
        doc_date="2024-03-05",
    )  # fmt: skip
    ids += write_doc(out, "undated.md", "No date here: notes about gardening tomatoes.", doc_date=None)
    return RunConfig(paths=[], out=out), ids


def test_sync_indexes_every_node_with_its_metadata(tree: tuple[RunConfig, list[str]]) -> None:
    cfg, ids = tree
    stats = sync_index(cfg, ["books/long.txt", "notes/budget.md", "journal/2024-03-05.md", "undated.md"], [])
    assert stats.nodes_indexed == len(ids) == 8 and stats.docs == 4
    records = indexed(cfg)
    assert set(records) == set(ids)
    l1 = records["books/long.txt:summary:L1:1"]
    assert l1["level"] == 1 and l1["chunk_index"] == 1 and l1["parent_group"] == 0 and l1["is_final"] is False
    assert l1["role"] == "summary" and l1["doc_id"] == "books/long.txt" and l1["source_sha256"] == SHA
    assert l1["summary_path"] == "books/long.txt/summaries/L1/chunk_1.md"
    l2 = records["books/long.txt:summary:L2:0"]
    assert l2["group_index"] == 0 and l2["level"] == 2
    final = records["books/long.txt:summary:L3:final"]
    assert final["is_final"] is True and final["summary_level"] == "HIERARCHICAL"
    assert final["input_tokens"] == 9000 and final["compression_ratio"] == pytest.approx(0.04)
    assert final["doc_date"] == "2024-05-01" and final["doc_ts"] == 1714521600
    assert final["created_at"] == "2025-06-01T12:00:00Z" and len(final["content_hash"]) == 64
    undated = records["undated.md:summary:L3:final"]
    assert "doc_date" not in undated and "doc_ts" not in undated and "model" not in undated
    assert records["journal/2024-03-05.md:summary:L3:final"]["content_type"] == "journal"
    assert check_index(cfg).ok


def test_resync_of_unchanged_docs_embeds_nothing(tree: tuple[RunConfig, list[str]]) -> None:
    cfg, _ = tree
    sync_index(cfg, ["books/long.txt", "notes/budget.md"], [])
    again = sync_index(cfg, ["books/long.txt", "notes/budget.md"], [])
    assert again.nodes_indexed == 0 and again.nodes_unchanged == 6 and again.nodes_deleted == 0


def test_changed_doc_replaces_all_its_nodes(tree: tuple[RunConfig, list[str]]) -> None:
    cfg, _ = tree
    sync_index(cfg, ["books/long.txt"], [])
    # The source shrank: now a DETAILED doc with two chunks and no L2.
    shutil.rmtree(summaries_dir(cfg.out, "books/long.txt"))
    new_ids = write_doc(cfg.out, "books/long.txt", "A short crossing.", chunks=["Setting sail.", "Arriving."])
    stats = sync_index(cfg, ["books/long.txt"], [])
    assert stats.nodes_deleted == 2  # chunk_2 and group_0
    assert set(indexed(cfg)) == set(new_ids)


def test_deleted_source_leaves_no_node(tree: tuple[RunConfig, list[str]]) -> None:
    cfg, _ = tree
    sync_index(cfg, ["books/long.txt", "notes/budget.md"], [])
    shutil.rmtree(cfg.out / "books")
    stats = sync_index(cfg, [], ["books/long.txt"])
    assert stats.nodes_deleted == 5
    assert all(not nid.startswith("books/") for nid in indexed(cfg))
    assert {m["doc_id"] for m in indexed(cfg).values()} == {"notes/budget.md"}


def test_vector_store_follows_the_index(tree: tuple[RunConfig, list[str]]) -> None:
    cfg, _ids = tree
    sync_index(cfg, ["books/long.txt", "notes/budget.md", "journal/2024-03-05.md", "undated.md"], [])
    store = vector_store(cfg)
    try:
        assert store.hashes() == {k: v["content_hash"] for k, v in indexed(cfg).items()}
        rows = store.get_many(["notes/budget.md:summary:L3:final", "journal/2024-03-05.md:summary:L3:final"])
        budget, journal = rows["notes/budget.md:summary:L3:final"], rows["journal/2024-03-05.md:summary:L3:final"]
        assert budget.embedding.shape == (256,) and abs(float((budget.embedding**2).sum()) - 1.0) < 0.02
        # Only a date the document states (here: its file name) counts for recency, not a copy date.
        assert budget.recency_ts is None and journal.recency_ts == 1709596800
    finally:
        store.close()
    shutil.rmtree(cfg.out / "books")
    sync_index(cfg, [], ["books/long.txt"])
    store = vector_store(cfg)
    try:
        assert set(store.hashes()) == set(indexed(cfg)) and not any(i.startswith("books/") for i in store.hashes())
    finally:
        store.close()


def test_rebuild_replaces_corrupt_node_vectors(tree: tuple[RunConfig, list[str]]) -> None:
    cfg, ids = tree
    sync_index(cfg, ["notes/budget.md"], [])
    cache = cfg.state_dir / "vectors-batchsum.sqlite3"
    for extra in (cache.with_name(cache.name + "-wal"), cache.with_name(cache.name + "-shm")):
        extra.unlink(missing_ok=True)
    cache.write_bytes(b"garbage" * 1000)
    res = CliRunner().invoke(main, ["search", "budget", "--out", str(cfg.out)])
    assert res.exit_code == 2 and "--rebuild" in _one_line_error(res.output)
    assert rebuild_index(cfg).nodes_indexed == len(ids)
    res = CliRunner().invoke(main, ["search", "budget", "--out", str(cfg.out)])
    assert res.exit_code == 0 and "notes/budget.md" in res.output


def test_check_finds_missing_stale_and_orphan_nodes_and_repair_fixes_them(tree: tuple[RunConfig, list[str]]) -> None:
    cfg, _ = tree
    sync_index(cfg, ["books/long.txt", "notes/budget.md", "journal/2024-03-05.md", "undated.md"], [])
    # orphan: a node file removed behind the index's back; missing: a new file never indexed;
    # stale: a file edited after indexing.
    node_path(cfg.out, "books/long.txt", 1, 2).unlink()
    write_doc(cfg.out, "new/doc.md", "A fresh summary nobody indexed.")
    write_doc(cfg.out, "notes/budget.md", "The committee cut the travel budget by twenty percent.")
    check = check_index(cfg)
    assert check.orphans == ["books/long.txt:summary:L1:2"]
    assert check.missing == ["new/doc.md:summary:L3:final"]
    assert check.stale == ["notes/budget.md:summary:L3:final"]
    assert not check.ok
    stats = repair_index(cfg)
    assert (stats.nodes_indexed, stats.nodes_deleted) == (2, 1)
    assert check_index(cfg).ok


def test_rebuild_from_the_tree_gives_the_same_ids(tree: tuple[RunConfig, list[str]]) -> None:
    cfg, ids = tree
    sync_index(cfg, ["books/long.txt", "notes/budget.md", "journal/2024-03-05.md", "undated.md"], [])
    before = indexed(cfg)
    stats = rebuild_index(cfg)
    after = indexed(cfg)
    assert stats.nodes_indexed == len(ids)
    assert set(after) == set(before) == set(ids)
    assert {k: v["content_hash"] for k, v in after.items()} == {k: v["content_hash"] for k, v in before.items()}
    assert check_index(cfg).ok


def test_cli_index_check_repair_and_rebuild(tree: tuple[RunConfig, list[str]]) -> None:
    cfg, ids = tree
    runner = CliRunner()
    res = runner.invoke(main, ["index", str(cfg.out)])
    assert res.exit_code == 0, res.output
    assert f"{len(ids)} nodes embedded" in res.output
    assert chroma_dir(cfg).is_dir()
    node_path(cfg.out, "books/long.txt", 1, 0).unlink()
    res = runner.invoke(main, ["index", str(cfg.out), "--check"])
    assert res.exit_code == 1
    assert "1 orphan" in res.output and "books/long.txt:summary:L1:0" in res.output
    res = runner.invoke(main, ["index", str(cfg.out)])
    assert res.exit_code == 0 and "1 removed" in res.output
    res = runner.invoke(main, ["index", str(cfg.out), "--check", "--json"])
    assert res.exit_code == 0 and '"ok": true' in res.output
    # As a user types it, from the folder above the output: a relative path.
    cwd = os.getcwd()
    os.chdir(cfg.out.parent)
    try:
        res = runner.invoke(main, ["index", cfg.out.name, "--check"])
    finally:
        os.chdir(cwd)
    assert res.exit_code == 0, res.output
    res = runner.invoke(main, ["index", str(cfg.out), "--rebuild"])
    assert res.exit_code == 0 and f"{len(ids) - 1} nodes embedded" in res.output
    res = runner.invoke(main, ["index", str(cfg.out), "--rebuild", "--check"])
    assert res.exit_code == 2 and "exclude each other" in res.output


def test_repair_and_rebuild_wait_for_a_run_on_the_same_output(tree: tuple[RunConfig, list[str]]) -> None:
    cfg, ids = tree
    with RunLock(cfg.out):  # a run in progress
        for extra in ([], ["--rebuild"]):
            res = CliRunner().invoke(main, ["index", str(cfg.out), *extra])
            assert res.exit_code == 3, res.output
            assert "is locked by" in res.output and "--wait" in res.output
        res = CliRunner().invoke(main, ["index", str(cfg.out), "--check"])  # reading needs no lock
        assert res.exit_code == 2 and "no search index" in res.output
    assert not chroma_dir(cfg).exists()  # nothing was indexed behind the run's back
    res = CliRunner().invoke(main, ["index", str(cfg.out), "--wait"])
    assert res.exit_code == 0 and f"{len(ids)} nodes embedded" in res.output


# -- bad input: one line, exit 2, nothing deleted ---------------------------------------------------------


def _one_line_error(output: str) -> str:
    lines = [ln for ln in output.splitlines() if ln.strip()]
    assert len(lines) == 1, output
    assert lines[0].startswith("Error: ")
    return lines[0]


def test_output_without_index(tree: tuple[RunConfig, list[str]]) -> None:
    cfg, _ = tree
    res = CliRunner().invoke(main, ["search", "budget", "--out", str(cfg.out)])
    assert res.exit_code == 2
    assert f"batchsum index {cfg.out} --rebuild" in _one_line_error(res.output)
    assert not cfg.state_dir.exists()  # searching must not create an empty index
    res = CliRunner().invoke(main, ["index", str(cfg.out), "--check"])
    assert res.exit_code == 2 and "no search index" in res.output


def test_missing_output_folder(tmp_path: Path) -> None:
    res = CliRunner().invoke(main, ["search", "budget", "--out", str(tmp_path / "nope")])
    assert res.exit_code == 2 and "does not exist" in _one_line_error(res.output)
    res = CliRunner().invoke(main, ["index", str(tmp_path / "nope")])
    assert res.exit_code == 2 and "does not exist" in res.output
    assert not (tmp_path / "nope").exists()


def test_index_from_another_model_is_refused_and_kept(tree: tuple[RunConfig, list[str]]) -> None:
    cfg, _ = tree
    client = open_client(cfg, create=True)
    col = client.create_collection(
        cfg.collection, metadata={"embed_model": "text-embedding-3-small", "embed_dim": 1536}, embedding_function=None
    )
    col.add(ids=["x"], embeddings=[[0.1] * 1536], documents=["other"])
    res = CliRunner().invoke(main, ["search", "budget", "--out", str(cfg.out)])
    assert res.exit_code == 2
    line = _one_line_error(res.output)
    assert "text-embedding-3-small" in line and f"batchsum index {cfg.out} --rebuild" in line
    res = CliRunner().invoke(main, ["index", str(cfg.out)])
    assert res.exit_code == 2
    assert indexed(cfg) == {"x": None}  # untouched
    # --rebuild is the way out.
    res = CliRunner().invoke(main, ["index", str(cfg.out), "--rebuild"])
    assert res.exit_code == 0, res.output
    assert "x" not in indexed(cfg) and len(indexed(cfg)) == 8


def test_chroma_server_down(tree: tuple[RunConfig, list[str]]) -> None:
    cfg, _ = tree
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    args = ["--out", str(cfg.out), "--chroma-host", "127.0.0.1", "--chroma-port", str(port)]
    res = CliRunner().invoke(main, ["search", "budget", *args])
    assert res.exit_code == 2
    assert f"cannot reach Chroma server 127.0.0.1:{port}" in _one_line_error(res.output)
    res = CliRunner().invoke(main, ["index", str(cfg.out), "--chroma-host", "127.0.0.1", "--chroma-port", str(port)])
    assert res.exit_code == 2 and "cannot reach Chroma server" in res.output
    with pytest.raises(IndexError_):
        sync_index(RunConfig(paths=[], out=cfg.out, chroma_host="127.0.0.1", chroma_port=port), ["notes/budget.md"], [])
    # A run whose index cannot be updated writes its summaries, exits 1 and says it is partial.
    src = cfg.out.parent / "more"
    src.mkdir()
    (src / "note.md").write_text("We repainted the pier and ordered new mooring rings from the foundry in Bergen.\n")
    run_args = ["run", str(src), "--out", str(cfg.out.parent / "out2"), "--chroma-host", "127.0.0.1"]
    res = CliRunner().invoke(main, [*run_args, "--chroma-port", str(port), "--json"])
    assert res.exit_code == 1 and json.loads(res.stdout)["run"]["status"] == "partial"
    assert (cfg.out.parent / "out2" / "note.md" / "summaries" / "L3" / "final.md").is_file()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture()
def chroma_server(tmp_path: Path) -> Iterator[int]:
    """A real Chroma server on loopback (the `chroma` CLI installed with chromadb)."""
    exe = Path(sys.executable).with_name("chroma")
    if not exe.is_file():
        pytest.skip("the chroma CLI is not installed next to this Python")
    port = _free_port()
    env = {**os.environ, "ANONYMIZED_TELEMETRY": "False"}
    proc = subprocess.Popen(
        [str(exe), "run", "--path", str(tmp_path / "server-data"), "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v2/heartbeat", timeout=2).read()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.skip("the Chroma server did not start")
                time.sleep(0.3)
        yield port
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def test_chroma_server_via_http_client(tree: tuple[RunConfig, list[str]], chroma_server: int) -> None:
    cfg, _ids = tree
    remote = RunConfig(paths=[], out=cfg.out, chroma_host="127.0.0.1", chroma_port=chroma_server, collection="team")
    assert sync_index(remote, ["books/long.txt", "notes/budget.md"], []).nodes_indexed == 6
    assert not chroma_dir(cfg).exists()  # nothing embedded locally: the server holds the index
    args = ["--chroma-host", "127.0.0.1", "--chroma-port", str(chroma_server), "--collection", "team"]
    res = CliRunner().invoke(main, ["search", "travel budget", "--out", str(cfg.out), *args, "--json"])
    assert res.exit_code == 0, res.output
    assert '"source_path": "notes/budget.md"' in res.output
    res = CliRunner().invoke(main, ["index", str(cfg.out), *args, "--check"])
    assert res.exit_code == 1 and "2 missing" in res.output, res.output  # the two docs never synced
    assert f"run `batchsum index {cfg.out} {' '.join(args)}` to repair" in res.output  # on the server
    res = CliRunner().invoke(main, ["index", str(cfg.out), *args])
    assert res.exit_code == 0 and check_index(remote).ok
    # A local search of the same output has no index of its own.
    res = CliRunner().invoke(main, ["search", "travel budget", "--out", str(cfg.out)])
    assert res.exit_code == 2
    # Another output folder on the same server and collection would delete this one's records as
    # orphans: it is refused, named, and pointed to a collection of its own.
    other = cfg.out.parent / "other-out"
    shutil.copytree(cfg.out, other)
    res = CliRunner().invoke(main, ["index", str(other), *args])
    assert res.exit_code == 2 and f"belongs to the output folder {os.path.realpath(cfg.out)}" in res.output
    assert check_index(remote).ok  # untouched


def test_corrupt_chroma_folder(tree: tuple[RunConfig, list[str]]) -> None:
    cfg, _ = tree
    db = chroma_dir(cfg) / "chroma.sqlite3"
    db.parent.mkdir(parents=True)
    garbage = b"this is not a sqlite database\x00" * 100
    db.write_bytes(garbage)
    res = CliRunner().invoke(main, ["search", "budget", "--out", str(cfg.out)])
    assert res.exit_code == 2
    assert f"batchsum index {cfg.out} --rebuild" in _one_line_error(res.output)
    assert db.read_bytes() == garbage
    res = CliRunner().invoke(main, ["index", str(cfg.out), "--check"])
    assert res.exit_code == 2 and db.read_bytes() == garbage
    # --rebuild moves the broken folder aside (never deletes it) and indexes afresh.
    res = CliRunner().invoke(main, ["index", str(cfg.out), "--rebuild"])
    assert res.exit_code == 0, res.output
    broken = [p for p in cfg.state_dir.iterdir() if p.name.startswith("chroma.broken-")]
    assert len(broken) == 1 and (broken[0] / "chroma.sqlite3").read_bytes() == garbage
    assert check_index(cfg).ok


def test_bad_collection_name(tree: tuple[RunConfig, list[str]]) -> None:
    cfg, _ = tree
    res = CliRunner().invoke(main, ["index", str(cfg.out), "--collection", "a b"])
    assert res.exit_code == 2 and "--collection" in _one_line_error(res.output)


# -- layout upgrades, incomplete indexes, quiet re-runs ----------------------------------------------------


def _legacy_index(cfg: RunConfig, ids: list[str]) -> Path:
    """An index as the previous layout left it: MiniLM (384 dims) records with documents, no state file,
    the MaxSim token-vector cache beside it."""
    col = open_client(cfg, create=True).create_collection(
        cfg.collection,
        metadata={"embed_model": "all-MiniLM-L6-v2-onnx-int8", "embed_dim": 384, "batchsum_schema": 1},
        embedding_function=None,
    )
    col.add(ids=ids, embeddings=[[0.05] * 384 for _ in ids], documents=["old text"] * len(ids))
    tokvecs = cfg.state_dir / "tokvecs-batchsum.sqlite3"
    tokvecs.write_bytes(b"SQLite format 3\x00" + b"\x00" * 4096)
    return tokvecs


def test_an_index_of_the_older_layout_is_never_read_and_the_next_run_rebuilds_it(
    tree: tuple[RunConfig, list[str]], caplog: pytest.LogCaptureFixture
) -> None:
    cfg, ids = tree
    tokvecs = _legacy_index(cfg, ids)
    res = CliRunner().invoke(main, ["search", "travel budget", "--out", str(cfg.out)])
    assert res.exit_code == 2 and "older batchsum" in _one_line_error(res.output)
    with caplog.at_level("WARNING", logger="batchsum"):
        stats = sync_index(cfg, [], [])  # what a quiet run does when the cheap check says so
    assert stats.nodes_indexed == len(ids) and any("older batchsum" in n for n in stats.notes)
    assert "older batchsum" in caplog.text
    assert not tokvecs.exists() and check_index(cfg).ok
    meta = open_client(cfg, create=False).get_collection(cfg.collection, embedding_function=None).metadata
    assert meta["embed_model"] == "minilm-static-256" and meta["embed_dim"] == 256
    res = CliRunner().invoke(main, ["search", "travel budget", "--out", str(cfg.out), "--json"])
    assert res.exit_code == 0 and json.loads(res.output)[0]["source_path"] == "notes/budget.md"


def test_an_interrupted_rebuild_is_flagged_searched_with_a_warning_and_repaired(
    tree: tuple[RunConfig, list[str]],
) -> None:
    cfg, ids = tree
    sync_index(cfg, ["notes/budget.md", "books/long.txt"], [])
    # A rebuild that dies half-way (here: the lexical layer cannot be written) leaves the index flagged.
    lexical = cfg.state_dir / "lexical-batchsum.sqlite3"
    lexical.unlink()
    lexical.mkdir()
    with pytest.raises(OSError):
        rebuild_index(cfg)
    assert json.loads((cfg.state_dir / "index-batchsum.json").read_text())["complete"] is False
    res = CliRunner().invoke(main, ["search", "travel budget", "--out", str(cfg.out)])
    assert res.exit_code == 0 and "incomplete" in res.output and "notes/budget.md" in res.output
    res = CliRunner().invoke(main, ["search", "travel budget", "--out", str(cfg.out), "--strict"])
    assert res.exit_code != 0 and "incomplete" in _one_line_error(res.output)
    lexical.rmdir()
    stats = sync_index(cfg, [], [])  # the next run repairs it, though no source changed
    assert any("interrupted" in n for n in stats.notes)
    assert lexical.is_file() and check_index(cfg).ok and len(indexed(cfg)) == len(ids)
    res = CliRunner().invoke(main, ["search", "travel budget", "--out", str(cfg.out), "--strict", "--json"])
    assert res.exit_code == 0 and json.loads(res.output)[0]["source_path"] == "notes/budget.md"


def test_index_stats_show_size_per_part_and_node(tree: tuple[RunConfig, list[str]]) -> None:
    cfg, ids = tree
    sync_index(cfg, ["books/long.txt", "notes/budget.md", "journal/2024-03-05.md", "undated.md"], [])
    res = CliRunner().invoke(main, ["index", str(cfg.out), "--stats", "--json"])
    assert res.exit_code == 0, res.output
    st = json.loads(res.output)
    parts = {p["name"]: p["bytes"] for p in st["parts"]}
    assert st["nodes"] == len(ids) and st["state"] == "complete"
    assert parts["chroma"] > 0 and parts["lexical"] > 0 and parts["vectors"] > 0
    assert st["total_bytes"] == sum(parts.values()) and st["bytes_per_node"] == pytest.approx(
        st["total_bytes"] / 8, 0.1
    )
    res = CliRunner().invoke(main, ["index", str(cfg.out), "--stats"])
    assert res.exit_code == 0 and "B/node" in res.output and "lexical" in res.output


def _run(corpus: Path, out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "batchsum", "run", str(corpus), "--out", str(out), *extra],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])},
    )


def test_a_quiet_rerun_after_a_changing_run_opens_no_index_but_repairs_a_missing_part(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    day = "We repaired the harbour crane and painted the old shed. The gulls were loud over the boats. "
    (corpus / "2024-03-01.md").write_text("# Monday\n\n" + day * 12)
    ice = "The fishermen argued about the price of ice all morning. Nobody agreed on the new quota. "
    (corpus / "2024-03-02.md").write_text("# Tuesday\n\n" + ice * 12)
    out = tmp_path / "out"
    assert _run(corpus, out).returncode == 0
    ferry = "The ferry was late; we waited two hours at the pier. The captain blamed the fog in the bay. "
    (corpus / "2024-03-02.md").write_text("# Tuesday\n\n" + ferry * 12)
    assert _run(corpus, out).returncode == 0  # a changing run
    state = out / ".batchsum"
    # Damage every part of the index: a run that opened any of them would fail to read it.
    damaged = {p: b"not a database, must stay unread\x00" * 64 for p in
               (state / "chroma" / "chroma.sqlite3", state / "lexical-batchsum.sqlite3",
                state / "vectors-batchsum.sqlite3")}  # fmt: skip
    for p, data in damaged.items():
        for side in ("-wal", "-shm"):
            Path(f"{p}{side}").unlink(missing_ok=True)
        p.write_bytes(data)
    quiet = _run(corpus, out)
    assert quiet.returncode == 0 and "index" not in quiet.stderr.lower(), quiet.stderr
    assert all(p.read_bytes() == data for p, data in damaged.items())
    # A missing part is noticed by a few stats and rebuilt by the next run, though nothing changed.
    shutil.rmtree(state / "chroma")
    for p in (state / "lexical-batchsum.sqlite3", state / "vectors-batchsum.sqlite3"):
        p.unlink()
    repaired = _run(corpus, out)
    assert repaired.returncode == 0 and "Chroma folder" in repaired.stderr and "missing" in repaired.stderr
    cfg = RunConfig(paths=[], out=out)
    assert check_index(cfg).ok and (state / "lexical-batchsum.sqlite3").is_file()
    hits = [h["source_path"] for h in json.loads(CliRunner().invoke(
        main, ["search", "ferry late at the pier", "--out", str(out), "--json"]).output)]  # fmt: skip
    assert hits[0] == "2024-03-02.md"


def test_check_reads_a_read_only_output_and_finds_a_garbage_lexical_file(
    tree: tuple[RunConfig, list[str]], tmp_path: Path
) -> None:
    from batchsum.index.state import lexical_path
    from tests.readonly import CannotMakeReadOnly, read_only_view

    cfg, _ = tree
    runner = CliRunner()
    assert runner.invoke(main, ["index", str(cfg.out)]).exit_code == 0
    try:
        with read_only_view(cfg.out, tmp_path / "ro") as ro:
            res = runner.invoke(main, ["index", str(ro), "--check"])
            assert res.exit_code == 0 and "index OK" in res.output, res.output
            assert "corrupt" not in res.output and "unreadable" not in res.output
    except CannotMakeReadOnly as exc:
        pytest.skip(str(exc))
    lexical = lexical_path(cfg)
    lexical.write_bytes(b"garbage " * 4096)
    for extra in ([], ["--json"]):
        res = runner.invoke(main, ["index", str(cfg.out), "--check", *extra])
        assert res.exit_code == 1 and "lexical index" in res.output, res.output
    assert "--rebuild" in res.output or '"damaged"' in res.output


def test_searching_while_the_first_run_builds_the_index_says_so(tree: tuple[RunConfig, list[str]]) -> None:
    """A first run holds the folder and has not indexed yet: the advice is to wait, not to rebuild."""
    cfg, _ = tree
    code = (
        "import sys, time; from pathlib import Path; from batchsum.lock import RunLock\n"
        "lock = RunLock(Path(sys.argv[1])).acquire(); print('held', flush=True); time.sleep(60)\n"
    )
    holder = subprocess.Popen([sys.executable, "-c", code, str(cfg.out)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        res = CliRunner().invoke(main, ["search", "budget", "--out", str(cfg.out)])
        assert res.exit_code == 2
        assert f"a run (pid {holder.pid}" in res.output and "search again when it ends" in res.output, res.output
    finally:
        holder.kill()
        holder.wait()
    res = CliRunner().invoke(main, ["search", "budget", "--out", str(cfg.out)])
    assert f"batchsum index {cfg.out} --rebuild" in res.output  # nobody is building it now


def _hold_the_lock(out: Path) -> subprocess.Popen[str]:
    """A process holding ``out``'s lock, as a run does while it syncs the index."""
    code = (
        "import sys, time; from pathlib import Path; from batchsum.lock import RunLock\n"
        "lock = RunLock(Path(sys.argv[1])).acquire(); print('held', flush=True); time.sleep(60)\n"
    )
    holder = subprocess.Popen([sys.executable, "-c", code, str(out)], stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    return holder


def test_search_and_stats_while_a_run_updates_the_index_say_a_run_is_indexing_it(
    tree: tuple[RunConfig, list[str]],
) -> None:
    """A run marks the index incomplete while it syncs: search said "an indexing run was interrupted" and advised
    `batchsum index OUT` (which exits 3 on the run's lock), and --stats said "repairing it"."""
    cfg, _ = tree
    sync_index(cfg, ["notes/budget.md", "books/long.txt"], [])
    state = cfg.state_dir / "index-batchsum.json"
    state.write_text(json.dumps({**json.loads(state.read_text()), "complete": False}))  # as a run marks it
    holder = _hold_the_lock(cfg.out)
    try:
        for extra in ([], ["--strict"]):
            res = CliRunner().invoke(main, ["search", "travel budget", "--out", str(cfg.out), *extra])
            assert res.exit_code == (2 if extra else 0), res.output
            assert f"a run (pid {holder.pid}" in res.stderr and "search again when it ends" in res.stderr, res.stderr
            assert "interrupted" not in res.stderr and "batchsum index" not in res.stderr, res.stderr
        st = json.loads(CliRunner().invoke(main, ["index", str(cfg.out), "--stats", "--json"]).stdout)
        assert st["state"].startswith("being updated: a run (pid"), st["state"]
        res = CliRunner().invoke(main, ["index", str(cfg.out), "--check"])  # it had said "index OK"
        assert res.exit_code == 1 and f"incomplete: a run (pid {holder.pid}" in res.output, res.output
        assert "check again when it ends" in res.output and "to repair" not in res.output, res.output
    finally:
        holder.kill()
        holder.wait()
    res = CliRunner().invoke(main, ["search", "travel budget", "--out", str(cfg.out)])
    assert "interrupted" in res.stderr and f"batchsum index {cfg.out}" in res.stderr, res.stderr
    st = json.loads(CliRunner().invoke(main, ["index", str(cfg.out), "--stats", "--json"]).stdout)
    assert st["state"].startswith("incomplete (") and st["state"].endswith(f"`batchsum index {cfg.out}` repairs it")
    assert "repairing" not in st["state"], st["state"]
    res = CliRunner().invoke(main, ["index", str(cfg.out), "--check"])
    assert res.exit_code == 1 and "incomplete: marked so by an indexing run that was interrupted" in res.output
    assert f"run `batchsum index {cfg.out}` to repair" in res.output, res.output
    assert CliRunner().invoke(main, ["index", str(cfg.out)]).exit_code == 0
    assert CliRunner().invoke(main, ["index", str(cfg.out), "--check"]).exit_code == 0
    res = CliRunner().invoke(main, ["index", str(cfg.out), "--collection", "other", "--stats", "--json"])
    assert res.exit_code == 0 and json.loads(res.stdout)["state"] == "no index (collection 'other')", res.output
