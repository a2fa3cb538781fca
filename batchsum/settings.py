"""The run settings schema: one entry per setting drives its command-line option, its pipeline-file
key, its default (the config dataclass's), its bounds and its validation.

The command line (:mod:`batchsum.cli.run`) builds its options from :data:`SETTINGS`, the pipeline
file parser (:mod:`batchsum.pipeline_file`) its keys, and :func:`validate` checks a finished
:class:`~batchsum.config.RunConfig` against the same bounds, whoever built it.
"""

from __future__ import annotations

import dataclasses
import errno
import math
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from batchsum.backends.server_models import check_url, missing_model_message
from batchsum.config import AUTO_RATE, STATE_DIR, IndexConfig, LLMConfig, RunConfig
from batchsum.errors import ConfigError
from batchsum.language import check_language
from batchsum.model import normalize_type
from batchsum.setting_schema import Kind, Setting, parse_thresholds
from batchsum.tokens import check_encoding

if TYPE_CHECKING:
    from collections.abc import Callable


def _s(field: str, kind: Kind, flag: str | None, key: str | None, help: str = "", **kw: Any) -> Setting:
    return Setting(field, kind, flag, key, help, **kw)


SETTINGS: tuple[Setting, ...] = (
    _s(
        "content_type",
        "str",
        "--type",
        None,
        "journal | conversation (alias: transcript) | document | auto (decide per file).",
        param="content_type",
        command_default="auto",
        parse=normalize_type,
        remember=True,
    ),
    _s(
        "thresholds",
        "str",
        "--thresholds",
        None,
        "Level bounds NONE,BRIEF,STANDARD,DETAILED in tokens [100,500,3000,15000].",
        parse=parse_thresholds,
    ),
    _s(
        "llm.facets",
        "bool",
        "--facets",
        None,
        "Structured facets in finals [default: on for conversations].",
        both=True,
        remember=True,
    ),
    _s("out", "path", "--out", "output", "Output folder for the summary tree and state.", short="-o"),
    _s(
        "encoding",
        "str",
        "--encoding",
        "encoding",
        "tiktoken encoding for token counts.",
        remember=True,
        check=check_encoding,
    ),
    _s("chunk_size", "int", "--chunk-size", "chunking.size", "Tokens per chunk.", minimum=50, remember=True),
    _s(
        "chunk_overlap",
        "int",
        "--chunk-overlap",
        "chunking.overlap",
        "Tokens shared by neighbouring chunks.",
        minimum=0,
        remember=True,
    ),
    _s("group_size", "int", "--group-size", "chunking.group_size", "L1s per L2 group.", minimum=2, remember=True),
    _s("ignore", "strlist", "--ignore", "ignore", "Extra gitignore-style pattern to skip (repeatable).", remember=True),
    _s(
        "llm.base_url",
        "str",
        "--base-url",
        "backend.base_url",
        "OpenAI-compatible server, e.g. http://localhost:11434/v1 [env OPENAI_BASE_URL]; facts and serve require "
        "it. Without it, run, watch and compact summarize offline (the extractive summarizer).",
        nullable=True,
        envvar="OPENAI_BASE_URL",
        remember=True,
    ),
    _s(
        "llm.api_key",
        "str",
        "--api-key",
        None,
        "API key [env OPENAI_API_KEY]; never stored or logged.",
        envvar="OPENAI_API_KEY",
    ),
    _s(
        "llm.model",
        "str",
        "--model",
        "backend.model",
        "Model name [env BATCHSUM_MODEL].",
        nullable=True,
        envvar="BATCHSUM_MODEL",
        remember=True,
    ),
    _s(
        "llm.fallback_models",
        "strlist",
        "--fallback-model",
        "backend.fallback_models",
        "Models to try in order when --model is missing or keeps failing.",
    ),
    _s("llm.timeout", "number", "--timeout", "backend.timeout", "Seconds per LLM request.", minimum=0.1),
    _s(
        "llm.rpm",
        "number",
        "--rpm",
        "backend.rpm",
        "Requests per minute (0 = unlimited) [60 for a hosted API; unlimited for a server on this machine"
        " or the local network].",
        minimum=0,
        nullable=True,
        zero_is_none=True,
    ),
    _s(
        "llm.tpm",
        "number",
        "--tpm",
        "backend.tpm",
        "Prompt+max output tokens per minute (0 = unlimited) [60000 for a hosted API; unlimited for a"
        " server on this machine or the local network].",
        minimum=0,
        nullable=True,
        zero_is_none=True,
    ),
    _s(
        "llm.concurrency",
        "int",
        "--concurrency",
        "backend.concurrency",
        "Max LLM requests in flight.",
        minimum=1,
        maximum=256,
    ),
    _s(
        "llm.max_attempts",
        "int",
        "--max-attempts",
        "backend.max_attempts",
        "Attempts per request (retries on 429/5xx/timeouts).",
        minimum=1,
        maximum=100,
    ),
    _s(
        "llm.on_error",
        "enum",
        "--on-error",
        "backend.on_error",
        "When a node finally fails: extractive fallback, fail the file, or abort the run.",
        choices=("fallback", "fail", "abort"),
    ),
    _s("llm.prompts_dir", "dir", "--prompts", "backend.prompts_dir", "Folder of custom prompt files.", remember=True),
    _s(
        "llm.context_window",
        "int",
        "--context-window",
        "backend.context_window",
        "Tokens the model reads at once.",
        minimum=512,
        remember=True,
    ),
    _s("llm.cache", "bool", "--no-cache", "backend.cache", "Bypass the on-disk LLM response cache.", inverted=True),
    _s("llm.temperature", "number", None, "backend.temperature", minimum=0, maximum=2, remember=True),
    _s(
        "max_chain_depth",
        "int",
        "--max-chain-depth",
        "rolling.max_chain_depth",
        "Rolling summaries built on previous finals before a fresh one from source.",
        minimum=0,
        remember=True,
    ),
    _s(
        "price_per_1k",
        "number",
        "--price-per-1k",
        "backend.price_per_1k",
        "Price per 1k tokens, for cost estimates.",
        minimum=0,
        nullable=True,
    ),
    _s(
        "keep_short",
        "bool",
        "--short",
        "levels.keep_short",
        "Keep files below the NONE bound whole as their final; --no-short writes nothing for them [default: keep].",
        both=True,
        remember=True,
    ),
    *(
        _s(f"thresholds.{n}", "int", None, f"levels.{n}", minimum=0, remember=True, label="--thresholds")
        for n in ("none", "brief", "standard", "detailed")
    ),
    _s(
        "language",
        "str",
        "--language",
        "language",
        "Language of the sources as an ISO 639-1 code (de, fr, zh, ja, ...): sentence rules, stop words and "
        "the language LLM summaries are written in. auto: detected per file.",
        remember=True,
        check=check_language,
    ),
    _s(
        "final_words",
        "int",
        "--final-words",
        "levels.final_words",
        "Word cap of a HIERARCHICAL final (0: no cap).",
        minimum=0,
        remember=True,
    ),
    _s(
        "digests",
        "bool",
        "--digests",
        "digests.enabled",
        "Month, year and folder digests (see docs/digests.md); --no-digests writes none. Left out, the output "
        "folder's remembered choice stands [default: on].",
        both=True,
        remember=True,
    ),
    _s(
        "digest_month_words",
        "int",
        "--month-words",
        "digests.month_words",
        "Word budget of a month's digest.",
        minimum=20,
        remember=True,
    ),
    _s(
        "digest_year_words",
        "int",
        "--year-words",
        "digests.year_words",
        "Word budget of a year's digest.",
        minimum=20,
        remember=True,
    ),
    _s(
        "index", "bool", "--no-index", "index.enabled", "Do not index summaries for search.", inverted=True, scope="run"
    ),
    _s(
        "metrics",
        "bool",
        "--no-metrics",
        "metrics.enabled",
        "Do not record metrics in DuckDB/Parquet.",
        inverted=True,
        scope="run",
    ),
    _s(
        "metrics_db",
        "path",
        "--metrics-db",
        "metrics.db",
        "Metrics DuckDB file [<out>/.batchsum/metrics.duckdb].",
        nullable=True,
        scope="run",
    ),
    _s(
        "chroma_host",
        "str",
        "--chroma-host",
        "index.chroma_host",
        "Use a Chroma server instead of the embedded index.",
        nullable=True,
        scope="run",
    ),
    _s(
        "chroma_port",
        "int",
        "--chroma-port",
        "index.chroma_port",
        "Chroma server port.",
        nullable=True,
        minimum=1,
        maximum=65535,
        scope="run",
    ),
    _s("collection", "str", "--collection", "index.collection", "Chroma collection name.", scope="run", remember=True),
    _s(
        "embed_base_url",
        "str",
        "--embed-base-url",
        "index.embed_base_url",
        "OpenAI-compatible embeddings endpoint instead of the packaged MiniLM.",
        nullable=True,
        scope="run",
        remember=True,
    ),
    _s(
        "embed_model",
        "str",
        "--embed-model",
        "index.embed_model",
        "Embedding model name for --embed-base-url.",
        nullable=True,
        scope="run",
        remember=True,
    ),
    _s(
        "executor",
        "enum",
        "--executor",
        "executor",
        "Where summaries are computed: this process, or the workers of a Ray cluster.",
        choices=("local", "ray"),
        scope="run",
    ),
    _s(
        "processes",
        "int",
        "--processes",
        "processes",
        "Worker processes that read and summarize with the extractive summarizer: 0 = one per CPU for"
        " runs with >= 200 KB of changed text, 1 = this process only.",
        minimum=0,
        command_default=0,
        scope="run",
    ),
    _s(
        "ray_address",
        "str",
        "--ray-address",
        "ray.address",
        "Ray cluster to join with --executor ray ('auto': RAY_ADDRESS) [a local Ray on this machine].",
        nullable=True,
        scope="run",
    ),
    _s(
        "ray_workers",
        "int",
        "--ray-workers",
        "ray.workers",
        "Summary workers with --executor ray [one per CPU of the cluster].",
        nullable=True,
        minimum=1,
        scope="run",
    ),
    _s(
        "ray_limiter",
        "str",
        "--ray-limiter",
        "ray.limiter",
        "Share the LLM limits with every --executor ray run naming this limiter (several drivers,"
        " one provider limit; the first run's limits hold) [a limiter of this run's own].",
        nullable=True,
        scope="run",
    ),
    _s(
        "rebuild",
        "bool",
        "--rebuild",
        None,
        "Build with the options given and defaults for the rest, not the settings the output folder"
        " remembers; files those change are summarized again.",
    ),
    _s(
        "yes",
        "bool",
        "--yes",
        None,
        "Go ahead when changed settings make an LLM summarize files again (refused with exit code 5 otherwise).",
        scope="run",
    ),
    _s(
        "git",
        "bool",
        "--git",
        "git",
        "Version the output folder with git, one commit per run; --no-git stops. Left out, the folder's "
        "remembered choice stands.",
        scope="run",
        both=True,
        remember=True,
    ),
    _s(
        "wait_lock",
        "bool",
        "--wait",
        "wait",
        "Wait for another run on the same output instead of exiting with code 3.",
        scope="run",
    ),
    _s(
        "facts",
        "bool",
        "--facts",
        "facts",
        "After summarizing, extract and reconcile facts from new journal entries and chat turns (needs --base-url).",
        scope="run",
    ),
    _s(
        "follow_symlinks",
        "bool",
        "--follow-symlinks",
        "follow_symlinks",
        "Read symlinks whose target lies outside every PATH given (skipped with a message otherwise).",
        remember=True,
    ),
    _s(
        "redact",
        "bool",
        "--redact",
        "redact",
        "Replace secrets (API keys, tokens, passwords, private keys) in source text by [REDACTED:<kind>] before it "
        "is summarized, indexed or sent [default: on when --base-url/--embed-base-url is not loopback].",
        nullable=True,
        both=True,
        remember=True,
    ),
    _s(
        "log_file",
        "path",
        "--log-file",
        "logging.file",
        "Append one line per event to this file.",
        nullable=True,
        scope="run",
    ),
    _s(
        "log_format",
        "enum",
        "--log-format",
        "logging.format",
        "Event log format.",
        choices=("text", "json"),
        scope="run",
    ),
)

