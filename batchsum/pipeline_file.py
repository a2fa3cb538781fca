"""Declarative pipeline files: ``batchsum run --pipeline pipelines/nightly.yaml``.

A pipeline file lists corpora and the settings of a run; command-line flags override it. Its keys,
their types and bounds come from the settings schema (:mod:`batchsum.settings`).
The file is parsed node by node (``yaml.compose``) so that every error names the file and
line: unknown keys (with the closest valid key suggested), wrong types, out-of-range or
unknown enum values, missing or non-existent paths.

Relative paths resolve against the current working directory, exactly like paths given on
the command line, unless the file sets ``root:``; a relative ``root`` is taken relative to
the pipeline file's own folder (``root: ..`` = "the folder above this file"), which makes a
pipeline independent of the directory cron or systemd starts it from.

API keys are never stored in a pipeline: ``backend.api_key_env`` names the environment
variable that holds the key.
"""

from __future__ import annotations

import copy
import difflib
import logging
import os
import re
from dataclasses import asdict, dataclass, field, fields, replace
from itertools import pairwise
from pathlib import Path
from typing import TYPE_CHECKING, Any

from batchsum.config import BACKEND_KINDS, LLMConfig, RunConfig
from batchsum.errors import PipelineError
from batchsum.model import TYPE_CHOICES, Thresholds
from batchsum.settings import pipeline_keys

if TYPE_CHECKING:
    from collections.abc import Callable

    from yaml.nodes import Node

log = logging.getLogger(__name__)

PIPELINE_VERSION = 1
# A corpus's ``type``: a content type, ``auto``, or ``transcript`` (an alias of ``conversation``).
CORPUS_TYPES = (*TYPE_CHOICES, "transcript")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass
class CorpusSpec:
    """One corpus of a pipeline: a file or folder, its content type and extra ignore patterns."""

    path: Path
    type: str = "auto"
    ignore: list[str] = field(default_factory=list)
    line: int = 0


@dataclass
class PipelineSpec:
    """A validated pipeline file.

    ``settings`` maps RunConfig field names (``"out"``, ``"chunk_size"``...) and LLMConfig
    field names prefixed with ``llm.`` (``"llm.rpm"``...) to values; ``"thresholds"`` maps
    to a partial ``{none, brief, standard, detailed}`` dict.
    """

    source: Path
    corpora: list[CorpusSpec]
    settings: dict[str, Any]
    api_key_env: str | None = None
    extractive_line: int | None = None  # the line of ``backend.kind: extractive``, which drops any server


@dataclass(frozen=True)
class _Key:
    """Schema entry: how to check one key and which setting it fills."""

    kind: str  # str | int | number | bool | strlist | path | dir | enum | section | special
    target: str | None = None
    choices: tuple[str, ...] = ()
    nullable: bool = False
    minimum: float | None = None
    maximum: float | None = None
    section: dict[str, _Key] | None = None
    zero_is_none: bool = False
    refusal: Callable[[Any], str | None] | None = None  # the setting's own check (Setting.refusal)


def _schema() -> dict[str, dict[str, _Key]]:
    """Keys by section, from the settings schema plus the keys only a pipeline file has."""
    order = ("", "backend", "levels", "chunking", "rolling", "digests", "index", "metrics", "logging", "ray")
    sections: dict[str, dict[str, _Key]] = {name: {} for name in order}
    for name, keys in pipeline_keys().items():
        for key, s in keys.items():
            sections[name][key] = _Key(
                s.kind,
                s.field,
                s.choices,
                s.nullable,
                s.minimum,
                s.maximum,
                zero_is_none=s.zero_is_none,
                refusal=s.refusal,
            )
    sections["backend"].update(
        kind=_Key("enum", None, choices=BACKEND_KINDS), api_key_env=_Key("special"), facets=_Key("special")
    )
    sections[""].update(
        version=_Key("int", None, minimum=PIPELINE_VERSION, maximum=PIPELINE_VERSION),
        root=_Key("special"),
        corpora=_Key("special"),
        **{name: _Key("section", section=sections[name]) for name in order if name},
    )
    sections["corpora[]"] = _CORPUS
    return sections


_CORPUS: dict[str, _Key] = {
    "path": _Key("special"),
    "type": _Key("enum", None, choices=CORPUS_TYPES),
    "ignore": _Key("strlist"),
}
_SECTIONS = _schema()
_TOP = _SECTIONS[""]


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "list"
    if isinstance(value, dict):
        return "mapping"
    return type(value).__name__


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


