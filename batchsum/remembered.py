"""An output folder remembers the settings it was built with (``<out>/.batchsum/settings.json``).

A re-run that leaves an option out reuses the folder's value (:func:`reuse`), so the nightly
``batchsum run ~/journal --out ~/journal-summaries`` summarizes like the first run did. A re-run
that gives a different value is a change (:func:`check`): it is logged with the number of files it
makes the run summarize again, and with an LLM backend the run refuses to spend on them unless
confirmed (``--yes``) or asked for (``--rebuild``: the options given, defaults for the rest).

Only settings that change what is written are remembered (type, backend, model, levels, budgets,
chunking, prompts, redaction, ignore patterns, embedder); never a key, a limit or where to log.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from batchsum import jsonio
from batchsum.config import STATE_DIR, IndexConfig, RunConfig
from batchsum.errors import ConfigError, SettingsChanged
from batchsum.secrets import MASK, scrub_command, scrub_text
from batchsum.settings import BY_FIELD, SETTINGS, assign
from batchsum.tree import atomic_write_bytes

if TYPE_CHECKING:
    from batchsum.engine.changes import Signature
    from batchsum.state import ManifestEntry

log = logging.getLogger(__name__)

FILE_NAME = "settings.json"
FORMAT = 1

# RunConfig fields (dotted for LLMConfig and the level bounds) and the option that sets each.
REMEMBERED: dict[str, str] = {s.field: s.name for s in SETTINGS if s.remember}
_PATHS = {"llm.prompts_dir"}
# Stored with a password in their user info masked (as the stored command line is): compared masked too.
_URLS = {"llm.base_url", "embed_base_url"}
# Settings that shape every digest but no file's summary: with an LLM, a change makes it write them all again.
_DIGEST_FIELDS = {"digests", "digest_month_words", "digest_year_words"}
# Settings that make another backend identity (engine.changes.backend_identity): every digest it made is
# made again, including those of files a run of other PATHs into the folder does not walk.
_BACKEND_FIELDS = {"llm.base_url", "llm.model", "llm.prompts_dir"}


@dataclass(frozen=True)
class Change:
    """One remembered setting the run changes."""

    field: str
    option: str
    old: Any
    new: Any

    def __str__(self) -> str:
        return f"{self.option} {_show(self.old)} -> {_show(self.new)}"


@dataclass(frozen=True)
class Notice:
    """What a run's settings change: the changes and the files they make it summarize again."""

    changes: list[Change]
    redo: int  # files of the folder planned with other settings than this run's (stored nodes are reused)
    total: int  # files the folder holds
    # A confirmed (--yes) run's digests written again, as the refusal without --yes names them ("" none).
    digests: str = ""

    @property
    def message(self) -> str:
        what = ", ".join(dict.fromkeys(str(c) for c in self.changes))
        # Other PATHs into the folder: "0 of 0 files planned again" had said nothing.
        files = "none of this run's files were in it yet"
        if self.total:
            files = f"{self.redo} of {self.total} files planned again"
        return f"settings changed since this folder was built ({what}): {files}{self.digests}"


def _show(value: Any) -> str:
    if value is None:
        return "(unset)"
    if isinstance(value, bool):  # a flag, as typed: `--short` on or off
        return "on" if value else "off"
    if isinstance(value, list):
        return ",".join(map(str, value)) or "(none)"
    return str(value)


def settings_path(out: Path) -> Path:
    """Where ``out`` keeps its remembered settings."""
    return Path(out) / STATE_DIR / FILE_NAME


def _get(cfg: RunConfig, field: str) -> Any:
    obj: Any = cfg
    for part in field.split("."):
        obj = getattr(obj, part)
    return obj


def snapshot(cfg: RunConfig) -> dict[str, Any]:
    """The remembered settings of ``cfg`` as JSON values."""
    values: dict[str, Any] = {}
    for field in REMEMBERED:
        value = _get(cfg, field)
        if isinstance(value, Path):
            value = str(value)
        elif field in _URLS and isinstance(value, str):
            value = scrub_text(value)
        elif isinstance(value, (list, tuple)):
            value = [str(v) for v in value]
        values[field] = value
    return values


