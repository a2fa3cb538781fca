"""Cleaning a sentence for a reader: transcript markup and disfluencies (``{disfmarker}``, "um", "the the",
words broken off), tokenizer spacing ("we 're", "word ,"), spaced ellipses, and quotation marks made whole.
Line by line, so a transcript keeps its turns; it never splits sentences (:mod:`batchsum.text` does)."""

from __future__ import annotations

import re

from batchsum.disfluency import INTERRUPTION, is_dangling, mark_restarts, names, resolve_interruptions
from batchsum.text import is_abbreviation_at

__all__ = [
    "ANY_QUOTE_MARK",
    "CUE_WORDS",
    "DOUBLE_MARKS",
    "NUMBER_WORDS",
    "SHORT_WORDS",
    "balance_quotes",
    "clean_transcript",
    "fix_spacing",
    "is_number_word",
    "open_quotation",
    "without_cues",
]

# The sounds a transcript marks as heard, not said ("[laughter]", "[Music]", "(applause)"): a caption's cue
# words, which tell its cue lines from a book's "[Illustration]" (bracket_turns.caption_cue_lines).
CUE_WORDS = (
    r"laughter|laughs|laugh|laughing|chuckles|chuckling|giggles|noise|inaudible|crosstalk|music|applause"
    r"|clapping|cheering|cheers|silence|pause|unintelligible|coughs?|coughing|sighs?|sighing|gasps?|groans?"
    r"|background noise|overlapping|whispers?|whispering|bleep|beeps?"
)
# A cue as Zoom, Otter and Rev write it, in either bracket and with the time it was heard at
# ("[inaudible 00:00:32]", "(crosstalk 01:02)", "(laughs)"): text of no kind says that in brackets.
_TIMESTAMP = r"(?:[ \t]+\d{1,2}(?::\d\d){1,2}(?:[.,]\d+)?)?"
_CUE_MARKUP = re.compile(rf"[ \t]*[\[(](?:{CUE_WORDS}){_TIMESTAMP}[\])]", re.IGNORECASE)
# Words the transcriber did not hear: where they stood the sentence has a hole ("…"), as after "{gap}". An
# ellipsis the transcript wrote beside the cue ("[inaudible 00:00:32]...the movers") is that same hole.
_LOST_WORDS = re.compile(
    rf"[ \t]*(?:\.{{3}}|…)?[ \t]*[\[(](?:inaudible|unintelligible){_TIMESTAMP}[\])][ \t]*(?:\.{{3}}|…)?[ \t]*"
    r"(?P<stop>[.!?](?![\w.]))?",
    re.IGNORECASE,
)
_OPENING = re.compile(r"(?:\A|[.!?:\n])[\"'“‘]?[ \t]*\Z")
_MARKERS = re.compile(
    rf"\{{[A-Za-z_]+\}}|\[(?:{CUE_WORDS})\]|<(?:unk|noise|laugh)>"
    # Caption cues: "(laughter)", "(water splashing)", "[click, TV static]". In a transcript a short
    # bracketed aside is a sound or stage direction, never something a speaker said.
    r"|\((?:[a-z]+(?:[ -][a-z]+){0,2})\)|\[[^\]\n]{1,40}\]",
    re.IGNORECASE,
)
# Only what is markup whatever the text: a reader that reads the whole turn (an LLM's prompt) keeps a
# speaker's own brackets ("x[0]", "[design doc](url)", "(approx)"), which the rule above takes for cues.
_CUE_MARKERS = re.compile(rf"\{{[A-Za-z_]+\}}|\[(?:{CUE_WORDS})\]|<(?:unk|noise|laugh)>", re.IGNORECASE)
_FILLER_SPELLINGS = r"(?:u+m+|u+h+m*|e+r+m+|e+r+|a+h+|h+m+|m+h*m+|m+-h+m+|u+h+-h+u+h+|uh-oh)"
_FILLERS = re.compile(rf"(?<![\w'-]){_FILLER_SPELLINGS}(?![\w'-])[ \t]*,?", re.IGNORECASE)
_FILLER_HEAD = re.compile(r"[\w-]+")
_AFTER_NUMBER = re.compile(r"\d[ \t]*\Z")


def _is_filler(word: str, before: str) -> bool:
    """Whether ``word``, a filler's spelling after the text ``before``, is one: said in lower case or
    capitalised ("um", "Uh", "Mm-hmm"), never in capitals (an acronym: "the ER report") nor right after a
    number (a unit: "3 mm", "5 Ah")."""
    return word[1:].islower() and not _AFTER_NUMBER.search(before[-12:])


def _unfilled(m: re.Match[str]) -> str:
    """A matched filler gone (a space left), or kept as written where it is a unit or an acronym."""
    word = _FILLER_HEAD.match(m.group(0))
    keep = word is not None and not _is_filler(word.group(0), m.string[: m.start()])
    return m.group(0) if keep else " "


# "you know" and "I mean" are fillers only when set off by a comma and not what a word before them
# governs: "So, you know, we ..." loses them, "as some of you know, the ..." and "Do you know the
# way?" keep them.
_DISCOURSE = re.compile(r"(?<![\w'-])(?:you know|i mean)(?![\w'-])[ \t]*(,?)", re.IGNORECASE)
_WORD_BEFORE = re.compile(r"([\w'’]+)([ \t]*,?)[ \t]*$")
_GOVERNING = frozenset(
    """
    as of if do does did don't didn't dont what how whether that who whom all because since when where why
    to can could would will should might must than
    """.split()
)


