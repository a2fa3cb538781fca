"""Snippets of German, French and Spanish text: whole sentences by the summarizer's rules for the text's language
(its short forms end no sentence), a quotation cut from inside shown whole, reported speech read as no speaker's
turn, and each paragraph of a digest of several languages spaced as its own language writes."""

from __future__ import annotations

from batchsum.index.analysis import analyze
from batchsum.index.snippets import make_snippet
from batchsum.text import split_sentences

GERMAN = (
    "Die Miete steigt ca. 50 Euro ab August. Das Paket liegt in der Packstation Nr. 112 neben dem Bahnhof. "
    "Wir treffen uns in der Kastanienallee bei Hr. Yilmaz im Hinterhof. Die Ärztin, Fr. Dr. Becker, hat mir "
    "Tabletten gegen Heuschnupfen verschrieben. Ich brauche evtl. eine neue Brille für die Arbeit."
)
SPANISH = (
    "La Dra. Fernández me recetó pastillas para la alergia. Vivimos en la Avda. de la Constitución desde enero. "
    "El viaje dura aprox. tres horas en autobús. Luego fuimos al cine con la Sra. Ruiz."
)
FRENCH = "J'ai rendez-vous chez le dentiste vers 10 h. Il y avait env. trente personnes au vernissage de Mme Lefèvre."

STORY_DE = (
    "Er sagte: „Die Wohnung muss verkauft werden. Die Nebenkosten steigen jedes Jahr. Wir sollten mit dem "
    "Makler im April sprechen.“ Ich war nicht einverstanden.\n\n"
    "Ich antwortete ihm: »Die Wohnung ist das Letzte, was uns bleibt. Vielleicht zieht Jana im Herbst nach "
    "Leipzig.« Er schwieg lange.\n\n"
    "Sie meinte: „Ihr müsst euch einigen.“ Danach gingen wir spazieren."
)
STORY_FR = (
    "Il m'a dit : « Je vais vendre l'appartement. Nous devons appeler l'agent immobilier en avril. » Je "
    "n'étais pas d'accord.\n\n"
    "Je lui ai répondu : « C'est le dernier souvenir de tes parents. Peut-être que ta fille s'installera à Lyon "
    "à l'automne. » Il s'est tu longtemps."
)


def _query(words: str, language: str) -> list[list[str]]:
    return [[term] for term in analyze(words, language)]


def _snippet(text: str, words: str, language: str | None) -> str:
    return make_snippet(text, _query(words, language or "en"), language=language)[0]


def test_a_short_form_ends_no_snippet_sentence_in_the_texts_language() -> None:
    """Each snippet opens where a sentence opens by the summarizer's rules for the language: "ca.", "Hr.",
    "Fr.", "Dra.", "Avda.", "env." end none ("Die Miete steigt ca." had been cut off "50 Euro ab August.")."""
    cases = [
        (GERMAN, "de", "Euro August", "Die Miete steigt ca. 50 Euro"),
        (GERMAN, "de", "Yilmaz Hinterhof", "Wir treffen uns"),
        (GERMAN, "de", "Becker Heuschnupfen", "Die Ärztin, Fr. Dr. Becker"),
        (SPANISH, "es", "Fernández alergia", "La Dra. Fernández"),
        (SPANISH, "es", "Constitución", "Vivimos en la Avda. de la Constitución"),
        (SPANISH, "es", "Ruiz cine", "Luego fuimos al cine con la Sra. Ruiz."),
        (FRENCH, "fr", "trente vernissage", "Il y avait env. trente"),
    ]
    for text, language, words, opening in cases:
        snippet = _snippet(text, words, language)
        assert snippet.startswith(opening), (words, snippet)
        starts = {s.text for s in split_sentences(text, language)}
        assert any(snippet.startswith(sentence) for sentence in starts), (words, snippet)
        assert not snippet.endswith((" Sra.", " ca.", " Hr."))


def test_a_stop_after_a_word_still_ends_a_sentence() -> None:
    """Negative cases: a German full stop after a word ends its sentence, and English keeps its own rules."""
    assert _snippet("Ich kaufte Brot beim Bäcker. Dann ging ich nach Hause.", "Hause", "de") == (
        "Dann ging ich nach Hause."
    )
    english = "We bought bread at the bakery. Then Dr. Smith walked home with approx. ten friends."
    assert _snippet(english, "walked home", "en") == "Then Dr. Smith walked home with approx. ten friends."
    assert _snippet(english, "walked home", None) == "Then Dr. Smith walked home with approx. ten friends."


def test_a_sentence_cut_from_a_quotation_is_shown_quoted_without_its_reporting_clause() -> None:
    """'Er sagte: „...“' reports speech: no speaker's turn glued onto the quotation's last sentence ("Er
    sagte: Wir sollten ... sprechen.“"), and the sentence gets the mark that opened its quotation."""
    makler = _snippet(STORY_DE, "Makler April", "de")
    assert makler.startswith("„Wir sollten mit dem Makler im April sprechen.“"), makler
    assert "sagte" not in makler
    jana = _snippet(STORY_DE, "Jana Herbst", "de")
    assert jana.startswith("»Vielleicht zieht Jana im Herbst nach Leipzig.«"), jana
    assert "antwortete" not in jana
    # A quotation the snippet ends inside of is closed.
    costs = _snippet(STORY_DE, "Nebenkosten", "de")
    assert costs.startswith("„Die Nebenkosten") and costs.count("„") == costs.count("“"), costs


def test_french_guillemets_are_made_whole_with_their_spaces() -> None:
    """« ... » around a sentence cut from a French quotation, French spacing kept ("répondu :")."""
    agent = _snippet(STORY_FR, "agent immobilier avril", "fr")
    assert agent.startswith("« Nous devons appeler l'agent immobilier en avril. »"), agent
    fille = _snippet(STORY_FR, "fille automne", "fr")
    assert fille.startswith("« Peut-être que ta fille s'installera à Lyon à l'automne. »"), fille
    assert "répondu" not in fille
    souvenir = _snippet(STORY_FR, "dernier souvenir", "fr")
    assert souvenir.startswith("Je lui ai répondu : « C'est le dernier souvenir"), souvenir
    assert souvenir.count("«") == souvenir.count("»"), souvenir


def test_a_conversation_still_says_who_spoke() -> None:
    """Negative case: a transcript's turns are turns ("Ana: ..."), their sentences shown with the speaker."""
    chat = "Ana: Hello there. I'll write the release notes tomorrow.\nTom: Thanks, that helps a lot."
    assert _snippet(chat, "release notes", "en").startswith("Ana: I'll write the release notes tomorrow.")


def test_a_digest_paragraph_is_spaced_as_its_own_language() -> None:
    """A year digest recorded as German holding a French month: that month's snippet keeps French spacing."""
    year = (
        "# 2024\n\n**März** **2024-03.** Die Projektleiterin hat das Budget gekürzt: leider.\n\n"
        "**April.** **2024-04.** Réunion avec M. Dupont au sujet de l'appartement ; il veut le vendre. Marché de "
        "Noël ? Non : marché aux puces au Mauerpark avec Claire.\n"
    )
    groups = _query("puces Mauerpark", "fr")
    french = make_snippet(year, groups, language="de", languages=("de", "fr"))[0]
    assert french == "Non : marché aux puces au Mauerpark avec Claire.", french
    german = make_snippet(year, _query("Budget", "de"), language="de", languages=("de", "fr"))[0]
    assert german == "Die Projektleiterin hat das Budget gekürzt: leider.", german
