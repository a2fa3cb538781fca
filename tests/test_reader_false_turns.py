"""What only looks like a transcript's or a chat's marks is read as what it is: a book's "[Illustration]" lines
and a training log's "(rest day)" under its dated headings are no caption cues, a log's "[INFO]" and a task
list's "[TODO]" no speakers, and a chat message's "Before: 40 minutes" or "Great (2)" no export layout."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from click.testing import CliRunner

from batchsum.cli import main
from batchsum.tree import node_path, read_node

SAID = [
    "Welcome back to Harbor Talk, the show about people who work on the water.",
    "My guest today studies how tides move sediment along the coast.",
    "We put nine sensors across the harbor mouth last spring.",
    "Two storms a year move more sediment than all the ordinary tides combined.",
]


def _read(tmp_path: Path, name: str, text: str) -> tuple[dict[str, Any], str]:
    """The front matter and said text (no facets, no links) of ``text``'s final, read as file ``name``."""
    corpus, out = tmp_path / "c", tmp_path / "o"
    corpus.mkdir(parents=True)
    (corpus / name).write_text(text, encoding="utf-8")
    r = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--no-index"])
    assert r.exit_code == 0, r.output
    meta, body = read_node(node_path(out, name, 3, None))
    return meta, body.split("<!--")[0].split("## Facets")[0]


def test_illustration_lines_leave_a_book_a_document(tmp_path: Path) -> None:
    book = (
        "CHAPTER I\n\nIt was a dark and stormy night, and the rain fell in torrents over the town.\n\n"
        "[Illustration]\n\nThe wind swept up the streets of London and rattled the roofs.\n\n[Illustration]\n\n"
        "She turned to go, and the door closed behind her.\n\n[Illustration]\n\nTHE END\n"
    )
    meta, _ = _read(tmp_path, "book.txt", book)
    assert meta["content_type"] == "document", meta["content_type_reason"]


def test_a_training_log_of_days_in_parentheses_stays_a_journal(tmp_path: Path) -> None:
    days = ("(rest day)", "(sick)", "(rest day)", "(travel)")
    log = "".join(f"## 2024-03-{11 + k}\n{day}\n\n" for k, day in enumerate(days))
    meta, _ = _read(tmp_path, "training.md", log)
    assert meta["content_type"] == "journal", meta["content_type_reason"]


def test_sound_cues_without_cue_words_make_a_transcript_when_they_are_half_its_lines(tmp_path: Path) -> None:
    cues = ("[door creaks]", "[phone ringing]", "[footsteps]", "[door slams]")
    meta, body = _read(tmp_path, "scene.txt", "".join(f"{c}\n{s}\n" for c, s in zip(cues, SAID, strict=True)))
    assert meta["content_type"] == "conversation", meta["content_type_reason"]
    assert "[" not in body, body


def test_log_levels_and_task_tags_name_no_speakers(tmp_path: Path) -> None:
    logs = {
        "server.log.txt": "[INFO] Server started on port 8080.\n[INFO] Connected to the database.\n"
        "[WARN] Cache is cold, warming up.\n[ERROR] Request to payments timed out.\n",
        "tasks.txt": "[TODO] Write the release notes.\n[DONE] Cut the release branch.\n"
        "[TODO] Tag the release on Friday.\n[DONE] Update the changelog.\n",
        "changes.txt": "[Added] New export to CSV.\n[Fixed] Crash on empty input.\n[Fixed] Wrong date in the header.\n",
    }
    for k, (name, text) in enumerate(logs.items()):
        meta, _ = _read(tmp_path / str(k), name, text)
        assert meta["content_type"] != "conversation", meta
        assert not {"INFO", "WARN", "ERROR", "TODO", "DONE", "Fixed"} & set(meta.get("participants") or []), meta


RULE = "=" * 62
DCE_TEXT = f"""{RULE}
Guild: OSS Community
Channel: Text / ci
Topic: Build pipeline talk
{RULE}

[3/12/2024 9:01 AM] ana_s
I sped up the CI pipeline for the release today.
Before: 40 minutes per build
After: 12 minutes per build

{{Reactions}}
👍 (2) 🎉

[3/12/2024 9:03 AM] ben.o
Nice work! Topic: can we ship the release on Friday?

[3/12/2024 9:05 AM] ana_s
Yes, I'll merge the pipeline change tonight.

[3/12/2024 9:06 AM] ben.o
Great (2)
"""


def test_chat_lines_shaped_like_discord_layout_are_words_where_they_stand(tmp_path: Path) -> None:
    meta, body = _read(tmp_path, "ci.txt", DCE_TEXT)
    assert meta["content_type_reason"] == "Discord or Teams chat"
    for said in ("40 minutes per build", "12 minutes per build", "Topic: can we ship", "Great (2)"):
        assert said in body, body
    for layout in ("Guild", "OSS Community", "Build pipeline talk", "👍", "🎉"):
        assert layout not in body, body
