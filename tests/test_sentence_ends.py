"""Sentence ends in Chinese, Japanese, Russian, German and mixed entries (review s9 p3): a Chinese quotation closed
by "！”" or "？”" that a particle goes on from ("“咋！咋咋咋咋！”地叫着") was cut before the particle; a German "z. B."
in a Russian entry was cut into "z." and "B. über ..."; an abbreviation that ends an enumeration ("и т. д.",
"usw.", "2024 г.") glued the next sentence on; full-width initials ("Ｕ．Ｓ．Ａ．") were sentences of one letter."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from batchsum.cli import main
from batchsum.text import split_sentences


def _texts(text: str, language: str) -> list[str]:
    return [s.text for s in split_sentences(text, language)]


@pytest.mark.parametrize(
    ("text", "goes_on"),
    [
        ("春后，你听到它“咋！咋咋咋咋！”地叫着，大家称为老鼠数铜钱。", "地叫着"),
        ("我问他“你明天去哪儿？”的时候，他一直没有回答我的问题。", "的时候"),
        ("他大喊“救命！”，然后跑了。", "，然后"),
        ("她说“好吧！”便走了出去。", "便走了"),
    ],
)
def test_a_chinese_quotation_goes_on_into_its_particle(text: str, goes_on: str) -> None:
    got = _texts(text, "zh")
    assert len(got) == 1, got
    assert not any(s.startswith(goes_on) for s in got)


def test_a_chinese_quotation_before_a_new_subject_still_ends_its_sentence() -> None:
    got = _texts("他问：“你明天来吗？”我说：“来。”然后回家了。", "zh")
    assert len(got) == 3, got
    assert got[1].startswith("我说")


@pytest.mark.parametrize("language", ["ru", "ja", "zh"])
def test_a_latin_abbreviation_pair_ends_no_sentence_in_another_scripts_file(language: str) -> None:
    got = _texts("Meeting with the Berlin team. Wir haben z. B. über die neuen Häuser gesprochen.", language)
    assert len(got) == 2, got
    assert got[1].startswith("Wir haben z. B. über")


def test_a_russian_abbreviation_pair_before_a_name_ends_no_sentence() -> None:
    got = _texts("Он сказал, т. е. Иван сказал, что придёт. Потом ушёл.", "ru")
    assert len(got) == 2, got
    assert "т. е. Иван" in got[0]


@pytest.mark.parametrize(
    ("text", "language", "last_of_first"),
    [
        ("Мы купили хлеб, молоко, сыр и т. д. Вечером пошли в театр.", "ru", "и т. д."),
        ("Мы купили хлеб, молоко, сыр и т.п. Вечером пошли в театр.", "ru", "и т.п."),
        ("Пришли Петров, Сидоров и др. Потом начали.", "ru", "и др."),
        ("Это было 3 мая 2024 г. Потом мы уехали.", "ru", "2024 г."),
        ("Мы купили сыр и т. д. А потом ушли.", "ru", "и т. д."),
        ("Wir kauften Äpfel, Birnen usw. Danach gingen wir heim.", "de", "usw."),
        ("Das Treffen dauerte ca. 2 Std. Danach ging es los.", "de", "2 Std."),
        ("Wir kauften Äpfel, Birnen usf. Dann gingen wir.", "de", "usf."),
    ],
)
def test_an_abbreviation_that_ends_an_enumeration_ends_its_sentence_before_a_capital(
    text: str, language: str, last_of_first: str
) -> None:
    got = _texts(text, language)
    assert len(got) == 2, got
    assert got[0].endswith(last_of_first)


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("Он переехал в г. Москва и жил там.", "ru"),  # "г." before a place's name is "город"
        ("Мы купили сыр и т. д. А. С. Пушкин писал об этом.", "ru"),  # an initial goes on
        ("Мы купили хлеб, молоко и т. д. в магазине.", "ru"),
        ("Wir fuhren nach 2 Std. Fahrt weiter.", "de"),  # a noun the short form qualifies
        ("Es gab u. a. Kuchen und Tee.", "de"),
        ("Wir haben Äpfel, Birnen usw. gekauft.", "de"),
    ],
)
def test_an_abbreviation_before_what_it_qualifies_ends_no_sentence(text: str, language: str) -> None:
    assert len(_texts(text, language)) == 1


@pytest.mark.parametrize(
    ("paragraph", "language", "elsewhere"),
    [
        ("Wir haben u. a. Essen mitgebracht.", "de", "Danach wollten alle essen."),
        ("Wir fuhren ca. 2 Std. Fahrt war lang.", "de", "Die fahrt war lang."),
        ("Wir sahen Bäume usw. Wald war dunkel.", "de", "Der wald war dunkel."),
        ("В 1812 г. Наполеон вторгся в Россию.", "ru", "Мы читали про наполеон торт."),
    ],
)
def test_an_abbreviation_ends_its_sentence_by_the_next_word_alone(
    paragraph: str, language: str, elsewhere: str
) -> None:
    # The same sentence splits the same way whatever else the paragraph holds: the decision reads a bounded
    # window, so a long paragraph costs linear time (a whole-text scan per abbreviation made it quadratic).
    alone = _texts(paragraph, language)
    assert alone == [paragraph]
    within = _texts(f"{elsewhere} {paragraph} {elsewhere}", language)
    assert within.count(paragraph) == 1, within


@pytest.mark.parametrize(
    ("text", "second"),
    [
        ("他喊道：“快跑！”就在这时，门开了。", "就在这时"),
        ("“好！”时间到了。", "时间到了"),
        ("“好！”了解了情况以后，他走了。", "了解"),
        ("“好！”过了一会儿，他走了。", "过了一会儿"),
        ("“好！”说实话，我不信。", "说实话"),
        ("“好！”地铁来了。", "地铁"),
        ("“好！”道路很长。", "道路"),
        ("“好！”的确如此。", "的确"),
    ],
)
def test_a_chinese_sentence_that_opens_like_a_particle_follows_a_quotation(text: str, second: str) -> None:
    got = _texts(text, "zh")
    assert len(got) == 2, got
    assert got[1].startswith(second)


@pytest.mark.parametrize(
    ("text", "language", "second"),
    [
        ("Ich weiß es. A. Schmidt hat angerufen.", "de", "A. Schmidt"),
        ("Я это видел сам, да. А. С. Пушкин писал иначе.", "ru", "А. С. Пушкин"),
    ],
)
def test_a_short_word_ending_a_sentence_before_an_initial_is_no_abbreviation_pair(
    text: str, language: str, second: str
) -> None:
    got = _texts(text, language)
    assert len(got) == 2, got
    assert got[1].startswith(second)


def test_full_width_initials_end_no_japanese_sentence() -> None:
    text = "今日は友達と東京へ行った。Ｕ．Ｓ．Ａ．の話をした。"
    got = _texts(text, "ja")
    assert len(got) == 2, got
    assert got[1] == "Ｕ．Ｓ．Ａ．の話をした。"  # the text as written
    assert len(_texts("実験はグループＡ．次に進んだ。", "ja")) == 2  # a letter after a word is no initial


DAYS = {
    "2024-05-03.md": "春后，你听到它“咋！咋咋咋咋！”地叫着，大家称为老鼠数铜钱，便知道它已经来了。"
    "我问他“你明天去哪儿？”的时候，他一直没有回答我的问题。晚上我们一起吃了饺子，然后回家了。",
    "2024-05-06.md": "Meeting with the Berlin team. Wir haben z. B. über die neuen Häuser gesprochen. Сегодня была "
    "важная встреча с Иваном, мы наконец обсудили бюджет. Вечером мы долго гуляли по набережной и говорили о работе.",
    "2024-05-12.md": "Мы купили хлеб, молоко, сыр и т. д. Вечером пошли в театр. Это было 3 мая 2024 г. Потом мы "
    "уехали домой к родителям.",
}


def test_a_month_digest_shows_no_sentence_fragment(tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    for name, text in DAYS.items():
        (src / name).write_text(text + "\n", encoding="utf-8")
    got = CliRunner().invoke(main, ["run", str(src), "--type", "journal", "--out", str(out), "--no-index", "-q"])
    assert got.exit_code == 0, got.output
    month = (out / "digests" / "2024" / "2024-05.md").read_text(encoding="utf-8")
    lines = re.findall(r"^\*\*[^*]+\*\* (.+)$", month, re.M)
    assert len(lines) == len(DAYS), month
    for line in lines:
        assert not line.startswith(("地叫着", "的时候", "B. über")), month
        assert "Wir haben z." not in line or "z. B. über" in line, month
