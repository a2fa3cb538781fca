"""A snippet's sentences: how a summary or a source window splits into sentences, list items and turns.

Each paragraph, list item and speaker's turn is a block of its own (a snippet goes on within one speaker's
words, and "- Tyre pressure: 55 psi." does not run into the next item); a block is split into sentences
as the summarizer splits them (:func:`batchsum.text.split_sentences`), in the block's own language.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from batchsum.cleanup import fix_spacing
from batchsum.datelines import is_dateline
from batchsum.index.analysis import CJK_CLASS, CJK_DATE, NUMBER
from batchsum.language import run_on, stop_words
from batchsum.periods import LOCAL_MONTHS, label_language
from batchsum.speaker_labels import is_turn
from batchsum.text import ABBREVIATIONS, BULLET, email_headers, parse_speaker_line, runs_on, split_sentences

__all__ = ["LETTER", "WORD", "sentences", "sentences_by_paragraph", "speaker"]

# Sentence ends (with a closing quote or bracket after the stop), CJK full stops (after a closing quote),
# paragraph breaks, list items and speaker turns ("Anna: ..."); a hard-wrapped line goes on.
_SENTENCE = re.compile(
    r"(?<=[.!?…][\"'”’»)\]])\s+|(?<=[.!?…][ \u00a0\u202f]»)\s+|(?<=[.!?…])\s+(?=[^\s»])"
    r"|(?<=[。！？])(?![」』”’）])|(?<=[。！？][」』”’）])"
    # A line that opens with a label ("Ana: ...", "Budget: ..."), not a wrapped line of prose that goes on in
    # lower case after a word and a colon ("afternoons: dreadful to me was the coming home ...").
    r"|\n\s*\n|\n(?=\s*(?:" + BULLET + r"|\d+[.)])\s)|\n(?=[^\n:a-z][^\n:]{0,39}:\s)"
)
# The index's words: a CJK date phrase ("5月1日", read as its month and day), and a Latin word written inside
# CJK text ("用Ollama做原型") is a word of its own, as the index reads it; taken with the CJK letters around it,
# it was found whole ("ChatGPT的API太贵了") and never highlighted.
LETTER = rf"[^\W_{CJK_CLASS}]"
WORD = re.compile(rf"{CJK_DATE.pattern}|[{CJK_CLASS}]+|{NUMBER}|{LETTER}+(?:['’]{LETTER}+)?", re.UNICODE)
# German's day ("3. Mai"): its full stop ends no sentence.
_DAY_NUMBER_END = re.compile(r"(?:^|\s)\d{1,2}\.$")
_GERMAN_MONTH = "|".join(LOCAL_MONTHS["de"])
_GERMAN_MONTH_START = re.compile(r"(?:" + _GERMAN_MONTH + r")\b")
_PARAGRAPH = re.compile(r"\n[ \t]*\n")
# A journal final's line opened by its entry's day ("2024-03-15: ..."): another entry, another day's words.
_ENTRY_LINE = re.compile(r"\n(?=[ \t]*\d{4}-\d\d-\d\d:\s)")
_DATELINE_CHARS = 64  # a longer line is no dateline (a dateline alone is at most 60 characters): not read as one


def sentences(text: str) -> list[str]:
    """The sentences of clean text, each on one line, without tokenizer spacing ("It 's", "word ,": how
    some transcripts are written)."""
    return [s for _, s in sentences_by_paragraph(text)]


# A list item's marker: a bullet ("- ", "• ", "▪ ": :data:`batchsum.text.BULLET`), "3. ", "3) " (three digits
# at most: "1826. " is a year; a German day, "3. Mai", is none).
_LIST_ITEM = re.compile(
    r"^[ \t]*(?:" + BULLET + r"|\d{1,3}[.)](?![ \t]+(?:" + _GERMAN_MONTH + r")\b))[ \t]+(?=\S)", re.M
)
_ITEM_NUMBER = re.compile(r"\d{1,3}[.)]")  # what is left of "3. Hire a data engineer." cut at its stop


# A line that labels a page of notes ("Attendees: Priya, Ines, Kwame"; :data:`batchsum.text` keeps the same
# labels from being speakers): a list of names without a stop, no part of the next line's sentence. Only where
# a line can start something (the paragraph's start, after a stop): a wrapped "... those\npresent: agreed" goes on.
_PAGE_LABEL = re.compile(
    r"(?:\A\s*|(?<=[.!?…]\n))[ \t]*(?:attendees|participants|present|absent|apologies|regrets|agenda)[ \t]*:[^\n]*\n",
    re.I,
)


def _items(paragraph: str) -> list[str]:
    """A paragraph cut before each list item, each without its marker (a rendered list shows a bullet, not
    the "-" or "3." written; a task keeps its box, "☐ call the 2 churned customers"), and around a line
    that labels the page ("Attendees: ...")."""
    marks = list(_LIST_ITEM.finditer(paragraph))
    labels = [m.end() for m in _PAGE_LABEL.finditer(paragraph)] if ":" in paragraph else []
    if not marks and not labels:
        return [paragraph]
    cuts = sorted({m.start() for m in marks} | set(labels))
    pieces = [paragraph[a:b] for a, b in zip([0, *cuts], [*cuts, len(paragraph)], strict=True)]
    items = [_LIST_ITEM.sub("", piece, count=1) for piece in pieces]
    return [item for item in items if item.strip()]


def speaker(line: str) -> str | None:
    """Who speaks in the turn ``line`` opens ("Priya: ..."); None for prose, and for reported speech, whose
    colon opens a quotation ('Er sagte: „Wir sollten ...“', "Il m'a dit : « Je vais ... »"): a story's
    narrator is no speaker (:func:`batchsum.speaker_labels.is_turn`; German's own »...« too)."""
    label, said = parse_speaker_line(line)
    if label is None or not is_turn(line) or said.startswith(("»", "‹", "›")):
        return None
    return label


def _turns(paragraph: str) -> list[str]:
    """A paragraph cut before each line that opens a turn ("Priya: ..."): a chat message that ends
    without a stop ends its sentence all the same, and a snippet does not run into the next speaker's."""
    lines = paragraph.split("\n")
    # Prose: a hard-wrapped "report: the budget ..." goes on with its sentence. A conversation's lines are turns
    # also under a first line that is none: a window cut inside a turn starts with its tail.
    if ":" not in paragraph or (speaker(lines[0]) is None and len({speaker(line) for line in lines} - {None}) < 2):
        return [paragraph]
    turns: list[str] = []
    for line in lines:
        who = speaker(line)
        # A lower-case "word:" after a line that runs on is prose wrapped there ("... especially on chilly" /
        # "afternoons: dreadful to me ..."), as the summarizer reads it.
        if turns and (who is None or (who.islower() and runs_on(turns[-1]))):
            turns[-1] += "\n" + line
        else:
            turns.append(line)
    return turns


def sentences_by_paragraph(text: str, language: str | None = None, others: Sequence[str] = ()) -> list[tuple[int, str]]:
    """:func:`sentences` with the index of the paragraph each is in. ``others``: languages a paragraph may be
    written in instead of ``language`` (a digest's files': :func:`_paragraph_language`)."""
    out: list[tuple[int, str]] = []
    # A conversation's turn is a paragraph of its own: a snippet goes on within one speaker's words.
    # A list item is one too: "- Tyre pressure: 55 psi." does not run on into "- Lights stolen ...", and so is
    # a journal final's dated line: "2024-03-12: ..." does not run on into "2024-03-15: ...".
    blocks = [
        entry
        for paragraph in _PARAGRAPH.split(text)
        if email_headers(paragraph.split("\n")) is None  # an e-mail's From/To/Subject block: no answer
        for item in _items(paragraph)
        for turn in _turns(item)
        for entry in _ENTRY_LINE.split(turn)
    ]
    undated = [_undated(block) for block in blocks]
    if any(block.strip() for block in undated):  # a text of nothing but a day's label still shows it
        blocks = undated
    languages: list[str | None] = []  # each paragraph's: a digest's day is in its label's language
    for i, paragraph in enumerate(blocks):
        pieces = _SENTENCE.split(paragraph)
        if len(pieces) > 1 and any(_DAY_NUMBER_END.search(p.rstrip()) for p in pieces):
            pieces = _days_joined(pieces)
        lang = label_language(" ".join(pieces[0].split())) or _paragraph_language(paragraph, language, others)
        languages.append(lang)
        # A lower-cased text (a scraped paper's "... gl × tq. the ase and ashm levels are ..."): no capital tells
        # a sentence's start, so a stop before a lower-case word ends one; joined, a snippet began mid-sentence.
        # A heading in capitals ("BACKGROUND") aside: no word opens with a capital before small letters.
        lowered = not any(w[:1].isupper() and not w.isupper() for w in paragraph.split())
        for s in pieces:
            # A scraped figure caption's stray comma where its label was cut (". , the correlation ..."): no
            # word of the sentence, and a snippet opening on it reads as cut mid-sentence.
            s = " ".join(s.split()).lstrip(",; ") if s else ""
            if not s or _ITEM_NUMBER.fullmatch(s):  # a list's "3." cut off its item on one line
                continue
            if (
                out
                and out[-1][0] == i
                and (
                    _ends_with_abbreviation(out[-1][1])
                    or (not lowered and _goes_on(out[-1][1], s))
                    or _short_form_goes_on(out[-1][1], s, lang)
                )
            ):
                # "... borrowed from Mr." | "Ballantyne the sum of £500"; "Eh !" | "mon Dieu"; "z." | "B. in";
                # "Die Miete steigt ca." | "50 Euro ab August.", "La Dra." | "Fernández me recetó ...".
                out[-1] = (i, out[-1][1] + " " + s)
            elif out and out[-1][0] == i and _inside_quotation(out[-1][1]):
                out[-1] = (i, run_on((out[-1][1], s)))  # "「あなたは誰ですか。" | "同じ人間です」と私は答えた。"
            else:
                out.append((i, s))
    return [(i, fix_spacing(s, languages[i])) for i, s in out]


def _undated(block: str) -> str:
    """``block`` without its lines that are datelines standing alone ("2024年6月30日（星期日）", "30 июня 2024
    года", "Trient, den 10. September, abends."): an entry's label, never one of its sentences
    (:func:`~batchsum.datelines.is_dateline`), whose day the hit's date shows. As a sentence it had been the
    snippet of an entry found by its month's name ("июнь 2024" holds "6月"), showing nothing of the entry, and
    the first sentence under it had begun with it."""
    lines = block.split("\n")
    kept = [line for line in lines if len(line) > _DATELINE_CHARS or not line.strip() or not is_dateline(line)]
    return block if len(kept) == len(lines) else "\n".join(kept)


def _days_joined(pieces: list[str]) -> list[str]:
    """Sentence pieces with a German day's number joined to its month ("3." | "Mai ..." is "3. Mai ...")."""
    out: list[str] = []
    for piece in pieces:
        if out and _DAY_NUMBER_END.search(out[-1].rstrip()) and _GERMAN_MONTH_START.match(piece.lstrip()):
            out[-1] = out[-1].rstrip() + " " + piece.lstrip()
        else:
            out.append(piece)
    return out


def _paragraph_language(paragraph: str, language: str | None, others: Sequence[str]) -> str | None:
    """The language a paragraph is written in: ``language``, or, in a digest of files in several (``others``,
    a year's German and French months), the one whose function words it holds most, the way stop words tell
    a text's language (Grefenstette 1995; :func:`batchsum.index.analysis.analyze` drops them so): a French
    month of a German year keeps its French spacing ("Non : marché aux puces")."""
    candidates = [lang for lang in dict.fromkeys([language, *others]) if lang]
    if len(candidates) < 2:
        return language
    words = [m.group(0).lower() for m in WORD.finditer(paragraph)]

    def held(lang: str) -> int:
        stops = stop_words(lang)
        return sum(w in stops for w in words)

    return max(candidates, key=held)  # the first, the digest's own language, on a tie


# The short form and the two words before it: a German ordinal is read by its determiner ("den 25.").
_LAST_TOKEN = re.compile(r"(?:\S+\s+){0,2}\S+\.$")


def _short_form_goes_on(piece: str, after: str, language: str | None) -> bool:
    """Whether ``piece`` ends on a short form that ``language``'s sentence rules (the summarizer's,
    :func:`batchsum.text.split_sentences`) read on into ``after``: German "ca." | "50 Euro", "Hr." |
    "Yilmaz", Spanish "Dra." | "Fernández", French "env." | "trente". English has its own list
    (:func:`_ends_with_abbreviation`), which its rules share."""
    if language in (None, "en"):
        return False
    m = _LAST_TOKEN.search(piece)
    return m is not None and _one_sentence(m.group(0), " ".join(after.split()[:4]), language)


@functools.lru_cache(maxsize=4096)
def _one_sentence(short: str, after: str, language: str) -> bool:
    """Whether ``language``'s rules read "``short`` ``after``" on past ``short``'s full stop."""
    spans = split_sentences(f"{short} {after}", language)
    return bool(spans) and all(s.start != len(short) + 1 for s in spans)  # no sentence opens on ``after``


_ONE_LETTER = re.compile(r"(?:^|\s)\w\.$")
_OPENS_WITH_LETTER = re.compile(r"\w\.(?:\s|$)")


def _goes_on(piece: str, after: str) -> bool:
    """Whether ``after`` continues the sentence of ``piece``: it opens (past quotes and dashes) with a
    lower-case word, as :func:`batchsum.text.split_sentences` has it ("Eh !" | "mon Dieu"), or a
    one-letter short form runs over both ("Ich höre z." | "B. in der Nacht", "т." | "е. дуэль")."""
    if after.lstrip("\"'“‘«»—–- ")[:1].islower():
        return True
    return _ONE_LETTER.search(piece) is not None and _OPENS_WITH_LETTER.match(after) is not None


def _inside_quotation(sentence: str) -> bool:
    """Whether a Chinese or Japanese quotation opened in ``sentence`` is still open at its end."""
    return sentence.count("「") > sentence.count("」") or sentence.count("『") > sentence.count("』")


# The last word of a piece, after a space, an opening mark or a dash ("was demanded--Mr.", "—Mr.").
_LASTWORD = re.compile(r"(?:^|\s|-|—|–)[(\"'“‘]?([\w.]+)\.$")


def _ends_with_abbreviation(sentence: str) -> bool:
    """Whether a piece ends on a title, a short form or an initial ("Mr.", "e.g.", "Lord B.")."""
    m = _LASTWORD.search(sentence)
    if m is None:
        return False
    word = m.group(1)
    return word.lower() in ABBREVIATIONS or (len(word) == 1 and word.isupper() and word not in "AI")
