"""serve --watch summarizes with the output folder's own settings, not the chat upstream, and a watcher that
stops says so in /health."""

from __future__ import annotations

from pathlib import Path

import httpx
from click.testing import CliRunner

from batchsum.cli import main
from batchsum.tree import read_node
from tests.fakeserver import FakeLLMServer
from tests.test_serve import BOAT, FLAT_HUNT, KEY, SUMMARIZER_SYSTEM, serving, wait_for


def health(url: str) -> dict[str, str]:
    return dict(httpx.get(url.removesuffix("/v1") + "/health", timeout=30).json())


def test_watch_of_a_folder_built_offline_stays_offline(tmp_path: Path, upstream: FakeLLMServer) -> None:
    src, out = tmp_path / "notes", tmp_path / "out"
    src.mkdir()
    (src / "flat-hunt.md").write_text(FLAT_HUNT, encoding="utf-8")
    built = CliRunner().invoke(main, ["run", str(src), "--out", str(out), "-q", "--no-digests"])
    assert built.exit_code == 0, built.output
    with serving(out, upstream.base_url, "--watch", str(src), "--debounce", "200ms", "--no-facts") as (url, _proc):
        (src / "boat.md").write_text(BOAT, encoding="utf-8")
        final = out / "boat.md" / "summaries" / "L3" / "final.md"
        wait_for(final.is_file)
        meta, _ = read_node(final)
        assert meta["backend"] == "extractive"  # the folder's settings, not the chat upstream's model
        assert not any(SUMMARIZER_SYSTEM in e.prompt_text for e in upstream.log)
        assert health(url) == {"status": "ok"}


def test_a_watcher_that_stops_shows_in_health_without_a_traceback(tmp_path: Path, upstream: FakeLLMServer) -> None:
    src = tmp_path / "notes"
    src.mkdir()
    (src / "boat.md").write_text(BOAT, encoding="utf-8")
    out = src / "summaries"  # inside the watched folder: a usage error at the first run ends watching
    with serving(out, upstream.base_url, "--watch", str(src), "--debounce", "200ms", "--no-facts") as (url, proc):
        wait_for(lambda: health(url)["status"] != "ok")
        state = health(url)
        assert state["status"] == "degraded" and "inside" in state["watcher"], state
        with httpx.Client(base_url=url, timeout=60, headers={"Authorization": f"Bearer {KEY}"}) as http:
            assert http.post("/chat/completions", json={"messages": [{"role": "user", "content": "hi"}]}).is_success
    assert proc.stderr is not None
    logged = proc.stderr.read()
    assert "watcher stopped" in logged and "Traceback" not in logged
