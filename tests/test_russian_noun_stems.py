"""Snowball's Russian reads a noun's final -ан/-ал as a verb's ending and cuts it ("ресторан" is "рестора")
while the noun's other forms keep it ("ресторане" is "ресторан"): a query of either form finds the other
("ресторан" had found no "в ресторане"), and a verb's forms still find each other ("гулять", "гуляли")."""

from __future__ import annotations

from pathlib import Path

import batchsum
from batchsum.config import RunConfig
from batchsum.index.analysis import analyze, query_groups
from batchsum.index.search import search

PAIRS = [
    ("ресторан", "в ресторане"),
    ("вокзал", "на вокзале"),
    ("стакан", "в стакане"),
    ("канал", "по каналу"),
    ("Иван", "у Ивана"),
    ("гулять", "гуляли"),
    ("гуляли", "гулять"),
]


def test_a_russian_words_forms_reach_each_other() -> None:
    for query, text in PAIRS:
        for asked, written in ((query, text), (text, query)):
            reached = {t for g in query_groups(asked, ["ru"]) for t in g}
            assert reached & set(analyze(written, "ru")), (asked, written, reached, analyze(written, "ru"))


def test_a_nouns_nominative_finds_its_inflected_form(tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    (src / "2024-06-04.md").write_text(
        "Вечером мы обедали в грузинском ресторане. Иван встретил нас на вокзале.\n", encoding="utf-8"
    )
    (src / "2024-06-05.md").write_text("Весь день шёл дождь, я читал книгу дома.\n", encoding="utf-8")
    batchsum.run([src], out=out, content_type="journal", metrics=False)
    cfg = RunConfig(paths=[], out=out)
    for query in ("ресторан", "вокзал"):
        hits = search(cfg, query, k=2)
        assert hits and hits[0].source_path == "2024-06-04.md", (query, [(h.source_path, h.score) for h in hits])
