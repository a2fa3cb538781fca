"""One setting of a run as the schema (:mod:`batchsum.settings`) describes it, and its own validation of a
given value, which every place that reads one runs: a flag, a config file, a pipeline file, a library keyword.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from batchsum.config import RunConfig
from batchsum.errors import ConfigError
from batchsum.model import Thresholds

Kind = Literal["str", "int", "number", "bool", "path", "dir", "strlist", "enum"]
Scope = Literal["common", "run", "file"]  # run and plan / run only / pipeline file only


@dataclass(frozen=True)
class Setting:
    """One setting of a run.

    ``field`` is the RunConfig attribute (``llm.<name>`` for LLMConfig, ``thresholds.<name>`` for a
    level bound); ``flag`` the command-line option (None: pipeline file only); ``key`` the dotted
    pipeline-file key (None: command line only).
    """

    field: str
    kind: Kind
    flag: str | None = None
    key: str | None = None
    help: str = ""
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[str, ...] = ()
    nullable: bool = False  # a pipeline file may say null (the dataclass default then holds None)
    zero_is_none: bool = False  # 0 means "no limit", stored as None
    inverted: bool = False  # the flag is ``--no-<x>`` and stores False
    scope: Scope = "common"
    short: str | None = None
    envvar: str | None = None
    param: str | None = None  # click parameter name when it differs from the flag's
    command_default: Any = None  # the command line's default when it is not the library's (None: the same)
    both: bool = False  # a ``--x/--no-x`` pair; left out, the value stays as it is (default or remembered)
    parse: Callable[[Any], Any] | None = None  # turns a given value (e.g. a flag's string) into the field's
    remember: bool = False  # an output folder keeps it (:mod:`batchsum.remembered`)
    label: str | None = None  # how messages name it, when not by its flag or key
    # Refuses a value the field's type allows but the setting does not (ConfigError or ValueError saying why);
    # returns the value as the field holds it ("German" -> "de").
    check: Callable[[Any], Any] | None = None

    @property
    def name(self) -> str:
        """How messages name the setting: its flag, else its pipeline-file key."""
        return self.label or self.flag or self.key or self.field

    def coerce(self, value: Any, *, negated: bool = False) -> Any:
        """A given value (a flag's or a library keyword's) as the field holds it; ``negated``: the value
        of a ``--no-x`` flag, which sets the field to its opposite."""
        if value is None:
            return None
        if self.parse is not None:
            return self.parse(value)
        if self.kind in ("path", "dir"):
            return Path(value)
        if self.kind == "strlist":
            return [value] if isinstance(value, str) else [str(v) for v in value]
        if self.kind == "bool":
            return not value if negated else bool(value)
        if self.zero_is_none and value == 0:  # below 0 is out of bounds (:meth:`refusal`), not "no limit"
            return None
        return value

    def bounds_error(self, value: float) -> str | None:
        """Why the number ``value`` is out of the setting's bounds, or None."""
        if self.minimum is not None and value < self.minimum:
            return f"must be at least {self.minimum:g}, got {value}"
        if self.maximum is not None and value > self.maximum:
            return f"must be at most {self.maximum:g}, got {value}"
        return None

    def refusal(self, value: Any) -> str | None:
        """Why the setting refuses a given value (a flag's text, a config or pipeline file's value), or None:
        its own parser and check, run wherever a value is read, so each reader can say where it came from."""
        try:
            parsed = self.coerce(value) if self.parse is not None else value
            # Before :meth:`coerce`, which would take a negative "no limit" value for None, past any bound.
            number = isinstance(parsed, int | float) and not isinstance(parsed, bool)
            if self.kind in ("int", "number") and number and (why := self.bounds_error(parsed)) is not None:
                return why
            if self.check is not None and parsed is not None:
                self.check(parsed)
        except (ConfigError, ValueError) as exc:
            return str(exc)
        return None

    @property
    def accepts_none(self) -> bool:
        """Whether the field may hold None (a pipeline file's null, "no limit", or a None default)."""
        return self.nullable or self.zero_is_none or self.default is None

    @property
    def param_name(self) -> str:
        """The click parameter name of the flag."""
        assert self.flag is not None
        return self.param or self.flag.lstrip("-").replace("-", "_")

    @property
    def default(self) -> Any:
        """The config dataclass's default."""
        obj: Any = RunConfig(paths=[])
        for part in self.field.split("."):
            obj = getattr(obj, part)
        return obj


def parse_thresholds(value: str | Sequence[int] | Thresholds | None) -> Thresholds:
    """The four level bounds in tokens from ``"100,500,3000,15000"``, a list of four or Thresholds.
    Its message names no option: the reader of the value says where it came from."""
    if value is None or value == "":
        return Thresholds()
    if isinstance(value, Thresholds):
        value = [value.none, value.brief, value.standard, value.detailed]
    text = value if isinstance(value, str) else ",".join(str(v) for v in value)
    try:
        nums = [int(x) for x in text.split(",")]
    except ValueError:
        raise ConfigError(f"must be four integers like 100,500,3000,15000, got {value!r}") from None
    if len(nums) != 4 or not (0 <= nums[0] < nums[1] < nums[2] < nums[3]):
        raise ConfigError(f"must be four increasing integers (NONE,BRIEF,STANDARD,DETAILED), got {value!r}")
    return Thresholds(*nums)