def _drop_discourse(m: re.Match[str]) -> str:
    """The matched "you know" / "I mean" removed when it is a filler, else kept as it stands."""
    before = _WORD_BEFORE.search(m.string, max(0, m.start() - 40), m.start())
    if before is not None and before.group(1).lower() in _GOVERNING:
        return m.group(0)
    set_off = bool(m.group(1)) or (before is not None and "," in before.group(2))
    return "" if set_off else m.group(0)


# Code typed into a chat is no speech: a word glued to a path's slash, a module's dot, a scope's "::" or a
# call's bracket ("test tests/test_tax.py::test_vat", "cat cat.txt") is a token of code, not a stutter.
_CODE_GLUE = r"(?:[/\\.@]|::|[(\[])\w"
_REPEAT = re.compile(rf"\b(\w+(?:'\w+)?)(?:[ \t]+\1\b(?!{_CODE_GLUE}))+", re.IGNORECASE)
# A number read out digit by digit ("four two zero zero one seven") repeats on purpose.
NUMBER_WORDS = frozenset(
    "zero oh one two three four five six seven eight nine ten eleven twelve twenty thirty forty fifty sixty "
    "seventy eighty ninety hundred thousand million".split()
)
# Letters spelled one by one, as the AMI corpus writes them ("V_C_R_", "L_C_D_"): the word they spell.
# A letter said alone ("reject R_ R_S_I_") is one too: the start of the word spelled next.
_SPELLED_OUT = re.compile(r"\b(?:[A-Za-z]_)+(?!\w)")
# QMSum's interruption point: resolved as a self-repair (:mod:`batchsum.disfluency`), not a mere space.
_DISFMARKER = re.compile(r"\{disfmarker\}", re.IGNORECASE)


# A turn broken off at an interruption point, nothing but fillers and markers after it before its end ("I must
# say that it {disfmarker} Hmm ."): it ends on the marker, as a turn broken off there does ("... by
# {disfmarker}"), without the stop that had made it a whole sentence ("I must say that it."). Left unended, it
# is broken off to the summarizer and the facets (units.py, facets.py: a punctuated transcript's unended
# sentence). A "…" instead (read as a pause after a whole phrase, noise.is_fragment) had put such turns in
# meetings' finals ("So if you don't want…"): QMSum's first 40 finals held 16 such lines, 7 before.
def _broken_off_turn(markers: re.Pattern[str]) -> re.Pattern[str]:
    """The broken-off turn's pattern, its tail's markup what ``markers`` matches."""
    return re.compile(
        rf"(?<=[\w'’])[ \t]*[,;]?[ \t]*\{{disfmarker\}}"
        rf"(?P<tail>(?:[ \t,]*(?:{markers.pattern}|(?<![\w'-]){_FILLER_SPELLINGS}(?![\w'-])))*)[ \t,]*[.!?]?[ \t]*$",
        re.IGNORECASE | re.MULTILINE,
    )


_BROKEN_OFF_TURN = _broken_off_turn(_MARKERS)
_BROKEN_OFF_TURN_CUES = _broken_off_turn(_CUE_MARKERS)
# Words the transcriber did not hear ("{gap}"): a sentence whose last word before them leaves its phrase
# open ("First we have a look at {gap} .") was broken off there; it trails off ("…") and is no candidate.
_GAP = re.compile(r"(?<![\w'’-])([\w'’]+)[ \t]*\{gap\}[ \t]*(?:[.!?](?=\s|$))?", re.IGNORECASE)


# A phrase of two or three words said twice in a row ("can be can be easy"): once, as a word is.
_PHRASE_REPEAT = re.compile(
    rf"(?<![\w'’-])((?:\w+(?:'\w+)?[ \t]+){{1,2}}\w+(?:'\w+)?)(?:[ \t]+\1(?![\w'’-]|{_CODE_GLUE}))+", re.IGNORECASE
)
# A word broken off, then retraced from the word before it and said whole ("the cha the channel"):
# the broken-off try goes.
_RETRACED_CUT_OFF = re.compile(
    rf"(?<![\w'’-])([A-Za-z]+)[ \t]+([A-Za-z]{{1,4}})[ \t]+(?=\1[ \t]+\2[A-Za-z](?!\w*{_CODE_GLUE}))", re.IGNORECASE
)
# In a tokenized transcript: a capital letter alone opening a sentence before a capitalised word ("Y
# Hard plastic", "B But no") is a word broken off, as its lower-case "s What" is; "A", "I" and "O" are words.
_LONE_CAPITAL_START = re.compile(r"(?:^|(?<=[.!?:] ))[B-HJ-NP-Z][ \t]+(?=[A-Z][a-z])", re.MULTILINE)
# An article before a conjunction, which no article stands before ("hard an and strong"): the broken-off
# start of the word after it. Before another article it stays: which of the two was broken off cannot be told
# ("just an a approximation" is no better as "just a approximation").
_ARTICLE_CUT_OFF = re.compile(r"(?<![\w'’-])(?:an|the)[ \t]+(?=(?:and|or|but|nor)(?![\w'’-]))")


def _unrepeated_phrase(m: re.Match[str]) -> str:
    """A phrase said twice once, but a number's digits read out ("one two one two") and a coordination
    said on purpose ("on and on and on", "this and this and this") as they were said."""
    words = m.group(1).split()
    if all(is_number_word(w) for w in words) or words[-1].lower() in ("and", "or"):
        return m.group(0)
    return m.group(1)


def _unrepeated(m: re.Match[str]) -> str:
    """A stuttered word once ("the the", "one one implication"), but the digits of a number read out one
    by one ("four two zero zero one seven": a number word beside other number words) as they were said."""
    word = m.group(1)
    if is_number_word(word):
        beside = m.string[: m.start()].split()[-1:] + m.string[m.end() :].split()[:1]
        if any(is_number_word(w.strip(".,;:!?")) for w in beside):
            return m.group(0)
    return word


