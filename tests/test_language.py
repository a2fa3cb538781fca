"""Languages: detection, sentence splitting in every script, terms, prompts, and runs on real prose.

Real data: ``shared/bench/multilingual`` (Goethe, Daudet, Valera, Tolstoy, Lu Xun, Sōseki, ...);
those tests skip when it is not on this machine.
"""

from __future__ import annotations

import itertools
import re
import shutil
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner

from batchsum.backends.budget import trim_to_sentence_boundary
from batchsum.backends.extractive import summarize_text
from batchsum.backends.prompts import PromptSet
from batchsum.cli import main
from batchsum.language import check_language, content_terms, detect_language, language_name, word_count
from batchsum.model import SummaryRequest
from batchsum.text import split_sentences
from batchsum.tokens import Tokenizer
from tests.conftest import REPO
from tests.fakeserver import FakeLLMServer

MULTILINGUAL = REPO.parent / "shared" / "bench" / "multilingual"
if not MULTILINGUAL.is_dir():
    MULTILINGUAL = Path("/work/shared/bench/multilingual")
needs_data = pytest.mark.skipif(not MULTILINGUAL.is_dir(), reason="shared/bench/multilingual not on this machine")
LANGS = ("de", "fr", "es", "ru", "zh", "ja")
SENTENCE_END = re.compile(r"[.!?…。！？][\s\"'”’»)\]」』）》]*$")


def _docs(lang: str) -> list[Path]:
    return sorted((MULTILINGUAL / lang / "docs").glob("*.txt"))


def _tokenizer() -> Tokenizer:
    from batchsum.tokens import get_tokenizer

    return get_tokenizer("cl100k_base")


# --- detection -----------------------------------------------------------------------------


@needs_data
@pytest.mark.parametrize("lang", LANGS)
def test_every_real_document_is_detected_in_its_language(lang: str) -> None:
    found = {p.name: detect_language(p.read_text(encoding="utf-8")) for p in _docs(lang)}
    assert found and all(code == lang for code in found.values()), found


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("Heute war ich mit Anna im Park, und wir haben lange über das Budget gesprochen.", "de"),
        ("Aujourd'hui, nous avons parlé du budget pendant des heures avec les voisins.", "fr"),
        ("Вчера мы долго говорили о бюджете и о поездке в Лиссабон.", "ru"),
        ("预算", "zh"),  # two characters: the script decides, the n-gram model would not know
        ("今天和同事讨论了去里斯本出差的预算。", "zh"),
        ("今日は同僚とリスボン出張の予算について話した。", "ja"),
        ("We talked about the budget for the Lisbon trip.", "en"),
        ("2024-05-01 12:30 -- 42", None),
    ],
)
def test_short_texts_are_detected(text: str, code: str | None) -> None:
    assert detect_language(text) == code


@pytest.mark.parametrize(
    ("text", "code"),
    [
        (
            "We walked back along the river and talked about the new job. ¡Qué bonito día hizo hoy en el "
            "parque! In the evening I read the book.",
            "en",  # read whole, the identifier had said Spanish (0.74)
        ),
        (
            "Heute war ein ruhiger Tag am See. We met Anna at the station. Am Abend haben wir lange über "
            "das neue Haus gesprochen und dann zusammen gekocht.",
            "de",
        ),
    ],
)
def test_a_mixed_text_is_read_in_the_language_of_most_of_it(text: str, code: str) -> None:
    assert detect_language(text) == code


def test_language_values_are_checked() -> None:
    assert check_language("auto") == "auto"
    assert check_language("DE") == "de"
    assert check_language("Japanese") == "ja"
    assert language_name("zh") == "Chinese"
    with pytest.raises(ValueError, match="unknown language 'klingon'"):
        check_language("klingon")


