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
import math
import os
import typing
from collections.abc import Callable, Iterable, Mapping
from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from batchsum.config import IndexConfig, RunConfig
from batchsum.errors import ConfigError
from batchsum.model import CONTENT_TYPES
from batchsum.remembered import reuse
from batchsum.setting_schema import Setting
from batchsum.settings import BY_FIELD, SETTINGS, assign
from batchsum.state import ManifestEntry, StateStore
from batchsum.walk_paths import root_names

if TYPE_CHECKING:
    from batchsum.index.search import SearchHit

PathLike = str | Path
# Keywords that are not settings: how the run reports itself, with the values each takes (``progress``:
# a bar or not, None for only on a terminal; RunConfig documents no callback).
_EXTRA: dict[str, tuple[str, Callable[[Any], bool]]] = {
    "progress": ("True, False or None", lambda v: v is None or isinstance(v, bool)),
    "quiet": ("True or False", lambda v: isinstance(v, bool)),
}


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
    """The input paths: one path, or an iterable of them; ConfigError for anything else and for none, as
    the command refuses a run without PATHs (``run([])`` had written an empty output tree)."""
    if isinstance(paths, (str, os.PathLike)):
        return [Path(paths)]
    # bytes iterate as numbers, a dict as its keys: neither is a list of paths.
    if isinstance(paths, (bytes, bytearray, Mapping)) or not isinstance(paths, Iterable):
        raise ConfigError(f"paths={paths!r}: give a path or a list of paths, not {type(paths).__name__}")
    given = list(paths)
    bad = [p for p in given if not isinstance(p, (str, os.PathLike))]
    if bad:
        raise ConfigError(f"paths: {bad[0]!r} is not a path (a string or a Path), but {type(bad[0]).__name__}")
    if not given:
        raise ConfigError("no input: give one or more paths")
    return [Path(p) for p in given]


def run_config(
    paths: PathLike | Iterable[PathLike], options: Mapping[str, Any], command: str = "run"
) -> tuple[RunConfig, set[str]]:
    """The RunConfig of ``paths`` and keyword ``options``, and the config fields they gave
    (the rest may come from the output folder's remembered settings). TypeError names an unknown
    keyword, the nearest known one and ``batchsum.<command>``, the function called."""
    cfg = RunConfig(paths=_as_paths(paths))
    known = _keywords()
    given: set[str] = set()
    for key, value in options.items():
        if key in _EXTRA:
            want, fits = _EXTRA[key]
            if not fits(value):
                raise ConfigError(f"{key}={value!r}: must be {want}, not {type(value).__name__}")
            setattr(cfg, key, value)
        elif key in known:
            field, inverted = known[key]
            setting = BY_FIELD[field]
            assign(cfg, field, setting.coerce(_checked(key, setting, value), negated=inverted))
            given.add(field)
        else:
            raise unknown_option(key, [*known, *_EXTRA], command)
    return cfg, given


def unknown_option(key: str, known: Iterable[str], command: str, function: str | None = None) -> TypeError:
    """The TypeError for an unknown keyword of ``batchsum.<function>`` (named like the command by default): the
    nearest known one, and where the names come from (the flags of ``batchsum <command>``)."""
    near = difflib.get_close_matches(key, list(known), n=1)
    hint = f" (did you mean {near[0]!r}?)" if near else ""
    called = f"batchsum.{function or command}()"
    return TypeError(
        f"{called}: unknown option {key!r}{hint}: options are named like the flags of `batchsum {command}`"
    )


_KINDS: dict[str, tuple[str, Callable[[Any], bool]]] = {
    "str": ("a string", lambda v: isinstance(v, str)),
    "enum": ("a string", lambda v: isinstance(v, str)),
    "path": ("a path", lambda v: isinstance(v, (str, os.PathLike))),
    "dir": ("a path", lambda v: isinstance(v, (str, os.PathLike))),
    "bool": ("True or False", lambda v: isinstance(v, bool)),
    "int": ("an integer", lambda v: isinstance(v, int) and not isinstance(v, bool)),
    "number": (
        "a finite number",
        lambda v: isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v),
    ),
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
    if setting.parse is None:  # a parser reads several forms ("100,500,3000,15000" or a list) itself
        want, fits = _KINDS[setting.kind]
        if not fits(value):
            raise ConfigError(f"{key}={value!r}: must be {want}, not {type(value).__name__}")
    if (why := setting.refusal(value)) is not None:
        raise ConfigError(f"{key}={value!r}: {why}")
    return value


