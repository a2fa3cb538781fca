"""Configuration dataclasses the library reads; :mod:`batchsum.settings` holds their bounds and options."""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from batchsum.model import Thresholds, TypeChoice
from batchsum.secrets import redact_by_default
from batchsum.throttle import default_rates

OnError = Literal["fallback", "fail", "abort"]

# The kinds of backend a run can use (a pipeline file's ``backend.kind``; batchsum.backends.registry builds them).
BACKEND_KINDS = ("extractive", "llm")
STATE_DIR = ".batchsum"
LLM_CACHE_DIR = "llm-cache"  # LLM responses, in the state folder (summaries, facts and compaction share it)
# A request or token rate left unset: none for a server on this machine or the LAN, the hosted-API
# default otherwise (see ``LLMConfig.settle_rates``).
AUTO_RATE = -1.0


@dataclass
class LLMConfig:
    """Settings of the OpenAI-compatible backend. ``base_url`` None means: use extractive. ``api_key`` None:
    ``OPENAI_API_KEY`` from the environment, if set."""

    base_url: str | None = None
    api_key: str | None = None
    model: str | None = None
    fallback_models: list[str] = field(default_factory=list)
    timeout: float = 120.0
    rpm: float | None = AUTO_RATE  # requests per minute; None = unlimited
    tpm: float | None = AUTO_RATE  # prompt + max output tokens per minute; None = unlimited
    concurrency: int = 4
    max_attempts: int = 5
    on_error: OnError = "fallback"
    prompts_dir: Path | None = None
    context_window: int = 8192
    facets: bool | None = None  # None: on for conversations only
    cache: bool = True
    temperature: float = 0.2

    def __post_init__(self) -> None:
        # The library takes the key from the environment as the command line does (and as the embedder does).
        if self.api_key is None:
            self.api_key = os.environ.get("OPENAI_API_KEY") or None

    @property
    def enabled(self) -> bool:
        return bool(self.base_url)

    def settle_rates(self) -> None:
        """Give ``rpm``/``tpm`` left at AUTO_RATE their value for ``base_url``'s server."""
        if self.rpm == AUTO_RATE or self.tpm == AUTO_RATE:
            rpm, tpm = default_rates(self.base_url)
            self.rpm = rpm if self.rpm == AUTO_RATE else self.rpm
            self.tpm = tpm if self.tpm == AUTO_RATE else self.tpm


@dataclass(kw_only=True)
class IndexConfig:
    """Where an output folder's search index lives and which embedder builds it (``search``, ``index``)."""

    out: Path = Path("batchsum-out")
    chroma_host: str | None = None
    chroma_port: int | None = None
    collection: str = "batchsum"
    embed_base_url: str | None = None
    embed_model: str | None = None
    # Where the index's own files are read from when not from the state folder: a temporary copy
    # when the output is on read-only storage (see ``index.readonly.readable_index``).
    index_copy: Path | None = None

    def __post_init__(self) -> None:
        # The library takes plain strings for paths, as the command line does.
        self.out = Path(self.out)

    @property
    def state_dir(self) -> Path:
        return self.out / STATE_DIR

    @property
    def embed_api_key(self) -> str | None:
        """Key for ``embed_base_url`` (a run uses its LLM key; search has none)."""
        return None

    def index_command(self, *flags: str) -> str:
        """The ``batchsum index`` command that repairs this index, where it lives: a server's index is
        repaired on the server (``--chroma-host``), not in the output folder."""
        where = ["--chroma-host", self.chroma_host] if self.chroma_host else []
        if self.chroma_host and self.chroma_port:
            where += ["--chroma-port", str(self.chroma_port)]
        if self.collection != "batchsum":
            where += ["--collection", self.collection]
        # Quoted: the advice is pasted into a shell, and a path or a collection may hold spaces or "!".
        return " ".join(["batchsum index", shlex.quote(str(self.out)), *flags, *(shlex.quote(w) for w in where)])


