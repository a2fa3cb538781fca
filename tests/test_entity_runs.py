"""Entities are whole names: an amount's currency code ("JPY3.6 billion") and a fiscal period ("FY24", "Q3")
are none, a guest who speaks under her first name is a participant however she is introduced ("Dr. Lena
Fischer" leaves no "Fischer"), and a call's operator is no participant."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from click.testing import CliRunner

from batchsum.cli import main

CALL = """Operator: Welcome to the call. I will now hand over to Karen Liu, the CFO.
Karen Liu: Revenue in Japan was JPY3.6 billion, and Europe delivered EUR1.2 billion in sales.
Karen Liu: For FY25 we expect growth of 8% to 10%, after FY24 came in at 6% and EUR 1.5 billion.
Mark Stone: Karen, what drove the FY24 miss in Japan and the EUR 1.5 billion figure?
Karen Liu: Mostly yen weakness. Japan sales were JPY2.1 billion in Q3 FY24, or about EUR1.3 billion.
Mark Stone: And the Q4 FY25 margin outlook in 1H25 and 2H25?
Karen Liu: We expect gross margin of 41% in Q4 FY25, up from 1H25 and 2H25.
"""
INTERVIEW = """Maya: Welcome back to Harbor Talk. Today my guest is Dr. Lena Fischer, who studies sediment in harbors.
Lena: Thanks for having me, Maya. I grew up in a fishing town in Portugal.
Maya: What did the buoys in the harbor show about the sediment?
Lena: Two storms a year move more sediment than all the tides. We saw it in Portugal first.
Maya: Dr. Lena Fischer, thank you so much for coming on the show.
"""


def _front(tmp_path: Path, name: str, text: str) -> dict[str, Any]:
    corpus = tmp_path / "in"
    corpus.mkdir()
    (corpus / name).write_text(text, encoding="utf-8")
    out = tmp_path / "out"
    r = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--no-index"])
    assert r.exit_code == 0, r.output
    final = (out / name / "summaries" / "L3" / "final.md").read_text(encoding="utf-8")
    return yaml.safe_load(final.split("---\n", 2)[1])


def test_amounts_and_fiscal_periods_are_no_entities_and_the_operator_no_participant(tmp_path: Path) -> None:
    front = _front(tmp_path, "call.txt", CALL)
    entities = front.get("entities", [])
    assert "Japan" in entities
    # no currency code, whole or cut at its decimal point, and no period of the year
    assert not [e for e in entities if e[:3] in {"JPY", "EUR"} or e[:2] in {"FY", "Q3", "Q4", "1H", "2H"}]
    assert front["participants"] == ["Karen Liu", "Mark Stone"]


def test_a_guest_named_in_full_is_a_participant_not_half_a_name(tmp_path: Path) -> None:
    front = _front(tmp_path, "ep10.txt", INTERVIEW)
    entities = front.get("entities", [])
    assert "Portugal" in entities
    assert not {"Fischer", "Lena", "Lena Fischer"} & set(entities)
    assert front["participants"] == ["Maya", "Lena"]
