"""Static token embeddings distilled from the packaged MiniLM (the model2vec method).

Every WordPiece token of the vocabulary is run through the model once as ``[CLS] token [SEP]``; the
mean-pooled output is its vector. The vectors are centred, projected on their first
:data:`STATIC_DIM` principal components and stored as int8 with one scale per row. Embedding a text is
then a table lookup and a weighted mean, a few thousand times cheaper than a transformer pass, so
indexing a large corpus costs about as much as tokenizing it.

The table is built once (``python -m batchsum.index.distill``, about a minute on 2 cores) and shipped
in ``batchsum/index/data``; it records the sha256 of the model and tokenizer it came from, so a
different model is noticed instead of silently mixing vector spaces.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from batchsum.hashing import sha256_file
from batchsum.index.embed import DATA_DIR, STATIC_DIM, STATIC_FILE, OnnxEmbedder, packaged_model_files


def distill(model_path: Path, tokenizer_path: Path, dim: int = STATIC_DIM, batch: int = 512) -> dict[str, np.ndarray]:
    """Token table of the model: ``q`` (vocab x dim int8), ``scale`` (vocab float32), ``mean`` and ``components``
    of the projection, and the hashes of the inputs."""
    enc = OnnxEmbedder(model_path, tokenizer_path, batch_size=batch)
    vocab = enc.tokenizer.get_vocab_size()
    windows = [[enc.cls_id, tid, enc.sep_id] for tid in range(vocab)]
    pooled = enc.pooled(windows).astype(np.float64)
    mean = pooled.mean(axis=0)
    centred = pooled - mean
    # Principal axes of the token cloud: the first ``dim`` keep nearly all of its variance.
    _, _, vt = np.linalg.svd(centred, full_matrices=False)
    components = vt[:dim]
    reduced = (centred @ components.T).astype(np.float32)
    scale = np.abs(reduced).max(axis=1) / 127.0
    scale = np.where(scale > 0, scale, 1.0).astype(np.float32)
    q = np.round(reduced / scale[:, None]).astype(np.int8)
    return {
        "q": q,
        "scale": scale,
        "mean": mean.astype(np.float32),
        "components": components.astype(np.float32),
        "model_sha256": np.array(sha256_file(model_path)),
        "tokenizer_sha256": np.array(sha256_file(tokenizer_path)),
    }


def main() -> None:
    """Build the shipped table from the installed model."""
    model, tokenizer = packaged_model_files()
    table = distill(model, tokenizer)
    DATA_DIR.mkdir(parents=True, exist_ok=True)
    # Stored, not deflated: a search reads the table in milliseconds instead of inflating it (+1 MB).
    np.savez(STATIC_FILE, **table)  # type: ignore[arg-type]
    print(f"wrote {STATIC_FILE} ({STATIC_FILE.stat().st_size / 1e6:.1f} MB) from {model}")


if __name__ == "__main__":
    main()
