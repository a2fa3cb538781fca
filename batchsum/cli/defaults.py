"""Option defaults from the environment and a config file, for every command.

Precedence, highest first: command-line flags, environment variables (``BATCHSUM_OUT`` for every
``--out``; the documented per-option ones such as ``OPENAI_BASE_URL``), the config file, built-in
defaults. The config file is the first of ``$BATCHSUM_CONFIG``, ``./batchsum.yaml`` and
``<user config folder>/batchsum/config.yaml`` that exists::

    out: ~/journal-summaries      # top-level keys apply to every command that has the option
    run:                          # a section per command overrides them for that command
      type: journal
      base-url: http://127.0.0.1:8080/v1
    search:
      k: 5                        # an option known only by a short flag: its name

Keys are option names (``base-url`` or ``base_url``). An unknown key is an error naming the file,
so a typo never silently does nothing. A value YAML reads as a date, number or boolean (``since: 2024-03-15``)
reaches the option as the text a user would type; a value the option refuses (its setting's own check included)
is an error naming the file and key, and a flag takes true/false, yes/no or on/off.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from datetime import date, datetime
from pathlib import Path
from typing import Any

import click

from batchsum.errors import ConfigError

OUT_ENVVAR = "BATCHSUM_OUT"
CONFIG_ENVVAR = "BATCHSUM_CONFIG"
LOCAL_CONFIG = "batchsum.yaml"
# Commands whose --out is no summaries folder (eval's scratch folder, compact's output file): the shared `out:`
# and BATCHSUM_OUT would send eval's test documents into it or make compact write over it.
OWN_OUT = frozenset({"eval", "compact"})


def user_config_file() -> Path:
    """``$XDG_CONFIG_HOME/batchsum/config.yaml`` (``~/.config`` when unset)."""
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.expanduser("~/.config")
    return Path(base) / "batchsum" / "config.yaml"


def find_config_file() -> Path | None:
    """The config file in effect, or None."""
    explicit = os.environ.get(CONFIG_ENVVAR)
    if explicit:
        path = Path(explicit).expanduser()
        if not path.is_file():
            raise ConfigError(f"{CONFIG_ENVVAR}={explicit}: no such file")
        return path
    for path in (Path(LOCAL_CONFIG), user_config_file()):
        if path.is_file():
            return path
    return None


def load_config_file(path: Path) -> dict[str, Any]:
    """The file's mapping; ConfigError naming the file when it is not one."""
    import yaml

    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.MarkedYAMLError as exc:  # one line, as a pipeline file's: where and what, not PyYAML's dump
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else 1
        what = exc.problem or exc.context
        raise ConfigError(f"{path}:{line}: cannot read config file: invalid YAML: {what}") from None
    # ValueError: YAML reads 2024-13-45 as a date and fails building it.
    except (OSError, ValueError, yaml.YAMLError) as exc:
        raise ConfigError(f"{path}: cannot read config file: {exc}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: a config file is a mapping of option names to values")
    return data


def _option_names(cmd: click.Command) -> dict[str, tuple[str, bool]]:
    """Every spelling a config key may use (``base-url``, ``base_url``) → (click parameter name, whether
    it is the ``--no-x`` side of a ``--x/--no-x`` pair, whose boolean value then reads the other way)."""
    names: dict[str, tuple[str, bool]] = {}
    for param in cmd.params:
        if not isinstance(param, click.Option) or param.name is None:
            continue
        names[param.name] = (param.name, False)  # also an option known only by a short flag: `search: {k: 3}`
        for opts, negative in ((param.opts, False), (param.secondary_opts, True)):
            for opt in opts:
                if opt.startswith("--"):
                    bare = opt[2:]
                    names[bare] = names[bare.replace("-", "_")] = (param.name, negative)
    return names


