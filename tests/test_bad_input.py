"""One bad file never stops a batch: each gets a one-line reason, exit code 1, good files done."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from batchsum.cli import main
from batchsum.errors import InputError
from batchsum.walk import SourceRef, read_document

GOOD = "The committee met on Tuesday and agreed on the plan. " * 10


def _run(corpus: Path, out: Path, *extra: str) -> tuple[int, dict, str]:
    r = CliRunner().invoke(
        main, ["run", str(corpus), "--out", str(out), "--no-index", "--no-metrics", "--json", *extra]
    )
    return r.exit_code, json.loads(r.stdout) if r.stdout.strip().startswith("{") else {}, r.stderr


def test_bad_files_are_listed_and_good_files_done(tmp_path: Path) -> None:
    c = tmp_path / "c"
    c.mkdir()
    (c / "good.md").write_text(GOOD)
    (c / "binary.txt").write_bytes(b"\x00\x01\x02\x03" * 100)
    (c / "latin1.txt").write_bytes(("Caf\xe9 meeting notes. " * 30).encode("latin-1"))
    (c / "utf16.txt").write_bytes(("Notes in UTF-16. " * 20).encode("utf-16"))
    (c / "bad.jsonl").write_text('{"role": "user", "content": "hi"}\n{not json\n')
    (c / "broken.md").symlink_to(c / "missing-target.md")
    (c / "loop").symlink_to(c)  # a folder symlink back to the corpus root
    code, data, _ = _run(c, tmp_path / "out")
    assert code == 1
    reasons = {Path(p["path"]).name: p["reason"] for p in data["problems"]}
    assert "binary" in reasons["binary.txt"]
    assert "line 2" in reasons["bad.jsonl"]
    # A problem names its source as "files" does, so a script can match the two.
    relpaths = {f["relpath"] for f in data["files"]}
    assert {p["relpath"] for p in data["problems"] if Path(p["path"]).name == "binary.txt"} <= relpaths
    assert "broken symlink" in reasons["broken.md"]
    assert any("symlink loop" in r for r in reasons.values())
    done = {f["relpath"]: f for f in data["files"] if f["status"] == "done"}
    assert {"good.md", "latin1.txt", "utf16.txt"} <= set(done)
    # A legacy-encoded file is decoded as what it is (cp1252), not with replacement characters.
    latin = (tmp_path / "out" / "latin1.txt" / "summaries" / "L3" / "final.md").read_text(encoding="utf-8")
    assert "Café" in latin and "\ufffd" not in latin
    assert (tmp_path / "out" / "good.md" / "summaries" / "L3" / "final.md").exists()


@pytest.mark.skipif(os.geteuid() == 0, reason="root can read files whatever their permissions")
def test_unreadable_file(tmp_path: Path) -> None:
    c = tmp_path / "c"
    c.mkdir()
    (c / "good.md").write_text(GOOD)
    secret = c / "secret.md"
    secret.write_text(GOOD)
    secret.chmod(0)
    code, data, _ = _run(c, tmp_path / "out")
    assert code == 1
    assert any("permission denied" in p["reason"] for p in data["problems"])


def test_vanished_file_is_an_input_error(tmp_path: Path) -> None:
    ref = SourceRef(path=tmp_path / "gone.md", relpath="gone.md", root=tmp_path)
    with pytest.raises(InputError, match="vanished"):
        read_document(ref)


def test_usage_errors_exit_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(main, ["run", str(tmp_path / "nope")])
    assert r.exit_code == 2
    assert "does not exist" in r.stderr
    assert not (tmp_path / "batchsum-out").exists()  # a mistyped path leaves no output folder behind
    r = CliRunner().invoke(main, ["run", str(tmp_path), "--type", "poem"])
    assert r.exit_code == 2 and "unknown --type" in r.stderr
    r = CliRunner().invoke(main, ["run", str(tmp_path), "--thresholds", "1,2"])
    assert r.exit_code == 2
    r = CliRunner().invoke(main, ["run"])
    assert r.exit_code == 2 and "no input" in r.stderr


def test_empty_and_whitespace_files_are_skipped_without_failing_the_run(tmp_path: Path) -> None:
    c = tmp_path / "c"
    c.mkdir()
    (c / "empty.md").write_text("")
    (c / "blank.txt").write_text("   \n\n \t\n")
    code, data, _ = _run(c, tmp_path / "out")
    assert code == 0 and data["run"]["status"] == "ok" and not data["problems"]
    assert data["levels"] == {} and data["run"]["files_skipped"] == 2 and data["run"]["files_done"] == 0


def test_undecodable_file_and_folder_names_are_skipped_with_a_reason(tmp_path: Path) -> None:
    c = tmp_path / "c"
    c.mkdir()
    (c / "good.md").write_text(GOOD)
    # Names in Latin-1 on a UTF-8 system: Python keeps the bad byte as a lone surrogate.
    Path(os.fsdecode(os.fsencode(c) + b"/caf\xe9.md")).write_text(GOOD)
    bad_dir = Path(os.fsdecode(os.fsencode(c) + b"/r\xe9unions"))
    bad_dir.mkdir()
    (bad_dir / "inside.md").write_text(GOOD)
    out = tmp_path / "out"
    for status in ("done", "unchanged"):  # the second run reads back every state file the first wrote
        r = CliRunner().invoke(main, ["run", str(c), "--out", str(out), "--no-index", "--json"])
        assert r.exit_code == 1, r.output
        data = json.loads(r.stdout)
        reasons = sorted(p["reason"] for p in data["problems"])
        assert reasons == [
            "file name is not valid UTF-8, skipped (rename it)",
            "folder name is not valid UTF-8, skipped (rename it)",
        ]
        # Shown with the bad byte escaped, as everywhere else: no lone surrogate that jq reads as U+FFFD.
        paths = sorted(p["path"] for p in data["problems"])
        assert [p.rsplit("/", 1)[-1] for p in paths] == ["caf\\xe9.md", "r\\xe9unions"], paths
        plan = CliRunner().invoke(main, ["plan", str(c), "--out", str(out)])
        assert "caf\\xe9.md: file name is not valid UTF-8" in plan.output, plan.output
        # Each is a skipped source of the run, under a printable name (the folder counts as one).
        assert sorted((f["relpath"], f["status"]) for f in data["files"]) == [
            ("caf\\xe9.md", "skipped"),
            ("good.md", status),
            ("r\\xe9unions", "skipped"),
        ]
    r = CliRunner().invoke(main, ["report", "--out", str(out)])
    assert r.exit_code == 0, r.output


# ---- nothing lost, nothing silent ------------------------------------------------------------
CUE_TEXT = [f"Speaker {i % 3} said that item number {i} of the agenda was approved." for i in range(60)]


def _read(path: Path) -> tuple[str, list[str], str | None]:
    doc = read_document(SourceRef(path=path, relpath=path.name, root=path.parent))
    return doc.text, doc.warnings, doc.decode_note


@pytest.mark.parametrize(
    "timing",
    [
        "00:00:{s:02d},000 --> 00:00:{s:02d},9x0",  # garbage in the end time
        "00:00:{s:02d}.000 -> 00:00:{s:02d}.500",  # a one-dash arrow
        "0:0:{s} --> 0:0:{s}",  # no milliseconds
        "{s} seconds in",  # no timing at all (the SRT number stays)
    ],
)
def test_malformed_subtitle_timings_keep_their_text(tmp_path: Path, timing: str) -> None:
    cues = [f"{i + 1}\n{timing.format(s=i % 60)}\n{t}" for i, t in enumerate(CUE_TEXT)]
    path = tmp_path / "meeting.srt"
    path.write_text("\n\n".join(cues) + "\n")
    text, warnings, _ = _read(path)
    for line in CUE_TEXT:
        assert line in text
    assert "-->" not in text and "->" not in text
    assert warnings == ["60 cue(s) with a malformed or missing timestamp: text kept, timing dropped"]


def test_well_formed_subtitles_have_no_warning(tmp_path: Path) -> None:
    vtt = "WEBVTT\n\nNOTE a comment\nspanning lines\n\nintro\n00:00:01.000 --> 00:00:02.500 align:start\n"
    vtt += "<v Alice>Hello team, the budget is approved.\n\n00:00:03.000 --> 00:00:04.000\n<v Bob>Great news.\n"
    path = tmp_path / "call.vtt"
    path.write_text(vtt)
    text, warnings, _ = _read(path)
    assert text == "Alice: Hello team, the budget is approved.\n\nBob: Great news."
    assert warnings == []


def test_youtube_auto_captions_give_each_line_once_without_warnings(tmp_path: Path) -> None:
    # A Kind/Language header, cue settings, a line of spaces after the timing, word timings, and each line
    # repeated by the next cue (rolling captions).
    vtt = (
        "WEBVTT\nKind: captions\nLanguage: en\n\n"
        "00:00:00.000 --> 00:00:02.500 align:start position:0%\n \n"
        "the<00:00:00.400><c> deadline</c><00:00:00.800><c> for</c><00:00:01.300><c> the budget</c>\n\n"
        "00:00:02.500 --> 00:00:02.510 align:start position:0%\nthe deadline for the budget\n \n\n"
        "00:00:02.510 --> 00:00:05.000 align:start position:0%\nthe deadline for the budget\n"
        "is<00:00:02.900><c> march</c><00:00:03.300><c> 22nd</c>\n\n"
        "00:00:05.000 --> 00:00:05.010 align:start position:0%\nis march 22nd\n \n\n"
        "00:00:05.010 --> 00:00:08.000 align:start position:0%\nis march 22nd\n"
        "and<00:00:05.400><c> finance</c><00:00:05.800><c> won't move it</c>\n"
    )
    path = tmp_path / "youtube-auto.vtt"
    path.write_text(vtt)
    text, warnings, _ = _read(path)
    assert text == "the deadline for the budget is march 22nd and finance won't move it"
    assert warnings == []


def test_roll_up_captions_without_word_timings_give_each_line_once(tmp_path: Path) -> None:
    cues = ["Good morning everyone.\nThe budget is due March 22.", "The budget is due March 22.\nBen sends the quote."]
    vtt = "WEBVTT\n\n" + "\n\n".join(f"00:00:0{i}.000 --> 00:00:0{i}.900\n{t}" for i, t in enumerate(cues))
    path = tmp_path / "news.vtt"
    path.write_text(vtt + "\n")
    text, warnings, _ = _read(path)
    assert text == "Good morning everyone. The budget is due March 22. Ben sends the quote."
    assert warnings == []


def test_a_line_said_twice_in_plain_subtitles_is_kept_twice(tmp_path: Path) -> None:
    path = tmp_path / "film.srt"
    path.write_text("1\n00:00:01,000 --> 00:00:02,000\nNo.\n\n2\n00:00:03,000 --> 00:00:04,000\nNo.\n")
    text, _, _ = _read(path)
    assert text == "No. No."


# YouTube's cue: settings after the timing, a line of spaces after the text.
_YT = "00:00:0{0}.000 --> 00:00:0{0}.900 align:start position:0%\n{1}\n \n\n"


@pytest.mark.parametrize(
    "cues",
    [
        # YouTube: "no no" typed out twice, each time carried into the next cue's first line.
        _YT.format(0, "so<00:00:00.300><c> was it</c>")
        + _YT.format(1, "so was it")
        + _YT.format(2, "so was it\nno<00:00:02.300><c> no</c>")
        + _YT.format(3, "no no")
        + _YT.format(4, "no no\nno<00:00:04.300><c> no</c>")
        + _YT.format(5, "no no")
        + _YT.format(6, "no no\nthe<00:00:06.300><c> end</c>"),
        # Captions with word timings elsewhere, then "no no" in two cues of their own.
        _YT.format(0, "so<00:00:00.300><c> was it</c>") + _YT.format(1, "so was it") + "00:00:02.000 --> 00:00:02.900\n"
        "no no\n\n00:00:03.000 --> 00:00:03.900\nno no\n\n00:00:04.000 --> 00:00:04.900\nthe end\n",
        # Roll-up captions without word timings: the second cue carries "no no" over and says it again.
        "00:00:00.000 --> 00:00:00.900\nso was it\nno no\n\n00:00:01.000 --> 00:00:01.900\nno no\nno no\n\n"
        "00:00:02.000 --> 00:00:02.900\nno no\nthe end\n",
    ],
)
def test_a_line_said_twice_in_rolling_captions_is_kept_twice(tmp_path: Path, cues: str) -> None:
    path = tmp_path / "talk.vtt"
    path.write_text("WEBVTT\n\n" + cues)
    text, warnings, _ = _read(path)
    assert text.count("no no") == 2  # said twice; the copies carried from cue to cue left out
    assert text.count("so was it") == 1 and text.count("the end") == 1
    assert warnings == []


# After an empty cue: a blank line, or a line of non-breaking spaces (blank to a reader, not a line end).
@pytest.mark.parametrize("gap", ["\n\n", "\n\u00a0\n"])
def test_a_note_after_an_empty_cue_stays_out_of_the_text(tmp_path: Path, gap: str) -> None:
    vtt = (
        "WEBVTT\n\n00:00:01.000 --> 00:00:02.000" + gap + "NOTE this is a comment\n\n"
        "00:00:03.000 --> 00:00:04.000\nHello there.\n\n00:00:05.000 --> 00:00:06.000\nGoodbye now.\n"
    )
    path = tmp_path / "call.vtt"
    path.write_text(vtt, encoding="utf-8")
    text, _, _ = _read(path)
    assert "NOTE" not in text and "comment" not in text
    assert text.count("Hello there.") == 1 and text.count("Goodbye now.") == 1


@pytest.mark.parametrize("ext", [".vtt", ".srt"])
def test_subtitles_without_blank_lines_between_cues_keep_all_their_text(tmp_path: Path, ext: str) -> None:
    sep = "." if ext == ".vtt" else ","
    cues = [
        (f"{i + 1}\n" if ext == ".srt" else "") + f"00:00:{i % 60:02d}{sep}000 --> 00:00:{i % 60:02d}{sep}900\n{t}"
        for i, t in enumerate(CUE_TEXT)
    ]
    path = tmp_path / f"meeting{ext}"
    path.write_text(("WEBVTT\n" if ext == ".vtt" else "") + "\n".join(cues) + "\n")
    text, warnings, _ = _read(path)
    assert text == " ".join(CUE_TEXT)  # one speaker throughout: one turn, every cue's text, no number
    assert warnings == []


def test_malformed_subtitles_end_to_end_warn_and_summarize(tmp_path: Path) -> None:
    c = tmp_path / "c"
    c.mkdir()
    cues = [f"{i + 1}\n00:00:{i % 60:02d},000 --> 00:00:xx,000\n{t}" for i, t in enumerate(CUE_TEXT)]
    (c / "meeting.srt").write_text("\n\n".join(cues) + "\n")
    proc = subprocess.run(
        [sys.executable, "-m", "batchsum", "run", str(c), "--out", str(tmp_path / "out"), "--no-index", "--no-metrics"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)},
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "meeting.srt: 60 cue(s) with a malformed or missing timestamp" in proc.stderr
    final = (tmp_path / "out" / "meeting.srt" / "summaries" / "L3" / "final.md").read_text(encoding="utf-8")
    assert "agenda was approved" in final


@pytest.mark.parametrize(
    ("body", "why"),
    [
        ('{"foo": "bar"}', "found an object with keys: foo"),
        ('"just a string"', "found a str"),
        ('[{"role": "user", "text": "hi"}]', "message 1 has no 'content'"),
        ('{"messages": "hello"}', "found an object with keys: messages"),
    ],
)
def test_json_that_is_not_a_conversation_is_a_per_file_problem(tmp_path: Path, body: str, why: str) -> None:
    c = tmp_path / "c"
    c.mkdir()
    (c / "good.md").write_text(GOOD)
    (c / "data.json").write_text(body)
    code, data, _ = _run(c, tmp_path / "out")
    assert code == 1
    (problem,) = data["problems"]
    assert problem["path"].endswith("data.json")
    assert "JSON is not a conversation" in problem["reason"] and why in problem["reason"]
    assert [f["relpath"] for f in data["files"] if f["status"] == "done"] == ["good.md"]


@pytest.mark.parametrize("name", ["deep.json", "deep.jsonl"])
def test_deeply_nested_chat_json_is_a_per_file_problem(tmp_path: Path, name: str) -> None:
    # The stdlib parser recurses per level: 100,000 levels used to be a RecursionError for the whole run.
    c = tmp_path / "c"
    c.mkdir()
    (c / "good.md").write_text(GOOD)
    (c / name).write_text("[" * 100_000 + "]" * 100_000)
    code, data, _ = _run(c, tmp_path / "out")
    assert code == 1
    (problem,) = data["problems"]
    assert problem["path"].endswith(name) and "nested deeper" in problem["reason"]
    assert [f["relpath"] for f in data["files"] if f["status"] == "done"] == ["good.md"]


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_utf16_without_bom_is_detected(tmp_path: Path, codec: str) -> None:
    path = tmp_path / "notes.txt"
    path.write_bytes(("Notes in UTF-16 without a byte order mark: café, naïve. " * 20).encode(codec))
    text, _, note = _read(path)
    assert text.startswith("Notes in UTF-16 without a byte order mark: café, naïve.")
    assert note == f"{codec} (no BOM)"


def test_binary_with_nul_bytes_in_one_half_is_still_binary(tmp_path: Path) -> None:
    path = tmp_path / "blob.txt"
    path.write_bytes(bytes(range(256)) * 40)
    with pytest.raises(InputError, match="binary"):
        _read(path)


def test_cp1252_is_decoded_without_replacement_characters(tmp_path: Path) -> None:
    original = "“Café meeting” — we paid €12 for naïve crème brûlée; Zoë’s notes follow. " * 30
    path = tmp_path / "legacy.md"
    path.write_bytes(original.encode("cp1252"))
    text, _, note = _read(path)
    assert text == original
    assert "\ufffd" not in text and note == "decoded as cp1252 (not UTF-8)"


def test_utf8_with_one_bad_byte_stays_utf8_and_says_so(tmp_path: Path) -> None:
    original = "Renée paid €400 for the café and Zoë’s crème brûlée. " * 20
    path = tmp_path / "note.md"
    path.write_bytes(original.encode("utf-8") + b"\xff and the rest.\n")
    text, _, note = _read(path)
    assert text.startswith(original) and "Ã" not in text and "â‚¬" not in text
    assert note == "lossy utf-8 decode: 1 invalid byte sequence(s) replaced"


def test_other_legacy_encodings_are_detected(tmp_path: Path) -> None:
    original = "Привет, как дела? Я записал заметки о встрече и бюджете на следующий год. " * 20
    path = tmp_path / "ru.txt"
    path.write_bytes(original.encode("cp1251"))
    text, _, note = _read(path)
    assert text == original and "cp1251" in (note or "")


def test_control_characters_are_stripped_from_summaries_and_output(tmp_path: Path) -> None:
    c = tmp_path / "c"
    c.mkdir()
    noisy = ("The build\x07 finished\x08\x08 at noon and \x1b[31mthe team\x1b[0m shipped the release. " * 12).strip()
    (c / "noisy.md").write_text(noisy)
    text, warnings, _ = _read(c / "noisy.md")
    assert not any(ch in text for ch in "\x07\x08\x1b") and "[31m" not in text
    assert "The build finished at noon and the team shipped the release." in text
    assert warnings and "control character(s) removed" in warnings[0]
    r = CliRunner().invoke(main, ["run", str(c), "--out", str(tmp_path / "out"), "--no-index", "--no-metrics"])
    assert r.exit_code == 0, r.output
    final = (tmp_path / "out" / "noisy.md" / "summaries" / "L3" / "final.md").read_text(encoding="utf-8")
    assert not any(ch in final for ch in "\x07\x08\x1b")
    assert not any(ch in r.output for ch in "\x07\x08\x1b")
    assert "control character(s) removed" in r.stderr
    # --quiet prints errors only: a file's notice goes to the event log, not to cron's mail.
    (c / "noisy.md").write_text(noisy + " Again.")
    log = tmp_path / "events.jsonl"
    args = ["run", str(c), "--out", str(tmp_path / "out"), "--no-index", "--no-metrics", "-q", "--log-file", str(log)]
    r = CliRunner().invoke(main, [*args, "--log-format", "json"])
    assert r.exit_code == 0 and r.stderr == "" and r.stdout == "", r.output
    assert "control character(s) removed" in log.read_text(encoding="utf-8")


# Runs of whitespace or dots that a backtracking regex crosses once per starting position (quadratic: a
# 20 KB file of blank lines took minutes to classify; a MULTILINE "^\s*" in the written-facets check took
# over two minutes on 1 MB of newlines). Each case finishes in seconds now; quadratic, it takes hours.
PATHOLOGICAL = {
    "blank.md": "\n" * 1_000_000,
    "blank_then_text.md": " \n" * 500_000 + "Then one line of text at the very end of the file.\n",
    "leader.md": "Contents " + ". " * 60_000 + "5\n\n" + GOOD,
    "spaces.md": GOOD + " " * 100_000 + ",\n" + GOOD,
}


def test_long_runs_of_whitespace_or_dots_do_not_stall_the_run(tmp_path: Path) -> None:
    c = tmp_path / "c"
    c.mkdir()
    for name, text in PATHOLOGICAL.items():
        (c / name).write_text(text)
    cmd = [sys.executable, "-m", "batchsum", "run", str(c), "--out", str(tmp_path / "out"), "--no-index",
           "--no-metrics", "--json"]  # fmt: skip
    # A bound for a hang, not a speed figure: the run takes seconds; the quadratic scans took hours.
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert done.returncode in (0, 1), done.stderr
    data = json.loads(done.stdout)
    finished = {Path(f["relpath"]).name for f in data["files"]} | {Path(p["path"]).name for p in data["problems"]}
    assert set(PATHOLOGICAL) <= finished


def test_a_name_dated_on_no_day_of_the_calendar_is_said_and_dated_otherwise(tmp_path: Path) -> None:
    c = tmp_path / "c"
    c.mkdir()
    (c / "2024-02-30.md").write_text(GOOD)
    (c / "2024-02-29.md").write_text(GOOD)  # a leap day is a day
    (c / "invoice-20249999.md").write_text(GOOD)  # digits that name no date are no date at all
    (c / "ticket-12345678-2024-03-15.md").write_text(GOOD)  # an id before the day the name gives
    code, data, _ = _run(c, tmp_path / "out")
    assert code == 0
    about = [w for w in data["warnings"] if "no day of the calendar" in w]
    assert len(about) == 1 and "2024-02-30.md" in about[0] and "2024-02-30" in about[0] and "mtime" in about[0]
    doc = read_document(SourceRef(c / "2024-02-30.md", "2024-02-30.md", c))
    assert doc.date_source == "mtime" and doc.warnings
    assert not read_document(SourceRef(c / "2024-02-29.md", "2024-02-29.md", c)).warnings
    ticket = read_document(SourceRef(c / "ticket-12345678-2024-03-15.md", "ticket-12345678-2024-03-15.md", c))
    assert (ticket.doc_date, ticket.date_source, ticket.warnings) == ("2024-03-15", "name", [])
    for name in ("2016-2-30.md", "2016_2_31.txt"):  # unpadded, as such names are dated
        (c / name).write_text(GOOD)
        assert read_document(SourceRef(c / name, name, c)).warnings, name
    (c / "notes 2016.2.30.md").write_text(GOOD)  # a version number, not a date
    assert not read_document(SourceRef(c / "notes 2016.2.30.md", "notes 2016.2.30.md", c)).warnings


def test_cp1252_paragraphs_in_a_utf8_file_keep_their_letters(tmp_path: Path) -> None:
    # A paragraph pasted from an old mail into a UTF-8 note: its bytes read as Windows-1252, not as U+FFFD.
    old = "Renée said the café “Le Petit” would reopen in März; the bill was €400.\n"
    new = "Zoë met José at the café. Ærø, Ålesund, naïve, façade, crème brûlée.\n"
    path = tmp_path / "mixed.txt"
    path.write_bytes(old.encode("cp1252") * 2 + new.encode("utf-8") * 6)
    text, _, note = _read(path)
    assert text == old * 2 + new * 6
    assert note == "utf-8 with 12 byte sequence(s) read as cp1252"


def test_a_stray_nul_early_in_a_text_file_is_removed_not_called_binary(tmp_path: Path) -> None:
    # Where the NUL sits does not decide: a crashed editor's NUL in the first 8 KB as much as further in.
    prose = "We walked to the harbour and watched the ferries come in. " * 60
    for at in (100, 3000):
        path = tmp_path / f"nul_{at}.md"
        path.write_bytes(prose[:at].encode() + b"\x00" + prose[at:].encode())
        text, _, _ = _read(path)
        assert "\x00" not in text and text.replace(" ", "") == prose.replace(" ", "")
    binary = tmp_path / "image.md"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 10)
    with pytest.raises(InputError, match="binary"):
        _read(binary)


def _pdf(stream: bytes) -> bytes:
    """A PDF's bytes as a writer lays them out: header, a binary comment, an object with a compressed stream."""
    return (
        b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Length " + str(len(stream)).encode() + b" /Filter /FlateDecode >>\n"
        b"stream\n" + stream + b"\nendstream\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n"
    )