# --- sentences -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "language", "expected"),
    [
        ("他说：“我们就没有用处？”我笑了。好的！", "zh", ["他说：“我们就没有用处？”", "我笑了。", "好的！"]),
        ("他说：“我们就没有用处？”我笑了。好的！", None, ["他说：“我们就没有用处？”", "我笑了。", "好的！"]),
        (
            "「何だ」と彼は言った。私は笑った！『そうか』",
            "ja",
            ["「何だ」と彼は言った。", "私は笑った！", "『そうか』"],
        ),
        # A quotation that ends in 。」 and is reported by a particle is inside its sentence.
        (
            "入学試験はどうしたと尋いたら、「ええ、まあ。」と云いながら頭を撫でた。すぐ「じゃ、やって見ろ。」ぐらいな事になる。",
            "ja",
            [
                "入学試験はどうしたと尋いたら、「ええ、まあ。」と云いながら頭を撫でた。",
                "すぐ「じゃ、やって見ろ。」ぐらいな事になる。",
            ],
        ),
        ("¿Qué pasa? ¡Nada! El Sr. García vino.", "es", ["¿Qué pasa?", "¡Nada!", "El Sr. García vino."]),
        (
            "Я видел А. С. Пушкина в 5 ч. вечера. Он ушёл, т. е. исчез.",
            "ru",
            ["Я видел А. С. Пушкина в 5 ч. вечера.", "Он ушёл, т. е. исчез."],
        ),
        ("Er kam z. B. am 3. Mai. Dann ging er.", "de", ["Er kam z. B. am 3. Mai.", "Dann ging er."]),
        # A German ordinal's dot before a month or a century ends no sentence (a digest had quoted "dem 19."
        # with the next sentence); a number's dot before another capital still may.
        (
            "Die Beerdigung ist am Samstag, dem 19. April, auf dem Friedhof. Im 19. Jahrhundert war es so. "
            "Sein Zimmer war Nummer 12. Dann ging er.",
            "de",
            [
                "Die Beerdigung ist am Samstag, dem 19. April, auf dem Friedhof.",
                "Im 19. Jahrhundert war es so.",
                "Sein Zimmer war Nummer 12.",
                "Dann ging er.",
            ],
        ),
        ("**12. April** Oma ist gestorben. Es regnet.", "de", ["**12. April** Oma ist gestorben.", "Es regnet."]),
        # A one-letter title or initial: Monsieur, Don.
        (
            "Il pleurait de voir M. Eyssette malheureux. Le soir vint.",
            "fr",
            ["Il pleurait de voir M. Eyssette malheureux.", "Le soir vint."],
        ),
        ("Pepita se casó con D. Gumersindo. Era viejo.", "es", ["Pepita se casó con D. Gumersindo.", "Era viejo."]),
        ("Dr. Smith went home. He left.", "en", ["Dr. Smith went home.", "He left."]),
        # An ellipsis followed by a comma ends no sentence; a quote left after a stop opens the next one.
        (
            "Un printemps de 18..., dont la maison garde le souvenir. On a des dates.",
            "fr",
            ["Un printemps de 18..., dont la maison garde le souvenir.", "On a des dates."],
        ),
        (
            'Возникли думы моей юности. "Где те светлые мысли о жизни? Где сила любви?',
            "ru",
            ["Возникли думы моей юности.", '"Где те светлые мысли о жизни?', "Где сила любви?"],
        ),
    ],
)
def test_sentences_in_every_script(text: str, language: str | None, expected: list[str]) -> None:
    spans = split_sentences(text, language)
    assert [s.text for s in spans] == expected
    assert all(text[s.start : s.end] == s.text for s in spans)


def test_layout_lines_still_end_sentences_in_other_languages() -> None:
    text = "# Tagebuch\n\n- Einkaufen gehen\n- Anna anrufen\nAnna: Wir sehen uns morgen. Bis dann!"
    got = [s.text for s in split_sentences(text, "de")]
    assert got == ["# Tagebuch", "- Einkaufen gehen", "- Anna anrufen", "Anna: Wir sehen uns morgen.", "Bis dann!"]


