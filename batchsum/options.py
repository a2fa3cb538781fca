"""Keyword options for the library, named like the command's flags: ``batchsum.run("corpus",
out="out", type="journal", base_url=..., model=..., rpm=0)`` builds the same RunConfig as
``batchsum run corpus --out out --type journal --base-url ... --model ... --rpm 0``.

A keyword is a flag without its dashes (``chunk_size``, ``base_url``, ``no_index``) or the config
field it sets (``index=False``, ``cache=False``, ``fallback_models=[...]``); paths may be strings.
Options left out take the settings the output folder remembers (:mod:`batchsum.remembered`),
then the defaults, as on the command line.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from batchsum.config import RunConfig
from batchsum.model import Thresholds

PathLike = str | Path
# Options that are not in the settings schema: the command declares them itself.
_EXTRA = {"type", "thresholds", "facets", "redact", "progress", "quiet"}


def _keywords() -> dict[str, tuple[str, bool]]:
    """Accepted keyword -> (config field, inverted flag)."""
    from batchsum.settings import SETTINGS

    names: dict[str, tuple[str, bool]] = {}
    for s in SETTINGS:
        last = s.field.rpartition(".")[2]
        names.setdefault(last, (s.field, False))
        if s.flag is not None:
            names[s.param_name] = (s.field, s.inverted)
    return names


def _as_paths(paths: PathLike | Iterable[PathLike]) -> list[Path]:
    if isinstance(paths, (str, Path)):
        return [Path(paths)]
    return [Path(p) for p in paths]


def _thresholds(value: Any) -> Thresholds:
    from batchsum.settings import parse_thresholds

    if isinstance(value, Thresholds):
        return value
    if isinstance(value, str):
        return parse_thresholds(value)
    if isinstance(value, Sequence):
        return parse_thresholds(",".join(str(int(v)) for v in value))
    raise TypeError(f"thresholds: four token bounds as '100,500,3000,15000', a list or Thresholds, got {value!r}")


def _value(field: str, kind: str, value: Any) -> Any:
    if value is None:
        return None
    if kind in ("path", "dir"):
        return Path(value)
    if kind == "strlist":
        return [value] if isinstance(value, str) else [str(v) for v in value]
    return value


def run_config(paths: PathLike | Iterable[PathLike], options: Mapping[str, Any]) -> tuple[RunConfig, set[str]]:
    """The RunConfig of ``paths`` and keyword ``options``, and the config fields they gave
    (the rest may come from the output folder's remembered settings). TypeError names an unknown
    keyword and the nearest known one."""
    from batchsum.settings import BY_FIELD, assign
    from batchsum.walk import normalize_type

    cfg = RunConfig(paths=_as_paths(paths))
    known = _keywords()
    given: set[str] = set()
    for key, value in options.items():
        if key == "type":
            cfg.content_type = normalize_type(value)
            given.add("content_type")
        elif key == "thresholds":
            cfg.thresholds = _thresholds(value)
            given.add("thresholds")
        elif key in ("facets", "redact"):
            field = "llm.facets" if key == "facets" else "redact"
            assign(cfg, field, value)
            given.add(field)
        elif key in ("progress", "quiet"):
            setattr(cfg, key, value)
        elif key in known:
            field, inverted = known[key]
            s = BY_FIELD[field]
            value = _value(field, s.kind, value)
            if inverted:
                value = not value
            elif s.zero_is_none and value is not None and value <= 0:
                value = None
            assign(cfg, field, value)
            given.add(field)
        else:
            near = difflib.get_close_matches(key, [*known, *_EXTRA], n=1)
            hint = f" (did you mean {near[0]!r}?)" if near else ""
            raise TypeError(f"unknown option {key!r}{hint}: options are named like the flags of `batchsum run`")
    return cfg, given


def build(paths: PathLike | Iterable[PathLike], options: Mapping[str, Any]) -> RunConfig:
    """:func:`run_config` with the output folder's remembered settings for the options left out
    (none with ``rebuild=True``)."""
    cfg, given = run_config(paths, options)
    if not cfg.rebuild:
        from batchsum.remembered import reuse

        reuse(cfg, given)
    return cfg
