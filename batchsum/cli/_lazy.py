"""The one place the command line imports batchsum's modules lazily.

``batchsum --help`` lists the commands by name (:data:`batchsum.cli.COMMANDS`) and imports none of
them. A command's module declares only its options and help, so ``batchsum <cmd> --help`` and the
config file's defaults load click and the settings schema alone; the command's work lives in a module of
its own that imports its libraries (pydantic, aiohttp, numpy, the event loop) at the top, loaded by
:func:`load` only when the command runs.
"""

from __future__ import annotations

import importlib
from typing import Any


def load(target: str) -> Any:
    """The object ``"package.module:name"`` names, importing its module."""
    module, _, name = target.partition(":")
    return getattr(importlib.import_module(module), name)