def is_number_word(word: str) -> bool:
    """A digit string or a number's word ("zero", "twenty", "thousand")."""
    return word.isdigit() or word.lower() in NUMBER_WORDS


# A cut-off word start repeated as the full word ("ho how", "w we're", "inter- interface").
# Never the clitic of a contraction: "let's suppose", "don't think" and "we're recording" are not stutters.
_FRAGMENT = re.compile(
    rf"(?<!['’])\b([A-Za-z]{{1,4}})-?[ \t]+(?=(\1)[A-Za-z'](?![A-Za-z']*(?:\d|_|{_CODE_GLUE})))", re.IGNORECASE
)
_REAL_SHORT_WORDS = frozenset(
    """
    a i an as at be by do go he if in is it me my no of on or so to up us we am and are but can did for get had
    has her him his how its let may new not now one our out own put say see she the too two use was way who why
    yes you all any few off old per set ten this that than them then they what when with were will your into
    also back been both come each even from have here just know like look made make many more most much must
    need next only over same some such take tell them then there these they this time very want well what
    """.split()
)
# A word broken off before another starts ("It w I don't know", "the de the details"): in a transcript
# with tokenizer spacing, which writes out every restart, a lower-case one- or two-letter token that
# is not a word. Not in other text: chat writes "u" and "r" for words.
# An article right before it was the broken-off phrase's ("we will sell the t at twenty five Euros").
_CUT_OFF = re.compile(
    rf"(?<![\w'’-])(?:(?i:the)[ \t]+(?=[a-z]{{1,2}}[ \t]))?([a-z]{{1,2}})[ \t]+(?=[A-Za-z{INTERRUPTION}])"
)
# Where the pronoun is written "I", a lower-case "i" is a word broken off ("Bu - Uh , i The way").
_PRONOUN_I = re.compile(r"(?<![\w'’-])I(?:['’]\w+)?(?![\w'’-])")
# One- and two-letter tokens that are words; anything else that short is a word broken off ("We s
# decide"). The transcript cleaner also keeps interjections, abbreviations and a variable.
SHORT_WORDS = frozenset(
    "a i am an as at be by do go he hi if in is it me my no of oh ok on or so to up us we ye id tv uk eu un pm".split()
)
_CUT_OFF_KEEPS = SHORT_WORDS | frozenset("ad ah aw dr em et ex ma mr ms ow pa st vs x ya yo".split())
_ORPHAN_END = re.compile(r"(?<=[.!?])[ \t]+[.!?]+(?=\s|$)")
# A printed book's spaced ellipsis (". . .") is one mark; left spaced, _ORPHAN_END would take it for
# tokenizer debris and keep one period ("He paused. and then").
_SPACED_ELLIPSIS = re.compile(r"\.(?:[ \t]\.){2,}")
# The look-behinds start a match only where a run of blanks starts: tried from every blank of a long run,
# these were quadratic (seconds for 30,000 spaces). Same matches.
_SPACE_BEFORE = re.compile(r"(?<![ \t])[ \t]+([,.;:!?%)\]}])")
# French sets a space before its high punctuation ("Eh ! mon Dieu", "souvenir ; on"): that is typography,
# not a tokenizer's spacing, and a summary quotes it as written.
_SPACE_BEFORE_FR = re.compile(r"(?<![ \t])[ \t]+([,.)\]}])")
# German and French set a space before "%" too ("um 10 % gekürzt", DIN 5008; "de 25 %"): quoted as written.
_SPACE_BEFORE_DE = re.compile(r"(?<![ \t])[ \t]+([,.;:!?)\]}])")
_SPACED_BY_LANGUAGE = {"fr": _SPACE_BEFORE_FR, "de": _SPACE_BEFORE_DE}
# A quotation mark spaced off the sentence it opens or closes ('" I had no trouble', 'so it ends "').
_QUOTE_SPACED_OFF = re.compile(r'^"[ \t]+(?=\w)|(?<=[\w.,!?])[ \t]+"$')  # replaced by the quotation mark alone
_SPLIT_CLITIC = re.compile(r"(\w)[ \t]+('(?:s|re|ve|ll|d|m|t)|n't)\b", re.IGNORECASE)
# Tokenizer spacing on both sides of the apostrophe ("don ' t", "I ' Ve"): the clitic rejoins, lower-cased.
_SPACED_CLITIC = re.compile(r"(\w)(?:[ \t]+['’][ \t]*|['’][ \t]+)(s|re|ve|ll|d|m|t)\b", re.IGNORECASE)
# The same spacing in the elisions that are whole words ("Ma ' am", "o ' clock", "y ' all").
_SPACED_ELISION = re.compile(
    r"\b(ma(?=\W+am\b)|o(?=\W+clock\b)|y(?=\W+all\b))(?:[ \t]+['’][ \t]*|['’][ \t]+)(am|clock|all)\b", re.IGNORECASE
)
# A plural's possessive, spaced off by a tokenizer: "two hours ' time", "the customers ' needs".
_SPACED_PLURAL_POSSESSIVE = re.compile(r"(?<=\ws)[ \t]+['’][ \t]+(?=[a-z])")
# Tokenized transcripts (QMSum's "we 're", "word ,") also space their hyphens: "belief - net".
_TOKENIZED = re.compile(r"\w [,.?](?=\s|$)", re.MULTILINE)
_MARKS = re.compile(r"[,.?](?=\s|$)", re.MULTILINE)
# Never onto a filler: "Bu - Uh" is a word broken off (the transcriber's hyphen) before an "uh".
_FILLER_WORD = r"(?:u+m+|u+h+m*|e+r+m+|e+r+|a+h+|h+m+)(?![\w'-])"
_SPACED_HYPHEN = re.compile(rf"(?<=[A-Za-z]) - (?=[A-Za-z])(?!{_FILLER_WORD})", re.IGNORECASE)
# A filler set off by commas ("I will , um , give you"): the commas mark its pause, not the sentence's
# clauses; after a word that cannot stand before a comma (a modal, an article, a conjunction) both go.
_FILLER_SET_OFF = re.compile(rf"(?<![\w'’-])([\w'’]+)[ \t]*,[ \t]*({_FILLER_WORD})[ \t]*,", re.IGNORECASE)
_HYPHEN_CUT_OFF = re.compile(rf"(?<![\w'’-])[A-Za-z]+ - (?={_FILLER_WORD})", re.IGNORECASE)
# A currency sign spaced off its amount by a tokenizer ("$ 10").
_SPACED_CURRENCY = re.compile(r"(?<=[$£€¥])[ \t]+(?=\d)")
# A clitic capitalised as if a word of its own ("I'Ve", "We'Re"): a title-casing tokenizer's doing.
_CAPITAL_CLITIC = re.compile(r"(?<=[A-Za-z]['’])(Ve|Re|Ll)\b")
# Not a scope's "::" between words (tests/test_tax.py::test_vat, std::vector): code, no doubled mark.
_MULTI_PUNCT = re.compile(r"(?!::\w)([,;:])(?:[ \t]*[,;:])+")
_COMMA_BEFORE_END = re.compile(r"[,;:][ \t]*([.!?])")
_LINE_HEAD = re.compile(r"^[ \t,;:.\-–—]+", re.MULTILINE)
_LINE_TAIL = re.compile(r"(?<![ \t,;:])[ \t,;:]+$", re.MULTILINE)
_SPACES = re.compile(r"[ \t]{2,}|\t")
# Only a word: "pyproject.toml" or "e.g." opening a line keeps its case; so does one after an ellipsis, and
# one after an abbreviation's period (_capitalized), which ends no sentence.
_LONE_LETTER = re.compile(r"(?<![\w.])[^\W\d_]\Z")
_LOWER_AFTER_END = re.compile(r"(^|(?<!\.\.)[.!?] )([a-z])(?=[a-z'-]*(?:[\s,;:!?]|\.(?!\w)|$))", re.MULTILINE)


