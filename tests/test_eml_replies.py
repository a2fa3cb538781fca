"""Who wrote what in an .eml reply: the quote is its sender's, the reply its writer's, whether the reply
is written above the quote or under it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from batchsum.cli import main

HEADER = (
    "From: Ana Silva <ana@example.org>\n"
    "To: Ben Okafor <ben@example.com>\n"
    "Subject: Re: Offsite venue\n"
    "Date: Tue, 5 Mar 2024 09:00:00 +0000\n"
    'Content-Type: text/plain; charset="utf-8"\n\n'
)
QUOTE = (
    "On Mon, 4 Mar 2024 at 17:00, Ben Okafor <ben@example.com> wrote:\n"
    "> Porto or Lisbon for the offsite? Porto is cheaper.\n"
    "> I'll ask the team for their dates by Wednesday.\n"
)
REPLY = "Porto it is. We decided to hold the offsite in Porto in May. I'll book the rooms by Friday.\n\nBest,\nAna\n"


def _action_owners(tmp_path: Path, body: str) -> dict[str, str]:
    """The action items of a run over one message, task -> owner."""
    src = tmp_path / "mail"
    src.mkdir()
    (src / "offsite.eml").write_text(HEADER + body, encoding="utf-8")
    out = tmp_path / "out"
    r = CliRunner().invoke(main, ["run", str(src), "--out", str(out), "--no-index", "--json"])
    assert r.exit_code == 0 and json.loads(r.stdout)["run"]["files_done"] == 1, r.output
    final = (out / "offsite.eml" / "summaries" / "L3" / "final.md").read_text(encoding="utf-8")
    items = [ln[2:] for ln in final.split("**Action items**", 1)[1].splitlines() if ln.startswith("- ")]
    return {task.split(": ", 1)[1]: task.split(": ", 1)[0] for task in items}


@pytest.mark.parametrize("body", [QUOTE + "\n" + REPLY, REPLY + "\n" + QUOTE], ids=["reply-below", "reply-above"])
def test_a_reply_is_its_writers_and_the_quote_its_senders(tmp_path: Path, body: str) -> None:
    owners = _action_owners(tmp_path, body)
    assert owners[next(t for t in owners if "book the rooms" in t)] == "Ana Silva"
    assert owners[next(t for t in owners if "ask the team" in t)] == "Ben Okafor"