def build(paths: PathLike | Iterable[PathLike], options: Mapping[str, Any], command: str = "run") -> RunConfig:
    """:func:`run_config` with the output folder's remembered settings for the options left out
    (none with ``rebuild=True``)."""
    cfg, given = run_config(paths, options, command)
    if not cfg.rebuild:
        reuse(cfg, given)
    return cfg


def config_for(
    paths: RunConfig | PathLike | Iterable[PathLike], options: Mapping[str, Any], command: str = "run"
) -> RunConfig:
    """:func:`build` for ``batchsum.<command>``, or a RunConfig given instead of paths (then ``options`` must be
    empty: its fields are set on it)."""
    if isinstance(paths, RunConfig):
        if options:
            raise TypeError(f"options {sorted(options)} go with paths, not with a RunConfig (set its fields)")
        return paths
    return build(paths, options, command)


# -- the arguments of ``batchsum.search``, checked as the command's options are ----------------------------

SINCE_FORMATS = ("%Y-%m-%d", "%Y-%m", "%Y")  # what ``--since`` takes


def one_of(name: str, value: Any, old_name: str, old_value: Any) -> Any:
    """The value given as the command's option name or as the older keyword; ConfigError when both differ."""
    if value is not None and old_value is not None and value != old_value:
        raise ConfigError(f"{name}={value!r} and {old_name}={old_value!r}: give one of them")
    return old_value if value is None else value


def count(name: str, value: Any) -> int:
    """A whole number of at least 1 (``-k``)."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise ConfigError(f"{name}={value!r}: must be an integer, not {type(value).__name__}")
    if value < 1:
        raise ConfigError(f"{name}={value}: must be at least 1")
    return value


def text(name: str, value: Any) -> str | None:
    """A string option (its values are checked where they are used)."""
    if value is not None and not isinstance(value, str):
        raise ConfigError(f"{name}={value!r}: must be a string, not {type(value).__name__}")
    return value


def number(name: str, value: Any) -> float:
    """A number of at least 0 (a price)."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        raise ConfigError(f"{name}={value!r}: must be a number, not {type(value).__name__}")
    if not math.isfinite(value) or value < 0:  # a NaN or infinite price makes a "$nan" estimate
        raise ConfigError(f"{name}={value}: must be a finite number, at least 0")
    return float(value)


def prices(value: Any) -> tuple[float, float | None]:
    """``--price IN[,OUT]``: a string as the command takes it, or a pair (or one number) of prices per million."""
    if isinstance(value, str):
        try:
            parts: list[Any] = [float(p) for p in value.split(",")]
        except ValueError:
            raise ConfigError(
                f"price={value!r}: give PROMPT[,COMPLETION] prices per million, like '0.15,0.60'"
            ) from None
    elif isinstance(value, (tuple, list)):
        parts = [p for p in value if p is not None]
    else:
        parts = [value]
    if len(parts) not in (1, 2):
        raise ConfigError(f"price={value!r}: give one or two prices per million tokens")
    got = [number("price", p) for p in parts]
    return got[0], (got[1] if len(got) == 2 else None)


def flag(name: str, value: Any) -> bool:
    """True or False."""
    if not isinstance(value, bool):
        raise ConfigError(f"{name}={value!r}: must be True or False, not {type(value).__name__}")
    return value


def level_arg(value: Any) -> str | None:
    """``--level``: 1, 2, 3 (an int or a string), ``final`` or ``period``; ConfigError naming the keyword for
    another (the search's own check names the command's flag)."""
    from batchsum.index.search import LEVELS  # numpy: loaded by the search this checks the argument of

    level = str(value) if isinstance(value, int) and not isinstance(value, bool) else text("level", value)
    if level is not None and level not in LEVELS:
        raise ConfigError(f"level={value!r} (--level): use 1, 2, 3, final or period")
    return level