class _Parser:
    """Walks the composed YAML node tree, validating as it goes."""

    def __init__(self, path: Path, text: str, *, corpora_used: bool = True) -> None:
        import yaml  # PyYAML loads only when a pipeline file is read: a run without one never needs it

        self.yaml = yaml
        self.path = path
        self.loader = yaml.SafeLoader(text)
        self.base: Path | None = None
        self.settings: dict[str, Any] = {}
        self.lines: dict[str, int] = {}
        self.errors: list[PipelineError] = []  # every mistake of the file is reported, not only the first
        self.corpora_used = corpora_used  # False: PATH arguments replace the corpora, which need not exist

    # -- helpers -------------------------------------------------------------------------
    def fail(self, node: Node | None, message: str) -> PipelineError:
        line = node.start_mark.line + 1 if node is not None else 1
        return PipelineError(f"{self.path}:{line}: {message}")

    def value(self, node: Node) -> Any:
        try:
            return self.loader.construct_object(node, deep=True)
        except self.yaml.YAMLError as exc:
            raise self.fail(node, f"invalid value: {exc}") from None

    def mapping(self, node: Node, where: str) -> list[tuple[str, Node, Node]]:
        """(key, key node, value node) triples of a mapping node; a duplicate key is an error of the file,
        reported with the others (the first value is checked, so its mistakes are found too)."""
        if not isinstance(node, self.yaml.MappingNode):
            raise self.fail(node, f"{where} must be a mapping, got {_type_name(self.value(node))}")
        seen: dict[str, int] = {}
        items: list[tuple[str, Node, Node]] = []
        for key_node, value_node in node.value:
            key = self.value(key_node)
            if not isinstance(key, str):
                raise self.fail(key_node, f"keys must be strings, got {_type_name(key)} {_show(key)}")
            if key in seen:
                self.errors.append(self.fail(key_node, f"duplicate key '{key}' (first on line {seen[key]})"))
                continue
            seen[key] = key_node.start_mark.line + 1
            items.append((key, key_node, value_node))
        return items

    def unknown(self, key: str, key_node: Node, section: str) -> PipelineError:
        schema = _SECTIONS[section]
        where = f" in {section.rstrip('[]')}" if section else ""
        close = difflib.get_close_matches(key, list(schema), n=1, cutoff=0.6)
        if close:
            hint = f" (did you mean '{close[0]}'?)"
        else:
            # A valid key in the wrong section: point at where it belongs.
            homes = [name for name, keys in _SECTIONS.items() if key in keys and name != section]
            if not homes:
                hint = f" (valid keys: {', '.join(sorted(schema))})"
            elif homes[0] == "corpora[]":
                hint = f" (did you mean '{key}' inside a 'corpora' entry?)"
            elif homes[0] == "":
                hint = f" (did you mean the top-level key '{key}'?)"
            else:
                hint = f" (did you mean '{homes[0]}.{key}'?)"
        return self.fail(key_node, f"unknown key '{key}'{where}{hint}")

    def resolve(self, raw: str) -> Path:
        path = Path(os.path.expanduser(raw))
        if self.base is not None and not path.is_absolute():
            path = Path(os.path.normpath(self.base / path))
        return path

    def check(self, name: str, spec: _Key, node: Node) -> Any:
        """Validate one scalar/list value against its schema entry and its setting's own check (an unknown
        ``language``), and return it converted."""
        value = self.typed(name, spec, node)
        if spec.refusal is not None and value is not None and (why := spec.refusal(value)) is not None:
            raise self.fail(node, f"'{name}': {why}")
        return value

    def typed(self, name: str, spec: _Key, node: Node) -> Any:
        """One value checked against its schema entry's kind and bounds, converted."""
        value = self.value(node)
        if value is None:
            if spec.nullable:
                return None
            raise self.fail(node, f"'{name}' must not be empty")
        kind = spec.kind
        if kind in ("str", "path", "dir", "enum"):
            if not isinstance(value, str) or (kind != "enum" and not value.strip()):
                want = "a non-empty string" if kind == "str" else "a path" if kind != "enum" else "a string"
                raise self.fail(node, f"'{name}' must be {want}, got {_type_name(value)} {_show(value)}")
            if kind == "enum":
                if value not in spec.choices:
                    close = difflib.get_close_matches(value, spec.choices, n=1, cutoff=0.6)
                    hint = f"; did you mean '{close[0]}'?" if close else ""
                    raise self.fail(
                        node, f"'{name}' must be one of {', '.join(spec.choices)}, got {_show(value)}{hint}"
                    )
                return value
            if kind == "str":
                return value
            path = self.resolve(value)
            if kind == "dir" and not path.is_dir():
                raise self.fail(node, f"'{name}' folder {path} does not exist")
            return path
        if kind == "bool":
            if not isinstance(value, bool):
                raise self.fail(node, f"'{name}' must be true or false, got {_type_name(value)} {_show(value)}")
            return value
        if kind in ("int", "number"):
            ok = isinstance(value, int) and not isinstance(value, bool)
            if kind == "number":
                ok = ok or isinstance(value, float)
            if not ok:
                want = "an integer" if kind == "int" else "a number"
                raise self.fail(node, f"'{name}' must be {want}, got {_type_name(value)} {_show(value)}")
            if spec.minimum is not None and value < spec.minimum:
                raise self.fail(node, f"'{name}' must be at least {spec.minimum:g}, got {value}")
            if spec.maximum is not None and value > spec.maximum:
                raise self.fail(node, f"'{name}' must be at most {spec.maximum:g}, got {value}")
            return None if spec.zero_is_none and value == 0 else value
        if kind == "strlist":
            if isinstance(value, str):
                value = [value]
            if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
                raise self.fail(node, f"'{name}' must be a list of non-empty strings, got {_show(value)}")
            return list(value)
        raise AssertionError(f"unhandled schema kind {kind}")

    # -- sections ------------------------------------------------------------------------
    def section(self, name: str, node: Node, schema: dict[str, _Key]) -> None:
        for key, key_node, value_node in self.mapping(node, f"'{name}'"):
            try:
                self.section_key(name, schema, key, key_node, value_node)
            except PipelineError as exc:
                self.errors.append(exc)

    def section_key(self, name: str, schema: dict[str, _Key], key: str, key_node: Node, value_node: Node) -> None:
        """One key of section ``name``."""
        spec = schema.get(key)
        if spec is None:
            raise self.unknown(key, key_node, name)
        dotted = f"{name}.{key}"
        if key == "kind":
            self.settings["__kind__"] = self.check(dotted, spec, value_node)
            self.lines["__kind__"] = key_node.start_mark.line + 1
        elif key == "api_key_env":
            env = self.value(value_node)
            if not isinstance(env, str) or not _ENV_NAME.fullmatch(env):
                raise self.fail(
                    value_node,
                    f"'{dotted}' must be the NAME of an environment variable (like OPENAI_API_KEY), "
                    f"got {_show(env)}; never put the key itself in a pipeline file",
                )
            self.settings["__api_key_env__"] = env
        elif key == "facets":
            facets = self.value(value_node)
            if facets not in (True, False, None, "auto"):
                raise self.fail(value_node, f"'{dotted}' must be true, false or auto, got {_show(facets)}")
            self.settings["llm.facets"] = None if facets == "auto" else facets
        else:
            assert spec.target is not None
            self.settings[spec.target] = self.check(dotted, spec, value_node)
        self.lines[spec.target or key] = key_node.start_mark.line + 1

    def corpora(self, node: Node) -> list[CorpusSpec]:
        if not isinstance(node, self.yaml.SequenceNode):
            raise self.fail(node, f"'corpora' must be a list of corpora, got {_type_name(self.value(node))}")
        if not node.value:
            raise self.fail(node, "'corpora' is empty: list at least one folder or file")
        result: list[CorpusSpec] = []
        seen: dict[str, int] = {}
        for item in node.value:
            try:
                self.corpus(item, result, seen)
            except PipelineError as exc:
                self.errors.append(exc)
        return result

    def corpus(self, item: Node, result: list[CorpusSpec], seen: dict[str, int]) -> None:
        """One entry of ``corpora``, appended to ``result``."""
        line = item.start_mark.line + 1
        spec = CorpusSpec(path=Path("."), line=line)
        path_node: Node | None = None
        if isinstance(item, self.yaml.ScalarNode):
            path_node = item
        else:
            for key, key_node, value_node in self.mapping(item, "each corpus"):
                if key not in _CORPUS:
                    raise self.unknown(key, key_node, "corpora[]")
                if key == "path":
                    path_node = value_node
                elif key == "type":
                    kind = self.check("type", _CORPUS["type"], value_node)
                    spec.type = "conversation" if kind == "transcript" else kind
                else:
                    spec.ignore = self.check("ignore", _CORPUS["ignore"], value_node)
        if path_node is None:
            raise self.fail(item, "corpus entry has no 'path'")
        raw = self.value(path_node)
        if not isinstance(raw, str) or not raw.strip():
            raise self.fail(path_node, f"corpus 'path' must be a path, got {_type_name(raw)} {_show(raw)}")
        spec.path = self.resolve(raw)
        if self.corpora_used and not spec.path.exists():
            where = "" if spec.path.is_absolute() else f" (relative to {Path.cwd()})"
            raise self.fail(path_node, f"corpus path {spec.path} does not exist{where}")
        if str(spec.path) in seen:
            raise self.fail(path_node, f"corpus {spec.path} is listed twice (first on line {seen[str(spec.path)]})")
        seen[str(spec.path)] = line
        result.append(spec)

    def parse(self) -> PipelineSpec:
        try:
            root = self.loader.get_single_node()
        except self.yaml.MarkedYAMLError as exc:
            mark = exc.problem_mark or exc.context_mark
            line = mark.line + 1 if mark is not None else 1
            raise PipelineError(f"{self.path}:{line}: invalid YAML: {exc.problem or exc.context}") from None
        except self.yaml.YAMLError as exc:
            raise PipelineError(f"{self.path}:1: invalid YAML: {exc}") from None
        if root is None:
            raise PipelineError(f"{self.path}:1: the file is empty; it needs at least a 'corpora' list")
        items = self.mapping(root, "a pipeline file")
        # root first: every other path depends on it.
        for key, _, value_node in items:
            if key == "root":
                raw = self.value(value_node)
                if not isinstance(raw, str) or not raw.strip():
                    raise self.fail(value_node, f"'root' must be a path, got {_type_name(raw)} {_show(raw)}")
                base = Path(os.path.expanduser(raw))
                if not base.is_absolute():
                    base = Path(os.path.normpath(self.path.parent / base))
                if not base.is_dir():
                    raise self.fail(value_node, f"'root' folder {base} does not exist")
                self.base = base
        corpora: list[CorpusSpec] | None = None
        for key, key_node, value_node in items:
            try:
                spec = _TOP.get(key)
                if spec is None:
                    raise self.unknown(key, key_node, "")
                if key == "root":
                    continue
                if key == "corpora":
                    corpora = self.corpora(value_node)
                elif spec.kind == "section":
                    assert spec.section is not None
                    self.section(key, value_node, spec.section)
                elif spec.target is None:
                    self.check(key, spec, value_node)  # version: validated, not a setting
                else:
                    self.settings[spec.target] = self.check(key, spec, value_node)
                    self.lines[spec.target] = key_node.start_mark.line + 1
            except PipelineError as exc:
                self.errors.append(exc)
        if corpora is None and "corpora" not in {key for key, _, _ in items}:
            self.errors.append(self.fail(root, "missing required key 'corpora' (the folders or files to summarize)"))
        if len(self.errors) == 1:
            raise self.errors[0]
        if self.errors:
            raise PipelineError(f"{len(self.errors)} errors:\n" + "\n".join(f"  {e}" for e in self.errors))
        assert corpora is not None
        return self.finish(corpora)

    def finish(self, corpora: list[CorpusSpec]) -> PipelineSpec:
        """Cross-field checks and the backend kind."""
        settings = self.settings
        levels = {k.split(".", 1)[1]: settings.pop(k) for k in list(settings) if k.startswith("thresholds.")}
        if levels:
            merged = {**asdict(Thresholds()), **levels}
            order = ["none", "brief", "standard", "detailed"]
            for low, high in pairwise(order):
                if merged[low] >= merged[high]:
                    line = self.lines.get(f"thresholds.{high}") or self.lines.get(f"thresholds.{low}", 1)
                    raise PipelineError(
                        f"{self.path}:{line}: levels must increase: {low} ({merged[low]}) "
                        f"must be below {high} ({merged[high]})"
                    )
            settings["thresholds"] = levels
        size = settings.get("chunk_size", RunConfig.__dataclass_fields__["chunk_size"].default)
        overlap = settings.get("chunk_overlap", RunConfig.__dataclass_fields__["chunk_overlap"].default)
        if overlap >= size:
            line = self.lines.get("chunk_overlap") or self.lines.get("chunk_size", 1)
            raise PipelineError(f"{self.path}:{line}: chunking overlap ({overlap}) must be smaller than size ({size})")
        kind = settings.pop("__kind__", None)
        api_key_env = settings.pop("__api_key_env__", None)
        if kind == "extractive":
            settings["llm.base_url"] = None
        elif kind == "llm" and not settings.get("llm.base_url"):
            raise PipelineError(
                f"{self.path}:{self.lines['__kind__']}: backend kind 'llm' needs 'base_url' "
                "(the OpenAI-compatible server, e.g. http://127.0.0.1:8080/v1)"
            )
        return PipelineSpec(
            source=self.path,
            corpora=corpora,
            settings=settings,
            api_key_env=api_key_env,
            extractive_line=self.lines["__kind__"] if kind == "extractive" else None,
        )


