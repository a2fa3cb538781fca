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


def test_a_folded_path_keeps_its_own_type_and_a_named_file_is_read(tmp_path: Path) -> None:
    notes, out = tmp_path / "notes", tmp_path / "out"
    (notes / "calls").mkdir(parents=True)
    (notes / "plan.md").write_text(TEXT, encoding="utf-8")
    (notes / "calls" / "call.md").write_text(
        "Ana: The harbour budget pays for the pier.\nBen: Then we start in May.\nAna: Good, May it is.\n"
        "Ben: I'll tell the council on Monday.\n",
        encoding="utf-8",
    )
    (notes / "draft.md").write_text(TEXT.replace("pier", "ferry"), encoding="utf-8")
    (notes / ".batchsumignore").write_text("draft.md\n", encoding="utf-8")
    pipeline = tmp_path / "p.yaml"
    pipeline.write_text(
        f"corpora:\n  - {{path: {notes}, type: document}}\n  - {{path: {notes / 'calls'}, type: conversation}}\n"
        f"  - {{path: {notes / 'draft.md'}}}\n",
        encoding="utf-8",
    )
    res = CliRunner().invoke(main, ["run", "--pipeline", str(pipeline), "--out", str(out), "--json"])
    assert res.exit_code == 0, res.output
    files = {f["relpath"]: f for f in json.loads(res.stdout)["files"]}
    assert sorted(files) == ["calls/call.md", "draft.md", "plan.md"]  # each once; the named file read
    call = (out / "calls" / "call.md" / "summaries" / "L3" / "final.md").read_text(encoding="utf-8")
    assert "content_type: conversation" in call
    plan = (out / "plan.md" / "summaries" / "L3" / "final.md").read_text(encoding="utf-8")
    assert "content_type: document" in plan
