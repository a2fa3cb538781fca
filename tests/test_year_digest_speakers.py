"""A chat's sentence in a year's digest keeps its speaker: the year picks from its months' paragraphs, and a
sentence picked from inside a turn is written after that turn's speaker, never run onto another's line."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main
from batchsum.navigation import LINKS_MARKER

# A team's channels, a file a day each: turns of two sentences, a year's share of a month's day holding one.
DAYS = {
    "support/2024-03-12": [
        (
            "Priya Raman",
            "Ticket 5512 from Globex: their SSO login loops after the Okta change, "
            "in every browser and in both of their offices since Monday morning. Ben, can you reproduce it?",
        ),
        ("Ben Okafor", "Reproduced on staging. The redirect URI lost its trailing slash. I'll push a fix tomorrow."),
        ("Ana Silva", "Great, let's tell Globex the ETA is Wednesday 13 March."),
    ],
    "general/2024-03-12": [
        ("Ana Silva", "Morning all. The refund queue for Acme Corp is at 140 tickets, up from 90 yesterday."),
        ("Ben Okafor", "I'll triage the Acme refunds by Thursday."),
        (
            "Priya Raman",
            "We decided to pause the new macro rollout until the billing bug is fixed. Details in BILL-42.",
        ),
    ],
    "night/2024-03-12": [
        ("Lena Vogel", "Hi Tom, the night queue had 35 chats, mostly password resets."),
        ("Tom Berger", "OK. I will escalate the two VIP tickets to Priya by noon. One of them is the Hooli account."),
        ("Lena Vogel", "Yes, decided: German greeting from tomorrow."),
    ],
    "mods/2024-03-12": [
        ("Kira Mills", "Raid in general again, 40 accounts posting the same crypto link. Turn on slow mode?"),
        ("Dmitri Kov", "I'll turn on the AutoMod keyword filter by Thursday. Bans are done."),
    ],
    "general/2024-03-13": [
        ("Ben Okafor", "Acme refunds triaged: 120 approved, 20 need manager sign-off."),
        ("Priya Raman", "Thanks! I'll ask Ana for the manager sign-off by Friday."),
    ],
}
SPEAKER = re.compile("(" + "|".join(sorted({who for turns in DAYS.values() for who, _ in turns})) + "): ")


def test_a_chat_sentence_in_a_years_digest_is_written_after_its_speaker(tmp_path: Path) -> None:
    src, out = tmp_path / "chats", tmp_path / "out"
    src.mkdir()
    for day, turns in DAYS.items():
        (src / day).parent.mkdir(exist_ok=True)
        (src / f"{day}.txt").write_text("".join(f"{who}: {said}\n" for who, said in turns), encoding="utf-8")
    res = CliRunner().invoke(
        main, ["run", str(src), "--out", str(out), "--type", "conversation", "--quiet"], catch_exceptions=False
    )
    assert res.exit_code == 0, res.output
    year = (out / "digests" / "2024.md").read_text(encoding="utf-8").split("\n# 2024\n", 1)[1]
    body = year.split(LINKS_MARKER, 1)[0]
    runs = [r.strip() for r in re.split(r"\*\*\d{1,2} March(?: \(\w+\))?\.\*\* ", body) if r.strip()]
    turns = [(who, said) for day in DAYS.values() for who, said in day]
    inside = 0  # sentences picked from inside a turn, not its first
    for run in runs:
        assert SPEAKER.match(run), f"no speaker before {run!r}"
        # Each speaker's words that follow the label are that speaker's, from one of their turns.
        pieces = SPEAKER.split(run)[1:]
        for who, words in zip(pieces[::2], pieces[1::2], strict=True):
            owned = [said for w, said in turns if w == who and words.strip().rstrip(".") in said]
            assert owned, f"{who}: {words!r} in {run!r}"
            inside += not owned[0].startswith(words.strip()[:20])
    assert inside, body  # the case this is about arose