def type_arg(value: Any) -> str | None:
    """``--type`` of a search or a report: one of the content types, or None for all."""
    kind = text("type", value)
    if kind is not None and kind not in CONTENT_TYPES:
        raise ConfigError(f"type={value!r} (--type): use one of {', '.join(CONTENT_TYPES)}")
    return kind


def typed_fields(cls: type, given: Mapping[str, Any]) -> dict[str, Any]:
    """The keyword ``given`` for the dataclass ``cls``, each checked against its field's declared type
    (a path may be a string, a tuple a list) before any work: ConfigError names a wrong one. An unknown
    keyword is left to ``cls`` itself (TypeError, as a misspelled function argument)."""
    hints = typing.get_type_hints(cls)
    checked: dict[str, Any] = {}
    for name, value in given.items():
        hint = hints.get(name)
        if hint is None:
            checked[name] = value
            continue
        kinds = {hint} if typing.get_origin(hint) is tuple else set(typing.get_args(hint)) or {hint}
        if value is None and type(None) in kinds:
            checked[name] = None
        elif Path in kinds:
            checked[name] = path_arg(name, value)
        elif any(typing.get_origin(k) is tuple for k in kinds):
            if not isinstance(value, (tuple, list)) or not all(isinstance(v, str) for v in value):
                raise ConfigError(f"{name}={value!r}: must be a list of strings")
            checked[name] = tuple(value)
        elif not any(isinstance(value, k) for k in kinds if isinstance(k, type)) or (
            isinstance(value, bool) and bool not in kinds
        ):
            wanted = " or ".join(k.__name__ for k in kinds if isinstance(k, type) and k is not type(None))
            raise ConfigError(f"{name}={value!r}: must be {wanted}, not {type(value).__name__}")
        else:
            checked[name] = value
    return checked


def path_arg(name: str, value: Any) -> Path:
    """A path given as a string or a path."""
    if not isinstance(value, (str, os.PathLike)):
        raise ConfigError(f"{name}={value!r}: must be a path, not {type(value).__name__}")
    return Path(value)


def since_arg(value: Any) -> date | None:
    """``--since``: a date, or a string (an int year too) in one of its forms, from its first day."""
    if value is None or isinstance(value, date):
        return value.date() if isinstance(value, datetime) else value
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if isinstance(value, str):
        for fmt in SINCE_FORMATS:
            try:
                return datetime.strptime(value.strip(), fmt).date()
            except ValueError:
                continue
    raise ConfigError(f"since {value!r}: use a date, or a string like 2026-10-01, 2026-10 or 2026")


def path_filter(cfg: IndexConfig, value: Any) -> str | None:
    """``--path`` as the index knows sources, relative to the corpus root: a leading ``./`` goes, and an
    absolute path under a root the manifest records is made relative (with the root's name in front when
    the run's paths carry it, as several roots make them). The corpus root itself (``.``, its absolute path)
    selects every source: None, no filter."""
    if value is None:
        return None
    glob = str(path_arg("path", value))
    if isinstance(value, str) and value.endswith("/"):
        glob += "/"  # Path() drops it, and it means "the folder"
    while glob.startswith("./"):
        glob = glob[2:]
    if not os.path.isabs(glob):
        return None if glob in ("", ".") else _from_here(cfg, glob)
    return _under_root(source_paths(cfg), glob)


def _from_here(cfg: IndexConfig, glob: str) -> str | None:
    """A relative ``--path`` as written from the working folder (``corpus/papers/*`` after ``batchsum run corpus``)
    when it names no source as written and its first part is a folder here: it had matched nothing, its hint naming
    the root. Only then is the manifest read (a search with ``--path 'notes/*'`` reads none)."""
    first = glob.split("/", 1)[0]
    if not os.path.isdir(first):
        return glob
    sources = source_paths(cfg)
    if not sources or matching(sources, glob):
        return glob
    here = os.path.abspath(glob) + ("/" if glob.endswith("/") else "")
    named = _under_root(sources, here)
    return glob if named == here else named