BY_FIELD: dict[str, Setting] = {s.field: s for s in SETTINGS}


def pipeline_keys() -> dict[str, dict[str, Setting]]:
    """Pipeline-file keys by section (``""`` = top level): ``{"backend": {"rpm": <Setting>}, ...}``."""
    sections: dict[str, dict[str, Setting]] = {}
    for s in SETTINGS:
        if s.key is None:
            continue
        section, _, name = s.key.rpartition(".")
        sections.setdefault(section, {})[name] = s
    return sections


def bounds_error(s: Setting, value: float) -> str | None:
    """Why ``value`` is out of ``s``'s bounds, or None."""
    return s.bounds_error(value)


def _get(cfg: Any, field: str) -> Any:
    obj: Any = cfg
    for part in field.split("."):
        obj = getattr(obj, part)
    return obj


def assign(cfg: IndexConfig, field: str, value: Any) -> None:
    """Set a (dotted) field of ``cfg``; a level bound replaces the frozen thresholds."""
    head, _, name = field.rpartition(".")
    if not head:
        setattr(cfg, field, value)
        return
    if not isinstance(cfg, RunConfig):
        raise TypeError(f"{field} is a setting of a run, not of an index")
    if head == "thresholds":
        cfg.thresholds = dataclasses.replace(cfg.thresholds, **{name: value})
    else:
        setattr(cfg.llm, name, value)


