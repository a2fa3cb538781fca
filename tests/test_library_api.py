"""The library's surface as an embedding program meets it: every keyword checked, every command option a
keyword, annotations a type checker (or ``typing.get_type_hints``) can resolve, one exception per kind of bad
output folder, one ``to_dict()`` on every result object, and errors that name the library's keywords."""

from __future__ import annotations

import inspect
import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import batchsum
from batchsum.cli import main
from batchsum.errors import ConfigError, IndexError_, LockedError
from batchsum.lock import RunLock
from tests.conftest import REPO, SAMPLE_CORPUS
from tests.fakeserver import FakeLLMServer
from tests.test_eval_cli import DOCS, REFS

HEAVY = ("chromadb", "onnxruntime", "openai", "ray")


@pytest.fixture()
def corpus(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    src.mkdir()
    for name in ("2026-10-01.md", "2026-10-02.md"):
        shutil.copy(SAMPLE_CORPUS / "journal" / name, src / name)
    return src


@pytest.mark.parametrize("fmt", ["json-schema", "xml"])
def test_facts_refuses_an_unknown_json_format(corpus: Path, tmp_path: Path, fake_llm: FakeLLMServer, fmt: str) -> None:
    with pytest.raises(ConfigError, match=r"json_format=.*'json_schema', 'json_object', 'off'"):
        batchsum.facts(str(corpus), out=str(tmp_path / "out"), base_url=fake_llm.base_url, model="m", json_format=fmt)
    assert fake_llm.requests() == []  # refused before anything was asked


def test_plan_takes_the_commands_price(corpus: Path, tmp_path: Path, fake_llm: FakeLLMServer) -> None:
    out = str(tmp_path / "out")
    plan = batchsum.plan(str(corpus), out=out, base_url=fake_llm.base_url, model="m", price="0.15,0.60")
    assert plan.est_cost is not None and plan.est_cost > 0
    assert plan.est_cost == round(plan.cost(0.15, 0.60), 6)
    assert batchsum.plan(str(corpus), out=out, base_url=fake_llm.base_url, model="m", price=(0.15, 0.60)) == plan
    with pytest.raises(ConfigError, match="price="):
        batchsum.plan(str(corpus), out=out, price="cheap")
    # An unknown keyword names the function called and the command whose flags the keywords are.
    with pytest.raises(TypeError, match=r"batchsum\.plan\(\): unknown option 'prize'.*`batchsum plan`"):
        batchsum.plan(str(corpus), out=out, prize="0.15")


def test_annotations_resolve_and_import_stays_light() -> None:
    """In a fresh interpreter: ``import batchsum`` loads no heavy library, then every public function's and
    class's annotations resolve (the names the package loads on demand among them)."""
    code = (
        "import inspect, json, sys, typing\n"
        "import batchsum\n"
        f"heavy = [m for m in {HEAVY!r} if m in sys.modules]\n"
        "failed = {}\n"
        "for name in batchsum.__all__:\n"
        "    obj = getattr(batchsum, name)\n"
        "    if inspect.isfunction(obj) or inspect.isclass(obj):\n"
        "        try:\n"
        "            typing.get_type_hints(obj)\n"
        "        except Exception as exc:\n"
        "            failed[name] = repr(exc)\n"
        "print(json.dumps({'heavy': heavy, 'failed': failed}))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True)
    assert json.loads(proc.stdout) == {"heavy": [], "failed": {}}


def test_signatures_stay_as_written() -> None:
    params = inspect.signature(batchsum.plan).parameters
    assert list(params) == ["paths", "price", "options"] and params["price"].default is None
    assert inspect.signature(batchsum.search).parameters["k"].default == 5


def _bad_output_calls(folder: str) -> dict[str, Callable[[], Any]]:
    return {
        "search": lambda: batchsum.search(folder, "milk"),
        "search_facts": lambda: batchsum.search_facts(folder, "milk"),
        "check_index": lambda: batchsum.check_index(folder),
        "repair_index": lambda: batchsum.repair_index(folder),
        "repair_index rebuild": lambda: batchsum.repair_index(folder, rebuild=True),
    }


@pytest.mark.parametrize("kind", ["missing", "no output"])
def test_a_folder_that_holds_no_output_is_an_index_error(tmp_path: Path, kind: str) -> None:
    folder = tmp_path / "out"
    if kind == "no output":
        folder.mkdir()
    for name, call in _bad_output_calls(str(folder)).items():
        with pytest.raises(IndexError_) as caught:
            call()
        assert not isinstance(caught.value, ConfigError), name
    assert not (folder / ".batchsum").exists()


@pytest.mark.parametrize(
    "call",
    [
        lambda: batchsum.check_index(5),
        lambda: batchsum.repair_index(5),
        lambda: batchsum.search(5, "milk"),
        lambda: batchsum.search_facts(5, "milk"),
        lambda: batchsum.export(5, "dest"),
        lambda: batchsum.report(5),
    ],
)
def test_an_out_that_is_no_path_is_a_config_error(call: Callable[[], Any]) -> None:
    with pytest.raises(ConfigError, match="out=5: must be a path"):
        call()


def test_every_result_object_has_a_json_ready_to_dict(corpus: Path, tmp_path: Path, fake_llm: FakeLLMServer) -> None:
    (corpus / "binary.txt").write_bytes(b"\x00\x01\x02\x03" * 100)  # a Problem
    out = str(tmp_path / "out")
    run = batchsum.run(str(corpus), out=out)
    fake_llm.configure(rules=[{"match": "The journal entry:", "content": json.dumps({"facts": ["The user walks."]})}])
    facts = batchsum.facts(str(corpus), out=out, base_url=fake_llm.base_url, model="fake", rpm=0)
    messages = [{"role": "user", "content": f"step {i}: the tide gauge at pier {i} drifted"} for i in range(30)]
    docs, refs = tmp_path / "docs", tmp_path / "refs"
    for folder, texts in ((docs, DOCS), (refs, REFS)):
        folder.mkdir()
        (folder / "harbor.txt").write_text(texts["harbor"], encoding="utf-8")
    evaluated = batchsum.eval_summaries(docs, refs, out=tmp_path / "eval-out", metrics=False)
    check, repaired = batchsum.check_index(out), batchsum.repair_index(out)
    results: list[Any] = [
        run,
        *run.problems,
        batchsum.plan(str(corpus), out=out),
        *batchsum.search(out, "Tidewater sensor buoys", k=2),
        batchsum.report(out),
        batchsum.compact(messages, context_window=128, preserve_recent=2),
        facts,
        *batchsum.search_facts(out, "walks", k=1),
        evaluated,
        check,
        repaired,
    ]
    kinds = {type(r).__name__ for r in results}
    assert {"RunResult", "Problem", "PlanSummary", "SearchHit", "Report", "CompactionResult"} <= kinds
    assert {"FactsResult", "FactHit", "EvalReport", "IndexCheck", "IndexStats"} <= kinds
    for result in results:
        assert json.loads(json.dumps(result.to_dict())), type(result).__name__
    # The older names are the same method.
    assert run.as_json() == run.to_dict() and facts.as_json() == facts.to_dict()
    plan = batchsum.plan(str(corpus), out=out)
    assert plan.as_dict() == plan.to_dict() and evaluated.as_dict() == evaluated.to_dict()
    # The command's --json is the object's to_dict(): the two cannot drift apart.
    shown = CliRunner().invoke(main, ["index", out, "--check", "--json"])
    assert shown.exit_code == 0 and json.loads(shown.stdout) == check.to_dict()
    shown = CliRunner().invoke(main, ["index", out, "--json"])
    assert shown.exit_code == 0 and set(repaired.to_dict()) <= set(json.loads(shown.stdout))


def test_compact_shows_its_real_signature() -> None:
    """``batchsum.compact`` is a module made callable: its signature is the real function's, keyword-only
    options and all, and a call binds as that signature says."""
    sig = inspect.signature(batchsum.compact)
    assert sig == inspect.signature(batchsum.compact.compact)
    assert sig.parameters["context_window"].kind is inspect.Parameter.KEYWORD_ONLY
    assert "options" not in sig.parameters and sig.parameters["preserve_recent"].default is None
    messages = [{"role": "user", "content": f"step {i}: the tide gauge at pier {i} drifted"} for i in range(30)]
    by_name = batchsum.compact(messages=messages, context_window=128, preserve_recent=2)
    by_position = batchsum.compact(messages, context_window=128, preserve_recent=2)
    assert by_name.compacted and by_name.tokens_after == by_position.tokens_after


def test_errors_name_the_librarys_keywords(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    batchsum.run(str(corpus), out=str(out))
    with RunLock(out), pytest.raises(LockedError, match="wait=True"):
        batchsum.repair_index(str(out))
    with pytest.raises(ConfigError, match=r"level='7'"):
        batchsum.search(str(out), "walk", level="7")
    with pytest.raises(ConfigError, match=r"type='diary'"):
        batchsum.search(str(out), "walk", type="diary")
