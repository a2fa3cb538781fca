"""The query path of ``batchsum search`` loads no heavy module: what a search of a local index imports
(the modules the CLI command's work and the library search load) holds no Chroma, ONNX runtime, index writer
or tree walker."""

from __future__ import annotations

import json
import subprocess
import sys


def test_the_query_path_imports_nothing_heavy() -> None:
    code = (
        "import json, sys; import batchsum.cli.search_body, batchsum.index.search;"
        " print(json.dumps(sorted(sys.modules)))"
    )
    loaded = set(json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                           check=True).stdout))  # fmt: skip
    heavy = {"chromadb", "onnxruntime", "openai", "ray", "batchsum.index.store", "batchsum.digests", "batchsum.walk"}
    assert not heavy & loaded
    assert "batchsum.index.lexical" in loaded  # the query path is what was imported


def test_the_facts_search_loads_no_fact_extraction() -> None:
    """``search --role memory`` reads the facts' index: no extraction (pydantic, the event loop)."""
    code = "import json, sys; import batchsum.cli.search_memory; print(json.dumps(sorted(sys.modules)))"
    loaded = set(json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                           check=True).stdout))  # fmt: skip
    assert not {"pydantic", "asyncio", "batchsum.memory.ingest"} & loaded
    assert "batchsum.memory.search" in loaded
