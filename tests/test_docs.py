"""Every command and every option is documented in the README or a docs/ page (sqlite-utils' test_docs idea),
and the examples the guide shows run as written."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import click
import pytest
import yaml

from batchsum.cli import COMMANDS, main
from tests.conftest import REPO

README = (REPO / "README.md").read_text(encoding="utf-8")
PAGES = {p.name: p.read_text(encoding="utf-8") for p in sorted((REPO / "docs").glob("*.md"))}
DOCS = "\n".join([README, *PAGES.values()])


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_command_documented(name: str) -> None:
    assert re.search(rf"batchsum {name}\b", DOCS), f"`batchsum {name}` missing from README.md and docs/"


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_option_documented(name: str) -> None:
    cmd = main.get_command(click.Context(main), name)
    assert cmd is not None
    missing = [
        opt
        for p in cmd.params
        if isinstance(p, click.Option)
        for opt in p.opts + p.secondary_opts
        if opt.startswith("--") and opt not in ("--help",) and opt not in DOCS
    ]
    assert not missing, f"batchsum {name}: options not in README.md or docs/: {missing}"


def test_help_is_fast_and_light() -> None:
    # `batchsum --help` must not import the heavy libraries.
    code = (
        "import sys; from click.testing import CliRunner; from batchsum.cli import main; "
        "r = CliRunner().invoke(main, ['--help']); assert r.exit_code == 0; "
        "heavy = [m for m in ('chromadb', 'onnxruntime', 'openai', 'duckdb', 'pyarrow', 'sumy') if m in sys.modules]; "
        "print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == ""


def test_readme_test_command_is_what_ci_runs() -> None:
    ci = (REPO / ".ci" / "run").read_text()
    assert "make test" in README and "make test" in ci


def test_guide_is_short_and_links_every_page() -> None:
    assert len(README.splitlines()) <= 400
    for name in PAGES:
        assert f"(docs/{name})" in README, f"README does not link docs/{name}"


def test_doc_links_resolve() -> None:
    """Relative links between the guide and the docs pages point at files that exist."""
    for name, text in [("README.md", README), *((f"docs/{n}", t) for n, t in PAGES.items())]:
        base = (REPO / name).parent
        for target in re.findall(r"\]\(([^)#:]+\.md)(?:#[^)]*)?\)", text):
            assert (base / target).is_file(), f"{name}: link to missing {target}"


def test_documented_commands_exist() -> None:
    """Every `batchsum X` the docs name is a real command (a renamed command leaves no stale page)."""
    named = set(re.findall(r"`batchsum ([a-z]+)\b", DOCS))
    assert named - set(COMMANDS) == set()


def _section(title: str) -> str:
    start = README.index(f"## {title}\n")
    end = README.index("\n## ", start + 1)
    return README[start:end]


def test_how_to_use_it_examples_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The README's first examples work as written (paths swapped for the sample corpus)."""
    from click.testing import CliRunner

    section = _section("The two commands")
    bash, yaml_block = re.findall(r"```(?:bash|yaml)\n(.*?)```", section, re.S)
    out = tmp_path / "journal-summaries"
    monkeypatch.chdir(tmp_path)
    for line in bash.splitlines():
        command = line.split("#", 1)[0].strip()
        if not command:
            continue
        command = command.replace("~/journal-summaries", str(out)).replace("~/journal", str(REPO / "sample_corpus"))
        args = shlex.split(command)
        assert args[0] == "batchsum"
        res = CliRunner().invoke(main, args[1:], catch_exceptions=False)
        assert res.exit_code == 0, f"{command}\n{res.output}"
    assert (out / "index.md").is_file()
    # The day-two command (the last line) leaves out the first run's options and redoes nothing.
    assert "tomorrow" in line and "--type" not in command
    assert " 0 summarized, " in res.stdout and "settings changed" not in res.output, res.output
    # The config example is valid for `batchsum run` (every key an option of it).
    from batchsum.cli.defaults import command_defaults

    data = yaml.safe_load(yaml_block)
    run_cmd = main.get_command(click.Context(main), "run")
    assert run_cmd is not None
    defaults = command_defaults(run_cmd, "run", data, Path("batchsum.yaml"))
    assert defaults["content_type"] == "journal" and defaults["out"].endswith("journal-summaries")


def test_library_example_runs(tmp_path: Path) -> None:
    """The guide's library example runs as written, from a folder holding the sample corpus."""
    import shutil

    block = re.search(r"```python\n(.*?)```", _section("A ten-minute tour"), re.S)
    assert block is not None and "batchsum.run(" in block.group(1) and "batchsum.compact(" in block.group(1)
    shutil.copytree(REPO / "sample_corpus", tmp_path / "sample_corpus")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    res = subprocess.run(
        [sys.executable, "-c", block.group(1)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600
    )
    assert res.returncode == 0, res.stderr
    assert "26 files" in res.stdout and (tmp_path / "batchsum-out" / "index.md").is_file()


def test_closing_line_examples_match_a_real_run(tmp_path: Path) -> None:
    from click.testing import CliRunner

    examples = [
        re.search(r"Without `--json`, a run ends with one line:\n`([^`]+)`", PAGES["run.md"]),
        re.search(r"It ends with one line such as\n`([^`]+)`", README),
    ]
    assert all(examples)
    res = CliRunner().invoke(main, ["run", str(REPO / "sample_corpus"), "--out", str(tmp_path / "o"), "--no-index"])
    assert res.exit_code == 0, res.output
    shape = lambda line: re.sub(r"[\d.,]+", "N", line.strip())  # noqa: E731 - numbers vary, the layout must not
    for example in examples:
        assert example is not None and shape(res.stdout.splitlines()[-1]) == shape(example.group(1))
    # docs/run.md shows the sample corpus's own numbers and logbook tree: only the seconds vary.
    untimed = lambda line: line.strip().rpartition("; ")[0]  # noqa: E731
    assert examples[0] is not None and untimed(examples[0].group(1)) == untimed(res.stdout.splitlines()[-1])
    summaries = tmp_path / "o" / "logbook" / "harbor-logbook-2025-2026.md" / "summaries"
    last = {lvl: max((p.stem for p in (summaries / lvl).glob("*.md")), key=lambda n: int(n.rpartition("_")[2]))
            for lvl in ("L1", "L2")}  # fmt: skip
    assert f"L1/chunk_0.md ... {last['L1']}.md " in PAGES["run.md"]
    assert f"L2/group_0.md ... {last['L2']}.md " in PAGES["run.md"]


def test_run_page_table_lists_every_option_of_run() -> None:
    """docs/run.md's table is where `run`'s options are looked up: none is left to other pages alone."""
    page = PAGES["run.md"]
    table = page[page.index("## Options of `batchsum run`") : page.index("Without `--json`")]
    cmd = main.get_command(click.Context(main), "run")
    assert cmd is not None
    missing = [
        opt
        for p in cmd.params
        for opt in p.opts + p.secondary_opts
        if opt.startswith("--") and opt != "--help" and not re.search(re.escape(opt) + r"(?![\w-])", table)
    ]
    assert not missing, f"docs/run.md's options table lacks {missing}"