def validate(cfg: RunConfig) -> None:
    """Raise ConfigError naming the option when ``cfg`` breaks a bound or a cross-field rule."""
    cfg.llm.settle_rates()
    _check_bounds(cfg)
    if cfg.chunk_overlap >= cfg.chunk_size:
        raise ConfigError("--chunk-overlap must be smaller than --chunk-size")
    for s in SETTINGS:
        if s.check is not None:
            try:
                assign(cfg, s.field, s.check(_get(cfg, s.field)))  # "German" is kept as "de"
            except (ConfigError, ValueError) as exc:
                raise ConfigError(f"{s.name}: {exc}") from None
    if cfg.llm.enabled:  # before the folder remembers the URL, and before its models are asked for
        check_url(cfg.llm.base_url or "")
    if cfg.llm.enabled and not cfg.llm.model:
        raise ConfigError(missing_model_message(cfg.llm))
    if cfg.facts and not cfg.llm.enabled:
        raise ConfigError("--facts extracts facts with an LLM: give --base-url (and --model) too")
    if cfg.executor != "ray" and (ray := [f"{s.flag}" for s in SETTINGS if "ray_" in s.field and _get(cfg, s.field)]):
        raise ConfigError(f"{', '.join(ray)} only apply to --executor ray: add it, or leave them out")
    check_out_apart(cfg.out, cfg.paths)