def load(out: Path) -> dict[str, Any] | None:
    """The settings ``out`` was last built with; None for a new folder (or one built before folders
    remembered them). An unreadable file is a warning: the run then uses the options it is given.
    Raises ConfigError when ``out`` is a file."""
    if Path(out).exists() and not Path(out).is_dir():  # the first thing a run reads there: said once, plainly
        raise ConfigError(f"--out {out}: a file, not a folder; give a folder (it is made if missing)")
    path = settings_path(out)
    try:
        data = jsonio.loads(path.read_bytes())
    except (FileNotFoundError, NotADirectoryError):  # a file where .batchsum belongs: the lock names it
        return None
    except (OSError, ValueError) as exc:
        log.warning("%s: cannot read the remembered settings (%s); using the options given", path, exc)
        return None
    values = data.get("settings") if isinstance(data, dict) else None
    if not isinstance(values, dict):
        log.warning("%s: not a settings file; using the options given", path)
        return None
    return {k: v for k, v in values.items() if k in REMEMBERED}


def save(cfg: RunConfig) -> None:
    """Remember ``cfg``'s settings in its output folder."""
    path = settings_path(cfg.out)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {"format": FORMAT, "command_line": scrub_command(cfg.command_line), "settings": snapshot(cfg)}
    atomic_write_bytes(path, jsonio.dumps(data, sort_keys=True))


def reuse(cfg: RunConfig, given: set[str]) -> list[str]:
    """Fill every remembered setting of ``cfg`` that is not in ``given`` (field names, ``thresholds``
    for all four bounds) from its output folder; return the fields whose value that changed."""

    old = load(cfg.out)
    if not old:
        return []
    reused = []
    for field, value in old.items():
        if field in given or (field.startswith("thresholds.") and "thresholds" in given):
            continue
        if field in _PATHS and value is not None:
            value = Path(value)
        if field in _URLS and isinstance(value, str) and MASK in value:
            log.warning("%s: the folder's %s held a password, which is never stored; give it again", cfg.out,
                        REMEMBERED[field])  # fmt: skip
            continue
        if value is None and not BY_FIELD[field].accepts_none:
            continue  # an unchecked library keyword once remembered type=None: the default holds
        if _get(cfg, field) != value:
            assign(cfg, field, value)
            reused.append(field)
    return reused


def changes(old: dict[str, Any], cfg: RunConfig) -> list[Change]:
    """The remembered settings ``cfg`` gives another value than ``old``."""
    new = snapshot(cfg)
    # A folder written before URLs were stored masked holds the password: compared (and shown) masked.
    old = {f: scrub_text(v) if f in _URLS and isinstance(v, str) else v for f, v in old.items()}
    return [Change(f, REMEMBERED[f], old[f], new[f]) for f in REMEMBERED if f in old and old[f] != new[f]]


@dataclass(frozen=True)
class Cost:
    """What ``batchsum plan`` with a run's options counts (:func:`check` asks only when a change may spend)."""

    requests: int  # the LLM requests the run would send (stored summaries are not asked for again)
    digests: tuple[str, ...] = ()  # the digests the folder has that it would ask the LLM again