# A line holding a straight quote spaced off on both sides, as a tokenizer leaves it ('say , " this is it " and').
_SPACED_QUOTES = re.compile(r'^.*(?:^|[ \t])"(?:[ \t].*)?$', re.MULTILINE)
_EMPTY_QUOTE = re.compile(r'(?:^|(?<=[ \t]))"[ \t]+"(?=[ \t,.;:!?]|$)', re.MULTILINE)  # what was quoted was a sound
_LOOSE_QUOTE = re.compile(r'(?:^|(?<=[ \t]))"(?=[ \t]|$)', re.MULTILINE)


def _join_quotes(m: re.Match[str]) -> str:
    """Every loose quote of one line against its words: the first opens (its space after goes), the
    next closes (its space before goes), and so on."""
    parts = _LOOSE_QUOTE.split(m.group(0))
    out = parts[0]
    for k, part in enumerate(parts[1:]):
        if k % 2 == 0 and part.strip():  # a lone quote at the line's end closes
            out += '"' + part.lstrip(" \t")
        else:
            out = out.rstrip(" \t") + '"' + part
    return out


def clean_transcript(text: str, *, cues_only: bool = False) -> str:
    """Remove disfluency markers (``{disfmarker}``, ``{vocalsound}``, ``[laughter]``), filler words
    (um, uh, mm-hmm, "you know"), stuttered repeats ("the the"), empty quotations and tokenizer spacing
    (``we 're``, ``word ,``, and in such tokenized text ``belief - net``, ``say " this "`` and words
    broken off: "We m We may") from transcript text. Works line by line: the number of lines never
    changes. With ``cues_only`` only known markup goes (``{...}`` tokens, :data:`CUE_WORDS` in brackets),
    not any short bracketed aside, and inline code spans are kept as written: for a reader of whole turns.
    """
    if not text:
        return ""
    spans: list[str] = []
    if cues_only and "`" in text and _CODE_MASK.search(text) is None:
        text = _ONE_LINE_CODE.sub(lambda m: _masked(m, spans), text)
    s = (_BROKEN_OFF_TURN_CUES if cues_only else _BROKEN_OFF_TURN).sub(_broken_off, text) if "{" in text else text
    s = _GAP.sub(_gap, _DISFMARKER.sub(f" {INTERRUPTION} ", s))
    # A dash or an ellipsis in punctuated speech ("do I see-- You said") is left as written: read as an
    # interruption point it cost CRD3's game transcripts 0.2 R-2 and R-Lsum.
    s = (_CUE_MARKERS if cues_only else _MARKERS).sub(" ", without_cues(s))
    if "_" in s:
        s = _SPELLED_OUT.sub(lambda m: m.group(0).replace("_", ""), s)
    # Tokenized when most of its marks stand apart ("word ,"; QMSum's 0.97-1.0): one such mark in an
    # agent session's code had made every two-letter token a word broken off ("chall.py" lost its "py").
    spaced = len(_TOKENIZED.findall(s))
    tokenized = spaced > 0 and 2 * spaced >= len(_MARKS.findall(s))
    if tokenized:
        s = _SPACED_HYPHEN.sub("-", _HYPHEN_CUT_OFF.sub("", s))
    s = _FILLER_SET_OFF.sub(_filler_set_off, s)
    s = _DISCOURSE.sub(_drop_discourse, _FILLERS.sub(_unfilled, s))
    s = _rejoined_clitics(s)
    # After the fillers and markers are gone: an empty quotation is what they leave (and in tokenized
    # text, below, the spaces inside a quotation are spacing too).
    s = _SPACES.sub(" ", _EMPTY_QUOTE.sub(" ", s))
    if tokenized:
        s = _SPACED_QUOTES.sub(_join_quotes, s)
        # A transcribed meeting, where a one- or two-letter non-word is a word broken off.
        keeps = _CUT_OFF_KEEPS - {"i"} if _PRONOUN_I.search(s) else _CUT_OFF_KEEPS
        s = _CUT_OFF.sub(lambda m: m.group(0) if m.group(1) in keeps else "", s)
    s = _REPEAT.sub(_unrepeated, s)
    s = _RETRACED_CUT_OFF.sub("", _PHRASE_REPEAT.sub(_unrepeated_phrase, s))
    if tokenized:
        s = _ARTICLE_CUT_OFF.sub("", _LONE_CAPITAL_START.sub("", s))
    s = _FRAGMENT.sub(lambda m: m.group(0) if m.group(1).lower() in _REAL_SHORT_WORDS else "", s)
    if tokenized:  # after the stutters are one word: "We We may" is said again, not started over
        s = mark_restarts(s)
    s = _SPACE_BEFORE.sub(r"\1", _ORPHAN_END.sub("", _SPACED_ELLIPSIS.sub("...", s)))
    if INTERRUPTION in s:
        known = names(s)
        s = "\n".join(resolve_interruptions(line, known) for line in s.split("\n"))
    s = _CAPITAL_CLITIC.sub(lambda m: m.group(1).lower(), _SPACED_CURRENCY.sub("", s))
    s = _MULTI_PUNCT.sub(r"\1", s)
    s = _COMMA_BEFORE_END.sub(r"\1", s)
    s = _LINE_TAIL.sub("", _LINE_HEAD.sub("", s))
    s = _LOWER_AFTER_END.sub(_capitalized, s)
    return _CODE_MASK.sub(lambda m: spans[ord(m.group(0)) - _MASK_BASE], s) if spans else s