def validate_llm(llm: LLMConfig) -> None:
    """The bounds of the ``llm.*`` settings for an LLM client built outside a run (``compact``,
    ``facts``, ``serve``): the same bounds and messages as :func:`validate`."""
    llm.settle_rates()
    _check_bounds(llm, "llm.")


def _check_bounds(obj: Any, prefix: str = "") -> None:
    """ConfigError naming the option of the first numeric setting under ``prefix`` out of bounds."""
    for s in SETTINGS:
        if s.kind in ("int", "number") and s.field.startswith(prefix):
            value = _get(obj, s.field.removeprefix(prefix))
            if value is not None and (why := bounds_error(s, value)) is not None:
                raise ConfigError(f"{s.flag or s.key}: {why}")
        elif s.choices and s.field.startswith(prefix):  # the library's too (executor="dask" had run locally)
            value = _get(obj, s.field.removeprefix(prefix))
            if value is not None and value not in s.choices:
                raise ConfigError(f"{s.flag or s.key} {value!r}: use {', '.join(s.choices)}")


def resolved_path(path: Path, what: str) -> Path:
    """``path`` absolute, its symlinks resolved; a :class:`ConfigError` naming ``what`` and the path when
    links on the way lead back to each other (Path.resolve raises RuntimeError for that on Python 3.11)."""
    try:
        os.stat(path.expanduser())
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise ConfigError(f"{what} {path} is a symlink loop (links that lead back to each other)") from None
    try:
        return path.expanduser().resolve()
    except (RuntimeError, OSError) as exc:
        raise ConfigError(f"{what} {path} cannot be resolved: {exc}") from None


def check_out_apart(out: Path, paths: list[Path]) -> None:
    """The output folder and the corpora must not contain each other: a tree written into its own
    corpus is read back as sources, and a corpus inside the output is mistaken for trees."""
    out_abs = resolved_path(out, "--out")
    for path in paths:
        root = resolved_path(path, "the path")
        if not root.is_dir():
            continue
        if out_abs == root or root in out_abs.parents:
            raise ConfigError(f"--out {out} is inside the corpus {path}: choose an output folder outside it")
        if out_abs in root.parents and (out_abs / STATE_DIR) not in (root, *root.parents):
            # (batchsum's own sources under the state folder, e.g. the chat endpoint's transcripts, are fine)
            raise ConfigError(f"the corpus {path} is inside the output folder {out}: move one out of the other")


