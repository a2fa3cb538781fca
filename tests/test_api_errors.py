"""The library's exceptions import from ``batchsum`` itself as from ``batchsum.errors`` (README), the same classes."""

from __future__ import annotations

import batchsum
import batchsum.errors


def test_every_exported_exception_is_in_errors() -> None:
    exported = [n for n in batchsum.__all__ if isinstance(getattr(batchsum, n), type)]
    exceptions = [n for n in exported if issubclass(getattr(batchsum, n), BaseException)]
    assert {"ConfigError", "LockedError", "SettingsChanged", "RunInterrupted"} <= set(exceptions)
    for name in exceptions:
        assert getattr(batchsum.errors, name) is getattr(batchsum, name), name


def test_dir_lists_the_lazy_names() -> None:
    assert set(batchsum.__all__) <= set(dir(batchsum))
