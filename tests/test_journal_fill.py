"""A journal's final fills its budget: its dates cost more than the separators a pick is budgeted, and a pick
dropped for a few tokens of them left a Russian entry's STANDARD final at a third of its target (37 tokens of
114); the picks are now made again within the budget less that excess."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main

# Three entries from Tolstoy's "Люцерн" (shared/bench/multilingual): long sentences at ~3 tokens a word.
JOURNAL = (
    "\n".join(
        [
            "## 2024-03-01",
            "",
            'И он еще раз с хитро-самодовольной улыбкой повторил фразу: "Oui, le sucre est bon", - и '
            "добродушно рассмеялся. Лакеи очень были довольны и хохотали, одна горбатая судомойка большими "
            "добрыми глазами серьезно смотрела на маленького человечка и подняла ему шапку, которую он во "
            "время разговора уронил с лавки. Я замечал, что странствующие певцы, акробаты, даже фокусники "
            "любят называть себя артистами, и потому несколько раз намекал своему собеседнику на то, что он "
            "артист, но он вовсе не признавал за собой этого качества, а весьма просто, как на средство к "
            "жизни, смотрел на свое дело. Когда я спросил его, не сам ли он сочиняет песни, которые поет, он"
            " удивился такому странному вопросу и отвечал, что куда ему, это всё старинные тирольские песни.",
            "",
            "## 2024-03-02",
            "",
            "- А как же песня Риги? я думаю, не старинная? - сказал я.",
            "",
            "- Да, это лет пятнадцать тому назад сочинена. Был один немец в Базеле, умнейший был человек, "
            "это он сочинил ее. Отличная песня! Это, видите, он для путешественников сочинил.",
            "",
            "И он начал мне, переводя по-французски, рассказывать слова песни Риги, которая, видно, ему "
            "очень нравилась:",
            "",
            "Коли хочешь идти на Риги,",
            "До Вегиса не нужно башмаков",
            "(Потому что на пароходе едут),",
            "А от Вегиса возьми большую палку,",
            "Да еще под руку возьми девицу,",
            "Да зайди выпить стаканчик вина.",
            "Только пей не слишком много,",
            "Потому что тот, кто хочет пить,",
            "Должен заслужить прежде...",
            "",
            "## 2024-03-03",
            "",
            "- О, отличная песня! - заключил он.",
            "",
            "Лакеи находили, вероятно, эту песню весьма хорошей, потому что приблизились к нам.",
            "",
            "- Ну, а музыку кто же сочинял? - спросил я.",
            "",
            "- Да никто, это так, знаете, чтобы петь для иностранцев, надо что-нибудь новенькое.",
            "",
            "Когда нам принесли льду и я налил моему собеседнику стакан шампанского, ему, видимо, стало "
            "неловко, и он, оглядываясь на лакеев, поворачивался на своей лавке. Мы чокнулись за здоровье "
            "артистов; он отпил полстакана и нашел нужным задуматься и глубокомысленно повести бровями.",
        ]
    )
    + "\n"
)


def test_a_russian_journals_standard_final_fills_its_budget(tmp_path: Path) -> None:
    src, out = tmp_path / "journal", tmp_path / "out"
    src.mkdir()
    (src / "journal.md").write_text(JOURNAL, encoding="utf-8")
    res = CliRunner().invoke(main, ["run", str(src), "--out", str(out), "--quiet"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    final = (out / "journal.md" / "summaries" / "L3" / "final.md").read_text(encoding="utf-8")
    meta = dict(re.findall(r"^(summary_level|input_tokens|output_tokens): (\w+)$", final, re.MULTILINE))
    assert meta["summary_level"] == "STANDARD", meta
    target = 0.12 * int(meta["input_tokens"])  # STANDARD's share of its input (model.TARGET_RATIO)
    assert 0.7 * target <= int(meta["output_tokens"]) <= target, meta
    assert len(re.findall(r"^2024-03-0\d: ", final, re.MULTILINE)) >= 2, final  # two entries quoted, each dated
