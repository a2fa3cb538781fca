"""A folder seen read-only, for tests and the fault bench (``tests/test_read_only.py``, ``make faults``)."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


class CannotMakeReadOnly(RuntimeError):
    """This machine cannot show a folder read-only (no mount privilege as root)."""


@contextmanager
def read_only_view(folder: Path, view: Path) -> Iterator[Path]:
    """``folder`` seen read-only at ``view``: a read-only bind mount as root (permissions do not stop
    root), else a copy without write permission."""
    if os.geteuid() != 0:
        shutil.copytree(folder, view)
        modes = {p: p.stat().st_mode for p in [view, *view.rglob("*")]}
        for p, mode in modes.items():
            p.chmod(mode & ~0o222)
        try:
            yield view
        finally:
            for p, mode in modes.items():
                p.chmod(mode)
        return
    view.mkdir()
    bound = subprocess.run(["mount", "--bind", str(folder), str(view)], capture_output=True, text=True)
    if bound.returncode != 0:
        raise CannotMakeReadOnly(f"cannot bind-mount here: {bound.stderr.strip()}")
    try:
        ro = subprocess.run(["mount", "-o", "remount,bind,ro", str(view)], capture_output=True, text=True)
        if ro.returncode != 0:
            raise CannotMakeReadOnly(f"cannot remount read-only here: {ro.stderr.strip()}")
        yield view
    finally:
        subprocess.run(["umount", str(view)], check=True)