# Inline code held out of the cleaning as one private-use character each (no rule reads it as a word, a
# stutter or a mark), put back at the end: a self-repair may drop one with its words, so each is its own.
_ONE_LINE_CODE = re.compile(r"(`+)[^`\n]+?\1")
_MASK_BASE = 0xF0000
_CODE_MASK = re.compile("[\U000f0000-\U000ffffd]")


def _masked(m: re.Match[str], spans: list[str]) -> str:
    """The code span's stand-in, recorded in ``spans``; past the characters there are, the span as written."""
    if len(spans) >= 0xFFFE:
        return m.group(0)
    spans.append(m.group(0))
    return chr(_MASK_BASE + len(spans) - 1)


def _filler_set_off(m: re.Match[str]) -> str:
    """A filler between commas gone with its commas (the one before stays where the word before takes one)."""
    if not _is_filler(m.group(2), m.string[: m.start(2)]):
        return m.group(0)
    return m.group(1) + ("" if is_dangling(m.group(1)) else ",")


def without_cues(text: str) -> str:
    """``text`` without a transcript's cues in brackets ("[inaudible 00:00:32]", "(laughs)", "[crosstalk]"):
    words lost to an inaudible stretch leave "…" where they were, the sentence's words around it kept."""
    if "[" not in text and "(" not in text:
        return text
    return _CUE_MARKUP.sub("", _LOST_WORDS.sub(_lost_words, text))


def _lost_words(m: re.Match[str]) -> str:
    """The mark an inaudible stretch leaves: "…" against the words it cut off (the next ones at a
    sentence's start, the last ones at its end), spaced between words, nothing where no word is left."""
    before, after = m.string[max(0, m.start() - 3) : m.start()], m.string[m.end() : m.end() + 1]
    opening, closing = bool(_OPENING.search(before)), after in ("", "\n") or bool(m.group("stop"))
    if opening and closing:
        return ""
    if opening:
        return ("" if before[-1:] in ("", "\n") else " ") + "…"
    if closing or after in ",;:":  # the stop after it is the mark's own
        return "…" + (" " if m.group("stop") and after.strip() else "")
    return " … "


def _broken_off(m: re.Match[str]) -> str:
    """A turn's end from its interruption point gone, stop and all, when all that followed were fillers (not a
    word written in capitals, "HMM", which may be an acronym) and markers: the turn ends where it broke off."""
    words = _FILLER_HEAD.findall(_MARKERS.sub(" ", m.group("tail")))
    return "" if all(_is_filler(w, "") for w in words) else m.group(0)


def _gap(m: re.Match[str]) -> str:
    """What a ``{gap}`` leaves: after a word that leaves its phrase open, the sentence trailing off there."""
    word = m.group(1)
    if is_dangling(word) and m.group(0).rstrip()[-1:] in ".!?":
        return f"{word}…"  # broken off: the mark noise.is_fragment reads in speech
    return word + (m.group(0)[-1] if m.group(0)[-1] in ".!?" else " ")