@needs_data
@pytest.mark.parametrize("lang", LANGS)
def test_real_documents_keep_the_span_contract_and_split_into_sentences(lang: str) -> None:
    for path in _docs(lang)[:3]:
        text = path.read_text(encoding="utf-8")
        spans = split_sentences(text, lang)
        assert all(text[s.start : s.end] == s.text and s.text == s.text.strip() for s in spans)
        assert all(a.end <= b.start for a, b in itertools.pairwise(spans))
        longest = max(len(s.text) for s in spans)
        # A whole paragraph as one "sentence" was the failure: CJK sentences are short, others too.
        assert longest < (400 if lang in ("zh", "ja") else 1500), (path.name, longest)
        assert len(spans) > (text.count("\n\n") + 1), path.name


# --- terms, cuts ---------------------------------------------------------------------------


def test_terms_per_language() -> None:
    assert content_terms("Die Brücke über den Fluss war alt", "de") == ["brücke", "fluss", "alt"]
    assert content_terms("今天的预算", "zh") == ["今天", "天的", "的预", "预算"]
    # Japanese bigrams of hiragana only (particles, inflections) are not terms.
    assert content_terms("予算について話した", "ja") == ["予算", "算に", "て話", "話し"]
    assert word_count("今天的预算很好 and more") == 9
    assert word_count("Grüße aus Köln — déjà vu,\n  le 3 mai.") == 9  # no CJK: one a whitespace-separated token
    assert word_count("写了 report 和 plan。") == 5


def test_cjk_cuts_never_split_a_character_or_a_sentence() -> None:
    tok = _tokenizer()
    text = "我认识他们是一伙，都是吃人的人。" * 3 + "我也不动，研究他们如何摆布我；知道他们一定不肯放松。" * 3
    out, trimmed = trim_to_sentence_boundary(text, 40, tok)
    assert trimmed and out.endswith("。") and "\ufffd" not in out and tok.count(out) <= 40
    one = "我认识他们是一伙都是吃人的人研究他们如何摆布我知道他们一定不肯放松" * 4  # no stop at all
    summary = summarize_text(
        one, target_tokens=30, max_tokens=30, kind="standard", content_type="document", tokenizer=tok, language="zh"
    )
    assert summary.endswith("…") and "\ufffd" not in summary and tok.count(summary) <= 30


def test_french_keeps_its_space_before_high_punctuation() -> None:
    """French typography sets a space before ; : ! ? - a summary quotes it as written, while a tokenizer's
    spacing in English text ("good , I think") is still undone."""
    from batchsum.backends.units import units_from_text
    from batchsum.index.snippets import make_snippet

    text = "« Eh ! mon Dieu, c'est Annou ; elle est vieille maintenant. » Il partit le soir même sans rien dire."
    first = units_from_text(text, "journal", 5, language="fr")[0].text
    assert first.startswith("« Eh ! mon Dieu") and "Annou ; elle" in first, first
    assert make_snippet(text, [["annou"]], language="fr")[0].startswith("« Eh ! mon Dieu")
    assert units_from_text("It is good , I think ; right ?", "journal", 2)[0].text == "It is good, I think; right?"


def test_a_brief_line_runs_chinese_and_japanese_sentences_on_without_spaces() -> None:
    tok = _tokenizer()
    text = "海は静かだった。由比ヶ浜で貝殻を拾った。帰りの電車は混んでいた。友人に手紙を書こうと思う。" * 3
    line = summarize_text(
        text, target_tokens=60, max_tokens=66, kind="brief", content_type="journal", tokenizer=tok, language="ja"
    )
    assert line.count("。") >= 2 and "。 " not in line, line


# --- prompts -------------------------------------------------------------------------------


