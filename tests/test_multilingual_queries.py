"""A journal in several languages is searched as its writer types: without accents ("musee" finds "musée"),
with the question words of any of its languages left out ("Wann war ich in Lissabon?"), and a day named
with its article ("le 3 mars") matches no text by that article ("Le Roncole", "El Salvador" had at 1.000)."""

from __future__ import annotations

from pathlib import Path

import batchsum
from batchsum.cleanup import fix_spacing
from batchsum.config import RunConfig
from batchsum.engine.prepare import declared_language
from batchsum.index.analysis import analyze, fold
from batchsum.index.lexical import query_tokens
from batchsum.index.search import search
from batchsum.text import split_sentences


def test_accents_are_no_part_of_a_word() -> None:
    assert analyze("le musée de l'école", "fr") == analyze("le musee de l'ecole", "fr")
    assert analyze("la niñez de Lucía", "es") == analyze("la ninez de Lucia", "es")
    assert analyze("Neukölln und die Straße", "de") == analyze("Neukolln und die Strasse", "de")
    assert fold("Йорк") == "Йорк" and fold("Ελλάδα") == "Ελλάδα"  # another script's letters stay


def test_question_words_of_the_journals_languages_are_no_topic() -> None:
    assert query_tokens("Wann war ich in Lissabon?", ["de"]) == [["lissabon"]]
    assert query_tokens("¿Cuándo pasó?", ["es"]) == query_tokens("¿Cuándo pasó?", ["es"])  # nothing else: kept


def test_a_days_article_matches_no_text(tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    (src / "2024-03-03.md").write_text("Geburtstagsfeier von Oma im Schrebergarten in Pankow.\n", encoding="utf-8")
    (src / "2024-06-26.md").write_text("Abends las ich über Verdi, dessen Geburtshaus in Le Roncole steht.\n")
    (src / "2024-09-14.md").write_text("Ich habe mit Lucía über El Salvador gesprochen, wo ihre Familie lebt.\n")
    (src / "2024-09-27.md").write_text("Journée au musée avec Claire, puis une crème brûlée à la maison.\n")
    batchsum.run([src], out=out, content_type="journal", metrics=False)
    cfg = RunConfig(paths=[], out=out)
    for query in ("le 3 mars", "el 3 de marzo"):
        hits = search(cfg, query, k=3)
        assert hits[0].source_path == "2024-03-03.md" and all(h.score < 0.5 for h in hits[1:]), query
    assert search(cfg, "musee", k=1)[0].source_path == "2024-09-27.md"


def test_a_space_before_percent_stays_in_german_and_french() -> None:
    assert fix_spacing("um ca. 10 % gekürzt , sogar um 25 %.", "de") == "um ca. 10 % gekürzt, sogar um 25 %."
    assert fix_spacing("baissent de 25 % ; le budget de 10 %.", "fr") == "baissent de 25 % ; le budget de 10 %."
    assert fix_spacing("revenue rose 10 % , as said .", "en") == "revenue rose 10%, as said."


def test_a_notes_declared_language_is_read() -> None:
    assert declared_language("---\nlang: fr\n---\n\nPluie. Marché. Soupe.\n") == "fr"
    assert declared_language("---\nlanguage: German\ntags: [daily]\n---\nText.\n") == "de"
    assert declared_language("---\nlang: fr-FR\n---\nText.\n") == "fr"
    assert declared_language("---\nlang: klingon\n---\nText.\n") is None
    assert declared_language("lang: fr\n\nNo front matter here.\n") is None


def test_a_short_french_note_is_summarized_and_digested_in_french(tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    (src / "2024-03-05.md").write_text("---\nlang: fr\n---\n\nFatigué. Migraine. Au lit tôt.\n", encoding="utf-8")
    batchsum.run([src], out=out, content_type="journal", index=False, metrics=False)
    final = (out / "2024-03-05.md" / "summaries" / "L3" / "final.md").read_text(encoding="utf-8")
    assert "language: fr" in final and "language_source: front matter" in final
    assert (out / "digests" / "2024" / "2024-03.md").read_text(encoding="utf-8").count("# Mars 2024") == 1


def test_short_forms_the_segmenter_lacks_end_no_german_sentence() -> None:
    text = "Das Ticket kostet 49 Euro inkl. Regionalverkehr. Das Schloss stammt aus dem 18. Jh. und steht noch. Ende."
    pieces = [text[s.start : s.end] for s in split_sentences(text, "de")]
    assert pieces == [
        "Das Ticket kostet 49 Euro inkl. Regionalverkehr.",
        "Das Schloss stammt aus dem 18. Jh. und steht noch.",
        "Ende.",
    ]