def _capitalized(m: re.Match[str]) -> str:
    """The word that opens a line or follows a sentence's end capitalised; after an abbreviation's period
    ("Apple Inc. reported", "flat vs. last year") as it was: capitalised, it would read as a new sentence,
    and the splitter (:func:`batchsum.text.is_abbreviation_at`) would end one there. A lone letter's period
    does end one before a lower-case word ("so did I. then"): an initial stands before a name."""
    dot = m.start(1)
    if (
        m.group(1).startswith(".")
        and is_abbreviation_at(m.string, dot)
        and not _LONE_LETTER.search(m.string, dot - 1, dot)
    ):
        return m.group(0)
    return m.group(1) + m.group(2).upper()


def _rejoined_clitics(s: str) -> str:
    """Contractions, elisions and plural possessives a tokenizer spaced off, joined again ("we 're",
    "don ' t", "Ma ' am", "hours ' time")."""
    s = _SPACED_CLITIC.sub(lambda m: f"{m.group(1)}'{m.group(2).lower()}", s)
    s = _SPACED_PLURAL_POSSESSIVE.sub("' ", s)
    return _SPACED_ELISION.sub(r"\1'\2", _SPLIT_CLITIC.sub(r"\1\2", s))


def fix_spacing(sentence: str, language: str | None = None) -> str:
    """Undo tokenizer spacing in one sentence of prose: no space before ``, . ; : ! ? % ) ] }`` (in French
    ``language`` ``fr`` the space before ``; : ! ? %`` stays, in ``de`` the one before ``%``), split
    contractions rejoined ("word ,", "Gee , I", "we 're", "don ' t" as in scraped papers and stories) and a
    quotation mark that opens or closes the sentence on its words."""
    if " " not in sentence:
        return sentence
    s = _QUOTE_SPACED_OFF.sub('"', sentence)
    if ". ." in s:
        s = _SPACED_ELLIPSIS.sub("...", s)
    if "'" in s or "’" in s:  # no apostrophe, no clitic to rejoin (most sentences: half of this function's time)
        s = _rejoined_clitics(s)
    return _SPACED_BY_LANGUAGE.get(language or "", _SPACE_BEFORE).sub(r"\1", _ORPHAN_END.sub("", s))


# German (and Czech) „…“, English “…”, Chinese and Japanese 「…」 and 『…』. German closes with the mark English
# opens with: in a sentence that holds „ a “ closes (it had opened a quotation that ran on over the paragraph).
_QUOTE_PAIRS = (("„", "“"), ("“", "”"), ("「", "」"), ("『", "』"))


_CLOSING = {open_mark: close_mark for open_mark, close_mark in _QUOTE_PAIRS}
# The marks of a double quotation, any style's (balance_quotes and open_quotation read them).
DOUBLE_MARKS = re.compile('["' + "".join(open_mark + close_mark for open_mark, close_mark in _QUOTE_PAIRS) + "]")
_SENTENCE_OPENERS = "\"'“‘「『«»"
# French, Spanish and Russian quote «...», German and Danish »...«: each closes with the other.
_GUILLEMETS = {"«": "»", "»": "«"}
ANY_QUOTE_MARK = re.compile(DOUBLE_MARKS.pattern[:-1] + "«»]")
_AFTER_STOP = re.compile(r"[.!?…][ \u00a0\u202f]?$")
_SPACES_INSIDE = " \u00a0\u202f"


def open_quotation(text: str, opened: str = "") -> str:
    """The opening mark of the quotation still open at the end of ``text`` ("" when none is), reading on
    from ``opened``, the one open at its start: what :func:`balance_quotes` needs to show a sentence from
    the middle of a quotation as quoted. A straight quote opens one only where a quotation opens, after a
    space, a bracket or a dash: after a digit it is inches (``12"``), after a word a mark closing what was
    never opened (``yelled 'SURPRISE". I was shook.``). Guillemets open French, Spanish and Russian «...»
    and German »...« alike: the first one met opens, the other closes; the space French sets inside the
    marks comes with the mark ("« "), so a sentence from the quotation's middle is shown with it."""
    for m in ANY_QUOTE_MARK.finditer(text):  # the marks only: a book's every character would be slow
        c, at = m.group(0), m.start()
        if not opened:
            if (
                c in _CLOSING
                or c in _GUILLEMETS
                or (c == '"' and (not at or text[at - 1].isspace() or text[at - 1] in "([—–-"))
            ):
                opened = c + _space_inside(text, at + 1) if c in _GUILLEMETS else c
        elif c == (_GUILLEMETS[opened[0]] if opened[0] in _GUILLEMETS else _CLOSING.get(opened, '"')):
            opened = ""
    return opened


def stray_quotation(paragraph: str) -> bool:
    """Whether ``paragraph`` leaves open a double quotation it did not open at its start: a mark typed once
    ('"will you be able with this new position?' never closed), whose "quotation" is no one's speech, not a
    speech running on into the next paragraph (which opens with its own mark)."""
    return bool(open_quotation(paragraph)) and not paragraph.lstrip().startswith(tuple(_SENTENCE_OPENERS))


