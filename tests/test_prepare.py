"""Reading and planning one file (`prepare_file`), as a run and `batchsum plan` do."""

from __future__ import annotations

import json
import os
from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main
from batchsum.config import LLMConfig, RunConfig
from batchsum.engine.changes import Known
from batchsum.engine.prepare import prepare_file
from batchsum.state import StateStore
from batchsum.tokens import get_tokenizer
from batchsum.walk import READER_VERSION, Problem, SourceRef
from tests.fakeserver import FakeLLMServer

MEETING = "".join(
    f"Ana: Item {i}: we decided to move the buoy calibration to week {i} after the storm report.\n"
    f"Ben: I'll send the revised schedule for site {i} by Friday, and check the sensor logs.\n"
    for i in range(400)
)

N_FILES = 8


def _corpus(root: Path, n: int) -> list[SourceRef]:
    root.mkdir()
    (root / "meeting.txt").write_text(MEETING)
    (root / "notes.md").write_text("# Notes\n\n" + "The harbour survey found three damaged moorings. " * 60)
    for i in range(n - 2):
        (root / f"day{i}.txt").write_text(f"Day {i}: walked to the lighthouse and counted {i} gulls on the pier.")
    return [SourceRef(p, p.name, root) for p in sorted(root.iterdir())]


def test_a_file_is_read_and_planned_unless_its_content_is_the_recorded_one(tmp_path: Path) -> None:
    refs = _corpus(tmp_path / "in", 3)
    refs.append(SourceRef(tmp_path / "in" / "gone.txt", "gone.txt", tmp_path / "in"))
    cfg = RunConfig(paths=[tmp_path / "in"], out=tmp_path / "out", llm=LLMConfig(base_url="http://127.0.0.1:9/v1"))
    tokenizer = get_tokenizer(cfg.encoding)
    by_name = {r.relpath: r for r in refs}
    meeting = prepare_file(by_name["meeting.txt"], cfg, tokenizer)
    assert not isinstance(meeting.doc, Problem) and meeting.plan is not None
    assert meeting.plan.doc is meeting.doc and meeting.doc.tokens > 3000 and len(meeting.plan.nodes) > 1
    gone = prepare_file(by_name["gone.txt"], cfg, tokenizer)
    assert isinstance(gone.doc, Problem) and gone.plan is None and "gone.txt" in gone.doc.path
    same = prepare_file(by_name["meeting.txt"], cfg, tokenizer, Known(meeting.doc.sha256))
    assert same.plan is None and not isinstance(same.doc, Problem) and same.doc.sha256 == meeting.doc.sha256
    # Read by another reader version: the same bytes count as touched only if they read as the same text.
    assert prepare_file(by_name["meeting.txt"], cfg, tokenizer, Known(meeting.doc.sha256, "0" * 64)).plan
    alike = Known(meeting.doc.sha256, meeting.doc.text_sha)
    assert prepare_file(by_name["meeting.txt"], cfg, tokenizer, alike).plan is None


def test_touched_files_of_an_llm_run_are_read_compared_and_not_sent_again(tmp_path: Path) -> None:
    _corpus(tmp_path / "in", N_FILES)
    out = tmp_path / "out"
    args = ["run", str(tmp_path / "in"), "--out", str(out), "--no-index", "--json", "--rpm", "0", "--tpm", "0"]
    with FakeLLMServer().start() as server:
        server.configure(any_model=True)
        args += ["--base-url", server.base_url, "--model", "m", "--log-file", str(tmp_path / "run.log")]
        first = CliRunner().invoke(main, args)
        assert first.exit_code == 0, first.output
        data = json.loads(first.stdout)
        assert data["run"]["files_done"] == N_FILES and data["run"]["llm_calls"] == len(server.requests())
        assert data["run"]["llm_calls"] > 2
        finals = sorted(out.rglob("final.md"))
        assert len(finals) == N_FILES
        # Touched, not changed: read again, found identical, nothing sent.
        calls = len(server.requests())
        for p in (tmp_path / "in").iterdir():
            os.utime(p, ns=(p.stat().st_atime_ns, p.stat().st_mtime_ns + 10**9))
        again = CliRunner().invoke(main, args)
        assert again.exit_code == 0, again.output
        data = json.loads(again.stdout)
        assert data["run"]["files_unchanged"] == N_FILES and len(server.requests()) == calls