@dataclass
class RunConfig(IndexConfig):
    """Everything ``batchsum run`` needs (a run also updates the index, so it is an index config)."""

    paths: list[Path]
    content_type: TypeChoice = "auto"
    language: str = "auto"  # ISO 639-1 code of every source, or auto: detected per file
    encoding: str = "cl100k_base"
    thresholds: Thresholds = field(default_factory=Thresholds)
    chunk_size: int = 3000
    chunk_overlap: int = 200
    group_size: int = 5
    llm: LLMConfig = field(default_factory=LLMConfig)
    index: bool = True
    metrics: bool = True
    metrics_db: Path | None = None
    max_chain_depth: int = 3
    git: bool = False
    wait_lock: bool = False
    # A given path that is gone is passed over and its summaries kept, instead of ending the run: a watched
    # folder a sync tool is replacing must not stop the runs of the others (batchsum watch).
    skip_missing: bool = False
    quiet: bool = False
    progress: bool | None = None  # None: only on a TTY
    ignore: list[str] = field(default_factory=list)  # extra gitignore-style patterns (all corpora)
    # Per-corpus settings from pipeline files, keyed by the corpus path as given.
    type_overrides: dict[str, TypeChoice] = field(default_factory=dict)
    corpus_ignores: dict[str, list[str]] = field(default_factory=dict)
    log_file: Path | None = None
    log_format: Literal["text", "json"] = "text"
    command_line: str = ""
    price_per_1k: float | None = None
    keep_short: bool = True  # files below the NONE bound get their source kept whole as the final
    # Word cap of a HIERARCHICAL final (0: none). budget.FINAL_WORDS, spelled out: importing it here
    # would load the tokenizer module for every `batchsum --help`.
    final_words: int = 500
    redact: bool | None = None  # None: on when --base-url or --embed-base-url is not loopback
    follow_symlinks: bool = False  # read symlinks whose target lies outside every given path
    facts: bool = False  # after summarizing: extract and reconcile facts (batchsum facts) with the same LLM
    executor: Literal["local", "ray"] = "local"  # where summaries are computed (engine/executor.py)
    ray_address: str | None = None  # None: a local Ray on this machine's cores; "auto": RAY_ADDRESS
    ray_workers: int | None = None  # None: one per CPU of the Ray cluster
    # Worker processes of the local executor (engine/workers.py): 1 = this process only
    # (the library's default: no process is started behind a caller's back); 0 = one per CPU for
    # runs with enough text (the command's default); N = N workers.
    processes: int = 1
    ray_limiter: str | None = None  # a named LLM limiter shared by every run on the cluster that names it
    digests: bool = True  # a digest per month and year of dated sources, per folder of undated ones (digests.py)
    digest_month_words: int = 300  # word budget of a month's (or a folder's) digest
    digest_year_words: int = 600  # word budget of a year's digest
    # A change of the settings the output folder remembers (batchsum/remembered.py) that makes an LLM
    # summarize files again is refused unless confirmed (yes) or asked for (rebuild: nothing reused).
    yes: bool = False
    rebuild: bool = False
    # Off for a run over batchsum's own files in the folder (serve's conversation transcripts), whose
    # settings are not the folder's.
    remember: bool = True

    def __post_init__(self) -> None:
        super().__post_init__()
        self.paths = [Path(p) for p in ([self.paths] if isinstance(self.paths, (str, Path)) else self.paths)]
        if self.metrics_db is not None:
            self.metrics_db = Path(self.metrics_db)
        if self.log_file is not None:
            self.log_file = Path(self.log_file)
        if self.llm.prompts_dir is not None:
            self.llm.prompts_dir = Path(self.llm.prompts_dir)

    @property
    def redact_secrets(self) -> bool:
        """Whether source text is redacted before it is summarized, indexed or sent anywhere."""
        if self.redact is not None:
            return self.redact

        return redact_by_default(self.llm.base_url, self.embed_base_url)

    @property
    def embed_api_key(self) -> str | None:
        return self.llm.api_key

    @property
    def backend_kind(self) -> str:
        """The backend registry's key (one of :data:`BACKEND_KINDS`): ``llm`` when a server is configured,
        else ``extractive``."""
        return "llm" if self.llm.enabled else "extractive"

    @property
    def metrics_path(self) -> Path:
        return self.metrics_db or (self.state_dir / "metrics.duckdb")
