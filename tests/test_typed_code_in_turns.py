"""Code typed into a chat turn comes out as typed: the speech cleaner takes neither a pytest node id's "::"
for a doubled mark nor "test tests/..." or "cat cat.txt" for a stutter, in ``batchsum compact`` and in a
batch run's summary of a typed chat."""

from __future__ import annotations

import json
import re
from pathlib import Path

from click.testing import CliRunner

from batchsum.cleanup import clean_transcript
from batchsum.cli import main
from batchsum.tree import node_path, read_node

NODE = "tests/test_tax.py::test_vat"
ASK = f"Now also fix the flaky test {NODE} in the payments package."
CODE = ("std::vector", "cat cat.txt", "test tests/test_tax.py")


def _corrupted(text: str) -> list[str]:
    """What of the typed code ``text`` lost: a node id or scope with one colon, a command word dropped."""
    bad = re.findall(r"(?<![:\w])\w*:test_vat|std:(?!:)\w+", text)
    return bad + [w for w in ("flaky tests/", "run cat.txt") if w in text]


def test_compact_keeps_a_chat_turns_code(tmp_path: Path) -> None:
    msgs = [{"role": "user", "content": "Set up the repo."}, {"role": "assistant", "content": "Done."}]
    msgs += [{"role": "user", "content": ASK}, {"role": "assistant", "content": f"I will run pytest {NODE} first."}]
    for i in range(6):
        msgs += [{"role": "user", "content": f"ok {i}"}, {"role": "assistant", "content": f"working on it {i}"}]
    path = tmp_path / "chat.jsonl"
    path.write_text("".join(json.dumps(m) + "\n" for m in msgs), encoding="utf-8")
    res = CliRunner().invoke(main, ["compact", str(path), "--json", "--preserve-recent", "2"])
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout)["summary"]
    assert NODE in summary, summary
    assert not _corrupted(summary), summary


def test_a_runs_summary_of_a_typed_chat_keeps_its_code(tmp_path: Path) -> None:
    corpus, out = tmp_path / "corpus", tmp_path / "out"
    corpus.mkdir()
    (corpus / "standup.txt").write_text(
        "[09:01] Ana: Morning all, quick sync on the payments release.\n"
        "[09:02] Ben: The invoice rounding fix is merged and deployed to staging.\n"
        f"[09:03] Ana: {ASK}\n"
        f"[09:04] Ben: I will fix the flaky test {NODE} by Friday.\n"
        "[09:05] Ana: We decided to keep std::vector in the exporter, and run cat cat.txt before the release.\n"
        "[09:06] Ben: Great, talk tomorrow.\n",
        encoding="utf-8",
    )
    res = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--no-index", "--no-metrics", "-q"])
    assert res.exit_code == 0, res.output
    meta, body = read_node(node_path(out, "standup.txt", 3, None))
    written = body + json.dumps(meta)
    assert NODE in written and "std::vector" in written, written
    assert not _corrupted(written), written


def test_speech_is_still_cleaned_beside_code() -> None:
    # The cleaner's rules stand for words: a stutter and a doubled mark go where no code is glued on.
    cleaned = clean_transcript(f"the the tests pass, , and ho how {CODE[0]} and {CODE[1]} stay")
    assert cleaned.startswith("The tests pass, and how") and all(c in cleaned for c in CODE[:2]), cleaned