def balance_quotes(sentence: str, opened: str = "") -> str:
    """A sentence cut from a longer quotation with its quotation marks made whole: one that starts inside it
    (``Are you sure?" he asked.``) gets the opening mark, one whose quotation runs on past it (``"An old man
    stood in the kitchen.``) the closing mark, so a summary never shows a stray quotation mark. ``opened``
    is the mark of a quotation an earlier sentence opened (:func:`open_quotation`): a sentence that starts
    inside it gets it, even with no mark of its own ("“Have you, indeed! I am very sorry for it. ..."). A
    straight single quote counts where it opens or closes a quotation (``'For a long time now, O valiant
    knight``), never as an apostrophe ("don't", "the dogs' bowls", "'tis")."""
    # The marks inside first: a single quotation within the open double one ("You will comfort him.'") is
    # made whole before the double mark goes around it ("'You will comfort him.'" then its "): the other way
    # round it had read "'"You will comfort him.'".
    sentence = _without_cut_brackets(_balance_single(sentence))
    sentence = _balance_underscores(sentence)
    sentence = _balance_asterisks(sentence)
    if opened and opened[0] not in _GUILLEMETS and not sentence.startswith((opened, _CLOSING.get(opened, '"'))):
        sentence = opened + sentence
    german = sentence.count("„")
    for open_mark, close_mark in _QUOTE_PAIRS:
        if open_mark == "„" and not german:
            continue  # no German quotation: a “ opens an English one
        opening, closing = sentence.count(open_mark), sentence.count(close_mark)
        if open_mark == "“":
            opening -= min(opening, german)  # those close German ones
        first_open = sentence.find(open_mark)
        if closing > opening and (first_open < 0 or sentence.index(close_mark) < first_open):
            sentence = open_mark + sentence  # it starts inside the quotation
        elif opening > closing and sentence.rfind(open_mark) > sentence.rfind(close_mark):
            sentence = sentence + close_mark  # the quotation runs on past it
    if sentence.count('"') % 2:
        first = sentence.index('"')
        before = sentence[first - 1] if first else " "
        if before.isdigit():  # 12" is twelve inches, not a quotation
            return sentence
        sentence = sentence + '"' if before.isspace() or before in "([—–-" else '"' + sentence
    return _balance_guillemets(sentence, opened if opened[:1] in _GUILLEMETS else "")


def _balance_guillemets(sentence: str, opened: str) -> str:
    """``sentence`` with a guillemet quotation made whole, French's spaces inside its marks kept ("« Nous
    devons ... en avril. »"); ``opened`` is the guillemet of the quotation open at its start, if any (with
    the space it sets inside, :func:`open_quotation`)."""
    first = re.search("[«»]", sentence)
    if first is None and not opened:
        return sentence
    if first is not None and not opened and _AFTER_STOP.search(sentence, 0, first.start()):
        # Its first mark follows a stop ("... en avril. »"): it closes a quotation opened before the sentence.
        opened = _GUILLEMETS[first.group(0)] + _space_inside(sentence, first.start() - 1)
    if opened and not sentence.startswith((opened[0], _GUILLEMETS[opened[0]])):
        closing = sentence.find(_GUILLEMETS[opened[0]])
        sentence = opened[0] + (_space_inside(sentence, closing - 1) if closing > 0 else opened[1:]) + sentence
    still = open_quotation(re.sub("[^«»]", "", sentence))
    if not still:
        return sentence
    return sentence + _space_inside(sentence, sentence.rfind(still[0]) + 1) + _GUILLEMETS[still[0]]


def _space_inside(sentence: str, at: int) -> str:
    """The space a quotation sets inside its marks, French's ("« Je vais ... »"), read at ``at`` (next to
    one of its marks): "" for none ("»Die Wohnung ...«")."""
    return sentence[at] if 0 <= at < len(sentence) and sentence[at] in _SPACES_INSIDE else ""


# Plain text's italics (Project Gutenberg's "_Woodstock_"): a mark that opens at a word's start, one that
# closes at a word's end; one inside a word ("snake_case") is neither.
_ITALIC_OPEN = re.compile(r"(?<![\w_])_(?=[^\s_])")
_ITALIC_CLOSE = re.compile(r"(?<=[^\s_])_(?![\w_])")


def _balance_underscores(sentence: str) -> str:
    """A sentence cut from a longer italic passage with its marks made whole, as its quotation marks are:
    "_George Dolan had four problems." closes, "the gun runners._ He left." opens."""
    if "_" not in sentence:
        return sentence
    # Inline code is never emphasis: the "_" in "`checked_*`" is no mark.
    masked = _CODE_SPAN.sub(lambda m: " " * len(m.group(0)), sentence) if "`" in sentence else sentence
    opens = [m.start() for m in _ITALIC_OPEN.finditer(masked)]
    closes = [m.start() for m in _ITALIC_CLOSE.finditer(masked)]
    if len(opens) > len(closes) and opens[-1] > (closes[-1] if closes else -1):
        return sentence + "_"
    if len(closes) > len(opens) and closes[0] < (opens[0] if opens else len(sentence)):
        return "_" + sentence
    return sentence


# Markdown's emphasis, "*Pride and Prejudice*" and "**bold**": a run of marks at a word's start or end.
_STARS_OPEN = re.compile(r"(?<![\w*])\*{1,3}(?=[^\s*])")
_STARS_CLOSE = re.compile(r"(?<=[^\s*])\*{1,3}(?![\w*])")
_CODE_SPAN = re.compile(r"(`+)[^`]*?\1")
_EDGE = "\"'“”‘’«» "  # quotation marks (and spaces) outside a sentence's emphasis: *"There is ..."*


def _balance_asterisks(sentence: str) -> str:
    """A sentence cut from a longer span in Markdown's emphasis with its marks made whole, as its underscores
    are: "*It is a truth ... a wife." closes, "... of their daughters.*" opens. Only a run of marks at the
    sentence's edge is matched: a lone one inside it is as often a footnote's ("significant*") or a glob's."""
    if "*" not in sentence:
        return sentence
    masked = _CODE_SPAN.sub(lambda m: " " * len(m.group(0)), sentence) if "`" in sentence else sentence
    opens = list(_STARS_OPEN.finditer(masked))
    closes = list(_STARS_CLOSE.finditer(masked))
    lead = len(masked) - len(masked.lstrip(_EDGE))
    trail = len(masked.rstrip(_EDGE))
    if len(opens) > len(closes) and opens[0].start() == lead:
        return sentence + opens[0].group(0)
    if len(closes) > len(opens) and closes[-1].end() == trail:
        return closes[-1].group(0) + sentence
    return sentence


