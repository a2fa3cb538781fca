"""One BLAS thread per process, set before numpy loads (a user's own setting wins).

The summarizer's matrices are small, and OpenBLAS's idle threads spin on the other cores: 0.9 s of
CPU in a 1.8 s run, and beside worker processes a run 1.4x slower on 2 cores (make bench).
OMP_NUM_THREADS is left alone: it is not numpy's alone.
"""

from __future__ import annotations

import os

SINGLE_THREADED_BLAS = {"OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def single_threaded_blas() -> None:
    """Ask numpy's BLAS for one thread, unless the environment already says otherwise."""
    for name, value in SINGLE_THREADED_BLAS.items():
        os.environ.setdefault(name, value)