def _request(language: str | None) -> SummaryRequest:
    return SummaryRequest(
        node_id="a:L3:final",
        kind="standard",
        content_type="journal",
        text="Heute war ein guter Tag.",
        input_tokens=10,
        target_tokens=50,
        max_tokens=50,
        language=language,
    )


def test_prompts_ask_for_the_sources_language(tmp_path: Path) -> None:
    prompts = PromptSet.load()
    kw = {"text": "Heute war ein guter Tag.", "parts": [], "prior": None, "max_tokens": 50, "facets": False}
    german = prompts.build_messages(_request("de"), **kw)[1]["content"]
    assert german.rstrip().endswith("Write the summary in German, the language of the content.")
    english = prompts.build_messages(_request("en"), **kw)[1]["content"]
    assert "Write the summary in" not in english
    assert prompts.build_messages(_request(None), **kw) == prompts.build_messages(_request("en"), **kw)
    (tmp_path / "standard.txt").write_text("Summarize in {language}:\n{content}\n", encoding="utf-8")
    custom = PromptSet.load(tmp_path).build_messages(_request("ja"), **kw)[1]["content"]
    assert "Summarize in Japanese:" in custom and "Write the summary in" not in custom


# --- runs ----------------------------------------------------------------------------------


def _final(out: Path, relpath: str) -> tuple[dict[str, str], list[str]]:
    text = (out / relpath / "summaries" / "L3" / "final.md").read_text(encoding="utf-8")
    head, body = text[4:].split("\n---\n", 1)
    meta = dict(line.split(": ", 1) for line in head.splitlines() if ": " in line and not line.startswith(" "))
    body = body.split("<!-- batchsum:links -->", 1)[0]
    return meta, [ln.strip() for ln in body.splitlines() if ln.strip()]


@needs_data
def test_a_run_on_real_chinese_and_japanese_prose(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    picks = {"zh": "zhaohua_07_fuqin_de_bing.txt", "ja": "akutagawa_tabata_nikki.txt", "ru": "lermontov_taman.txt"}
    for lang, name in picks.items():
        shutil.copyfile(MULTILINGUAL / lang / "docs" / name, corpus / name)
    out = tmp_path / "out"
    res = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--no-index", "--json"])
    assert res.exit_code == 0, res.output
    for lang, name in picks.items():
        meta, lines = _final(out, name)
        assert meta["language"] == lang and meta["language_source"] == "detected"
        assert lines and all(SENTENCE_END.search(ln) and "\ufffd" not in ln for ln in lines), lines
    con = duckdb.connect(str(out / ".batchsum" / "metrics.duckdb"), read_only=True)
    rows = dict(con.execute("SELECT relpath, language FROM files").fetchall())
    con.close()
    assert rows == {name: lang for lang, name in picks.items()}


@needs_data
def test_a_query_about_nothing_finds_nothing_in_other_languages(tmp_path: Path) -> None:
    """The static embedder reads English only: a Chinese or German query about nothing in the corpus
    gets no hit from meaning alone, while a phrase from inside a document is still found."""
    from batchsum.config import RunConfig
    from batchsum.index.search import search

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for lang, name in (("zh", "zhaohua_07_fuqin_de_bing.txt"), ("de", "italienische_reise_01.txt")):
        if (MULTILINGUAL / lang / "docs" / name).is_file():
            shutil.copyfile(MULTILINGUAL / lang / "docs" / name, corpus / name)
    for path in sorted((MULTILINGUAL / "ja" / "docs").glob("*.txt"))[:1]:
        shutil.copyfile(path, corpus / path.name)
    out = tmp_path / "out"
    res = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "-q"])
    assert res.exit_code == 0, res.output
    cfg = RunConfig(paths=[], out=out)
    for query in ("量子计算机", "Quantencomputer Aktienkurs"):
        assert search(cfg, query, k=5) == [], query
    hits = search(cfg, "父亲的病", k=3)  # the title's words, in the Chinese text
    # Judged by its words alone, a full match scores as a full match does in English (it had stopped at 0.769).
    assert hits and hits[0].relevance >= 0.95, hits


