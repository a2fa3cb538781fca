"""Worker processes (``--processes``): real processes from a real fork server compute the same tree,
manifest and records as one process; a worker that dies costs a warning, not the run."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner

import batchsum
from batchsum.cli import main
from batchsum.config import LLMConfig, RunConfig
from batchsum.engine.executor import LocalExecutor
from batchsum.engine.executor_choice import executor_for
from batchsum.engine.process_executor import ProcessExecutor, process_executor
from batchsum.engine.workers import AUTO, POOL_MIN_BYTES, WORKER_FILE_MAX_BYTES, holds_bytes, pool_size
from batchsum.model import Backend
from batchsum.tree import iter_tree, read_node
from batchsum.walk import SourceRef
from tests.conftest import SAMPLE_CORPUS


def _tree(out: Path) -> dict[str, tuple[str | None, str]]:
    return {str(n.path.relative_to(out)): (n.meta.get("node_key"), n.body) for n in iter_tree(out)}


def _digests(out: Path) -> dict[str, str]:
    """Each digest file's text, its time of writing left out."""
    lines = {str(p.relative_to(out)): p.read_text(encoding="utf-8").splitlines() for p in out.glob("digests/**/*.md")}
    return {path: "\n".join(x for x in text if not x.startswith("created_at:")) for path, text in lines.items()}


def _records(result: batchsum.RunResult) -> list[tuple[str, str, int, int]]:
    return sorted((f.relpath, f.level, f.input_tokens, f.output_tokens) for f in result.files)


def _refs(corpus: Path) -> list[SourceRef]:
    return [SourceRef(p, str(p.relative_to(corpus)), corpus) for p in sorted(corpus.rglob("*")) if p.is_file()]


class Recorded:
    """An executor factory that keeps the ProcessExecutor it builds (the public executor seam)."""

    def __init__(self, cfg: RunConfig, corpus: Path | list[SourceRef]) -> None:
        factory = process_executor(cfg, _refs(corpus) if isinstance(corpus, Path) else corpus)
        assert factory is not None
        self.factory = factory
        self.made: list[ProcessExecutor] = []

    def __call__(self, backend: Backend, fallback: Backend) -> ProcessExecutor:
        executor = self.factory(backend, fallback)
        assert isinstance(executor, ProcessExecutor)
        self.made.append(executor)
        return executor


def _config(corpus: Path, out: Path, processes: int) -> RunConfig:
    return RunConfig(paths=[corpus], out=out, index=False, quiet=True, processes=processes)


def _summarized_in_one_process(tmp_path: Path) -> tuple[Path, batchsum.RunResult, RunConfig]:
    """The sample corpus copied and summarized in one process into ``one``; the config of the same
    run with two workers into ``two``."""
    corpus = tmp_path / "corpus"
    shutil.copytree(SAMPLE_CORPUS, corpus)
    one = batchsum.run(_config(corpus, tmp_path / "one", 1))
    return corpus, one, _config(corpus, tmp_path / "two", 2)


def test_worker_processes_leave_the_tree_one_process_leaves(tmp_path: Path) -> None:
    corpus, one, cfg = _summarized_in_one_process(tmp_path)
    recorded = Recorded(cfg, corpus)
    two = batchsum.run(cfg, executor=recorded)

    assert two.exit_code == one.exit_code == 0
    executor = recorded.made[0]
    # Every file was read by a worker and every node computed by one (--processes waits for them), and
    # so was the digest of every month and folder.
    assert executor.prepared_by_workers == len(two.files) - len(two.problems) > 0
    nodes = two.run.nodes_computed - two.levels["NONE"]
    digests = _digests(tmp_path / "two")
    periods = [d for d in digests if not re.fullmatch(r"digests/\d{4}\.md", d)]  # not a year's
    assert len(periods) >= 2 and executor.computed_by_workers >= nodes + len(periods) > len(periods)
    assert executor.broken is None and not two.warnings
    assert _tree(tmp_path / "two") == _tree(tmp_path / "one")
    assert digests == _digests(tmp_path / "one")
    assert _records(two) == _records(one)

    # The state is the same too: a one-process re-run finds nothing to do.
    again = batchsum.run(_config(corpus, tmp_path / "two", 1))
    assert again.run.files_unchanged == len(again.files) and again.run.nodes_computed == 0


