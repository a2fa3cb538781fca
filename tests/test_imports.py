"""Dependencies point one way: no import cycle among batchsum's modules, counting imports inside
functions and modules loaded by name (``"batchsum.module:name"``) too (only ``if TYPE_CHECKING:`` imports
are left out: they never run)."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO

PACKAGE = REPO / "batchsum"
TARGET = r"batchsum(\.\w+)+:\w+"  # what batchsum.lazy.load is given


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _type_checking_nodes(tree: ast.Module) -> set[int]:
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skip.update(id(n) for stmt in node.body for n in ast.walk(stmt))
    return skip


def _imports(path: Path, modules: set[str]) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = _type_checking_nodes(tree)
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name in modules)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            # ``from batchsum.x import y``: y is a module of its own, or a name of batchsum.x.
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                found.add(sub if sub in modules else node.module)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and re.fullmatch(TARGET, node.value):
            found.add(node.value.partition(":")[0])  # loaded by name (batchsum.lazy.load): an import all the same
    return {m for m in found if m in modules}


def _graph() -> dict[str, set[str]]:
    files = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    modules = set(files)
    return {name: _imports(path, modules) - {name} for name, path in files.items()}


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle, or None (depth-first search; a package's __init__ importing its own
    submodules is the package's public face, not a cycle, so edges into a parent package are left out)."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if node.startswith(nxt + "."):
                continue
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)) is not None:
                return found
        stack.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (found := visit(start)) is not None:
            return found
    return None


def test_no_import_cycles() -> None:
    cycle = _cycle(_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_nothing_imports_the_cli() -> None:
    graph = _graph()
    offenders = sorted(m for m, deps in graph.items() if not m.startswith("batchsum.cli") and m != "batchsum.__main__"
                       and any(d.startswith("batchsum.cli") for d in deps))  # fmt: skip
    assert offenders == []


# Imports of batchsum's own modules inside functions, each keeping a heavy library off a fast path or off
# a process that never needs it. Any other own-module import sits at the top of its module, or is named
# in one of the tables batchsum.lazy.load reads (see test_every_module_loaded_by_name_exists).
LAZY_OWN_IMPORTS: dict[str, set[str]] = {
    "batchsum.compact.api": {"batchsum.compact.llm"},  # the event loop and HTTP client, only for LLM compaction
    "batchsum.backends.llm_output": {"batchsum.backends.llm_facets"},  # pydantic, only when facets are asked for
    # The query path of a search: no index writer, no walker (tests/test_search_imports.py).
    "batchsum.index.hit_texts": {"batchsum.sources"},
    "batchsum.index.asked_periods": {"batchsum.sources"},  # --since: only a file naming a day that late is read
    "batchsum.engine.ray_executor": {"batchsum.index.embed"},  # the embedder: in the workers, not in the driver
    "batchsum.warmup": {"batchsum.backends.llm", "batchsum.index.embed"},  # its purpose: imports off the main thread
    "batchsum.walk": {"batchsum.readers.eml"},  # the stdlib's e-mail parser (~10 ms), only for a run that reads an .eml
    # The facet rules (~85 ms of imports), only for a file that writes facets down: the check runs on every file.
    "batchsum.written_facets": {"batchsum.facets"},
    # The summarizer's reader, only for a conversation kept whole: a run of short notes never loads it.
    "batchsum.engine.kept_whole": {"batchsum.backends.units"},
    # The --path matcher of a search and the search a filter's note reruns without it (numpy): the library's
    # arguments are checked on every call of run too.
    "batchsum.options": {"batchsum.index.dense", "batchsum.index.search"},
    # The summarizer's reader, only for a digest of a many-day file kept whole or summarized in one line.
    "batchsum.digest_state": {"batchsum.backends.units"},
}


def _lazy_own_imports(path: Path, modules: set[str]) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = _type_checking_nodes(tree)
    found: set[str] = set()
    for func in ast.walk(tree):
        if not isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for node in ast.walk(func):
            if id(node) in skip:
                continue
            if isinstance(node, ast.Import):
                found.update(a.name for a in node.names if a.name in modules)
            elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("batchsum"):
                found.update(
                    f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in modules else node.module
                    for a in node.names
                )
    return found


def test_own_modules_are_imported_at_the_top() -> None:
    files = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    lazy = {name: found for name, path in files.items() if (found := _lazy_own_imports(path, set(files)))}
    assert lazy == LAZY_OWN_IMPORTS


def test_the_command_line_imports_nothing_heavy() -> None:
    """``import batchsum.cli`` (what ``batchsum --help`` runs) loads no heavy library."""
    code = "import json, sys; import batchsum.cli; print(json.dumps(sorted(sys.modules)))"
    loaded = set(json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO,
                                           check=True).stdout))  # fmt: skip
    heavy = {"numpy", "chromadb", "onnxruntime", "ray", "openai", "aiohttp", "pydantic", "duckdb", "yaml", "asyncio"}
    assert heavy & loaded == set()


def _named_targets() -> set[str]:
    """Every ``"batchsum.module:name"`` string in the package: what batchsum.lazy.load is given."""
    found: set[str] = set()
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and re.fullmatch(TARGET, node.value):
                found.add(node.value)
    return found


def test_every_module_loaded_by_name_exists() -> None:
    """The tables of modules loaded on demand (the library's entry points, the commands and their work,
    the backends, what an unchanged re-run skips) name objects that exist."""
    import batchsum
    from batchsum.lazy import load

    targets = _named_targets() | set(batchsum._STAGES.values())
    assert len(targets) > 20  # the tables were found
    missing = []
    for target in sorted(targets):
        try:
            load(target)
        except (ImportError, AttributeError) as exc:
            missing.append(f"{target}: {exc}")
    assert missing == []


def test_a_plain_first_run_loads_neither_ray_nor_the_llm_backend(tmp_path: Path) -> None:
    """A first extractive run summarizes and writes digests without Ray's executor, the LLM backend
    or its HTTP client (each only for the runs that ask for them), without a YAML parser (its digests
    and index page take what it wrote from memory), and journal entries without a conversation's rules."""
    corpus = tmp_path / "journal"
    corpus.mkdir()
    for day in ("2025-11-03", "2025-11-17", "2025-12-01"):
        text = f"# {day}\n\nWe walked to the harbour and counted the boats that came in overnight. " * 8
        (corpus / f"{day}.md").write_text(text, encoding="utf-8")
    # The modules loaded, read at exit (the command ends with os._exit, after the exit handlers).
    code = (
        "import atexit, json, sys; atexit.register(lambda: print(json.dumps(sorted(sys.modules)), file=sys.stderr));"
        "from batchsum.cli import entry; sys.argv[0] = 'batchsum'; entry()"
    )
    args = ["run", str(corpus), "--out", str(tmp_path / "out"), "--no-index", "--no-metrics", "--quiet"]
    proc = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, cwd=REPO, check=True)
    imported = set(json.loads(proc.stderr.strip().splitlines()[-1]))
    assert {"batchsum.engine.execute", "batchsum.digests", "batchsum.backends.extractive"} <= imported
    assert (tmp_path / "out" / "digests" / "2025.md").is_file()
    unused = {"batchsum.engine.ray_executor", "batchsum.backends.llm", "batchsum.backends.llm_client", "ray", "yaml"}
    unused |= {"batchsum.agent_transcript", "batchsum.facets"}  # a conversation's extras: these are journal entries
    assert unused & imported == set()


def test_index_warmup_imports_numpy_before_its_thread_starts() -> None:
    """The index warm-up thread imports chromadb (numpy) while the run's own thread imports the
    summarizer (numpy): numpy must be whole before that thread starts, or one of them can get it
    partially initialised. Threads are not started in this subprocess, so only the caller's
    own imports count."""
    code = (
        "import sys, threading\n"
        "threading.Thread.start = lambda self: None\n"
        "from batchsum.warmup import start_index_warmup\n"
        "assert 'numpy' not in sys.modules\n"
        "start_index_warmup(embed_locally=True)\n"
        "assert 'numpy.linalg' in sys.modules and 'chromadb' not in sys.modules\n"
        "print('numpy whole before the thread')\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False, cwd=REPO)
    assert proc.returncode == 0 and proc.stdout.strip() == "numpy whole before the thread", proc.stderr