def command_defaults(
    cmd: click.Command,
    cmd_name: str,
    data: dict[str, Any],
    source: Path,
    commands: Callable[[], Iterable[click.Command]] | None = None,
) -> dict[str, Any]:
    """The default map of one command: top-level keys it has, then its own section. ``commands``: every
    command, asked only when a top-level key is not this command's option, to tell another command's
    option from a typo (``outt:``), which is an error naming the file."""
    names = _option_names(cmd)
    defaults: dict[str, Any] = {}
    foreign = [str(k) for k, v in data.items() if not isinstance(v, dict) and str(k) not in names]
    if foreign and commands is not None:
        known = {name for other in commands() for name in _option_names(other)}
        for key in foreign:
            if key not in known:
                raise ConfigError(f"{source}: '{key}' is not an option of any batchsum command")

    params = {p.name: p for p in cmd.params if isinstance(p, click.Option)}

    def put(key: str, value: Any, where: str) -> None:
        name, negative = names[key]
        param = params[name]
        at = f"{source}: '{where}'"
        if isinstance(value, list) and not param.multiple and param.nargs == 1:
            raise ConfigError(f"{at}: give one value, not a list")
        if param.is_flag:
            if value is None:  # a key left empty: the default, as for any other option
                return
            on = _as_flag(value, at)
            defaults[name] = not on if negative else on
            return
        value = _as_typed(value)
        if isinstance(value, str) and isinstance(param.type, click.Choice):
            value = _as_choice(value, param.type.choices)
        _check_value(param, value, at)
        defaults[name] = value

    for key, value in data.items():
        if isinstance(value, dict):
            continue  # another command's section
        if str(key) in names and not (cmd_name in OWN_OUT and names[str(key)][0] in ("out", "out_path")):
            put(str(key), value, str(key))
    section = data.get(cmd_name)
    if section is not None:
        if not isinstance(section, dict):
            raise ConfigError(f"{source}: '{cmd_name}' must be a mapping of option names to values")
        for key, value in section.items():
            if str(key) not in names:
                raise ConfigError(f"{source}: '{cmd_name}.{key}' is not an option of `batchsum {cmd_name}`")
            put(str(key), value, f"{cmd_name}.{key}")
    return defaults


def _as_typed(value: Any) -> Any:
    """``value`` as a user would type it on the command line: YAML reads ``2024-03-15`` as a date and
    ``2024`` as an int, which click's converters (``--since``'s strptime) do not take."""
    if isinstance(value, list):
        return [_as_typed(v) for v in value]
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, datetime):
        return value.isoformat(sep=" ")
    if isinstance(value, (date, int, float)):
        return value.isoformat() if isinstance(value, date) else str(value)
    # Paths in a config file are written like on a shell line: ~ means the home folder.
    if isinstance(value, str) and value.startswith("~"):
        return os.path.expanduser(value)
    return value


# YAML 1.1 reads these words as booleans; a choice among them takes the one it offers.
_TRUTHY, _FALSY = ("on", "yes", "true"), ("off", "no", "false")


def _as_flag(value: Any, where: str) -> bool:
    """A flag's value: a boolean, or one of YAML's boolean words quoted (``"yes"``); ConfigError naming the
    file, key and the words a flag takes otherwise (click's own list offers "", "1", "t", "y" and names the flag)."""
    if isinstance(value, bool):
        return value
    word = str(value).strip().lower()
    if word in _TRUTHY or word in _FALSY:
        return word in _TRUTHY
    raise ConfigError(f"{where}: {value!r} is not a boolean: use true/false, yes/no or on/off")


def _as_choice(value: str, choices: Sequence[str]) -> str:
    """``value`` ("true" or "false" from YAML's ``on``/``off``) as the word of that meaning ``choices`` offers."""
    for words in (_TRUTHY, _FALSY):
        if value in words and value not in choices:
            return next((c for c in choices if c in words), value)
    return value


def _check_value(param: click.Option, value: Any, where: str) -> None:
    """ConfigError naming the file and key when click would refuse ``value``: its own message names only the
    flag, which the user never typed. A setting's own check is part of its option's type
    (:func:`batchsum.settings.click_option`), so it runs here too."""
    if value is None:
        return
    try:
        for one in value if isinstance(value, list) else [value]:
            param.type.convert(one, param, None)
    except click.BadParameter as exc:
        # click names its type ("is not a valid integer range"); the file's reader wants the kind of value.
        message = exc.message.replace("valid integer range", "whole number").replace("valid integer", "whole number")
        raise ConfigError(f"{where}: {message}") from None


def apply_out_envvar(cmd: click.Command) -> None:
    """Every command's ``--out`` reads ``BATCHSUM_OUT`` unless it names its own variable or means no summaries
    folder (:data:`OWN_OUT`)."""
    if cmd.name in OWN_OUT:
        return
    for param in cmd.params:
        if isinstance(param, click.Option) and param.name == "out" and param.envvar is None:
            param.envvar = OUT_ENVVAR
            param.show_envvar = True
