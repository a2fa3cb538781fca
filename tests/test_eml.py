""".eml messages are read as e-mail threads (header block, then the body) and dated by their Date header;
a file named on the command line that batchsum cannot read is counted and reported as skipped."""

from __future__ import annotations

import json
from email.message import EmailMessage
from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main
from batchsum.walk import SourceRef, read_document

PLAIN = (
    "Return-Path: <ana@example.org>\n"
    "Message-ID: <abc@example.org>\n"
    "From: Ana Silva <ana@example.org>\n"
    "To: Ben Okafor <ben@example.com>\n"
    "Subject: Re: Budget 2024 -\n revised numbers\n"
    "Date: Wed, 13 Mar 2024 09:12:40 +0100\n"
    "MIME-Version: 1.0\n"
    'Content-Type: text/plain; charset="utf-8"\n'
    "Content-Transfer-Encoding: quoted-printable\n"
    "\n"
    "Hi Ben,\n\n"
    "I will send the revised spreadsheet to the whole team by Friday March 15=\n"
    ", and the final budget goes to finance on March 22. Caf=C3=A9 at noon.\n\n"
    "We decided to keep Lisbon and drop Madrid.\n\n"
    "Ana\n\n"
    "On Tue, 12 Mar 2024 at 17:40, Ben Okafor <ben@example.com>\n"
    "wrote:\n"
    "> Attached is the Northwind quote: 2,900 euros for both days.\n"
    ">\n"
    "> I'll also ask Bluefin for a second offer by Thursday.\n"
)


def _text(path: Path) -> str:
    return read_document(SourceRef(path=path, relpath=path.name, root=path.parent)).text


def test_eml_in_a_folder_is_read_as_an_email_thread_dated_by_its_header(tmp_path: Path) -> None:
    c = tmp_path / "c"
    (c / "mail").mkdir(parents=True)
    (c / "mail" / "Re Budget 2024.eml").write_bytes(PLAIN.encode("ascii"))
    plan = CliRunner().invoke(main, ["plan", str(c), "--out", str(tmp_path / "out")])
    assert "+ mail/Re Budget 2024.eml" in plan.stdout
    r = CliRunner().invoke(main, ["run", str(c), "--out", str(tmp_path / "out"), "--no-index", "--json"])
    data = json.loads(r.stdout)
    assert r.exit_code == 0 and data["run"]["files_done"] == 1, r.output
    final = (tmp_path / "out" / "mail" / "Re Budget 2024.eml" / "summaries" / "L3" / "final.md").read_text()
    assert "doc_date: '2024-03-13'" in final or 'doc_date: "2024-03-13"' in final
    assert "date_source: e-mail header" in final
    # The quoted reply is Ben's: his promise has him as its owner.
    assert "owner: Ben Okafor" in final


def test_eml_renders_headers_body_and_quoted_reply(tmp_path: Path) -> None:
    path = tmp_path / "m.eml"
    path.write_bytes(PLAIN.encode("ascii"))
    assert _text(path) == (
        "From: Ana Silva <ana@example.org>\n"
        "Date: Wed, 13 Mar 2024 09:12:40 +0100\n"
        "To: Ben Okafor <ben@example.com>\n"
        "Subject: Re: Budget 2024 - revised numbers\n\n"
        # The quoted message first (it was written first), then the reply above it under its writer's block.
        "From: Ben Okafor <ben@example.com>\n"
        "Date: Tue, 12 Mar 2024 at 17:40\n\n"
        "Attached is the Northwind quote: 2,900 euros for both days. I'll also ask Bluefin for a second offer by "
        "Thursday.\n\n"
        "From: Ana Silva <ana@example.org>\n"
        "Date: Wed, 13 Mar 2024 09:12:40 +0100\n\n"
        # One turn of its writer: no salutation ("Hi Ben,"), no name signed under it ("Ana").
        "I will send the revised spreadsheet to the whole team by Friday March 15, and the final budget goes to "
        "finance on March 22. Café at noon. We decided to keep Lisbon and drop Madrid."
    )


def test_html_only_multipart_eml_is_stripped_to_text_and_attachments_named(tmp_path: Path) -> None:
    msg = EmailMessage()
    msg["From"] = "Chloe Martin <chloe@example.org>"
    msg["To"] = "team@example.org"
    msg["Subject"] = "Venue"
    msg["Date"] = "Thu, 14 Mar 2024 10:00:00 +0000"
    msg.set_content(
        "<html><head><style>p {color: red}</style></head><body><p>Who pays the <b>delivery fee</b>?</p>"
        "<div>Ana &amp; Ben<br>please check.</div><script>x()</script></body></html>",
        subtype="html",
        charset="latin-1",
    )
    msg.add_attachment(b"%PDF-1.4 binary", maintype="application", subtype="pdf", filename="quote.pdf")
    path = tmp_path / "venue.eml"
    path.write_bytes(msg.as_bytes())
    assert _text(path) == (
        "From: Chloe Martin <chloe@example.org>\n"
        "Date: Thu, 14 Mar 2024 10:00:00 +0000\n"
        "To: team@example.org\n"
        "Subject: Venue\n\n"
        "Who pays the delivery fee? Ana & Ben please check.\n\n"
        "[Attachments, not read: quote.pdf]"
    )


def test_a_file_with_no_mail_headers_is_a_problem(tmp_path: Path) -> None:
    c = tmp_path / "c"
    c.mkdir()
    (c / "notes.eml").write_text("\njust some text\n")
    r = CliRunner().invoke(main, ["run", str(c), "--out", str(tmp_path / "out"), "--no-index", "--json"])
    (problem,) = json.loads(r.stdout)["problems"]
    assert "not an e-mail message" in problem["reason"]


def test_unsupported_file_named_explicitly_is_counted_and_reported_as_skipped(tmp_path: Path) -> None:
    pdf = tmp_path / "quote.pdf"
    pdf.write_bytes(b"%PDF-1.4")
    out = tmp_path / "out"
    r = CliRunner().invoke(main, ["run", str(pdf), "--out", str(out), "--no-index", "--json"])
    data = json.loads(r.stdout)
    assert r.exit_code == 1
    assert data["run"]["files_skipped"] == 1
    assert [p["reason"] for p in data["problems"]] == ["unsupported file type '.pdf', skipped"]
    report = CliRunner().invoke(main, ["report", "--out", str(out), "--json"])
    skipped = json.loads(report.stdout)["skipped"]
    assert [(s["relpath"], s["error"]) for s in skipped] == [("quote.pdf", "unsupported file type '.pdf', skipped")]


def test_a_single_message_is_a_conversation_of_its_sender(tmp_path: Path) -> None:
    """A message without a quoted reply is still someone writing to someone: read as a conversation
    (its sender the speaker, its facets extracted), not as a document (reason "default")."""
    path = tmp_path / "note.eml"
    path.write_bytes(PLAIN.split("On Tue, 12 Mar")[0].encode("ascii"))
    doc = read_document(SourceRef(path=path, relpath=path.name, root=path.parent))
    assert doc.content_type == "conversation" and doc.type_reason == "extension .eml", doc.type_reason


def test_a_thousand_quoted_replies_are_read_without_recursion() -> None:
    """Each attributed quote had been a level of recursion: a long thread raised RecursionError."""
    from batchsum.readers.eml import _unquote_replies

    body = "".join(f"Reply {i}.\n\nOn Mon, 1 Jan 2024, Ana <a@x.org> wrote:\n> quoted {i}\n\n" for i in range(1500))
    text = _unquote_replies(body)
    assert text.count("From: Ana <a@x.org>") == 1500