def load_pipeline(path: Path, *, corpora_used: bool = True) -> PipelineSpec:
    """Read and validate a pipeline file; raises :class:`PipelineError` naming file and line.
    ``corpora_used=False``: the run's PATH arguments replace its corpora, whose paths are then not
    required to exist (a corpus renamed since the file was written)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise PipelineError(f"{path}: pipeline file not found") from None
    except IsADirectoryError:
        raise PipelineError(f"{path}: is a folder, not a pipeline file") from None
    except UnicodeDecodeError as exc:
        raise PipelineError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except OSError as exc:
        raise PipelineError(f"{path}: cannot read pipeline file ({exc.strerror or exc})") from None
    return _Parser(path, text, corpora_used=corpora_used).parse()


_RUN_FIELDS = {f.name for f in fields(RunConfig)}
_LLM_FIELDS = {f.name for f in fields(LLMConfig)}


def _skip(key: str, cli_set: set[str]) -> bool:
    """True when the command line set ``key`` (or its whole section) itself."""
    return key in cli_set or (key.startswith("thresholds.") and "thresholds" in cli_set)


def apply_pipeline(spec: PipelineSpec, cfg: RunConfig, cli_set: set[str]) -> RunConfig:
    """A copy of ``cfg`` filled from ``spec``, except the fields named in ``cli_set``.

    ``cli_set`` holds the names of options given on the command line (``"out"``,
    ``"llm.rpm"``, ``"paths"``, ``"content_type"``, ``"thresholds.brief"``...): those win
    over the file. ``cfg.paths`` comes from the corpora unless ``"paths"`` is in ``cli_set``;
    per-corpus types and ignore patterns go to ``type_overrides``/``corpus_ignores``.
    """
    new = copy.deepcopy(cfg)
    for key, value in spec.settings.items():
        if key == "thresholds":
            picked = {k: v for k, v in value.items() if not _skip(f"thresholds.{k}", cli_set)}
            if picked:
                new.thresholds = replace(new.thresholds, **picked)
            continue
        if _skip(key, cli_set):
            continue
        target: object = new
        attr = key
        if key.startswith("llm."):
            target, attr = new.llm, key[4:]
        if attr not in (_LLM_FIELDS if target is new.llm else _RUN_FIELDS):
            raise AssertionError(f"pipeline setting {key} has no config field")
        setattr(target, attr, copy.deepcopy(value))
    if "paths" not in cli_set:
        new.paths = [c.path for c in spec.corpora]
    for corpus in spec.corpora:
        key = str(corpus.path)
        if corpus.type != "auto" and "content_type" not in cli_set:
            new.type_overrides[key] = corpus.type  # type: ignore[assignment]
        if corpus.ignore:
            new.corpus_ignores[key] = [*new.corpus_ignores.get(key, []), *corpus.ignore]
    _check_facts_server(spec, new)
    if spec.api_key_env and "llm.api_key" not in cli_set:
        key_value = os.environ.get(spec.api_key_env)
        if key_value:
            new.llm.api_key = key_value
        elif new.llm.enabled:
            log.warning(
                "%s: backend.api_key_env names %s, which is not set; calling %s without an API key",
                spec.source,
                spec.api_key_env,
                new.llm.base_url,
            )
    return new


def _check_facts_server(spec: PipelineSpec, cfg: RunConfig) -> None:
    """PipelineError when facts are asked for (``facts: true`` or ``--facts``) but the file's extractive
    backend left the run no server: the file's own base_url and model had been dropped, and the run's
    "give --base-url (and --model) too" pointed at keys the file already had."""
    if cfg.facts and not cfg.llm.enabled and spec.extractive_line is not None:
        raise PipelineError(
            f"{spec.source}:{spec.extractive_line}: backend kind 'extractive' summarizes offline and ignores "
            "base_url and model, but facts (facts: true, --facts) are extracted by an LLM: set kind: llm (the "
            "server then writes the summaries too) or leave facts out"
        )
