"""A file with no text (zero bytes, only whitespace, a chat or subtitle file with nothing in it) is no
source: skipped with its reason like an export's metadata, nothing written for it, nothing redone for
it on the next night, and summarized once it holds text. A file emptied after it was summarized loses
its summaries as a deleted source does."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main
from batchsum.config import RunConfig
from batchsum.engine.changes import Known
from batchsum.engine.prepare import prepare_file
from batchsum.hashing import sha256_bytes
from batchsum.model import Document
from batchsum.state import StateStore
from batchsum.tokens import get_tokenizer
from batchsum.tree import node_path
from batchsum.walk import Problem, SourceRef

GOOD = (
    "# 2025-03-04\n\nThe harbour master promised a new crane by spring. We counted the trawlers that came in "
    "overnight and argued about the price of ice. Ingrid sent the survey of the north pier to Magnus. "
) * 3
EMPTIED = "# 2025-03-05\n\nThe lighthouse keeper found a seal asleep on the slipway and named it Bartholomew.\n" * 2
# Every kind of blank a file may hold: Python's whitespace, a BOM, Windows line ends, no-break spaces.
BLANKS = [" ", "\t", "\n", "\r\n", "\r", "\x0b", "\x0c", "\u00a0", "\u2003", "\u3000", "\u2028"]
SKIPPED = "nothing to summarize: skipped"


def _blank(rng: random.Random) -> str:
    return "".join(rng.choice(BLANKS) for _ in range(rng.randrange(0, 12)))


def _run(corpus: Path, out: Path, *extra: str) -> dict:
    r = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--json", *extra])
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


def _plan(corpus: Path, out: Path) -> dict:
    r = CliRunner().invoke(main, ["plan", str(corpus), "--out", str(out), "--json"])
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


def _files(data: dict) -> dict[str, dict]:
    return {f["relpath"]: f for f in data["files"]}


def _skipped(plan: dict) -> dict[str, str]:
    return {Path(p["path"]).name: p["reason"] for p in plan["skipped"]}


def test_any_blank_text_is_no_source_and_any_word_makes_one(tmp_path: Path) -> None:
    """Property: whatever blank a file holds, in whatever format, reading it finds no source (also when
    an older version recorded the same bytes); the same blank around one word is read and planned."""
    rng = random.Random(20261129)
    folder = tmp_path / "c"
    folder.mkdir()
    cfg = RunConfig(paths=[folder], out=tmp_path / "out")
    tokenizer = get_tokenizer(cfg.encoding)
    frames = {".md": "{}", ".txt": "{}", ".jsonl": "{}", ".vtt": "WEBVTT\n{}", ".srt": "{}"}
    for i in range(200):
        ext = rng.choice(sorted(frames))
        blank = _blank(rng)
        raw = frames[ext].format(blank).encode("utf-8")
        if rng.random() < 0.2:
            raw = b"\xef\xbb\xbf" + raw  # a byte order mark is no text either
        path = folder / f"f{i}{ext}"
        path.write_bytes(raw)
        ref = SourceRef(path, path.name, folder)
        for known in (None, Known(sha256_bytes(raw))):
            doc = prepare_file(ref, cfg, tokenizer, known).doc
            assert isinstance(doc, Problem), (ext, raw)
            assert not doc.failure and doc.reason.endswith(SKIPPED) and doc.relpath == path.name
            assert doc.reason.startswith("empty file (0 bytes)") == (not raw)
        if ext in (".md", ".txt"):
            word = rng.choice(["Lighthouse.", "Ferry", "ok", "Überfahrt", "渡し船"])
            cut = rng.randrange(len(blank) + 1)
            path.write_text(blank[:cut] + word + blank[cut:], encoding="utf-8")
            prepared = prepare_file(ref, cfg, tokenizer)
            assert isinstance(prepared.doc, Document) and prepared.plan is not None, (ext, blank)


def test_an_empty_file_is_passed_over_with_its_reason_and_costs_nothing_later(tmp_path: Path) -> None:
    corpus = tmp_path / "c"
    corpus.mkdir()
    (corpus / "2025-03-04.md").write_text(GOOD)
    (corpus / "empty.md").write_bytes(b"")
    (corpus / "blank.txt").write_text("  \n\t\n\u00a0\n")
    (corpus / "none.vtt").write_text("WEBVTT\n\n")
    out = tmp_path / "out"
    blanks = {"empty.md", "blank.txt", "none.vtt"}

    plan = _plan(corpus, out)
    assert plan["new"] == ["2025-03-04.md"] and set(_skipped(plan)) == blanks
    assert _skipped(plan)["empty.md"] == f"empty file (0 bytes), {SKIPPED}"
    assert plan["levels"] == {"BRIEF": 1} and not plan["problems"]

    first = _run(corpus, out)
    run, files = first["run"], _files(first)
    assert first["exit_code"] == 0 and run["status"] == "ok" and not first["problems"]
    # Named in the closing summary (a notice: --quiet leaves it to the event log), no failure.
    assert sorted(Path(w.split(": ")[0]).name for w in first["warnings"]) == sorted(blanks), first["warnings"]
    assert run["files_done"] == 1 and run["files_skipped"] == 3 and first["levels"] == {"BRIEF": 1}
    for rel in blanks:
        assert files[rel]["status"] == "skipped" and files[rel]["error"].startswith(("empty file", "no text"))
        assert files[rel]["level"] is None and files[rel]["output_tokens"] == 0
        assert not (out / rel).exists()  # no tree, not even an empty folder
    assert blanks.isdisjoint(StateStore(out / ".batchsum").load_manifest())
    assert blanks.isdisjoint(line.split("](")[0] for line in (out / "index.md").read_text().splitlines())
    r = CliRunner().invoke(main, ["report", "--out", str(out), "--json"])
    assert {s["relpath"] for s in json.loads(r.stdout)["skipped"]} == blanks

    # The next night: nothing to do, nothing rewritten; the blank files are named again, never summarized.
    written = {p: p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file() and ".batchsum" not in p.parts}
    manifest = (out / ".batchsum" / "manifest.json").stat().st_mtime_ns
    plan = _plan(corpus, out)
    assert not plan["new"] and not plan["changed"] and set(_skipped(plan)) == blanks
    assert plan["nodes"] == 0 and plan["periods"]["periods"] == []
    again = _run(corpus, out)
    assert again["run"]["files_done"] == 0 and again["run"]["nodes_computed"] == 0
    assert again["run"]["files_unchanged"] == 1 and again["run"]["files_skipped"] == 3
    assert (out / ".batchsum" / "manifest.json").stat().st_mtime_ns == manifest
    assert {p: p.stat().st_mtime_ns for p in written} == written

    # Given text, it is summarized like any new file.
    (corpus / "empty.md").write_text("Rowed out to buoy 7 and swapped its battery before the squall came in.\n")
    grown = _run(corpus, out)
    assert _files(grown)["empty.md"]["status"] == "done" and grown["run"]["files_skipped"] == 2
    assert node_path(out, "empty.md", 3, None).is_file()


def test_an_emptied_file_loses_its_summaries_as_a_deleted_one_does(tmp_path: Path) -> None:
    corpus = tmp_path / "c"
    corpus.mkdir()
    (corpus / "2025-03-04.md").write_text(GOOD)
    (corpus / "2025-03-05.md").write_text(EMPTIED)
    out = tmp_path / "out"
    _run(corpus, out)
    month = out / "digests" / "2025" / "2025-03.md"
    assert "Bartholomew" in month.read_text()

    (corpus / "2025-03-05.md").write_text(" \n")
    plan = _plan(corpus, out)
    assert _skipped(plan)["2025-03-05.md"].endswith(f"{SKIPPED}; its earlier summaries moved to deleted/")
    assert "month:2025-03" in plan["periods"]["periods"]
    emptied = _run(corpus, out)
    rec = _files(emptied)["2025-03-05.md"]
    assert rec["status"] == "skipped" and rec["error"] == _skipped(plan)["2025-03-05.md"]
    assert emptied["exit_code"] == 0 and not emptied["problems"]
    assert not (out / "2025-03-05.md" / "summaries").exists()
    assert list((out / "2025-03-05.md" / "deleted").glob("*/summaries/L3/final.md"))
    assert "2025-03-05.md" not in StateStore(out / ".batchsum").load_manifest()
    assert "Bartholomew" not in month.read_text() and "2025-03-05" not in (out / "index.md").read_text()
    r = CliRunner().invoke(main, ["search", "seal asleep on the slipway Bartholomew", "--out", str(out), "--json"])
    assert all(h["doc_id"] != "2025-03-05.md" for h in json.loads(r.stdout))

    # Written again: summarized again, back in its month.
    (corpus / "2025-03-05.md").write_text(EMPTIED)
    back = _run(corpus, out)
    assert _files(back)["2025-03-05.md"]["status"] == "done" and "Bartholomew" in month.read_text()


def test_an_empty_file_an_older_version_recorded_is_forgotten(tmp_path: Path) -> None:
    """Folders built before: an empty file had a manifest entry (level NONE, no final, counted as done).
    It is read once more, skipped, and its entry dropped; nothing else is redone."""
    corpus = tmp_path / "c"
    corpus.mkdir()
    (corpus / "2025-03-04.md").write_text(GOOD)
    out = tmp_path / "out"
    _run(corpus, out)
    empty = corpus / "empty.md"
    empty.write_bytes(b"")
    state = StateStore(out / ".batchsum")
    good = state.load_manifest()["2025-03-04.md"]
    st = empty.stat()
    old = replace(good, relpath="empty.md", size=0, mtime_ns=st.st_mtime_ns, sha256=sha256_bytes(b""),
                  content_type="document", level="NONE", tokens=0, chunks=0, node_ids=[], node_keys={},
                  final_id=None, final_key=None, final_tokens=0, final_stat=[], language=None)  # fmt: skip
    state.save_entry(old)
    state.write_snapshot()

    d = _run(corpus, out)
    assert _files(d)["empty.md"]["status"] == "skipped" and d["run"]["files_unchanged"] == 1
    assert d["run"]["nodes_computed"] == 0 and "NONE" not in d["levels"]
    assert "empty.md" not in StateStore(out / ".batchsum").load_manifest()
    assert _files(_run(corpus, out))["empty.md"]["status"] == "skipped"


def test_a_format_with_nothing_in_it_is_named_for_what_it_holds(tmp_path: Path) -> None:
    """A subtitle file of only its header, a chat export of no message, a LaTeX preamble or an Org file of
    only keywords holds no whitespace only: the reason says what it held (it had said "only whitespace")."""
    corpus = tmp_path / "c"
    corpus.mkdir()
    (corpus / "2025-03-04.md").write_text(GOOD)
    held = {
        "none.vtt": ("WEBVTT\n\n", "subtitles with no cue text"),
        "none.srt": ("1\n00:00:01,000 --> 00:00:02,000\n\n", "subtitles with no cue text"),
        "none.json": ("[]", "a chat with no message text"),
        "system.jsonl": ('{"role": "system", "content": "Be brief."}\n', "a chat with no message text"),
        "preamble.tex": ("\\documentclass{article}\n\\usepackage{amsmath}\n", "markup only"),
        "keywords.org": ("#+TITLE:\n#+STARTUP: overview\n", "markup only"),
        "blank.jsonl": (" \n\n", "a chat with no message text"),
    }
    for name, (text, _) in held.items():
        (corpus / name).write_text(text)
    reasons = _skipped(_plan(corpus, tmp_path / "out"))
    assert set(reasons) == set(held), reasons
    for name, (text, what) in held.items():
        assert reasons[name] == f"no text once read ({len(text.encode())} bytes: {what}), {SKIPPED}", name
