"""A journal or log laid out like a WeChat export is no chat: its hand-written headings and lines are stamped
to the minute, in a script other than WeChat's; a WeChat export's stamps are to the second, or its words
Chinese. Real runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from batchsum.cli import main
from batchsum.readers.chat_lines import render_chat_lines

NAME_FIRST_LOG = (
    "Gym 2024-03-12 07:30\nran 5k\n\nLunch 2024-03-12 12:30\nsalad\n\n"
    "Gym 2024-03-13 07:15\nlegs day\n\nLunch 2024-03-13 12:45\npasta\n"
)
EXPORTER_LOG = (
    "Gym (2024-03-12 07:30):ran 5k\nLunch (2024-03-12 12:30):salad\n"
    "Gym (2024-03-13 07:15):legs day\nLunch (2024-03-13 12:45):pasta\n"
)


def _content_type(tmp_path: Path, text: str) -> str:
    src = tmp_path / "src"
    src.mkdir()
    (src / "log.txt").write_text(text, encoding="utf-8")
    out = tmp_path / "out"
    r = CliRunner().invoke(main, ["run", str(src), "--out", str(out), "--no-index", "--json"])
    assert r.exit_code == 0 and json.loads(r.stdout)["run"]["files_done"] == 1, r.output
    final = (out / "log.txt" / "summaries" / "L3" / "final.md").read_text(encoding="utf-8")
    return str(yaml.safe_load(final.split("---\n", 2)[1])["content_type"])


@pytest.mark.parametrize("log", [NAME_FIRST_LOG, EXPORTER_LOG], ids=["name first", "WechatExporter-like"])
def test_a_log_shaped_like_a_wechat_export_is_no_chat(tmp_path: Path, log: str) -> None:
    assert render_chat_lines(log) is None
    assert render_chat_lines(log.split("\n", 1)[0]) is None
    assert _content_type(tmp_path, log) != "conversation"


@pytest.mark.parametrize(
    "chat",
    [
        # Stamped to the second as the apps keep them, in English.
        "Ana Silva 2024-05-03 21:15:02\nAre you home?\n\nBen Okafor 2024-05-03 21:16:40\nNot yet.\n\n"
        "Ana Silva 2024-05-03 21:17:05\nDinner at eight then.\n",
        "Ana Silva (2024-05-03 21:15:02):Are you home?\nBen Okafor (2024-05-03 21:16:40):Not yet.\n"
        "Ana Silva (2024-05-03 21:17:05):Dinner at eight then.\n",
        # To the minute, in Chinese.
        "张伟 2024-05-03 21:15\n今天回家吗？\n\n李娜 2024-05-03 22:15\n不回了。\n\n张伟 2024-05-03 23:15\n好的。\n",
    ],
)
def test_a_wechat_export_still_reads_as_a_chat(chat: str) -> None:
    read = render_chat_lines(chat)
    assert read is not None and read.format.startswith("WeChat export"), read
    assert read.text.count(": ") == 3, read.text
