"""Every numeric setting refuses a library keyword out of its bounds, as its flag does: a negative
``rpm`` or ``tpm`` had been taken for 0, "no limit"."""

from __future__ import annotations

from pathlib import Path

import pytest

import batchsum
from batchsum.errors import ConfigError
from batchsum.options import run_config
from batchsum.setting_schema import Setting
from batchsum.settings import SETTINGS

NUMERIC = [s for s in SETTINGS if s.kind in ("int", "number") and (s.minimum is not None or s.maximum is not None)]


def _keyword(s: Setting) -> str:
    """The library keyword of ``s``: its flag's name, else its field's."""
    return s.flag.removeprefix("--").replace("-", "_") if s.flag else s.field.rpartition(".")[2]


def _out_of_bounds(s: Setting) -> list[float]:
    """Just below the minimum and just above the maximum."""
    return [*([s.minimum - 1] if s.minimum is not None else []), *([s.maximum + 1] if s.maximum is not None else [])]


@pytest.mark.parametrize("setting", NUMERIC, ids=lambda s: s.field)
def test_a_keyword_out_of_bounds_is_refused_by_name(setting: Setting, tmp_path: Path) -> None:
    corpus, out = tmp_path / "corpus", tmp_path / "out"
    corpus.mkdir()
    (corpus / "note.md").write_text("# Monday\n\nThe boiler was repaired.\n", encoding="utf-8")
    key = _keyword(setting)
    for value in _out_of_bounds(setting):
        wanted = int(value) if setting.kind == "int" else value
        with pytest.raises(ConfigError, match=rf"^{key}="):
            batchsum.run(corpus, out=out, quiet=True, **{key: wanted})
        assert not out.exists()  # refused before anything is written


@pytest.mark.parametrize("key", ["rpm", "tpm"])
def test_zero_still_means_no_limit(key: str) -> None:
    cfg, given = run_config(["corpus"], {key: 0})
    assert getattr(cfg.llm, key) is None and f"llm.{key}" in given
