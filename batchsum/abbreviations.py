"""Tokens that end with a period but rarely end a sentence, and whether one does where it stands: read by the
sentence splitter (:mod:`batchsum.text`) and by the speaker-label reader (:mod:`batchsum.speaker_labels`).

After an abbreviation the word that follows decides, as in Kiss & Strunk (2006, "Unsupervised Multilingual
Sentence Boundary Detection", the Punkt splitter): a capitalised word ends the sentence before it when it is a
frequent sentence starter ("The", "He", "Then") or when the text at hand writes it in lower case elsewhere (its
orthographic evidence); a name goes on."""

from __future__ import annotations

import re

__all__ = [
    "ABBREVIATIONS",
    "LEADS_ON",
    "NOUN_ABBREVIATIONS",
    "NUMBER_ABBREVIATIONS",
    "PAIR_HEADS",
    "SENTENCE_FINAL",
    "SENTENCE_STARTERS",
    "SHORT_FORMS",
    "SOFT_ABBREVIATIONS",
    "YEAR_FORMS",
    "ends_after_abbreviation",
    "is_abbreviation",
    "joined_initials",
    "name_follows_initials",
]

# Lower-cased, without the period.
ABBREVIATIONS = frozenset(
    """
    mr mrs ms mx messrs mme mlle dr prof sr jr st mt ft hon rev gen col lt sgt capt cmdr adm gov sen rep pres supt insp
    vs etc e.g i.e cf al approx dept est inc ltd co corp bros no nos vol vols fig figs eq eqs sec ch pp p
    jan feb mar apr jun jul aug sep sept oct nov dec mon tue tues wed thu thur thurs fri sat sun
    a.m p.m u.s u.k u.n ph.d b.a m.a m.d
    cal civ cir ct sup supp dep n.d s.d e.d w.d
    """.split()  # the last line: legal citations' courts and reporters ("Cal. Civ. Code", "(9th Cir. 1999)")
)
# Abbreviations that still end a sentence when the next word is capitalised ("... and so on, etc. The").
SOFT_ABBREVIATIONS = frozenset({"etc", "inc", "ltd", "corp", "bros", "a.m", "p.m"})
# Listed abbreviations that are words too: abbreviations only before a number ("No. 5", "Sec. 4", "Sat. 4
# May"); before a word their period ends a sentence ("okay. no. the vendor said").
NUMBER_ABBREVIATIONS = frozenset({"no", "nos", "sat", "sun", "mar", "sec", "wed", "fig"})
# Listed abbreviations that are a noun whole (a country, a body, a degree): they end a clause as the noun would
# ("Sales grew in the U.S. The next quarter was flat.", "She earned her Ph.D. Then she left."); before a name or
# a noun they qualify ("U.S. Army") they go on. Not "e.g." or "i.e.", which lead on to what they introduce.
NOUN_ABBREVIATIONS = frozenset({"u.s", "u.k", "u.n", "ph.d", "b.a", "m.a", "m.d"})
# Each language's short forms that rarely end a sentence and that the splitter of its text (sentencex) lacks,
# lower-cased, without the period: "inkl. Regionalverkehr", "im 18. Jh. und", "av. de la République", "le Dr.
# Leroy", "vedi pag. 7", "le pagg. 12-14", "civico n. 5". Those it knows ("art.", "ecc.", "sig.", "dott.", "M.")
# need no entry.
SHORT_FORMS: dict[str, frozenset[str]] = {
    "de": frozenset({"inkl", "exkl", "zzgl", "jh", "hausnr", "abs", "ziff"}),
    "fr": frozenset({"av", "dr", "pr"}),
    "it": frozenset({"pag", "pagg", "n"}),
}
# Each language's abbreviations that close an enumeration or a measure and so often end a sentence, as written
# (the period of each part but the last left out): before a capitalised word that opens a clause (a function word
# or a sentence adverb, not a name or a noun they qualify) their period ends the sentence too ("и т. д. Вечером",
# "usw. Danach", "ca. 2 Std. Danach"): :func:`batchsum.sentence_ends.final_abbreviation_cuts`. Not "u. a." ("unter
# anderem"): it leads on to what it names ("u. a. Essen mitgebracht") far more often than it ends a sentence.
SENTENCE_FINAL: dict[str, tuple[str, ...]] = {
    "ru": ("и т. д", "и т. п", "и др", "и пр"),
    "de": ("usw", "usf", "etc", "Std"),
}
# The first part of the lower-case abbreviation pairs, per script: "z. B.", "d. h.", "u. a.", "o. Ä.", "s. o.",
# "v. a.", "i. d. R.", "e. V.", "m. E.", "a. D."; "т. е.", "т. д.", "т. к.", "и. о.", "с. г.", "д. т. н.", "н. э.".
# Only these open a pair: a short word that ends a sentence before an initial is none ("Ich weiß es. A. Schmidt",
# "сам, да. А. С. Пушкин").
PAIR_HEADS = frozenset("z d u o s v i e m a т и с д н".split())
# Forms that end a sentence only after a year's number ("3 мая 2024 г. Потом"): elsewhere "г." is "город"
# before a place's name ("г. Москва").
YEAR_FORMS: dict[str, tuple[str, ...]] = {"ru": ("г", "гг")}
# Words a sentence never ends on (articles, prepositions, conjunctions, determiners, auxiliaries): a line that
# ends on one goes on ("... looking to the throne of" / "England, paid his respects ...").
LEADS_ON = frozenset(
    """a an the of to in on at by for with from into upon and or but nor than that which who whose my your his
    its our their this these those is are was were be been has have had will would shall should can could may
    might must as if""".split()
)
# Capitalised, these open a sentence and are no part of a name (Punkt's frequent sentence starters, which it
# learns from a corpus: function words, pronouns and sentence adverbs): after an abbreviation that can end a
# clause ("Washington, D.C. Then they met", "in the U.S. He was") the sentence ends before them.
SENTENCE_STARTERS = LEADS_ON | frozenset(
    "i we you he she it they there here then so now also yet however after before when while once".split()
)
# An initial ("J"), or initials joined by dots, as a name or a firm writes them ("J.P. Morgan", "Banco S.A.",
# "Philips N.V.", "Siemens A.G."): single letters, never a word, a number or a file's name ("v1.2", "app.py").
_INITIALS = re.compile(r"[^\W\d_](?:\.[^\W\d_])*")