# A bracket at a sentence's edge with the emphasis marks against it: a stage direction's "[*Enter AGNES." and
# "... dripping wet.*]." A closing one only after a word, a stop or a quote (":)" is a smiley); the stop
# after it is the sentence's own.
_CUT_OPEN = re.compile(r"^([(\[])([*_]{0,3})(?=[\w\"'“‘])")
_CUT_CLOSE = re.compile(r"(?<=[\w.!?…\"'”’])([*_]{0,3})([)\]])(\.?)$")
_PAIRED = {"(": ")", "[": "]", ")": "(", "]": "["}


def _without_cut_brackets(sentence: str) -> str:
    """A sentence cut from inside a bracketed span without the span's marks at its edges: the bracket it never
    opened or closed, and the emphasis marks against it that nothing in the sentence matches ("Enter THOMAS,
    dripping wet.*]." reads "Enter THOMAS, dripping wet."). A bracket is never made whole: a sentence from a
    parenthesis' middle reads as well without it."""
    # Searched only where a bracket ends the sentence: this runs on every sentence of a run.
    if sentence.rstrip(".")[-1:] in (")", "]") and (m := _CUT_CLOSE.search(sentence)):
        marks = m.group(1)
        if _unopened(sentence[: m.start(2)], _PAIRED[m.group(2)], m.group(2)):
            head = sentence[: m.start()]
            if marks and _unmatched_emphasis(head + marks, marks[0]) >= 0:
                head += marks  # the emphasis closes inside the sentence: "see *Figure 2*)."
            sentence = head if head.rstrip("*_").endswith((".", "!", "?", "…")) else head + m.group(3)
    if sentence[:1] in ("(", "[") and (m := _CUT_OPEN.match(sentence)):
        marks = m.group(2)
        if _unopened(sentence[:0:-1], _PAIRED[m.group(1)], m.group(1)):
            drop = 1 + (len(marks) if marks and _unmatched_emphasis(sentence[1:], marks[0]) > 0 else 0)
            sentence = sentence[drop:]
    return sentence


def _unopened(before: str, opening: str, closing: str) -> bool:
    """Whether a ``closing`` bracket after ``before`` closes nothing opened in it (read backwards, an opening
    one that nothing after it closes). A bracket closed before it was opened ("- ) and (1835)") opens none."""
    depth = 0
    for c in before:
        if c == opening:
            depth += 1
        elif c == closing and depth:
            depth -= 1
    return depth == 0


def _unmatched_emphasis(sentence: str, mark: str) -> int:
    """How many more emphasis runs of ``mark`` ("*" or "_") open than close in ``sentence`` (below 0: more
    close). A run between a word's stop and a bracket reads as both: the caller asks without the bracket."""
    opening, closing = (_STARS_OPEN, _STARS_CLOSE) if mark == "*" else (_ITALIC_OPEN, _ITALIC_CLOSE)
    return len(opening.findall(sentence)) - len(closing.findall(sentence))


# Straight single quotes. An elision opens a word with an apostrophe ("'tis", "'em", "rock 'n' roll", "'90s");
# a quotation opens after a space, a bracket or a dash before a letter, and closes after a word's last letter
# or its punctuation before a space, a stop or the end. A plural's possessive ("the dogs' bowls") ends in
# "s'" before another word: that one is no closing mark, and may be one ("'I saw the dogs' he said"), so
# a quotation with one after its opening is not closed again.
_ELIDED = re.compile(
    r"(?<![\w'’])'(?:tis|twas|twere|twill|em|im|til|cause|cos|bout|round|nuff|neath|n'?|\d\d?s?)(?!\w)", re.I
)
_OPENS = re.compile(r"(?:^|(?<=[\s(\[—–\"“]))'(?=[^\W_])")
_CLOSES = re.compile(
    r"(?:(?<=[.,!?;:…—–])|(?<=[^\W\d_])(?<![sS]))'(?=[\s)\]—–,.;:!?\"”]|$)|(?<=[sS])'(?=[,.;:!?)\"”]|$)"
)
_POSSESSIVE = re.compile(r"(?<=[sS])'(?=\s)")
# A prime, not a quotation mark: after a lone letter or digit (a symbol, not a quoted word's end: "'a'" is a
# quotation) before a bracket, a comma, an operator or another prime ("k(x, x')", "f'(x)", "y'' = 0").
_PRIME = re.compile(r"(?<![\w'’])[^\W_]('+)(?=[(),=]|[ \t]*[-+*/=<>≤≥](?:[ \t\w(]|$))")


def _balance_single(sentence: str) -> str:
    """``sentence`` with a quotation in straight single quotes made whole (see :func:`balance_quotes`)."""
    if "'" not in sentence:
        return sentence
    plain = _ELIDED.sub(lambda m: "_" * len(m.group(0)), sentence)  # same length: positions stay
    plain = _PRIME.sub(lambda m: m.group(0)[0] + "_" * len(m.group(1)), plain)
    opens = [m.start() for m in _OPENS.finditer(plain)]
    closes = [m.start() for m in _CLOSES.finditer(plain)]
    if len(closes) > len(opens) and (not opens or closes[0] < opens[0]):
        return "'" + sentence  # it starts inside the quotation
    runs_on = len(opens) > len(closes) and (not closes or opens[-1] > closes[-1])
    if runs_on and not any(m.start() > opens[-1] for m in _POSSESSIVE.finditer(plain)):
        return sentence + "'"  # the quotation runs on past it
    return sentence
