"""Pipeline files: the shipped ones load, every class of error names its line, CLI flags win."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from batchsum.config import RunConfig
from batchsum.errors import ConfigError, PipelineError
from batchsum.model import Thresholds
from batchsum.pipeline_file import apply_pipeline, load_pipeline

REPO = Path(__file__).resolve().parent.parent
PIPELINES = REPO / "pipelines"


def _write(tmp_path: Path, body: str, name: str = "p.yaml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(body).lstrip("\n"), encoding="utf-8")
    return path


def _error(path: Path) -> str:
    with pytest.raises(PipelineError) as err:
        load_pipeline(path)
    assert isinstance(err.value, ConfigError)  # so the CLI exits with code 2
    return str(err.value)


@pytest.fixture
def corpus(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory with a corpus folder, like a project checkout."""
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "a.md").write_text("hello\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


# -- shipped files -------------------------------------------------------------------------


def test_shipped_nightly_loads_from_any_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # cron starts us elsewhere; `root: ..` anchors the paths
    spec = load_pipeline(PIPELINES / "nightly.yaml")
    assert [c.path.resolve() for c in spec.corpora] == [(REPO / "sample_corpus").resolve()]
    assert spec.corpora[0].type == "auto"
    assert spec.settings["llm.base_url"] is None  # kind: extractive
    assert spec.settings["out"].resolve() == (REPO / "batchsum-out").resolve()
    assert spec.settings["index"] is True and spec.settings["metrics"] is True
    assert spec.settings["git"] is False and "log_file" not in spec.settings
    cfg = apply_pipeline(spec, RunConfig(paths=[]), set())
    assert cfg.paths == [spec.corpora[0].path] and not cfg.llm.enabled and cfg.max_chain_depth == 3


def test_shipped_nightly_llm_loads_and_applies(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-0000000000")
    spec = load_pipeline(Path("pipelines/nightly-llm.yaml"))  # relative file, so root ".." normalizes to "."
    assert spec.api_key_env == "OPENAI_API_KEY"
    assert "sk-test" not in repr(spec)  # the key is read at apply time, never stored in the spec
    types = {c.path.as_posix(): c.type for c in spec.corpora}
    assert types == {
        "sample_corpus/journal": "journal",
        "sample_corpus/meetings": "conversation",
        "sample_corpus/chats": "conversation",
        "sample_corpus/docs": "document",
        "sample_corpus/logbook": "auto",
    }
    cfg = apply_pipeline(spec, RunConfig(paths=[]), set())
    assert cfg.llm.enabled and cfg.llm.base_url == "http://127.0.0.1:8080/v1"
    assert cfg.llm.api_key == "sk-test-0000000000"
    assert cfg.llm.fallback_models == ["qwen2.5-0.5b-instruct"]
    assert (cfg.llm.concurrency, cfg.llm.on_error) == (4, "fallback")
    assert cfg.out == Path.home() / "batchsum-llm-out", "the example writes outside the checkout"
    assert cfg.log_file is not None and Path.home() in cfg.log_file.parents
    cfg.llm.settle_rates()
    assert (cfg.llm.rpm, cfg.llm.tpm) == (None, None), "no rate limits for the loopback server by default"
    assert cfg.llm.facets is None  # "auto"
    assert cfg.thresholds == Thresholds() and (cfg.chunk_size, cfg.chunk_overlap, cfg.group_size) == (3000, 200, 5)
    assert cfg.git is True and cfg.log_format == "json" and cfg.price_per_1k == 0.0
    assert cfg.type_overrides["sample_corpus/meetings"] == "conversation"
    assert "sample_corpus/logbook" not in cfg.type_overrides
    assert cfg.corpus_ignores == {"sample_corpus/docs": ["*.draft.md"]}


def test_sample_corpus_covers_every_level_and_generated_file_is_current() -> None:
    proc = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "make_sample_corpus.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "HIERARCHICAL" in proc.stdout and "DETAILED" in proc.stdout and "NONE" in proc.stdout
    ignore = (REPO / "sample_corpus" / ".batchsumignore").read_text().splitlines()
    assert "drafts/" in ignore and any((REPO / "sample_corpus" / "drafts").iterdir())


# -- applying: CLI flags override the file ----------------------------------------------------


def test_cli_flags_override_the_file(corpus: Path) -> None:
    path = _write(
        corpus,
        """
        corpora:
          - {path: notes, type: transcript, ignore: ["*.tmp"]}
        output: from-file
        backend: {kind: llm, base_url: "http://127.0.0.1:9/v1", rpm: 10, model: m1}
        levels: {brief: 400}
        chunking: {size: 1000, overlap: 100}
        """,
    )
    spec = load_pipeline(path)
    base = RunConfig(paths=[Path("cli-path")], out=Path("cli-out"), content_type="journal")
    base.llm.rpm = 99.0
    cfg = apply_pipeline(spec, base, {"out", "llm.rpm", "paths", "content_type", "thresholds.brief"})
    assert cfg.out == Path("cli-out") and cfg.llm.rpm == 99.0 and cfg.paths == [Path("cli-path")]
    assert cfg.llm.model == "m1" and cfg.chunk_size == 1000 and cfg.chunk_overlap == 100
    assert cfg.thresholds.brief == 500  # set on the command line
    assert cfg.type_overrides == {}  # --type given on the command line wins over per-corpus types
    assert cfg.corpus_ignores == {"notes": ["*.tmp"]}
    assert base.llm.model is None and base.chunk_size == 3000  # the input config is not mutated

    cfg = apply_pipeline(spec, RunConfig(paths=[]), set())
    assert cfg.out == Path("from-file") and cfg.paths == [Path("notes")] and cfg.llm.rpm == 10
    assert cfg.thresholds.brief == 400 and cfg.type_overrides == {"notes": "conversation"}


def test_relative_paths_follow_cwd_without_root(corpus: Path) -> None:
    sub = corpus / "pipelines"
    sub.mkdir()
    spec = load_pipeline(_write(sub, "corpora: [notes]\noutput: out\n"))
    assert spec.corpora[0].path == Path("notes") and spec.settings["out"] == Path("out")


def test_missing_api_key_env_warns_and_sends_none(corpus: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = _write(
        corpus, "corpora: [notes]\nbackend: {kind: llm, base_url: 'http://127.0.0.1:9/v1', api_key_env: MY_KEY}\n"
    )
    cfg = apply_pipeline(load_pipeline(path), RunConfig(paths=[]), set())
    assert cfg.llm.api_key is None
    assert "MY_KEY, which is not set" in caplog.text


# -- errors name the file and the line ----------------------------------------------------


@pytest.mark.parametrize(
    ("body", "line", "message"),
    [
        (
            "corpora: [notes]\nbackend:\n  kind: llm\n  base_url: http://127.0.0.1:9/v1\n  modle: x\n",
            5,
            "unknown key 'modle' in backend (did you mean 'model'?)",
        ),
        ("corpora: [notes]\nmodel: x\n", 2, "unknown key 'model' (did you mean 'backend.model'?)"),
        ("corpora: [notes]\noutptu: x\n", 2, "unknown key 'outptu' (did you mean 'output'?)"),
        ("corpora:\n  - path: notes\n    typ: journal\n", 3, "unknown key 'typ' in corpora (did you mean 'type'?)"),
        ("corpora: [notes]\ntype: journal\n", 2, "did you mean 'type' inside a 'corpora' entry?"),
        ("corpora: [notes]\nindex:\n  git: true\n", 3, "unknown key 'git' in index (did you mean the top-level key"),
        ("corpora: [notes]\nlogging: {colour: x}\n", 2, "(valid keys: file, format)"),
        ("corpora: [notes]\nbackend:\n  rpm: sixty\n", 3, "'backend.rpm' must be a number, got string 'sixty'"),
        ("corpora: [notes]\ngit: yes please\n", 2, "'git' must be true or false, got string 'yes please'"),
        ("corpora: [notes]\nchunking: {size: 2.5}\n", 2, "'chunking.size' must be an integer, got number 2.5"),
        ("corpora: [notes]\nbackend: {concurrency: 0}\n", 2, "'backend.concurrency' must be at least 1, got 0"),
        ("corpora: [notes]\nbackend: extractive\n", 2, "'backend' must be a mapping, got string"),
        ("corpora: notes\n", 1, "'corpora' must be a list of corpora, got string"),
        ("corpora: []\n", 1, "'corpora' is empty"),
        ("output: out\n", 1, "missing required key 'corpora'"),
        ("corpora:\n  - notes\n  - type: journal\n", 3, "corpus entry has no 'path'"),
        ("corpora:\n  - notes\n  - path: nowhere\n", 3, "corpus path nowhere does not exist"),
        ("corpora:\n  - notes\n  - notes\n", 3, "corpus notes is listed twice (first on line 2)"),
        (
            "corpora: [notes]\nbackend: {prompts_dir: missing}\n",
            2,
            "'backend.prompts_dir' folder missing does not exist",
        ),
        ("corpora: [notes]\nroot: nowhere\n", 2, "'root' folder"),
        (
            "corpora: [notes]\nbackend:\n  on_error: fallbak\n",
            3,
            "'backend.on_error' must be one of fallback, fail, abort, got 'fallbak'; did you mean 'fallback'?",
        ),
        ("corpora:\n  - {path: notes, type: diary}\n", 2, "'type' must be one of auto, journal"),
        ("corpora: [notes]\nlogging: {format: xml}\n", 2, "'logging.format' must be one of text, json"),
        ("corpora: [notes]\ngit: true\ngit: false\n", 3, "duplicate key 'git' (first on line 2)"),
        ("corpora: [notes]\nbackend: {kind: llm}\n", 2, "backend kind 'llm' needs 'base_url'"),
        (
            "corpora: [notes]\nbackend:\n  api_key_env: sk-abc123456789\n",
            3,
            "must be the NAME of an environment variable",
        ),
        ("corpora: [notes]\nlevels:\n  brief: 500\n  standard: 400\n", 4, "levels must increase: brief (500)"),
        ("corpora: [notes]\nchunking:\n  size: 300\n  overlap: 300\n", 4, "overlap (300) must be smaller"),
        ("corpora: [notes]\nversion: 2\n", 2, "'version' must be at most 1, got 2"),
        ("corpora: [notes]\noutput: [a, b\n", 3, "invalid YAML"),
        ("corpora: [notes]\n  bad indent: 1\n", 2, "invalid YAML"),
        ("- just\n- a list\n", 1, "a pipeline file must be a mapping, got list"),
        ("# only a comment\n", 1, "the file is empty"),
    ],
)
def test_errors_name_file_and_line(corpus: Path, body: str, line: int, message: str) -> None:
    path = _write(corpus, body)
    msg = _error(path)
    assert msg.startswith(f"{path}:{line}: "), msg
    assert message in msg, msg
    assert "\n" not in msg


def test_a_duplicate_key_is_reported_with_the_files_other_mistakes(corpus: Path) -> None:
    path = _write(corpus, "corpora: [notes]\noutput: a\noutput: b\nlogging: {format: xml}\ngit: maybe\n")
    msg = _error(path)
    assert msg.startswith("3 errors:"), msg
    assert f"{path}:3: duplicate key 'output' (first on line 2)" in msg
    assert "'logging.format' must be one of text, json" in msg and "'git' must be true or false" in msg


def test_file_level_errors(tmp_path: Path) -> None:
    assert _error(tmp_path / "absent.yaml") == f"{tmp_path / 'absent.yaml'}: pipeline file not found"
    assert "is a folder" in _error(tmp_path)
    bad = tmp_path / "latin1.yaml"
    bad.write_bytes(b"corpora: [caf\xe9]\n")
    assert "not UTF-8 text" in _error(bad)