def test_after_a_reader_upgrade_only_files_read_as_another_text_are_summarized_again(tmp_path: Path) -> None:
    """An LLM-built folder gets a new reader's text for the files it reads differently, and reads the
    rest once: entries as an older version left them are set up on disk, not patched in."""
    _corpus(tmp_path / "in", N_FILES)
    out = tmp_path / "out"
    args = ["run", str(tmp_path / "in"), "--out", str(out), "--no-index", "--json", "--rpm", "0", "--tpm", "0"]
    with FakeLLMServer().start() as server:
        server.configure(any_model=True)
        args += ["--base-url", server.base_url, "--model", "m"]
        first = CliRunner().invoke(main, args)
        assert first.exit_code == 0, first.output
        store = StateStore(out / ".batchsum")
        entries = store.load_manifest()
        assert {e.reader for e in entries.values()} == {READER_VERSION} and all(e.text_sha for e in entries.values())
        # notes.md was read as another text by the old reader; meeting.txt as this one; day0.txt before
        # texts were recorded; the rest by this version.
        read_as = {"notes.md": "0" * 64, "meeting.txt": entries["meeting.txt"].text_sha, "day0.txt": ""}
        for rel, text_sha in read_as.items():
            entries[rel].reader, entries[rel].text_sha = READER_VERSION - 1, text_sha
            store.save_entry(entries[rel])
        calls = len(server.requests())
        again = CliRunner().invoke(main, args)
        assert again.exit_code == 0, again.output
        status = {f["relpath"]: f["status"] for f in json.loads(again.stdout)["files"]}
        assert status["notes.md"] == "done"
        assert {s for rel, s in status.items() if rel != "notes.md"} == {"unchanged"}
        # The bytes here read as before, so notes.md's nodes have their old inputs: stored, not sent.
        assert len(server.requests()) == calls
        now = StateStore(out / ".batchsum").load_manifest()
        assert {e.reader for e in now.values()} == {READER_VERSION}
        assert now["day0.txt"].text_sha  # recorded now, for the next upgrade
        third = CliRunner().invoke(main, args)  # nothing to read: the stat fast path again
        assert json.loads(third.stdout)["run"]["files_unchanged"] == N_FILES


def _slack_day(root: Path, ana: str) -> Path:
    """A long Slack day file (several chunks) whose U1 is named ``ana`` by the export's users.json."""
    users = [{"id": "U1", "name": "ana", "real_name": ana}, {"id": "U2", "name": "ben", "real_name": "Ben Okafor"}]
    (root / "budget").mkdir(parents=True, exist_ok=True)
    (root / "users.json").write_text(json.dumps(users))
    day = root / "budget" / "2024-03-12.json"
    if not day.exists():
        topics = ["the Northwind quote", "the venue deposit", "the catering order", "the speaker travel"]
        msgs = [
            {
                "type": "message",
                "user": f"U{1 + i % 2}",
                "ts": str(1710230000 + i),
                "text": f"Item {i}: we should settle {topics[i % 4]} for site {i} by the March {1 + i % 28} review.",
            }
            for i in range(320)
        ]
        day.write_text(json.dumps(msgs))
    return day


def test_a_file_read_as_another_text_after_an_upgrade_is_summarized_from_it(tmp_path: Path) -> None:
    """A new reader version's text reaches a file whose bytes did not change, and its recorded nodes
    are not restored over it: the older version's entry is set up on disk as it would have left it."""
    export, out = tmp_path / "export", tmp_path / "out"
    _slack_day(export, "Ana Silva")
    args = ["run", str(export), "--out", str(out), "--no-index", "--no-metrics", "--json"]
    assert CliRunner().invoke(main, args).exit_code == 0
    final = out / "budget/2024-03-12.json/summaries/L3/final.md"
    assert "Ana Silva" in final.read_text() and len(list(final.parent.parent.glob("L1/*.md"))) > 1
    _slack_day(export, "Ana Ferreira")  # the day file's bytes and stat stay as they were
    again = json.loads(CliRunner().invoke(main, args).stdout)
    # A new users.json alone renames nobody (docs/run.md).
    assert {f["relpath"]: f["status"] for f in again["files"]}["budget/2024-03-12.json"] == "unchanged"
    store = StateStore(out / ".batchsum")
    entry = store.load_manifest()["budget/2024-03-12.json"]
    entry.reader = READER_VERSION - 1  # summarized by the version before: read again, found another text
    store.save_entry(entry)
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert {f["relpath"]: f["status"] for f in data["files"]}["budget/2024-03-12.json"] == "done"
    assert any("read as another text" in w for w in data["warnings"])
    text = final.read_text()
    assert "Ana Ferreira" in text and "Ana Silva" not in text
    assert StateStore(out / ".batchsum").load_manifest()["budget/2024-03-12.json"].reader == READER_VERSION


def test_plan_says_which_unchanged_files_a_reader_upgrade_reads_as_another_text(tmp_path: Path) -> None:
    """After an upgrade `batchsum plan` lists a file the user never touched as changed: it says why, as
    the run will (entries as an older version left them are set up on disk)."""
    _corpus(tmp_path / "in", 4)
    out = tmp_path / "out"
    args = [str(tmp_path / "in"), "--out", str(out)]
    assert CliRunner().invoke(main, ["run", *args, "--no-index", "--no-metrics"]).exit_code == 0
    store = StateStore(out / ".batchsum")
    entries = store.load_manifest()
    read_as = {"notes.md": "0" * 64, "meeting.txt": entries["meeting.txt"].text_sha}  # another text, the same one
    for rel, text_sha in read_as.items():
        entries[rel].reader, entries[rel].text_sha = READER_VERSION - 1, text_sha
        store.save_entry(entries[rel])
    planned = json.loads(CliRunner().invoke(main, ["plan", *args, "--json"]).stdout)
    assert planned["changed"] == ["notes.md"] and planned["reread"] == ["notes.md"]
    text = CliRunner().invoke(main, ["plan", *args]).stdout
    assert "1 unchanged file read as another text by this version of batchsum" in text, text
    ran = json.loads(CliRunner().invoke(main, ["run", *args, "--no-index", "--no-metrics", "--json"]).stdout)
    assert [f["relpath"] for f in ran["files"] if f["status"] == "done"] == planned["changed"]
    assert any("1 unchanged file read as another text" in w for w in ran["warnings"]), ran["warnings"]


