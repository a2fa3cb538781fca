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
import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from batchsum.config import RunConfig
from batchsum.errors import ConfigError
from batchsum.remembered import reuse
from batchsum.settings import BY_FIELD, SETTINGS, Setting, assign

PathLike = str | Path
# Keywords that are not settings: how the run reports itself.
_EXTRA = {"progress", "quiet"}


def _keywords() -> dict[str, tuple[str, bool]]:
    """Accepted keyword -> (config field, whether a true value means the field is false)."""
    names: dict[str, tuple[str, bool]] = {}
    for s in SETTINGS:
        names.setdefault(s.field.rpartition(".")[2], (s.field, False))
        if s.flag is not None:
            flag = s.flag.removeprefix("--").replace("-", "_")
            names[flag] = names[s.param_name] = (s.field, s.inverted)
            if s.both:
                names[f"no_{flag}"] = (s.field, True)
    return names


def _as_paths(paths: PathLike | Iterable[PathLike]) -> list[Path]:
    if isinstance(paths, (str, Path)):
        return [Path(paths)]
    return [Path(p) for p in paths]


def run_config(paths: PathLike | Iterable[PathLike], options: Mapping[str, Any]) -> tuple[RunConfig, set[str]]:
    """The RunConfig of ``paths`` and keyword ``options``, and the config fields they gave
    (the rest may come from the output folder's remembered settings). TypeError names an unknown
    keyword and the nearest known one."""
    cfg = RunConfig(paths=_as_paths(paths))
    known = _keywords()
    given: set[str] = set()
    for key, value in options.items():
        if key in _EXTRA:
            setattr(cfg, key, value)
        elif key in known:
            field, inverted = known[key]
            setting = BY_FIELD[field]
            assign(cfg, field, setting.coerce(_checked(key, setting, value), negated=inverted))
            given.add(field)
        else:
            near = difflib.get_close_matches(key, [*known, *_EXTRA], n=1)
            hint = f" (did you mean {near[0]!r}?)" if near else ""
            raise TypeError(f"unknown option {key!r}{hint}: options are named like the flags of `batchsum run`")
    return cfg, given


_KINDS: dict[str, tuple[str, Callable[[Any], bool]]] = {
    "str": ("a string", lambda v: isinstance(v, str)),
    "enum": ("a string", lambda v: isinstance(v, str)),
    "path": ("a path", lambda v: isinstance(v, (str, os.PathLike))),
    "dir": ("a path", lambda v: isinstance(v, (str, os.PathLike))),
    "bool": ("True or False", lambda v: isinstance(v, bool)),
    "int": ("an integer", lambda v: isinstance(v, int) and not isinstance(v, bool)),
    "number": ("a number", lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)),
    "strlist": (
        "a string or a list of strings",
        lambda v: isinstance(v, str) or (isinstance(v, (list, tuple)) and all(isinstance(x, str) for x in v)),
    ),
}


def _checked(key: str, setting: Setting, value: Any) -> Any:
    """``value`` when it is of the keyword's kind; ConfigError naming the keyword otherwise, before any
    of it is used or remembered (``type=None`` had been stored in the output folder's settings)."""
    if value is None:
        if setting.accepts_none:
            return None
        raise ConfigError(f"{key}=None: give a value, or leave the option out for its default")
    if setting.parse is not None:
        return value  # its parser reads several forms ("100,500,3000,15000" or a list) and names what is wrong
    want, fits = _KINDS[setting.kind]
    if not fits(value):
        raise ConfigError(f"{key}={value!r}: must be {want}, not {type(value).__name__}")
    return value


def build(paths: PathLike | Iterable[PathLike], options: Mapping[str, Any]) -> RunConfig:
    """:func:`run_config` with the output folder's remembered settings for the options left out
    (none with ``rebuild=True``)."""
    cfg, given = run_config(paths, options)
    if not cfg.rebuild:
        reuse(cfg, given)
    return cfg


def config_for(paths: RunConfig | PathLike | Iterable[PathLike], options: Mapping[str, Any]) -> RunConfig:
    """:func:`build`, or a RunConfig given instead of paths (then ``options`` must be empty: its fields
    are set on it)."""
    if isinstance(paths, RunConfig):
        if options:
            raise TypeError(f"options {sorted(options)} go with paths, not with a RunConfig (set its fields)")
        return paths
    return build(paths, options)
