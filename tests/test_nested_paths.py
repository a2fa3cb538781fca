"""A PATH inside another PATH of the same run is folded into it: each file is summarized once, under the name
the outer folder gives it."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main

TEXT = "The harbour budget pays for the new pier this year, the council said on Monday.\n"


def test_a_path_inside_another_is_walked_once(tmp_path: Path) -> None:
    src, out = tmp_path / "c", tmp_path / "out"
    (src / "sub").mkdir(parents=True)
    (src / "e0.txt").write_text(TEXT, encoding="utf-8")
    (src / "sub" / "e1.txt").write_text(TEXT.replace("pier", "bridge"), encoding="utf-8")
    args = ["run", str(src / "sub"), str(src), str(src / "sub" / "e1.txt"), "--out", str(out), "--json"]
    res = CliRunner().invoke(main, args, catch_exceptions=False)
    assert res.exit_code == 0, res.output
    names = sorted(f["relpath"] for f in json.loads(res.stdout)["files"])
    assert names == ["e0.txt", "sub/e1.txt"]
    assert sorted(p.parent.parent.relative_to(out).as_posix() for p in out.rglob("summaries/L3")) == names
