"""A file whose name and first heading both name a day no calendar has ("2024-02-30.md" under "## 2024-02-30")
is warned of once, for its name, as docs/digests.md says (a reviewer's find: it was warned of twice, for its
heading and for its name)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main

COPIED = 1_800_000_000  # an mtime in 2027
BODY = "Today I fixed the gauge. Maria called me about it.\n"


def test_a_name_and_heading_on_no_day_are_one_warning(tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    files = {"2024-02-30.md": f"## 2024-02-30\n{BODY}", "2024-02-31.md": f"## 2024-03-02\n{BODY}"}
    for name, text in files.items():
        (src / name).write_text(text, encoding="utf-8")
        os.utime(src / name, (COPIED, COPIED))
    res = CliRunner().invoke(main, ["run", str(src), "--out", str(out), "--no-metrics", "--json"])
    assert res.exit_code == 0, res.output
    warnings = json.loads(res.stdout)["warnings"]
    [said] = [w for w in warnings if "no day of the calendar" in w and "2024-02-30.md" in w]
    assert "its name's date 2024-02-30" in said and "mtime" in said
    # A real heading under an impossible name dates the file, and the name is still said once.
    [named] = [w for w in warnings if "no day of the calendar" in w and "2024-02-31.md" in w]
    assert "its name's date 2024-02-31" in named and "first entry" in named
