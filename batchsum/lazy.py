"""Modules of ours loaded when first needed, to keep a heavy library off a path that never uses it.

Each such concern names what it loads in one table of ``"package.module:name"`` strings, next to its
reason, and loads through :func:`load`:

* the library's entry points (``batchsum/__init__.py``): ``import batchsum`` runs before every module;
* the command line (``cli/__init__.py``'s command table, and each heavy command's work in its
  ``<cmd>_body`` module): ``batchsum --help`` and ``batchsum <cmd> --help`` load no library;
* the backends per kind (``backends/registry.py``): numpy, the event loop, the HTTP client;
* the work an unchanged re-run skips (``engine/orchestrator.py``): the executors, the digests, the index.
"""

from __future__ import annotations

import importlib
from typing import Any


def load(target: str) -> Any:
    """The object ``"package.module:name"`` names (the module itself without ``:name``), importing it."""
    module, _, name = target.partition(":")
    loaded = importlib.import_module(module)
    return getattr(loaded, name) if name else loaded
