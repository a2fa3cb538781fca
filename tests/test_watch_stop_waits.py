"""``serve --watch``'s watcher is :meth:`Watcher.start_thread`'s: its :meth:`Watcher.stop` returns only once the run
in progress has finished, as the server's shutdown needs (a run's writes are not cut short)."""

from __future__ import annotations

import logging
import threading
from pathlib import Path

import pytest

from batchsum.config import LLMConfig, RunConfig
from batchsum.lock import RunLock
from batchsum.serve.app import _start_watcher, create_app
from batchsum.serve.config import ServeConfig
from tests.test_watch import TEXT


class _Heard(logging.Handler):
    """Sets ``event`` when a record's message holds ``words``, and appends ``mark`` to ``order`` (when given)."""

    def __init__(self, words: str, order: list[str] | None = None, mark: str = "") -> None:
        super().__init__()
        self.words, self.order, self.mark, self.event = words, order, mark, threading.Event()

    def emit(self, record: logging.LogRecord) -> None:
        if self.words in record.getMessage():
            if self.order is not None:
                self.order.append(self.mark)
            self.event.set()


def test_stop_of_serves_watcher_waits_for_the_run_in_progress(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    src, out = tmp_path / "notes", tmp_path / "out"
    src.mkdir()
    (src / "note.md").write_text(TEXT, encoding="utf-8")
    llm = LLMConfig(base_url="http://127.0.0.1:9/v1", model="fake")
    scfg = ServeConfig(run=RunConfig(paths=[], out=out, index=False, llm=llm), watch=[src], debounce_ms=100)
    order: list[str] = []
    waiting, summarized = _Heard("locked by"), _Heard(" unchanged", order, "run finished")  # its summary line
    caplog.set_level(logging.INFO)
    logging.getLogger("batchsum.lock").addHandler(waiting)
    logging.getLogger("batchsum.serve.app").addHandler(summarized)
    try:
        lock = RunLock(out).acquire()  # another run's: the watcher's first run waits for it
        watcher = _start_watcher(create_app(scfg))
        assert waiting.event.wait(60)

        def stop() -> None:
            watcher.stop()
            order.append("stop returned")

        stopper = threading.Thread(target=stop)
        stopper.start()
        assert watcher._stop.wait(60)  # stop() has been asked for: only now may the run go on
        lock.release()
        stopper.join(120)
    finally:
        logging.getLogger("batchsum.lock").removeHandler(waiting)
        logging.getLogger("batchsum.serve.app").removeHandler(summarized)
    assert order == ["run finished", "stop returned"]
    assert (out / "note.md").is_dir()  # written before stop() returned