def test_a_changed_setting_that_reads_a_file_as_another_text_is_not_taken_for_an_upgrade(tmp_path: Path) -> None:
    """`--type journal` reads a Markdown meeting's `**Ana:**` turns as they are: the run says the setting
    changed, not that this version of batchsum reads a format better now."""
    corpus, out = tmp_path / "in", tmp_path / "out"
    corpus.mkdir()
    (corpus / "standup.md").write_text(
        "".join(
            f"**Ana:** Site {i}: the buoy at pier {i} drifted again after the storm on Tuesday night.\n\n"
            f"**Ben:** I will recalibrate pier {i} on Friday and send the new readings to the team.\n\n"
            for i in range(6)
        )
    )
    args = ["run", str(corpus), "--out", str(out), "--no-index", "--no-metrics", "--json"]
    assert CliRunner().invoke(main, args).exit_code == 0
    read_as = StateStore(out / ".batchsum").load_manifest()["standup.md"].text_sha
    res = CliRunner().invoke(main, [*args, "--type", "journal"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert StateStore(out / ".batchsum").load_manifest()["standup.md"].text_sha != read_as  # read as another text
    assert {f["relpath"]: f["status"] for f in data["files"]} == {"standup.md": "done"}
    assert any("settings changed" in w and "--type auto -> journal" in w for w in data["warnings"]), data["warnings"]
    assert not any("read as another text" in w for w in data["warnings"]), data["warnings"]


def test_plan_previews_an_agent_session_as_the_run_summarizes_it(tmp_path: Path) -> None:
    """`batchsum plan` plans the digested session (tool output reduced), like `batchsum run`."""
    from tests.test_compact_cli import _markdown_session

    corpus = tmp_path / "in"
    corpus.mkdir()
    (corpus / "session.md").write_text(_markdown_session())
    res = CliRunner().invoke(main, ["plan", str(corpus), "--out", str(tmp_path / "out"), "--json"])
    assert res.exit_code == 0, res.output
    preview = json.loads(res.stdout)
    run = CliRunner().invoke(
        main, ["run", str(corpus), "--out", str(tmp_path / "out"), "--no-index", "--no-metrics", "--json"]
    )
    assert run.exit_code == 0, run.output
    done = json.loads(run.stdout)
    assert preview["input_tokens"] == done["run"]["input_tokens"] < 1000
    assert preview["nodes"] == sum(f["nodes"] for f in done["files"])


def test_a_file_typed_otherwise_by_a_new_reader_is_summarized_again(tmp_path: Path) -> None:
    """The reading compared on an upgrade is the type and date as well as the text: a reader that now
    types a file otherwise (a document the old one took for a journal) summarizes it again even when its
    text reads the same."""
    from batchsum.engine.prepare import reading_sha
    from batchsum.tree import read_node

    corpus, out = tmp_path / "src", tmp_path / "out"  # a neutral name: the text types the file
    corpus.mkdir()
    text = "Walked to the harbour before breakfast and counted the boats that came in overnight. " * 12
    (corpus / "2024-03-02.md").write_text(text)
    args = ["run", str(corpus), "--out", str(out), "--no-index", "--no-metrics", "--json"]
    assert CliRunner().invoke(main, args).exit_code == 0
    store = StateStore(out / ".batchsum")
    entry = store.load_manifest()["2024-03-02.md"]
    assert entry.content_type == "document"
    # As the version before would have left it had it read the file as a journal of the same text.
    entry.reader, entry.text_sha = READER_VERSION - 1, reading_sha(text, "journal", "2024-03-02")
    store.save_entry(entry)
    data = json.loads(CliRunner().invoke(main, args).stdout)
    assert [f["status"] for f in data["files"]] == ["done"]
    assert any("read as another text" in w for w in data["warnings"])
    meta, _ = read_node(out / "2024-03-02.md" / "summaries" / "L3" / "final.md")
    assert meta["content_type"] == "document"
    # The same reading recorded: nothing to do on the next upgrade.
    again = StateStore(out / ".batchsum").load_manifest()["2024-03-02.md"]
    again.reader = READER_VERSION - 1
    StateStore(out / ".batchsum").save_entry(again)
    assert [f["status"] for f in json.loads(CliRunner().invoke(main, args).stdout)["files"]] == ["unchanged"]