def _under_root(sources: Mapping[str, ManifestEntry], glob: str) -> str | None:
    """An absolute ``glob`` made relative to the corpus root it lies under (see :func:`path_filter`)."""
    for root in sorted({e.root for e in sources.values() if e.root}, key=len, reverse=True):
        base = root.rstrip("/") + "/"
        if glob.startswith(base) or glob == root.rstrip("/"):
            rest = glob[len(base) :]
            prefix = root_prefixes(sources).get(root)
            if prefix and rest and matching(sources, named := f"{prefix}/{rest}"):
                return named  # one of several roots: its own sources, not a same-named file of another root
            return rest or None
    return glob


def source_paths(cfg: IndexConfig) -> dict[str, ManifestEntry]:
    """The run's sources by their path relative to the corpus root (the manifest)."""
    return StateStore(cfg.state_dir).load_manifest()


def root_prefixes(sources: Mapping[str, ManifestEntry]) -> dict[str, str]:
    """The name each corpus root's sources carry first (walk_paths.root_names: "" for a single root): the one
    its entries recorded, else (entries from before it was recorded) the one the walk gives those roots."""
    recorded = {e.root: e.prefix for e in sources.values() if e.root and e.prefix is not None}
    roots = sorted({e.root for e in sources.values() if e.root})
    walked = root_names([Path(r) for r in roots])
    return {r: recorded[r] if r in recorded else walked.get(Path(r), "") for r in roots}


def matching(sources: Mapping[str, Any], glob: str) -> list[str]:
    """The source paths ``glob`` selects, as ``--path`` selects them."""
    from batchsum.index.dense import matching_sources  # numpy: only for a search

    return matching_sources(list(sources), glob)


def unmatched_path(cfg: IndexConfig, glob: str) -> str | None:
    """Why ``--path glob`` can select nothing: it matches none of the run's sources (None: it matches some)."""
    sources = source_paths(cfg)
    if not sources or matching(sources, glob):
        return None
    roots = sorted({e.root for e in sources.values() if e.root})
    said = "paths are relative to the corpus root" + (f" ({', '.join(roots)})" if roots else "")
    # Several roots: a path starts with its root's name ("notes/...", "home-notes/..." when two roots are named
    # "notes"), so it is not relative to the root.
    names = root_prefixes(sources)
    if len(roots) > 1 and all(
        names.get(e.root) and rel.startswith(f"{names[e.root]}/") for rel, e in sources.items() if e.root
    ):
        said = "each path starts with its corpus root's name (" + ", ".join(f"{names[r]}/ for {r}" for r in roots) + ")"
    # The example is a source the glob names under some folder when there is one (2024-03-05.md: notes/2024-03-05.md).
    example = min(matching(sources, f"*/{glob.lstrip('/')}") or sources)
    return f"--path {glob} matches no source: {said}, e.g. {example}"


def filtered_out(cfg: IndexConfig, query: str, given: Mapping[str, Any], reranker: Path | None = None) -> str | None:
    """Why a search with filters found nothing: the filters (``given``: option name -> value, None when not
    given) left out the best hit a search without them finds, named. None: no filter, or nothing found without."""
    named = [f"--{name} {value}" for name, value in given.items() if value]
    if not named:
        return None
    from batchsum.index.search import search  # numpy: only for a search

    best = search(cfg, query, k=1, reranker=reranker, warn=False)
    if not best:
        return None
    # Only a file without a real date (its modification time, when it was copied) is left out for that.
    copied = " (--since also leaves out a file whose only date is when it was copied)"
    dated = "" if not given.get("since") else copied if best[0].doc_date is None else f" (dated {best[0].doc_date})"
    # "without them" read wrong after a single filter ("with --since 2030-01-01; without them").
    return (
        f"No match for {query!r} with {' '.join(named)}; without {'it' if len(named) == 1 else 'them'} the best is "
        f"{best[0].source_path} at {best[0].score:.3f}{dated}"
    )


def absolute(hits: list[SearchHit]) -> list[SearchHit]:
    """The hits with an absolute ``summary_path``, the same whichever way ``out`` was written."""
    for hit in hits:
        hit.summary_path = Path(os.path.abspath(hit.summary_path))
    return hits
