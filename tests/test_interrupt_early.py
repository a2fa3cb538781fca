"""Ctrl-C before a run summarizes anything (while it walks its folders) stops it at once and says so as any
error is: one JSON object on stdout under --json, one line on stderr, exit code 1 (docs/run.md)."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest
from click.testing import CliRunner

from batchsum.cli import main


@pytest.mark.parametrize("as_json", [True, False])
def test_ctrl_c_while_walking_is_reported_not_aborted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, as_json: bool
) -> None:
    src = tmp_path / "c"
    src.mkdir()
    (src / "a.md").write_text("The harbour was quiet and the ships stayed in.\n", encoding="utf-8")
    listing = os.scandir

    def pressed_ctrl_c(path: object) -> object:
        # A real SIGINT to this process, as the terminal sends it, the moment the walk lists a folder.
        monkeypatch.setattr(os, "scandir", listing)
        os.kill(os.getpid(), signal.SIGINT)
        return listing(path)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "scandir", pressed_ctrl_c)
    # A fresh command's Ctrl-C raises KeyboardInterrupt; an earlier test in this worker may have left another
    # handler (an in-process `watch` installs its own).
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    args = ["run", str(src), "--out", str(tmp_path / "out"), *(["--json"] if as_json else [])]
    try:
        res = CliRunner().invoke(main, args)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert res.exit_code == 1, res.output
    assert "Aborted!" not in res.output
    assert "interrupted by Ctrl-C" in res.stderr and len(res.stderr.strip().splitlines()) == 1
    if as_json:
        assert json.loads(res.stdout) == {
            "error": res.stderr.strip().removeprefix("Error: "),
            "kind": "Interrupted",
            "exit_code": 1,
        }