def check(
    cfg: RunConfig,
    entries: list[ManifestEntry],
    sig: Signature,
    *,
    confirmed: bool,
    cost: Callable[[], Cost] | None = None,
) -> Notice | None:
    """What this run changes against the settings its output folder remembers (None: nothing);
    ``entries``: the manifest entries of the files this run walks.

    Raises :class:`SettingsChanged` when the change makes an LLM backend summarize files again, or write
    digests again (turned on, other budgets, or another backend or model for the digests the folder has),
    and the run is not ``confirmed``, unless ``cost`` (what ``plan`` counts; asked only then) says it sends
    no request: a refusal exists to stop spending, and every summary may already be stored. Otherwise the
    run's settings become the folder's.
    """
    old = load(cfg.out)
    found = changes(old, cfg) if old else []
    notice = None
    if found:
        # The files the run plans again, as `plan` counts them: those whose signature the change moves.
        redone = [e for e in entries if not sig.holds(e)]
        notice = Notice(found, len(redone), len(entries))
        fields = {c.field for c in found}
        # Turning digests off costs nothing; on, or with other budgets, every digest is written again.
        digests = cfg.digests and bool(fields & _DIGEST_FIELDS)
        # Another backend or model writes again every digest the folder has, whatever files the run walks
        # (other PATHs into the folder too): which ones, `plan` knows.
        backend = cfg.digests and not digests and bool(fields & _BACKEND_FIELDS)
        files = any(map(_made_by_llm, redone))
        # A confirmed run counts the cost only when it would name digests: its warning says them as the refusal would.
        if cfg.llm.enabled and (digests or backend or (files and not confirmed)):
            counted = cost() if cost is not None else None
            remade = counted.digests if counted is not None and backend else ()
            sends = counted is None or counted.requests > 0
            if sends and (files or digests or remade):
                if not confirmed:
                    raise SettingsChanged(_refusal(cfg, notice, fields if digests else set(), remade))
                notice = replace(notice, digests=_digest_clause(fields if digests else set(), remade, would=False))
    if old != snapshot(cfg):
        save(cfg)
    return notice


def _refusal(cfg: RunConfig, notice: Notice, digest_fields: set[str], remade: tuple[str, ...]) -> str:
    """The refusal of a change that would spend: the files and digests it would redo, and the ways on."""
    would = notice.message.replace(" files planned again", " files would be planned again")
    would += _digest_clause(digest_fields, remade, would=True)
    return (
        f"{cfg.out}: {would} for {cfg.llm.model} at {scrub_text(cfg.llm.base_url or '')} (summaries already "
        "stored are reused: `batchsum plan` with the same options counts the requests). Leave the option(s) "
        "out to keep the folder's settings, or add --yes (yes=True) to go ahead (--rebuild, rebuild=True: the "
        "options given, defaults for the rest)"
    )


def _digest_clause(digest_fields: set[str], remade: tuple[str, ...], *, would: bool) -> str:
    """What a change writes again of the digests, appended to the files it plans again ("" none): every digest
    for other ``digest_fields``, else the ``remade`` ones the folder holds (another backend or model)."""
    if digest_fields:
        return f" and {_digests_redone(digest_fields)}"
    if not remade:
        return ""
    n = len(remade)
    verb = "would be written" if would else "written"
    return f"; {n} digest{'s' if n != 1 else ''} it holds {verb} again ({', '.join(remade)})"


def saved(out: Path) -> bytes | None:
    """The bytes of ``out``'s remembered settings as they are now (None: none), for :func:`put_back`."""
    try:
        return settings_path(out).read_bytes()
    except OSError:
        return None


def put_back(out: Path, previous: bytes | None) -> None:
    """Restore the settings file ``saved`` read before a run that made nothing replaced it: such a run
    (a mistyped --model refused by the server) does not hold the folder to its settings."""
    path = settings_path(out)
    if previous is None:
        path.unlink(missing_ok=True)
    elif saved(out) != previous:
        atomic_write_bytes(path, previous)


def _made_by_llm(entry: ManifestEntry) -> bool:
    """Whether ``entry``'s summaries are ones a change would pay to make again: a file kept whole needs no
    LLM, and one with nodes the LLM did not make is planned again by the next run whatever its settings
    (a run under a mistyped --model made nothing worth holding the folder to)."""
    return entry.level != "NONE" and not entry.fallback_nodes


def _digests_redone(fields: set[str]) -> str:
    """Which digests a change of ``fields`` writes again (a year is made from its months)."""
    if "digests" in fields:
        return "every month, year and folder digest made"
    if "digest_month_words" in fields:
        return "every month, year and folder digest written again"
    return "every year's digest written again"


def index_config(out: IndexConfig | str | Path) -> IndexConfig:
    """The index settings of the output folder ``out`` (collection, embedder) as it was built; an
    IndexConfig is taken as given."""
    if isinstance(out, IndexConfig):
        return out
    cfg = IndexConfig(out=Path(out))
    old = load(cfg.out) or {}
    for field in ("collection", "embed_base_url", "embed_model"):
        if field in old and old[field] is not None:
            setattr(cfg, field, old[field])
    return cfg
