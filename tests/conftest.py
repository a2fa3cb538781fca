"""Test isolation: every test gets its own cache dir and no Chroma telemetry."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

pytest_plugins = ["tests.fakeserver"]

REPO = Path(__file__).resolve().parent.parent
SAMPLE_CORPUS = REPO / "sample_corpus"


@pytest.fixture(scope="session")
def _session_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("batchsum-cache")


@pytest.fixture(autouse=True)
def isolate_user_state(monkeypatch: pytest.MonkeyPatch, _session_cache: Path) -> Iterator[None]:
    """Keep tests away from the user's ~/.cache and environment-provided endpoints."""
    monkeypatch.setenv("BATCHSUM_CACHE_DIR", str(_session_cache))
    monkeypatch.setenv("ANONYMIZED_TELEMETRY", "False")
    for var in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "BATCHSUM_MODEL", "BATCHSUM_OUT", "BATCHSUM_CONFIG"):
        monkeypatch.delenv(var, raising=False)
    # No user config file (~/.config/batchsum/config.yaml) reaches a test.
    monkeypatch.setenv("XDG_CONFIG_HOME", str(_session_cache / "no-config"))
    yield


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    """A real local Ray of two CPUs for the tests of one module."""
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    try:
        yield
    finally:
        ray.shutdown()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under ``pytest -n`` (xdist), tests that start a Ray cluster run one after another in one worker:
    two local clusters at once would compete for the same session folder and the machine's CPUs."""
    for item in items:
        if item.get_closest_marker("ray") is not None or "ray" in item.path.name:
            item.add_marker(pytest.mark.xdist_group("ray"))