def test_a_binary_file_under_a_text_name_is_named_for_what_it_is(tmp_path: Path) -> None:
    """A PDF saved as .txt, a Word file renamed .md, a picture: the reason says what the file is (it had said
    only "binary file (contains NUL bytes)"), the good file is done, the run exits 1."""
    import zlib

    c = tmp_path / "c"
    c.mkdir()
    (c / "good.md").write_text(GOOD)
    deflated = zlib.compress(b"BT /F1 12 Tf (Harbor water quality stayed stable all quarter.) Tj ET\n" * 40)
    (c / "report.txt").write_bytes(_pdf(deflated + bytes(range(256))))
    (c / "no-nul.txt").write_bytes(_pdf(deflated.replace(b"\x00", b"\x01")))
    (c / "letter.md").write_bytes(b"PK\x03\x04\x14\x00\x06\x00" + bytes(range(256)) * 8)
    (c / "photo.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 4)
    (c / "blob.txt").write_bytes(b"\x00\x01\x02\x03" * 100)
    code, data, _ = _run(c, tmp_path / "out")
    assert code == 1 and data["run"]["files_done"] == 1
    reasons = {Path(p["path"]).name: p["reason"] for p in data["problems"]}
    assert reasons["report.txt"] == "binary file (a PDF document; contains NUL bytes)"
    assert reasons["no-nul.txt"].startswith("binary or undecodable file (a PDF document; "), reasons
    zipped = "a zip archive, such as a Word or OpenDocument file"
    assert reasons["letter.md"] == f"binary file ({zipped}; contains NUL bytes)"
    assert reasons["photo.md"] == "binary file (a PNG image; contains NUL bytes)"
    assert reasons["blob.txt"] == "binary file (contains NUL bytes)"  # nothing known: no guess


def test_a_plain_text_file_under_a_name_batchsum_does_not_read_is_told_how_to_have_it_read(tmp_path: Path) -> None:
    """A server.log is passed over in a folder and skipped when named, each time saying it reads as .txt (the
    reason had only said the type is unsupported); a .pdf gets no such hint."""
    c = tmp_path / "c"
    c.mkdir()
    (c / "good.md").write_text(GOOD)
    (c / "server.log").write_text("2026-11-01T00:00:00Z INFO worker-1 request id=1 status=200\n" * 50)
    (c / "scan.pdf").write_bytes(b"%PDF-1.4\n")
    hint = "(plain text? rename it .txt to have it read)"
    plan = CliRunner().invoke(main, ["plan", str(c), "--out", str(tmp_path / "out")])
    assert f"2 files of types batchsum does not read passed over: .log 1, .pdf 1 {hint}" in plan.output, plan.output
    code, data, _ = _run(c / "server.log", tmp_path / "out2")
    assert code == 1 and [p["reason"] for p in data["problems"]] == [f"unsupported file type '.log', skipped {hint}"]
    code, data, _ = _run(c / "scan.pdf", tmp_path / "out3")
    assert [p["reason"] for p in data["problems"]] == ["unsupported file type '.pdf', skipped"]
