"""A cut at a word boundary never parts a number from the word that qualifies it ("$210 million", "14 %",
"3.5 points"): it cuts before the number ("... at…", not "... at $210…"); a number a function word follows
("fiscal 2025 and") is whole and stays."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from batchsum.backends.budget import trim_to_sentence_boundary
from batchsum.cli import main
from batchsum.periods import ONE_LINE_WORDS, one_line
from batchsum.text import cut_before_amount
from batchsum.tokens import get_tokenizer

# No sentence ends in it: a cut can only be at a word.
AMOUNTS = (
    "Karen Liu said Europe was flat versus last year at $210 million while pricing in the United States "
    "added 3.5 points and margins rose 14 % on the year as volume in fiscal 2025 and beyond kept growing "
    "with about 1,200 new customers"
)
# A number, then the word or sign that says what it counts.
_PARTED = re.compile(r"(?<!\S)[$]?\d[\d.,]*…$")


def test_a_budget_cut_never_ends_on_a_parted_amount() -> None:
    tok = get_tokenizer("cl100k_base")
    cuts = [trim_to_sentence_boundary(AMOUNTS, n, tok)[0] for n in range(4, tok.count(AMOUNTS))]
    assert all(c.endswith("…") for c in cuts), cuts  # never "added 3." (of "3.5"), a stop the cut made
    parted = [c for c in cuts if _PARTED.search(c) and not c.endswith("2025…")]
    assert not parted, parted
    assert any(c.endswith(" at…") for c in cuts), cuts  # where "$210" had been left without its "million"
    assert any(c.endswith("fiscal 2025…") for c in cuts), cuts  # a year before "and" is whole


def test_a_one_line_summary_cuts_before_the_amount() -> None:
    words = ["word"] * (ONE_LINE_WORDS - 1) + ["$210", "million", "in", "Europe."]
    line = one_line(" ".join(words))
    assert line.endswith("word…") and "$210" not in line, line


def test_only_a_qualified_number_goes() -> None:
    assert cut_before_amount("flat at $210", " million.") == "flat at"
    assert cut_before_amount("margins rose 14", " % on") == "margins rose"
    assert cut_before_amount("in fiscal 2025", " and beyond") == "in fiscal 2025"
    assert cut_before_amount("at $210,", " up 3%") == "at $210,"


def test_a_digest_line_of_a_long_first_sentence_keeps_its_amount_whole(tmp_path: Path) -> None:
    src = tmp_path / "notes"
    src.mkdir()
    lead = " ".join(f"w{i}" for i in range(ONE_LINE_WORDS - 2))
    (src / "results.md").write_text(
        f"Europe {lead} $210 million in the quarter and more besides that we will not read here.\n\n"
        "The second paragraph says something else entirely about pricing in the United States.\n",
        encoding="utf-8",
    )
    out = tmp_path / "out"
    r = CliRunner().invoke(main, ["run", str(src), "--out", str(out)], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    index = (out / "index.md").read_text(encoding="utf-8")
    entry = next(ln for ln in index.splitlines() if ln.startswith("- [results]"))
    assert "…" in entry and "$210…" not in entry, entry


CALL = (
    "Karen Liu: Thanks everyone for joining today.\n"
    "Karen Liu: Apple Inc. remained our largest customer and U.S. pricing added 3.5 points, i.e. about $42 million.\n"
    "Mark Stone: Got it. How did Europe do?\n"
    "Karen Liu: Europe was flat vs. last year at $210 million.\n"
    "Mark Stone: And the outlook?\n"
    "Karen Liu: We see growth of 4% in fiscal 2025.\n"
)


def test_a_final_cut_to_a_tight_budget_never_ends_on_a_parted_amount(tmp_path: Path) -> None:
    """The summarizer's own cut, when the pick the level above keeps outgrows its cap."""
    (tmp_path / "call.txt").write_text(CALL, encoding="utf-8")
    out = tmp_path / "out"
    args = ["run", str(tmp_path / "call.txt"), "--out", str(out), "--thresholds", "20,30,40,15000", "--no-index"]
    result = CliRunner().invoke(main, [*args, "-q"])
    assert result.exit_code == 0, result.output
    for node in out.glob("call.txt/summaries/*/*.md"):
        body = node.read_text(encoding="utf-8").split("\n---\n", 1)[1].split("<!-- batchsum:links")[0]
        for line in body.strip().splitlines():
            assert not _PARTED.search(line.strip()), (node.name, line)
