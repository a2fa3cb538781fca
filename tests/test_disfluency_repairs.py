"""A transcript's self-repairs read as disfluency annotation reads them (issue #28): at a ``{disfmarker}``
the abandoned start goes or ends its own sentence, a capitalised restart starts a new one, a word broken
off is dropped ("Bu - Uh", a lower-case "i", a lone spelled letter "R_"), and no two starts are glued."""

from __future__ import annotations

import re

from batchsum.cleanup import clean_transcript
from batchsum.facets import extract_facets
from batchsum.text import split_sentences

# A restart word glued inside a sentence: after a lower-case word or a comma ("the, If", "is It").
_GLUED_RESTART = re.compile(r"(?:[a-z]|,) (?:If|Is|It|This|That's|Those|Anyway|OK)\b")


def _sentences(text: str) -> list[str]:
    return [s.text for line in clean_transcript(text).split("\n") for s in split_sentences(line)]


def test_a_capitalised_restart_after_a_marker_starts_a_sentence_of_its_own() -> None:
    text = (
        "And um , the , uh {disfmarker} If I find someone at {disfmarker} in EML that is interested , we can talk .\n"
        "So , I guess , um {disfmarker} Is there like a latest version of the belief - net ?\n"
        "it won't look anything like this , but {disfmarker} This is very basic the shape of a remote control .\n"
        "OK because That 's {disfmarker} Those are the {disfmarker} I think the {disfmarker} the true key issues ."
    )
    cleaned = clean_transcript(text)
    assert "{" not in cleaned and "\ue000" not in cleaned
    assert len(cleaned.split("\n")) == 4  # the turns stay one a line
    assert not _GLUED_RESTART.search(cleaned), cleaned
    starts = [s.split()[0] for s in _sentences(text)]
    assert {"If", "Is", "This", "I"} <= set(starts), starts
    assert "belief-net" in cleaned  # a tokenizer's spaced hyphen still joins a compound


def test_an_unmarked_capitalised_restart_is_a_break_too() -> None:
    text = "Uh . Part of it , if it works right , is wh It looks like we 're now in a position to build it ."
    sentences = _sentences(text)
    assert any(s.startswith("It looks like we're now") for s in sentences), sentences
    assert not _GLUED_RESTART.search(clean_transcript(text))


def test_a_repair_that_retraces_replaces_what_it_repairs() -> None:
    cleaned = clean_transcript(
        "What I 'm {disfmarker} what my job is , I will , um , give you the input .\n"
        "the knowledge base is uh , in a LISP - like {disfmarker} the knowledge base is in a LISP - like form .\n"
        "it dumps out what it wants to tell the person , to a {disfmarker} er in XML ."
    ).split("\n")
    assert cleaned[0].lower().count("what") == 1 and "will, give" not in cleaned[0], cleaned[0]
    assert cleaned[1].lower().count("knowledge base") == 1, cleaned[1]
    assert "to a in" not in cleaned[2] and cleaned[2].endswith("in XML."), cleaned[2]


def test_words_broken_off_are_dropped() -> None:
    cleaned = clean_transcript(
        "So . Bu - Uh , i The way the dialogue manager works is it dumps out what I want .\n"
        "I think we should reject R_ R_S_I_ R_S_I_ ."
    ).split("\n")
    assert "Bu" not in cleaned[0] and " i " not in f" {cleaned[0]} " and "Uh" not in cleaned[0], cleaned[0]
    assert "_" not in cleaned[1] and cleaned[1].count("RSI") == 1, cleaned[1]


def test_a_facet_item_is_never_an_abandoned_start_nor_the_rooms_mechanics() -> None:
    turns = [
        ("Project Manager", "Um now the new project requirements , I 'll just show them . I got this mail ."),
        ("Project Manager", "Alright then um we 're going to uh have three presentations ."),
        (
            "Project Manager",
            "Um and and then we 'll {disfmarker} as a result of that we will then talk through the functions "
            "that we see the device um actually b carrying out , and we have uh forty minutes to do this in "
            "and I uh {disfmarker} Anyway . Okay .",
        ),
        ("Grad E", "What I 'm {disfmarker} what my job is , I will , um , give you the input on the parser ."),
    ]
    items = [a.task for a in extract_facets(turns).action_items]
    assert not any("show them" in i or "presentations" in i for i in items), items
    assert not any(re.search(r"\bI Anyway\b|\.\.\.?$|\bwe'll as\b", i) for i in items), items
    assert all(i[0].isupper() and i.endswith((".", "!", "?")) and ", give" not in i for i in items), items


def test_an_article_before_a_broken_off_word_goes_with_it() -> None:
    # "the t" is one abandoned phrase: dropping only "t" left "sell the at twenty five Euros".
    cleaned = clean_transcript("The b Uh we will sell the t at twenty five Euros .")
    assert "the at" not in cleaned.lower() and "The we" not in cleaned
    assert "sell at twenty five Euros" in cleaned
    assert clean_transcript("the de the details are fine .") == "The details are fine."
