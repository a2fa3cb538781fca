"""Speakers named in any script (Cyrillic, Chinese, Japanese, Devanagari...) speak: a chat export of
theirs is a conversation with clean turns, a transcript's facets have their owners, and a label ends at
Chinese and Japanese full-width colons. Their names had never been labels: such chats were documents
with their timestamps kept and one speaker's words run into another's."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from batchsum.cli import main
from batchsum.text import parse_speaker_line
from batchsum.tree import read_node

RU_CHAT = [
    ("Ана Иванова", "Привет! Встреча переносится на пятницу, потому что клиент не успевает."),
    ("Борис Петров", "Хорошо. Я подготовлю отчёт к четвергу и отправлю его всем участникам."),
    ("Ана Иванова", "Отлично. Нужно ещё обсудить бюджет на следующий квартал."),
    ("Борис Петров", "Кто забронирует зал? Пока неясно, кто этим занимается."),
    ("Ана Иванова", "Я забронирую зал сегодня после обеда."),
    ("Борис Петров", "Спасибо. Я также позвоню поставщику насчёт новых цен."),
]
ZH_CHAT = [
    ("王伟", "大家好，会议改到周五。"),
    ("李娜", "好的。我周四前准备报告。"),
    ("李娜", "谁来订会议室？"),
    ("王伟", "我今天订会议室。"),
]


def _final(tmp_path: Path, files: dict[str, str]) -> dict[str, tuple[dict, str]]:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for name, text in files.items():
        (corpus / name).write_text(text, encoding="utf-8")
    out = tmp_path / "out"
    res = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--no-index", "-q"])
    assert res.exit_code == 0, res.output
    finals = {}
    for name in files:
        meta, body = read_node(out / name / "summaries" / "L3" / "final.md")
        finals[name] = (meta, body.split("<!-- batchsum:links -->", 1)[0])
    return finals


def _said_by(body: str, messages: list[tuple[str, str]]) -> None:
    """Every turn of ``body`` is its speaker's: each of its words was said by that speaker."""
    turns = [parse_speaker_line(line) for line in body.splitlines() if line.strip()]
    assert turns and all(who is not None for who, _ in turns), body
    for who, said in turns:
        theirs = " ".join(text for name, text in messages if name == who)
        assert set(re.findall(r"\w+", said)) <= set(re.findall(r"\w+", theirs)), (who, said)


def test_chat_exports_with_cyrillic_and_chinese_names_are_conversations(tmp_path: Path) -> None:
    ios = "".join(f"[12/03/2024, 09:{10 + i:02d}:05] {n}: {t}\n" for i, (n, t) in enumerate(RU_CHAT * 3))
    android = "".join(f"12/03/2024, 09:{10 + i:02d} - {n}: {t}\n" for i, (n, t) in enumerate(ZH_CHAT))
    finals = _final(tmp_path, {"ru.txt": ios, "zh.txt": android})
    for name, messages in (("ru.txt", RU_CHAT), ("zh.txt", ZH_CHAT)):
        meta, body = finals[name]
        assert meta["content_type"] == "conversation", (name, meta["content_type_reason"])
        assert "12/03/2024" not in body and "09:1" not in body  # the export's timestamps left out
        _said_by(body, messages)


def test_transcript_facets_name_owners_in_any_script(tmp_path: Path) -> None:
    vtt = (
        "WEBVTT\n\n00:00:01.000 --> 00:00:04.000\n<v 王伟>We decided to launch the beta in June.\n\n"
        "00:00:05.000 --> 00:00:08.000\n<v Иван>I'll write the release notes by Friday.\n\n"
        "00:00:09.000 --> 00:00:12.000\n<v 王伟>Great, thanks.\n"
    )
    meta, _ = _final(tmp_path, {"sync.vtt": vtt})["sync.vtt"]
    assert meta.get("decisions"), meta
    assert [a.get("owner") for a in meta.get("action_items", [])] == ["Иван"]


def test_a_plain_transcript_in_any_script_is_a_conversation_with_its_owners(tmp_path: Path) -> None:
    # No export around it: the turns alone make it a conversation, and a written task names its owner.
    transcript = "".join(f"{n}: {t}\n" for n, t in RU_CHAT * 2)
    note = (
        "## Задачи\n\n- [ ] Иван: подготовить отчёт к пятнице\n- [ ] 王伟：预订会议室\n\n"
        + "".join(f"{n}: {t}\n" for n, t in RU_CHAT)
        + "Иван: Договорились.\n王伟：好的。\n"
    )
    finals = _final(tmp_path, {"ru.txt": transcript, "note.md": note})
    meta, body = finals["ru.txt"]
    assert meta["content_type"] == "conversation", meta["content_type_reason"]
    _said_by(body, RU_CHAT)
    owners = {a.get("owner") for a in finals["note.md"][0].get("action_items", [])}
    assert {"Иван", "王伟"} <= owners, finals["note.md"][0].get("action_items")


def test_subtitle_speakers_end_at_a_full_width_colon(tmp_path: Path) -> None:
    cues = [("王伟", "大家好，会议改到周五。"), ("李娜", "好的。我周四前准备报告。"), ("王伟", "我今天订会议室。")]
    srt = "".join(
        f"{i + 1}\n00:00:0{2 * i},000 --> 00:00:0{2 * i + 1},500\n{n}：{t}\n\n" for i, (n, t) in enumerate(cues)
    )
    _, body = _final(tmp_path, {"call.srt": srt})["call.srt"]
    _said_by(body, cues)
    assert len([line for line in body.splitlines() if line.strip()]) == 3  # one turn a cue, none run together


@pytest.mark.parametrize(
    ("line", "speaker"),
    [
        ("Ана Иванова: Привет!", "Ана Иванова"),
        ("王伟：大家好", "王伟"),
        ("王伟:大家好", "王伟"),
        ("佐藤 花子: おはようございます。", "佐藤 花子"),
        ("प्रिया: नमस्ते", "प्रिया"),
        ("Νίκος: Γεια σας", "Νίκος"),
        ("注意：这是一个测试。", None),  # a page's label, as "Note:" is
        ("参加者：佐藤、田中", None),
        ("我们今天讨论了三个很重要的问题：第一，预算。", None),  # a sentence, not a name
        ("会议在12:30开始。", None),
    ],
)
def test_a_label_is_a_name_in_any_script(line: str, speaker: str | None) -> None:
    assert parse_speaker_line(line)[0] == speaker


def test_prose_with_colons_stays_a_document(tmp_path: Path) -> None:
    # A line that opens with a label here and there is prose, in any script, as "Conclusion: ..." is in
    # English (a file most of whose lines open with one is read as turns, whatever its script).
    ru = (
        "Итак: встреча прошла хорошо.\nМы обсудили бюджет и сроки.\n"
        "Потом все пошли обедать.\nВечером я написал отчёт.\n"
    ) * 3
    zh = "注意：会议改到周五。\n我们讨论了预算。\n然后大家去吃午饭。\n晚上我写了报告。\n" * 3
    finals = _final(tmp_path, {"ru_notes.txt": ru, "zh_notes.txt": zh})
    assert {meta["content_type"] for meta, _ in finals.values()} == {"document"}
