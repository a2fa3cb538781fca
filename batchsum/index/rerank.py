"""Rerankers: score (query, summary) pairs more finely than the first stage did.

``maxsim``: late interaction (each query token takes its best-matching document token, averaged).
``--reranker PATH``: an ONNX cross-encoder (e.g. ms-marco-MiniLM-L-6-v2 exported to ONNX) with its
``tokenizer.json`` beside it; a long summary is scored window by window and keeps its best window.
Raw scores are returned (logits for the cross-encoder).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from batchsum.errors import ConfigError
from batchsum.index.embed import default_threads


class Reranker(Protocol):
    """Scores documents against a query; higher is more relevant."""

    name: str

    def score(self, query: str, docs: Sequence[str], keys: Sequence[str] | None = None) -> np.ndarray: ...


class CrossEncoderReranker:
    """An ONNX cross-encoder loaded from ``--reranker PATH`` (a .onnx file or a folder with model.onnx)."""

    name = "cross-encoder"

    def __init__(self, path: Path, *, max_tokens: int = 512, batch_size: int = 16) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        model = path / "model.onnx" if path.is_dir() else path
        if not model.is_file():
            raise ConfigError(f"--reranker {path}: no ONNX model there (give a .onnx file or a folder with model.onnx)")
        tok_path = model.parent / "tokenizer.json"
        if not tok_path.is_file():
            raise ConfigError(f"--reranker {path}: no tokenizer.json beside {model.name}")
        try:
            tok = Tokenizer.from_file(str(tok_path))
        except Exception as exc:
            raise ConfigError(f"--reranker {path}: cannot read {tok_path.name} ({exc})") from None
        tok.no_truncation()
        tok.no_padding()
        self.tokenizer = tok
        cls_id, sep_id = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
        if cls_id is None or sep_id is None:
            raise ConfigError(f"--reranker {path}: tokenizer.json has no [CLS]/[SEP] tokens (BERT-style expected)")
        self.cls_id, self.sep_id = int(cls_id), int(sep_id)
        pad = tok.token_to_id("[PAD]")
        self.pad_id = int(pad) if pad is not None else 0
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = default_threads()
        opts.inter_op_num_threads = 1
        opts.log_severity_level = 3
        try:
            self.session = ort.InferenceSession(str(model), sess_options=opts, providers=["CPUExecutionProvider"])
        except Exception as exc:
            raise ConfigError(f"--reranker {path}: not a loadable ONNX model ({exc})") from None
        self._inputs = {i.name for i in self.session.get_inputs()}
        if "input_ids" not in self._inputs:
            raise ConfigError(f"--reranker {path}: the model has no input_ids input (not a cross-encoder?)")
        self.max_tokens = max_tokens
        self.batch_size = batch_size
        self._lock = threading.Lock()

    def _pairs(self, query: str, docs: Sequence[str]) -> tuple[list[tuple[list[int], int]], list[int]]:
        q_ids = self.tokenizer.encode(query, add_special_tokens=False).ids[: self.max_tokens // 2]
        room = max(16, self.max_tokens - len(q_ids) - 3)
        pairs: list[tuple[list[int], int]] = []  # (ids, length of the first segment incl. [CLS] and [SEP])
        owner: list[int] = []
        first = [self.cls_id, *q_ids, self.sep_id]
        for i, enc in enumerate(self.tokenizer.encode_batch(list(docs), add_special_tokens=False)):
            ids = enc.ids
            for start in range(0, max(len(ids), 1), room):
                pairs.append(([*first, *ids[start : start + room], self.sep_id], len(first)))
                owner.append(i)
        return pairs, owner

    def score(self, query: str, docs: Sequence[str], keys: Sequence[str] | None = None) -> np.ndarray:
        """Cross-encoder logit per document (best window for long ones)."""
        out = np.full(len(docs), -np.inf, dtype=np.float32)
        if not docs:
            return out
        pairs, owner = self._pairs(query, docs)
        order = sorted(range(len(pairs)), key=lambda i: len(pairs[i][0]))
        for start in range(0, len(order), self.batch_size):
            idx = order[start : start + self.batch_size]
            width = max(len(pairs[i][0]) for i in idx)
            ids = np.full((len(idx), width), self.pad_id, dtype=np.int64)
            mask = np.zeros_like(ids)
            types = np.zeros_like(ids)
            for row, i in enumerate(idx):
                seq, first_len = pairs[i]
                ids[row, : len(seq)] = seq
                mask[row, : len(seq)] = 1
                types[row, first_len : len(seq)] = 1
            feeds: dict[str, Any] = {"input_ids": ids}
            if "attention_mask" in self._inputs:
                feeds["attention_mask"] = mask
            if "token_type_ids" in self._inputs:
                feeds["token_type_ids"] = types
            with self._lock:
                logits = np.asarray(self.session.run(None, feeds)[0], dtype=np.float32)
            if logits.ndim == 2 and logits.shape[1] == 2:
                values = logits[:, 1] - logits[:, 0]  # two-class head: evidence for "relevant"
            else:
                values = logits.reshape(len(idx), -1)[:, 0]
            for row, i in enumerate(idx):
                out[owner[i]] = max(out[owner[i]], float(values[row]))
        return out


_RERANKERS: dict[str, CrossEncoderReranker] = {}


def cross_encoder(path: Path) -> CrossEncoderReranker:
    """A cross-encoder, loaded once per process and path."""
    key = str(path.resolve())
    if key not in _RERANKERS:
        _RERANKERS[key] = CrossEncoderReranker(path)
    return _RERANKERS[key]