def click_option(s: Setting) -> Callable[[Any], Any]:
    """The click option of a setting: type, bounds, default and help from the schema."""
    import click

    assert s.flag is not None
    decls = [s.flag, *([s.short] if s.short else []), s.param_name]
    kw: dict[str, Any] = {"help": s.help}
    if s.envvar:
        kw["envvar"] = s.envvar
    if s.kind == "bool" and s.both:
        decls[0] = f"{s.flag}/--no-{s.flag.removeprefix('--')}"
        kw["default"] = None
    elif s.kind == "bool":
        kw["is_flag"] = True
    elif s.kind == "strlist":
        kw["multiple"] = True
    else:
        # A parsed setting's command-line default is its text (or none), not the parsed object.
        default = s.command_default if s.command_default is not None or s.parse else s.default
        if default is None and s.zero_is_none:
            default = 0
        if default == AUTO_RATE:
            default = None  # chosen by the server's address
        if default is not None and not s.envvar:
            kw["default"] = default
            kw["show_default"] = True
        if s.parse is not None or s.check is not None:
            kw["type"] = _refusing_text(s)
        elif s.kind == "int":
            kw["type"] = click.IntRange(
                None if s.minimum is None else int(s.minimum), None if s.maximum is None else int(s.maximum)
            )
        elif s.kind == "number":
            kw["type"] = _finite_range(s.minimum, s.maximum)
        elif s.kind == "enum":
            kw["type"] = click.Choice(list(s.choices))
        elif s.kind == "path":
            kw["type"] = click.Path(path_type=Path, dir_okay=s.field == "out")
        elif s.kind == "dir":
            kw["type"] = click.Path(path_type=Path, file_okay=False)
    return click.option(*decls, **kw)


def _finite_range(minimum: float | None, maximum: float | None) -> Any:
    """A number option's click type: click's FloatRange takes "nan" and "inf", which make a "$nan" cost."""
    import click

    class FiniteRange(click.FloatRange):
        def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
            number = super().convert(value, param, ctx)
            if not math.isfinite(number):
                self.fail(f"{value!r} is not a finite number.", param, ctx)
            return number

    return FiniteRange(minimum, maximum)


def _refusing_text(s: Setting) -> Any:
    """The click type of a text option that refuses what its setting refuses: click runs it on the command
    line's value and :mod:`batchsum.cli.defaults` on a config file's, which it names with the file and key."""
    import click

    class Refusing(click.ParamType):
        name = "text"

        def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
            if isinstance(value, str) and (why := s.refusal(value)) is not None:
                self.fail(why, param, ctx)
            return value

    return Refusing()


def given_fields(ctx: Any, extra: dict[str, str] | None = None) -> tuple[set[str], set[str]]:
    """The config fields a click command invocation gave for the schema's options it has (and ``extra``:
    parameter name -> field): (by the command line or the environment, those and the config file's).
    Given fields win over a pipeline file and over an output folder's remembered settings."""
    import click

    source = click.core.ParameterSource
    fields = {**(extra or {}), **{s.param_name: s.field for s in SETTINGS if s.flag is not None}}
    sources = {name: ctx.get_parameter_source(name) for name in fields if name in ctx.params}
    typed = {fields[name] for name, src in sources.items() if src in (source.COMMANDLINE, source.ENVIRONMENT)}
    return typed, typed | {fields[name] for name, src in sources.items() if src == source.DEFAULT_MAP}


def from_params(cfg: IndexConfig, params: dict[str, Any]) -> None:
    """Fill ``cfg`` (a RunConfig, or an IndexConfig for index settings) from parsed click parameters
    (settings whose option the command has)."""
    for s in SETTINGS:
        if s.flag is None or s.param_name not in params:
            continue
        value = params[s.param_name]
        if s.both and value is None:
            continue  # left out: the default (or the remembered setting) stands
        if value is None or (s.kind == "str" and not value and s.parse is None):
            value = s.default  # left out, or an empty environment variable: no setting
        else:
            value = s.coerce(value, negated=s.inverted)
        assign(cfg, s.field, value)
