"""Chinese and Japanese sentences run on with no space between them, after a closing quote or an
ellipsis too ("……”妹子", "。”她又"), and so do a transcript's cues; Western and Korean text keeps its
spaces. A space had been put after "”" and "…", and between every two cues of a subtitle file."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from batchsum.cli import main
from batchsum.language import run_on
from batchsum.tree import read_node

# A space between two Chinese or Japanese characters, past closing quotes and ellipses.
_CJK = r"\u3000-\u303f\u3040-\u30ff\u4e00-\u9fff\uff01-\uff60"
_SPACED = re.compile(rf"[{_CJK}][”’…]* +“?[{_CJK}]")


def _body(tmp_path: Path, name: str, text: str) -> str:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / name).write_text(text, encoding="utf-8")
    out = tmp_path / "out"
    res = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--no-index", "-q"])
    assert res.exit_code == 0, res.output
    _, body = read_node(out / name / "summaries" / "L3" / "final.md")
    return body.split("<!-- batchsum:links -->", 1)[0]


def test_a_chinese_summary_puts_no_space_after_closing_quotes(tmp_path: Path) -> None:
    people = ["母亲", "哥哥", "邻居", "医生", "村长", "先生"]
    deeds = ["明天要下雨", "河边有一条船", "书店来了新书", "院子里种了树", "钥匙找到了", "信已经寄出"]
    paragraphs = [
        f"{who}对我说：“{deed}。”她又笑了笑。“你要记住，{deeds[(i + 1) % 6]}，……”{people[(i + 2) % 6]}没有回答。"
        f"{who}走进屋里，把灯点上了。"
        for i, (who, deed) in enumerate(zip(people * 2, deeds[::-1] * 2, strict=True))
    ]
    body = _body(tmp_path, "story.txt", "\n\n".join(paragraphs) + "\n")
    assert "”" in body  # the quotes the summary ran on from
    assert not _SPACED.search(body), _SPACED.search(body)


def test_a_japanese_transcript_runs_its_cues_on(tmp_path: Path) -> None:
    vtt = (
        "WEBVTT\n\n00:00:01.000 --> 00:00:03.000\n<v 佐藤>おはようございます。\n\n"
        "00:00:03.000 --> 00:00:06.000\n<v 佐藤>今日は新しい\nアプリの打ち合わせです。\n\n"
        "00:00:06.000 --> 00:00:09.000\n<v 佐藤>リリースは六月です\n\n"
        "00:00:09.000 --> 00:00:11.000\n<v 佐藤>よろしくお願いします。\n\n"
        "00:00:11.000 --> 00:00:13.000\n<v 田中>了解です。\n"
    )
    body = _body(tmp_path, "meeting.vtt", vtt)
    assert "アプリの打ち合わせ" in body
    assert not _SPACED.search(body), _SPACED.search(body)


@pytest.mark.parametrize(
    ("pieces", "joined"),
    [
        (["容不得吃人的人，……”", "妹子是被大哥吃了。"], "容不得吃人的人，……”妹子是被大哥吃了。"),
        (["吃一点福橘。”", "她又拿起那橘子来。"], "吃一点福橘。”她又拿起那橘子来。"),
        (["He said “hi.”", "Then he left."], "He said “hi.” Then he left."),
        (["And then…", "Nothing."], "And then… Nothing."),
        (["안녕하세요.", "감사합니다."], "안녕하세요. 감사합니다."),
    ],
)
def test_run_on_spaces_only_where_the_script_does(pieces: list[str], joined: str) -> None:
    assert run_on(pieces) == joined
