"""A sentence from the middle of a quotation shows its quotation marks, however short the quotation's first
sentence is."""

from __future__ import annotations

from batchsum.backends.units import units_from_text
from batchsum.cleanup import balance_quotes, open_quotation
from batchsum.model import ContentType


def shown(text: str, content_type: ContentType = "document") -> list[str]:
    return [u.text for u in units_from_text(text, content_type)]


def test_the_sentences_after_a_short_exclamation_stay_quoted() -> None:
    text = (
        "They met by appointment, and her first address naturally was, “My dearest creature, what can have "
        "made you so late? I have been waiting for you at least this age!”\n\n"
        "“Have you, indeed! I am very sorry for it; but really I thought I was in very good time. It is but "
        "just one. I hope you have not been here long?”\n\n"
        '"Master!  How is he my master?  Am I a servant?"'
    )
    units = shown(text)
    inside = [u for u in units if "very sorry" in u or "but just one" in u or "my master?" in u]
    assert len(inside) == 3
    for u in inside:
        assert u[0] in '“"' and u[-1] in '”"', u
    # Every unit's marks are whole.
    for u in units:
        assert u.count("“") == u.count("”") and u.count('"') % 2 == 0, u


def test_narration_around_a_closed_quotation_gets_no_marks() -> None:
    text = (
        '“Have you, indeed!” she cried. The room was crowded that morning. He was 12" taller than '
        "the rest. Nobody said anything more about it."
    )
    units = shown(text)
    assert "The room was crowded that morning." in units
    assert "Nobody said anything more about it." in units
    # A new paragraph starts outside any quotation its predecessor left open.
    units = shown("“I began to say something long and winding. Then more.\n\nThe door opened at last and he came in.")
    assert units[-1] == "The door opened at last and he came in."


def test_a_turn_carries_its_quotation_over_its_sentences() -> None:
    units = shown('Ana: He told me "Stop! Put the box down right there on the floor. Now go."', "conversation")
    middle = [u for u in units if "Put the box" in u]
    assert middle and '"Put the box' in middle[0] and middle[0].endswith('"')


def test_open_quotation_reads_on_from_the_mark_open_before() -> None:
    assert open_quotation("“Have you, indeed!") == "“"
    assert open_quotation("I am sorry.", "“") == "“"
    assert open_quotation("I hope not?”", "“") == ""
    assert open_quotation('It is 12" long.') == ""
    assert balance_quotes("It is but just one.", "“") == "“It is but just one.”"
    assert balance_quotes("It is but just one.") == "It is but just one."


def test_a_german_quotation_closes_with_its_own_mark() -> None:
    """German „…“ closes with the mark English opens with: the sentences after it had all been quoted."""
    text = (
        "Am Morgen kam der Bote mit dem Brief aus Weimar. „Das ist für Sie“, sagte er und ging. "
        "Danach ging ich lange im Garten spazieren und dachte über die vergangenen Jahre nach."
    )
    after = next(u for u in shown(text) if "Garten" in u)
    assert not after.startswith(("“", "„", '"')) and not after.endswith(("”", "“", '"')), after
    assert balance_quotes("„Das ist für Sie“, sagte er.") == "„Das ist für Sie“, sagte er."


def test_a_single_quotation_inside_an_open_double_one_is_made_whole_inside_it() -> None:
    assert balance_quotes("You will comfort him.'", '"') == "\"'You will comfort him.'\""


def test_a_stray_mark_quotes_nothing_after_it() -> None:
    """A closing mark typed without its opening one, and an opening one never closed mid-paragraph, are no
    quotation: the rest of the paragraph had been shown as someone's speech."""
    text = (
        "They all yelled 'SURPRISE\". I was shook. This was my first surprise birthday party ever.\n\n"
        'My boss asked me "will you be able with this new position? Remember that the key is to earn respect, '
        "not to impose it. I went home and thought about it for a long time."
    )
    for u in shown(text):
        if "I was shook" in u or "first surprise" in u or "thought about it" in u:
            assert '"' not in u, u
    assert open_quotation("yelled 'SURPRISE\". I was shook.") == ""


def test_a_sentence_from_a_guillemet_quotation_is_shown_quoted_with_its_spaces() -> None:
    """French « ... » (spaces inside), Spanish «...» and German »...«: a sentence from the quotation's middle
    or end shows both its marks, as the index's snippets do."""
    french = shown(
        "Hier soir, mon oncle a pris la parole pendant le dessert du dîner. Il a dit : « Je vais vendre la "
        "maison de Bretagne au printemps prochain. Les réparations du toit coûtent trop cher depuis la tempête. "
        "Personne dans la famille ne veut reprendre les travaux du jardin. » Tout le monde est resté silencieux."
    )
    toit = next(u for u in french if "réparations du toit" in u)
    jardin = next(u for u in french if "travaux du jardin" in u)
    assert toit.startswith("« Les réparations") and toit.endswith(" »"), toit
    assert jardin.startswith("« Personne") and jardin.endswith("jardin. »"), jardin
    assert next(u for u in french if "Bretagne" in u).endswith("prochain. »")
    assert next(u for u in french if "silencieux" in u) == "Tout le monde est resté silencieux."
    german = shown("Sie sagte: »Die Wohnung ist viel zu klein für uns. Wir suchen im Herbst eine neue.« Er schwieg.")
    herbst = next(u for u in german if "Herbst" in u)
    assert herbst == "»Wir suchen im Herbst eine neue.«", herbst
    assert balance_quotes("Las casas son muy caras este año.", open_quotation("Ella dijo: «Vamos.")) == (
        "«Las casas son muy caras este año.»"
    )