def _children() -> list[str]:
    """The command lines of this process's child processes (Linux)."""
    pids = [pid for task in Path("/proc/self/task").iterdir() for pid in (task / "children").read_text().split()]
    cmdlines = []
    for pid in pids:
        with contextlib.suppress(OSError):  # a child that ended meanwhile
            cmdlines.append((Path("/proc") / pid / "cmdline").read_text().replace("\0", " "))
    return cmdlines


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads child processes from /proc")
def test_a_run_leaves_no_fork_server_behind(tmp_path: Path) -> None:
    """The fork server holds the workers' imports; a run stops it with its workers, and the next
    run's workers come from a new one."""
    corpus = tmp_path / "corpus"
    shutil.copytree(SAMPLE_CORPUS, corpus)
    for n in (1, 2):
        result = batchsum.run(_config(corpus, tmp_path / f"out{n}", 2))
        assert result.exit_code == 0 and not result.warnings
        assert not [c for c in _children() if "forkserver" in c]


def test_a_changed_file_is_redone_by_the_workers_on_its_previous_final(tmp_path: Path) -> None:
    """A re-run chains a changed file's final to its previous one (a request the worker that read it
    could not make ahead); the tree matches one process's."""
    corpus = tmp_path / "corpus"
    shutil.copytree(SAMPLE_CORPUS, corpus)
    outs = {n: tmp_path / f"out{n}" for n in (1, 2)}
    for n, out in outs.items():
        batchsum.run(_config(corpus, out, n))
    note = corpus / "docs" / "sync-protocol-design-note.md"  # one node (STANDARD): its summary is made ahead
    note.write_text((corpus / "journal" / "2026-10-21.md").read_text(encoding="utf-8"), encoding="utf-8")
    one = batchsum.run(_config(corpus, outs[1], 1))
    two = batchsum.run(_config(corpus, outs[2], 2))
    assert one.run.files_done == two.run.files_done == 1
    final = "docs/sync-protocol-design-note.md/summaries/L3/final.md"
    assert read_node(outs[2] / final)[0]["depth"] == 1  # built on the previous final
    assert _tree(outs[2])[final] == _tree(outs[1])[final]


def test_a_worker_that_dies_costs_a_warning_not_the_run(tmp_path: Path) -> None:
    corpus, one, cfg = _summarized_in_one_process(tmp_path)
    recorded = Recorded(cfg, corpus)
    tables: list[dict[int, Any]] = []  # the stdlib pool's table of its processes, as the run leaves it

    def killing(backend: Backend, fallback: Backend) -> ProcessExecutor:
        """Kills a worker, as the out-of-memory killer would, once the workers are up."""
        executor = recorded(backend, fallback)
        assert executor.pool is not None and executor.pool.starter is not None
        executor.pool.starter.join()
        for started in executor.pool.started:
            started.result()
        table = executor.pool.executor._processes  # the stdlib pool's own table
        os.kill(next(iter(table)), signal.SIGKILL)
        tables.append(table)
        return executor

    two = batchsum.run(cfg, executor=killing)
    assert two.exit_code == 0 and not two.problems
    assert recorded.made[0].broken is not None
    # No worker outlives the broken pool (one left waiting would keep this process from exiting).
    for process in tables[0].values():
        process.join(timeout=30)
        assert not process.is_alive()
    assert any("worker processes lost" in w for w in two.warnings)
    assert _tree(tmp_path / "two") == _tree(tmp_path / "one")
    assert _records(two) == _records(one)


def test_a_first_file_too_big_for_a_worker_is_read_before_the_pool_starts(tmp_path: Path) -> None:
    """Workers would only wait while this process reads and plans it, their memory added to its peak."""
    corpus = tmp_path / "corpus"
    shutil.copytree(SAMPLE_CORPUS, corpus)
    with open(corpus / "0-big.txt", "wb") as fh:  # binary (NUL bytes): read here, quickly found unreadable
        fh.truncate(WORKER_FILE_MAX_BYTES + 1)
    one = batchsum.run(_config(corpus, tmp_path / "one", 1))
    cfg = _config(corpus, tmp_path / "two", 2)
    # The run reads its files in path order: the big one first.
    recorded = Recorded(cfg, [r for r in _refs(corpus) if not r.relpath.startswith(".")])
    pools: list[object] = []

    def watching(backend: Backend, fallback: Backend) -> ProcessExecutor:
        executor = recorded(backend, fallback)
        pools.append(executor.pool)
        return executor

    two = batchsum.run(cfg, executor=watching)
    executor = recorded.made[0]
    assert pools == [None]  # no worker process while the big file was read
    # Then the pool started, and (--processes waits for it) the workers read every other file.
    assert [p.path for p in two.problems] == [str(corpus / "0-big.txt")]
    assert executor.prepared_by_workers == len(two.files) - 1 > 0
    assert executor.computed_by_workers > 0 and executor.broken is None
    assert _tree(tmp_path / "two") == _tree(tmp_path / "one")
    assert _records(two) == _records(one)


