"""A new --final-words caps only a HIERARCHICAL file's final: `plan` and `run` re-plan only those files,
agree on how many, and the next night re-plans nothing."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from batchsum.cli import main
from batchsum.config import STATE_DIR
from batchsum.state import StateStore
from tests.fakeserver import FakeLLMServer

# NONE, BRIEF, STANDARD, DETAILED bounds in tokens: small files land on every level.
THRESHOLDS = "20,60,150,400"
WORDS = "harbour boats market lantern morning letters river garden orchard bridge winter ledger".split()


def _text(sentences: int, seed: int) -> str:
    lines = []
    for i in range(sentences):
        a, b, c = (WORDS[(seed + i * k) % len(WORDS)] for k in (1, 3, 5))
        lines.append(f"On day {i + seed} Anna wrote about the {a} near the {b} and the {c} she kept.")
    return "\n".join(lines) + "\n"


def _corpus(root: Path) -> Path:
    src = root / "src"
    src.mkdir()
    for name, sentences in {"long.md": 60, "a.md": 3, "b.md": 6, "c.md": 14}.items():
        (src / name).write_text(_text(sentences, len(name) + sentences), encoding="utf-8")
    return src


def _invoke(command: str, *args: str) -> dict[str, Any]:
    res = CliRunner().invoke(main, [command, *args, "--json"])
    assert res.exit_code == 0, res.stderr
    data: dict[str, Any] = json.loads(res.stdout)
    return data


def _planned(data: dict[str, Any]) -> set[str]:
    return {f["relpath"] for f in data["files"] if f["status"] != "unchanged"}


def test_plan_and_run_agree_that_a_new_word_cap_replans_only_hierarchical_files(
    tmp_path: Path, fake_llm: FakeLLMServer
) -> None:
    fake_llm.configure(any_model=True)
    src, out = _corpus(tmp_path), str(tmp_path / "out")
    llm = ["--base-url", fake_llm.base_url, "--model", "m", "--rpm", "0"]
    first = _invoke("run", str(src), "--out", out, "--no-index", "--thresholds", THRESHOLDS, *llm)
    levels = {f["relpath"]: f["level"] for f in first["files"]}
    hierarchical = {rel for rel, level in levels.items() if level == "HIERARCHICAL"}
    assert hierarchical and len(set(levels.values())) >= 3, levels
    for cap in ("100", "200"):  # from the default cap, then from one the folder was built with
        plan = _invoke("plan", str(src), "--out", out, "--final-words", cap)
        assert set(plan["changed"]) == hierarchical, plan["changed"]
        ran = _invoke("run", str(src), "--out", out, "--no-index", "--final-words", cap, "--yes")
        assert _planned(ran) == hierarchical
        assert any(f": {len(hierarchical)} of {len(levels)} files" in w for w in ran["warnings"]), ran["warnings"]
        calls = fake_llm.request_count
        again = _invoke("run", str(src), "--out", out, "--no-index")
        assert _planned(again) == set() and fake_llm.request_count == calls
        assert _invoke("plan", str(src), "--out", out)["changed"] == []


def test_a_folder_whose_every_file_held_its_word_cap_replans_only_hierarchical_files_at_the_next_cap(
    tmp_path: Path,
) -> None:
    """An older batchsum recorded the cap in every file's signature: the first run at the folder's cap gives
    each file its own (nothing re-planned), and the next cap re-plans only the HIERARCHICAL files."""
    src, out = _corpus(tmp_path), tmp_path / "out"
    first = _invoke(
        "run", str(src), "--out", str(out), "--no-index", "--thresholds", THRESHOLDS, "--final-words", "300"
    )
    hierarchical = {f["relpath"] for f in first["files"] if f["level"] == "HIERARCHICAL"}
    state = StateStore(out / STATE_DIR)
    manifest = state.load_manifest()
    capped = {e.config_sig for e in manifest.values() if e.level == "HIERARCHICAL"}
    assert len(capped) == 1 and hierarchical
    for entry in manifest.values():  # as the older version wrote them
        state.save_entry(replace(entry, config_sig=next(iter(capped))))
    assert _invoke("plan", str(src), "--out", str(out))["changed"] == []
    assert _planned(_invoke("run", str(src), "--out", str(out), "--no-index")) == set()
    assert set(_invoke("plan", str(src), "--out", str(out), "--final-words", "100")["changed"]) == hierarchical