def test_language_option_overrides_detection(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    text = " ".join(f"Day {i}: we walked to the harbor and counted the boats again." for i in range(60))
    (corpus / "notes.txt").write_text(text, encoding="utf-8")
    out = tmp_path / "out"
    res = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--no-index", "--language", "German"])
    assert res.exit_code == 0, res.output
    meta, _ = _final(out, "notes.txt")
    assert meta["language"] == "de" and meta["language_source"] == "configured"
    bad = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--language", "xx"])
    assert bad.exit_code == 2 and "'--language': unknown language 'xx'" in bad.output


def test_a_language_given_to_an_existing_folder_reaches_every_final_and_is_remembered(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    short = "Heute war ein ruhiger Tag. Wir sind am Morgen an den See gefahren und haben lange gesessen."
    (corpus / "kurz.md").write_text(short, encoding="utf-8")  # kept whole: its final is its text
    long = " ".join(f"Am Tag {i} sind wir zum Hafen gegangen und haben die Boote gezählt." for i in range(60))
    (corpus / "lang.md").write_text(long, encoding="utf-8")
    out = tmp_path / "out"
    run = ["run", str(corpus), "--out", str(out), "--no-index", "--type", "journal"]
    assert CliRunner().invoke(main, run).exit_code == 0
    assert {_final(out, n)[0]["language_source"] for n in ("kurz.md", "lang.md")} == {"detected"}

    res = CliRunner().invoke(main, [*run, "--language", "de"])
    assert res.exit_code == 0, res.output
    assert "2 of 2 files planned again" in res.output
    # Nothing to summarize again (the text reads the same in German): both finals are stored ones, relabelled.
    assert "restored from stored summaries" in res.output
    for name in ("kurz.md", "lang.md"):
        meta, _ = _final(out, name)
        assert (meta["language"], meta["language_source"]) == ("de", "configured"), name

    res = CliRunner().invoke(main, [*run, "--language", "fr"])
    assert res.exit_code == 0, res.output
    assert {_final(out, n)[0]["language"] for n in ("kurz.md", "lang.md")} == {"fr"}
    again = CliRunner().invoke(main, run)  # the night after, without the option: French still
    assert again.exit_code == 0 and "0 summarized, 2 unchanged" in again.output, again.output
    assert {_final(out, n)[0]["language"] for n in ("kurz.md", "lang.md")} == {"fr"}


def test_llm_requests_ask_for_the_sources_language(tmp_path: Path, fake_llm: FakeLLMServer) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    russian = "Вчера мы долго гуляли у реки и говорили о поездке в Лиссабон. " * 40
    (corpus / "ru.txt").write_text(russian, encoding="utf-8")
    english = "Yesterday we walked by the river and talked about the trip to Lisbon. " * 40
    (corpus / "en.txt").write_text(english, encoding="utf-8")
    out = tmp_path / "out"
    args = ["run", str(corpus), "--out", str(out), "--no-index", "--base-url", fake_llm.base_url, "--model", "fake"]
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 0, res.output
    asks = fake_llm.requests(match="Write the summary in Russian, the language of the content.")
    assert asks and all("Лиссабон" in e.prompt_text for e in asks)
    assert fake_llm.requests(match="Lisbon") and not fake_llm.requests(match="Write the summary in English")


def test_an_unchanged_file_keeps_its_language_in_the_metrics(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    text = (
        "Wir fuhren am Morgen über die Alpen nach Italien. Die Kutsche war eng und der Weg steil, aber die "
        "Aussicht auf die verschneiten Gipfel entschädigte uns für alles. In Verona besahen wir das Amphitheater, "
        "und am Abend tranken wir Wein in einer kleinen Schenke, während draußen der Regen fiel. "
    )
    (corpus / "reise.txt").write_text(text * 3, encoding="utf-8")
    out = tmp_path / "out"
    for step in range(2):  # the second run reads only the new file, not the unchanged German one
        if step:
            (corpus / "harbor.txt").write_text(" ".join(["We counted the boats in the harbor again."] * 20))
        res = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--no-index"])
        assert res.exit_code == 0, res.output
    con = duckdb.connect(str(out / ".batchsum" / "metrics.duckdb"), read_only=True)
    rows = con.execute("SELECT run_id, status, language FROM files WHERE relpath = 'reise.txt'").fetchall()
    con.close()
    assert sorted((status, lang) for _, status, lang in rows) == [("done", "de"), ("unchanged", "de")], rows


@needs_data
def test_a_summary_of_several_languages_spaces_each_sentence_by_its_own() -> None:
    """A folder digest of Chinese, French and German files: no space after a full-width stop, one
    after any other (its language was Chinese, and French sentences had run into each other:
    "réfectoire.Ismérie")."""
    picks = {"zh": "kuangren_riji.txt", "fr": "petit_chose_ch01.txt", "de": "italienische_reise_01.txt"}
    parts, langs = [], []
    for lang, name in [("zh", picks["zh"]), ("zh", picks["zh"]), ("fr", picks["fr"]), ("de", picks["de"])]:
        sentences = [s.text for s in split_sentences((MULTILINGUAL / lang / "docs" / name).read_text("utf-8"), lang)]
        parts.append(
            " ".join(sentences[len(parts) * 6 : len(parts) * 6 + 6])
            if lang != "zh"
            else "".join(sentences[len(parts) * 6 : len(parts) * 6 + 6])
        )
        langs.append(lang)
    out = summarize_text(
        "",
        target_tokens=300,
        max_tokens=300,
        kind="meta",
        content_type="document",
        tokenizer=_tokenizer(),
        parts=parts,
        language="zh",
        part_languages=langs,
    )
    assert re.search(r"[a-zà-ÿ]{2}[.!?»][A-ZÀ-Ý«]", out) is None, out
    assert re.search(r"[a-zäöüß]\.[A-ZÄÖÜ]", out) is None, out
    assert re.search(r"。 \S", out) is None, out


def test_an_abbreviation_before_a_lower_case_word_ends_no_sentence_in_other_languages() -> None:
    """The English rule for lower-cased text (a stop, then a lower-case word, in a sentence of 40 words or more)
    had cut Spanish "cuando Vd. quiera" into two summary lines: other languages keep their own rules."""
    from batchsum.backends.units import units_from_text

    sentence = (
        "Este Tío, con mucho gusto; cuando Vd. quiera, entonces iremos juntos a la ciudad y veremos a todos los"
        " parientes y amigos que tanto nos esperan desde hace muchos meses en aquella casa grande del pueblo donde"
        " nací y crecí con mi padre."
    )
    assert [u.text for u in units_from_text(sentence, "journal", language="es")] == [sentence]


def test_a_short_entry_of_long_sentences_gets_a_whole_sentence() -> None:
    """Four Japanese sentences of 24-35 tokens and a BRIEF line of 23: the best one had been cut ("祇園祭の準備が
    始まっていて…"); a shorter whole sentence is the line, within the cap."""
    from batchsum.backends.extractive import summarize_text
    from batchsum.tokens import get_tokenizer

    tok = get_tokenizer()
    entry = (
        "京都に着いた。祇園祭の準備が始まっていて、町中に提灯が飾られていた。"
        "夕方、鴨川の河原で友達の佐藤さんと冷たいビールを飲んだ。明日は朝早く伏見稲荷へ行くつもりだ。"
    )
    line = summarize_text(
        entry, target_tokens=21, max_tokens=23, kind="brief", content_type="journal", tokenizer=tok, language="ja"
    )
    assert line.endswith("。") and line in entry and tok.count(line) <= 23, line
