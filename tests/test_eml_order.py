"""An e-mail thread reads in the order it was written: a quoted message is older than the reply above it,
so a top-posted thread (newest first in the file) reads request, answer, thanks."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main
from batchsum.text import conversation_lines
from batchsum.walk import SourceRef, read_document

THREAD = (
    "From: Dana Reyes <dana@example.com>\n"
    "To: support@example.com\n"
    "Subject: Re: Refund request\n"
    "Date: Wed, 04 Mar 2026 10:15:00 +0000\n\n"
    "Thanks Marco, I see the refund on my card now.\n\n"
    "On Tue, 03 Mar 2026 16:02:00 +0000, Marco Bianchi <marco@example.com> wrote:\n"
    "> I have issued a full refund of 49 dollars to your card.\n"
    ">\n"
    "> On Sun, 01 Mar 2026 09:00:00 +0000, Dana Reyes <dana@example.com> wrote:\n"
    ">> The checklist keeps resetting to step one. I would like a refund of my subscription.\n"
)
OUTLOOK = (
    "From: Ruth Olsen <ruth@example.com>\n"
    "To: Tom Reyes <tom@example.com>\n"
    "Subject: RE: Minutes\n"
    "Date: Fri, 13 Mar 2026 08:00:00 -0800\n\n"
    "Yes, I will bring the minutes on Friday.\n\n"
    "-----Original Message-----\nFrom: Tom Reyes\nSent: Thu, 12 Mar 2026\nSubject: Minutes\n\n"
    "Can you bring the 1971 minutes to the meeting?\n"
)


def _turns(tmp_path: Path, text: str) -> list[tuple[str | None, str]]:
    path = tmp_path / "thread.eml"
    path.write_text(text, encoding="utf-8")
    doc = read_document(SourceRef(path=path, relpath=path.name, root=path.parent))
    return conversation_lines(doc.text)


def test_a_top_posted_thread_reads_oldest_first(tmp_path: Path) -> None:
    turns = _turns(tmp_path, THREAD)
    assert [who for who, _ in turns] == ["Dana Reyes", "Marco Bianchi", "Dana Reyes"]
    assert "refund of my subscription" in turns[0][1] and turns[-1][1].startswith("Thanks Marco")


def test_an_original_message_comes_before_the_reply_above_it(tmp_path: Path) -> None:
    assert [who for who, _ in _turns(tmp_path, OUTLOOK)] == ["Tom Reyes", "Ruth Olsen"]


def test_the_summary_of_a_thread_opens_with_the_request(tmp_path: Path) -> None:
    src, out = tmp_path / "mail", tmp_path / "out"
    src.mkdir()
    (src / "refund.eml").write_text(THREAD, encoding="utf-8")
    result = CliRunner().invoke(main, ["run", str(src), "--out", str(out), "--no-index"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    final = (out / "refund.eml" / "summaries" / "L3" / "final.md").read_text(encoding="utf-8")
    body = final.split("\n---\n", 1)[1]
    assert "refund of my subscription" in body
    assert "Thanks Marco" not in body or body.index("refund of my subscription") < body.index("Thanks Marco")