def test_pool_size_and_when_a_run_uses_one() -> None:
    assert pool_size(RunConfig(paths=[])) == 0  # the library's default: this process only
    assert pool_size(RunConfig(paths=[], processes=1)) == 0
    assert pool_size(RunConfig(paths=[], processes=3)) == 3
    assert pool_size(RunConfig(paths=[], processes=AUTO)) == len(os.sched_getaffinity(0))
    assert pool_size(RunConfig(paths=[], processes=3, llm=LLMConfig(base_url="http://127.0.0.1:9/v1"))) == 0
    refs = _refs(SAMPLE_CORPUS)
    total = sum(os.stat(r.fspath).st_size for r in refs)
    assert holds_bytes(refs, total) and not holds_bytes(refs, total + 1)
    # Automatic: a run below the threshold stays in one process (the sample corpus is one).
    assert total < POOL_MIN_BYTES
    assert executor_for(RunConfig(paths=[SAMPLE_CORPUS], processes=AUTO), refs) is LocalExecutor
    assert executor_for(RunConfig(paths=[SAMPLE_CORPUS]), refs) is LocalExecutor
    assert executor_for(RunConfig(paths=[SAMPLE_CORPUS], processes=2), []) is LocalExecutor


def test_the_command_defaults_to_automatic_and_the_library_to_one_process() -> None:
    from batchsum.settings import SETTINGS

    setting = next(s for s in SETTINGS if s.field == "processes")
    assert setting.default == 1 and setting.command_default == AUTO
    run = main.get_command(click.Context(main), "run")
    assert run is not None
    option = next(p for p in run.params if p.name == "processes")
    assert option.default == AUTO


def test_processes_option_from_the_command_line(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    shutil.copytree(SAMPLE_CORPUS / "docs", corpus)
    out = tmp_path / "out"
    res = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--no-index", "--processes", "2", "-q"])
    assert res.exit_code == 0, res.output
    assert any(out.rglob("final.md"))
    bad = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--processes", "-1"])
    assert bad.exit_code == 2 and "--processes" in bad.output


def _children_of(pid: int) -> list[int]:
    """The child processes of ``pid`` (Linux)."""
    out: list[int] = []
    with contextlib.suppress(OSError):  # a process that ended meanwhile
        for task in (Path("/proc") / str(pid) / "task").iterdir():
            out += [int(c) for c in (task / "children").read_text().split()]
    return out


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads child processes from /proc")
def test_workers_of_a_killed_run_end_with_it(tmp_path: Path) -> None:
    """A run killed with SIGKILL can stop nothing: its workers see it gone and exit (they had waited for
    work forever, ~225 MB each time)."""
    import subprocess
    import sys
    import time

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    text = (SAMPLE_CORPUS / "logbook" / "harbor-logbook-2025-2026.md").read_text(encoding="utf-8")
    for i in range(40):  # enough work that the run is still busy when it is killed
        (corpus / f"log{i}.md").write_text(text.replace("buoy", f"buoy{i}"), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    cmd = [sys.executable, "-m", "batchsum", "run", str(corpus), "--out", str(tmp_path / "out")]
    proc = subprocess.Popen([*cmd, "--no-index", "--processes", "2", "-q"], env=env)
    workers: list[int] = []
    servers: list[int] = []
    try:
        for _ in range(600):  # bounded: the fork server and its workers appear within a minute
            servers = _children_of(proc.pid)
            workers = [w for server in servers for w in _children_of(server)]
            if len(workers) >= 2 or proc.poll() is not None:
                break
            time.sleep(0.1)
        assert workers and proc.poll() is None, "the run ended before its workers were seen"
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        for _ in range(300):  # bounded: they look for their run every second
            if not any(Path(f"/proc/{w}").exists() and "(Z)" not in _state(w) for w in workers):
                break
            time.sleep(0.1)
        assert not [w for w in workers if Path(f"/proc/{w}").exists() and "(Z)" not in _state(w)]
    finally:
        for pid in [*workers, *servers]:  # whatever a failure left behind
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)


def _state(pid: int) -> str:
    try:
        return "(Z)" if (Path("/proc") / str(pid) / "stat").read_text().split()[2] == "Z" else ""
    except OSError:
        return ""