def is_abbreviation(token: str) -> bool:
    """Whether a period after ``token`` (the word before it, without that period) marks an abbreviation or
    initials rather than a sentence's end: "Dr", "e.g", "J", "J.P", "S.A"."""
    t = token.lower()
    return t in ABBREVIATIONS or _INITIALS.fullmatch(t) is not None


def joined_initials(token: str) -> bool:
    """Whether ``token`` is two or more initials joined by dots that are no listed abbreviation ("J.P",
    "S.A", "D.C"): before a name they end no sentence ("J.P. Morgan"), before a word no name holds they may
    ("Washington, D.C. Then they met"). Listed ones ("U.S", "e.g") keep their own rule."""
    t = token.lower()
    return "." in t and t not in ABBREVIATIONS and _INITIALS.fullmatch(t) is not None


# A capitalised word, and what may stand right after it.
_WORD_AFTER = re.compile(r"([^\W\d_]+)(?:\s+(?=[^\W\d_])(?P<cap>[^\W\d_])|\s*(?P<stop>[.:!?]))?")
_LAST_WORD = re.compile(r"[^\W\d_]+$")


def name_follows_initials(before: str, after: str, text: str) -> bool:
    """Whether the capitalised word that opens ``after`` (the text past joined initials, ``before`` the text
    ahead of them, ``text`` their paragraph) reads as a name that goes on with them rather than a sentence's
    first word: never a word ``text`` writes in lower case; a name when another capitalised word follows
    ("J.P. Morgan Chase"), when it stands alone before a stop or a colon ("with J.P. Morgan.", "A.G. Rota:"),
    or when the initials close a name of their own ("Banco S.A. Santander", "Siemens A.G. Munich").
    Otherwise the initials end the sentence ("We flew to L.A. Traffic was terrible.")."""
    m = _WORD_AFTER.match(after)
    if m is None:
        return False
    word = m.group(1)
    if re.search(rf"(?<![^\W\d_]){re.escape(word.lower())}(?![^\W\d_])", text):
        return False  # "traffic" elsewhere: a word
    if _name_goes_on(m):
        return True
    last = _LAST_WORD.search(before.rstrip())
    # Only the word right before the initials, with nothing between: "Washington, D.C. Then" has a comma. A
    # capitalised word there makes the initials a name's middle ("President J.F. Kennedy spoke") even where
    # "Kennedy" opens sentences elsewhere ("Kennedy won Ohio."): a surname is capitalised wherever it stands, so
    # Punkt's evidence that a word is capitalised only as a sentence's first says nothing about it. The cost:
    # "Washington D.C. Traffic cameras ..." stays one sentence.
    return last is not None and last.group(0)[:1].isupper() and before[last.end() :].isspace()


def _name_goes_on(m: re.Match[str]) -> bool:
    """Whether the capitalised word ``m`` matched (:data:`_WORD_AFTER`) has another after it, or a stop or a
    colon ("J.P. Morgan Chase", "with J.P. Morgan.", "A.G. Rota:"): a name's words."""
    return (m.group("cap") or "").isupper() or bool(m.group("stop"))


def ends_after_abbreviation(token: str, before: str, after: str, text: str) -> bool:
    """Whether the period after the abbreviation ``token`` (lower-cased, no period) ends its sentence before
    ``after`` (the text past it, opening quotes left out, opening with a capital), ``before`` the text ahead of
    the token and ``text`` its paragraph. A soft abbreviation does ("etc. The"); joined initials do unless a name
    follows them (:func:`name_follows_initials`: "J.P. Morgan", not "L.A. Traffic"); so does a noun's
    abbreviation (:data:`NOUN_ABBREVIATIONS`) before a sentence starter only: it qualifies the noun after it more
    often than it ends a clause ("U.S. Army units", "U.K. Treasury"), which a text's evidence cannot tell apart."""
    if token in SOFT_ABBREVIATIONS:
        return True
    m = _WORD_AFTER.match(after)
    if m is None or not (joined_initials(token) or token in NOUN_ABBREVIATIONS):
        return False
    if m.group(1).lower() in SENTENCE_STARTERS:
        return True
    return joined_initials(token) and not name_follows_initials(before, after, text)
