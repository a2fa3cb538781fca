"""The lexical analyzer: Snowball stemming per language, CJK bigrams, the same analysis for the query.

Sentences are quoted from the real prose of shared/bench/multilingual (Goethe, Daudet, Valera, Dostoevsky,
Lu Xun, Akutagawa)."""

from __future__ import annotations

from batchsum.index.analysis import analyze, cjk_bigrams, query_groups, snowball_name, stem, term_languages


def _meet(words: list[str], language: str | None = None) -> bool:
    return len({stem(w, language) for w in words}) == 1


def test_english_inflections_meet() -> None:
    assert _meet(["die", "died", "dies", "dying"])
    assert _meet(["decide", "decided", "decides", "deciding"])
    assert _meet(["budget", "budgets", "budgeted"])
    assert _meet(["meeting", "meetings", "meet"])
    assert not _meet(["class", "classic"]) and stem("news") != stem("new")


def test_decide_meets_decision_in_a_query() -> None:
    """Snowball keeps the verb and its -ion noun apart ("decid", "decis"); the query group holds both."""
    (group,) = query_groups("decision", [None])
    assert stem("decided") in group and stem("decision") in group
    (group,) = query_groups("decide", [None])
    assert stem("decision") in group
    assert query_groups("when did Lady Scott die?", [None]) == [["ladi"], ["scott"], ["die"]]


def test_german_french_spanish_russian_stemming() -> None:
    # Goethe, Werther: "... der junge Mann ..." / "... die jungen Leute ..."
    assert _meet(["jungen", "junge", "junges"], "de") and _meet(["Briefe", "Brief"], "de")
    # Daudet: "mes livres" / "un livre"
    assert _meet(["livres", "livre"], "fr") and _meet(["parlait", "parler"], "fr")
    # Valera, Pepita Jiménez: "las cartas" / "una carta"
    assert _meet(["cartas", "carta"], "es") and _meet(["hablaba", "hablar"], "es")
    # Dostoevsky, Бедные люди: "письмо", "письма"
    assert _meet(["письмо", "письма", "письме"], "ru")
    # Cyrillic without a recorded language is stemmed as Russian.
    assert stem("письма") == stem("письмо", "ru")
    assert snowball_name("de") == "german" and snowball_name("fr-CA") == "french" and snowball_name("zh") is None


def test_document_and_query_in_the_same_language_meet() -> None:
    text = "Ich habe meine Briefe an die jungen Leute geschickt."
    terms = set(analyze(text, "de"))
    for group in query_groups("jungen Briefen", ["german", None]):
        assert terms & set(group), group


def test_cjk_bigrams_for_documents_and_queries() -> None:
    # Lu Xun, 狂人日记: "今天晚上，很好的月光。"
    assert analyze("今天晚上，很好的月光。") == ["今天", "天晚", "晚上", "很好", "好的", "的月", "月光"]
    assert cjk_bigrams("月") == ["月"]
    # A four-character query is three bigrams, all in the document's terms, whatever language it is tagged.
    doc = set(analyze("我不见他，已是三十多年；今天见了，精神分外爽快。", "zh"))
    groups = query_groups("精神分外", ["english"])
    assert [g[0] for g in groups] == ["精神", "神分", "分外"] and all(g[0] in doc for g in groups)
    # Akutagawa, 歯車: kana and kanji alike become bigrams; Latin words beside them are still stemmed.
    assert analyze("僕はタクシーに乗った meetings") == [
        "僕は",
        "はタ",
        "タク",
        "クシ",
        "シー",
        "ーに",
        "に乗",
        "乗っ",
        "った",
        "meet",
    ]


def test_query_stopwords_and_empty_queries() -> None:
    assert query_groups("what did we decide about the budget?", [None]) == [["decid", "decis"], ["budget"]]
    assert query_groups("the of and", [None]) == []
    assert query_groups("summarize the budget", [None], frozenset({"summarize"})) == [["budget"]]
    assert query_groups("summarize", [None], frozenset({"summarize"})) == [["summar"]]


def test_a_stem_counts_only_in_the_languages_that_made_it() -> None:
    made = term_languages("para resguardarla", ["spanish", "french"])
    # The French stem of a Spanish word matches only French documents, and the other way round.
    assert made[stem("resguardarla", "fr")] == {"french"} and made[stem("resguardarla", "es")] == {"spanish"}
    assert made[stem("para", "fr")] == {"french"}  # a Spanish function word: no Spanish document holds it
    assert term_languages("精神分外", ["english"]) == {}  # CJK bigrams count in every document


def test_a_language_drops_its_own_function_words() -> None:
    """Snowball's stop word list of the document's language: "was ist das?" had found German texts at 1.000."""
    assert analyze("Bester Freund, was ist das Herz des Menschen!", "de") == [
        stem(w, "de") for w in ("bester", "freund", "herz", "menschen")
    ]
    assert query_groups("was ist das?", ["german"]) == []
    # German "die" is an article, English "die" a verb: the query's "die" reaches English documents only.
    assert stem("die", "en") in analyze("She will die at nine.", "en")
    assert query_groups("die", ["german", "english"]) == [[stem("die", "en")]]
    assert term_languages("die", ["german", "english"]) == {stem("die", "en"): {"english"}}
    # Cyrillic without a recorded language is read as Russian, its function words dropped alike.
    assert analyze("и он не знал", None) == [stem("знал", "ru")]
    assert query_groups("он не знал", [None]) == [[stem("знал", "ru")]]


def test_a_text_of_several_languages_drops_the_function_words_of_the_one_it_is_in() -> None:
    """A digest of German and English entries (review): dropping every listed language's function words
    everywhere had lost English "war" and "die" (German function words) from its English days."""
    english = analyze("Visited the war museum with Tom; it was close. I will die of it.", "en", ["de", "en"])
    assert stem("war", "en") in english and stem("die", "en") in english
    german = analyze("Bester Freund, was ist das Herz des Menschen! Ich weiß es nicht.", "en", ["de", "en"])
    assert not {"ist", "das", "des", "ich", "es", "nicht"} & set(german) and stem("herz", "en") in german


def test_a_japanese_word_typed_in_hiragana_is_a_word_of_the_query() -> None:
    """A question's hiragana beside its kanji is its grammar (京都で何をしましたか is 京都); a run of hiragana
    alone is a word typed so, and had been dropped beside a kanji one ("京都 おにぎり" had been 京都: review)."""
    assert query_groups("京都で何をしましたか", ["japanese"]) == [["京都"]]
    assert query_groups("京都 おにぎり", ["japanese"]) == [["京都"], ["おに"], ["にぎ"], ["ぎり"]]
    assert query_groups("Tokyo すし", ["japanese"]) == [["tokyo"], ["すし"]]
