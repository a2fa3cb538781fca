"""``batchsum facts`` reads an e-mail as ``run`` does: each message one turn of its sender, named as a
turn's speaker; its header lines ("From:", "Date:", "To:", "Subject:") are no turns of their own."""

from __future__ import annotations

import re
from pathlib import Path

from batchsum.memory.files import iter_facts
from tests.fakeserver import FakeLLMServer
from tests.test_facts import facts_cli, facts_json

THREAD = (
    "From: Dana Reyes <dana@example.com>\n"
    "To: support@example.com\n"
    "Subject: Re: Refund request\n"
    "Date: Wed, 04 Mar 2026 10:15:00 +0000\n\n"
    "Thanks Marco, I see the refund on my card now.\n\n"
    "On Tue, 03 Mar 2026 16:02:00 +0000, Marco Bianchi <marco@example.com> wrote:\n"
    "> Update: I have issued a full refund of 49 dollars to your card.\n"
    "> Note: it should arrive within five days.\n"
)


def test_an_email_is_one_turn_per_message_named_by_its_sender(fake_llm: FakeLLMServer, tmp_path: Path) -> None:
    src = tmp_path / "mail"
    src.mkdir()
    (src / "refund.eml").write_text(THREAD, encoding="utf-8")
    fake_llm.configure(rules=[{"match": "The conversation turns:", "content": facts_json("The user got a refund.")}])
    result = facts_cli(src, "--out", tmp_path / "out", base_url=fake_llm.base_url)
    assert result.exit_code == 0, result.output
    sent = "\n\n".join(e.prompt_text for e in fake_llm.log if "The conversation turns:" in e.prompt_text)
    assert sent, result.output
    # No header field is sent as something said, nor a line of a message as someone else's turn.
    assert not re.search(r"(?m)^(From|To|Subject|Date|Update|Note): ", sent)
    assert "Dana Reyes: Thanks Marco, I see the refund" in sent
    assert re.search(r"Marco Bianchi: Update: I have issued a full refund.*\s+Note: it should arrive", sent)
    assert any(f.source_path == "refund.eml" for f in iter_facts(tmp_path / "out"))
