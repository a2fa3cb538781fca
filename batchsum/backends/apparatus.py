"""A paper's apparatus, which an extractive summary never quotes: reference-list entries, figure and table
captions, and raw TeX math.

* A **reference entry** carries a citation's signature: a DOI, a journal's "year;volume(issue):pages"
  ("2011;101:11–20"), a proceedings' "pages 404–411", APA's "Journal, 56(12), 987–996." or Harvard's "Journal
  56: 987-996", or opens with a Vancouver author list ("Smith J, Doe A, Brown K.") or an author-year one ("Khan,
  G. H., & Lindqvist, I. (1996)."). A block most of whose numbered entries are such is a reference list; so is
  one unnumbered entry alone that carries two signatures (a list with a blank line between its entries).
* A **caption** opens with its label and number, then a separator ("Table 1:", "Figure 2.", "Fig 3 |",
  "FIGURE 4 — ...", "Supplementary Figure S2."): layout, as the ``[Illustration: ...]`` of a printed book is;
  "Figure 3 shows ..." is prose about it. A legend's key is a caption's wherever it stands ("orange represents
  ...", "the red spots indicate ...", "error bars show ...").
* **Front matter**: an author's affiliation ("1 Department of Psychology, University of Uppsala, Box 1225, ...
  Sweden"), a line of e-mail addresses, "* Corresponding author: ...".
* **TeX math** is a ``$...$`` span holding a TeX command, a sub- or superscript, an operator (``$A = c / n$``,
  ``$p < 0.001$``) or a lone variable (``$c$``, ``$CI$``) (not "$5 and $10", which is money), a ``$$`` or ``\\[``
  display or a display environment (``\\begin{equation}``, ``align``, ...), or ``\\(...\\)``; a display block is no
  text at all, and the sentence around it runs on (:func:`without_display_math`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

__all__ = [
    "is_apparatus_text",
    "is_caption_line",
    "is_front_matter_line",
    "is_reference",
    "is_reference_list",
    "is_tex_math",
    "without_display_math",
]

_DOI = re.compile(r"\bdoi:\s*10\.\d{4,9}/|\bdoi\.org/10\.\d{4,9}/", re.IGNORECASE)
# "2011;101:11–20", "2011 Mar;101(3):e1234": a journal's year;volume(issue):pages.
_YEAR_VOLUME = re.compile(
    r"\b(?:1[89]|20)\d\d[a-z]?(?:\s+[A-Z][a-z]{2}(?:\s+\d{1,2})?)?;\s*\d+(?:\s*\(\d+\))?:\s*[A-Za-z]?\d+"
)
# ", 22:457–479." at an entry's end after a journal's name; ", pages 404–411", ", pp. 11-20" (after a comma, as
# in an entry: "read pages 10-12 tonight" is a sentence).
_PAGES = re.compile(r",\s*\d{1,4}(?:\s*\(\d+\))?:\s*\d+[-–]\d+\.?$|,\s*(?:pages|pp?\.)\s*\d+[-–]\d+")
# Vancouver's authors: surnames with their initials, at least two, comma-separated ("Smith J, Doe AB, et al.").
_AUTHOR_LIST = re.compile(
    r"(?:\[?\d{1,3}[.)\]]\s+)?[A-Z][\w'’-]+\s[A-Z]{1,3}(?:,\s[A-Z][\w'’-]+\s[A-Z]{1,3})+(?:,?\set\sal)?\."
)
# APA's "Journal, 56(12), 987–996." and Harvard's "Journal 56: 987-996" (a name's word before the volume) at an
# entry's end.
# (A dateline's "JANUARY 25, 1710-11." and an index's "89, 90, 158-160." have neither.)
_VOLUME_PAGES = re.compile(r"[A-Za-z],\s\d{1,4}(?:\s?\(\d{1,4}\))?,\s?[A-Za-z]?\d+[-–]\d+\.?$")
# Harvard's form only in an entry with a year: "We won game 3: 21-18." and "Read Chapter 3: 45-60." are none.
_HARVARD_PAGES = re.compile(r"[A-Z][A-Za-z]*\.?\s\d{1,4}(?:\s?\(\d{1,4}\))?:\s?[A-Za-z]?\d+[-–]\d+\.?$")
_YEAR = re.compile(r"(?<!\d)(?:1[5-9]|20)\d\d(?!\d)")
# An author-year list: surnames with their initials, "&" or "and" before the last, then the year ("Khan, G. H., and
# Lindqvist, I. (1996).", "Smith, A. (2006) Title."), or its year alone where a chunk's start cut the authors off
# ("(1990). Seagrass decline ..."); a sentence never opens so.
_AUTHOR_YEAR = re.compile(
    r"(?:[A-Z][\w'’-]+,\s(?:[A-Z]\.[\s-]?){1,3}(?:,?\s(?:(?:&|and)\s)?[A-Z][\w'’-]+,\s(?:[A-Z]\.[\s-]?){1,3})*"
    r"(?:,?\s?et\sal\.)?,?\s?\((?:1[5-9]|20)\d\d[a-z]?\)|\((?:1[5-9]|20)\d\d[a-z]?\)\.)"
)
# An entry's number: "12. ", "[3] ", "(4) ".
_ENTRY = re.compile(r"^\s*(?:\[\d{1,3}\]|\(\d{1,3}\)|\d{1,3}[.)])\s+")


def is_reference(sentence: str) -> bool:
    """Whether a sentence is (a piece of) a reference-list entry: it carries a citation's signature."""
    return any(_signatures(sentence.lstrip()))


def _signatures(s: str) -> Iterator[bool]:
    """Whether ``s`` carries each of a citation's signatures, lazily: :func:`is_reference` stops at the first."""
    # Each pattern only where its marks occur: this runs on every sentence of a run.
    yield _AUTHOR_LIST.match(s) is not None
    yield "(" in s and _AUTHOR_YEAR.match(s) is not None
    yield ("oi" in s or "OI" in s) and _DOI.search(s) is not None
    yield ";" in s and _YEAR_VOLUME.search(s) is not None
    yield ("," in s and ("p" in s or ":" in s)) and _PAGES.search(s) is not None
    yield ("," in s or ":" in s) and (
        _VOLUME_PAGES.search(s.rstrip()) is not None
        or (_HARVARD_PAGES.search(s.rstrip()) is not None and _YEAR.search(s) is not None)
    )


def is_reference_list(lines: Sequence[str]) -> bool:
    """Whether a block of lines is a reference list: most of its entries (a line opening with an entry's
    number, with the lines wrapped under it) carry a citation's signature; unnumbered, most of its lines."""
    entries: list[str] = []
    for line in lines:
        if not line.strip():
            continue
        if _ENTRY.match(line) or not entries:
            entries.append(line)
        else:
            entries[-1] += " " + line.strip()
    if len(entries) == 1 and _ENTRY.match(entries[0]) is None:
        entries = [ln for ln in lines if ln.strip()]  # no numbers: a line an entry
    cited = sum(1 for e in entries if is_reference(e))
    # One entry alone (each a paragraph of its own, as Markdown's lists often are) needs two signatures: one
    # alone may be a sentence's ("..., 12(3), 45-67.").
    alone = len(entries) == 1 and sum(_signatures(entries[0].lstrip())) >= 2
    numbered = _ENTRY.match(entries[0]) is not None if entries else False
    return bool(entries) and cited >= 0.6 * len(entries) and (cited >= 2 or numbered or alone)


# The label in any case, its number, then a separator: "Figure 3 shows ..." is a sentence about the figure.
_CAPTION = re.compile(
    r"^\s*[*_]*(?:Supplementary\s+)?(?:Table|Figure|Fig\.?)\s+S?\d{1,3}[a-z]?[*_]*(?:[.:]|\s*[|—–]|\s-\s)",
    re.IGNORECASE,
)


_COLOUR = (
    r"(?:(?:dark|light|pale|bright)[ -])?(?:red|blue|green|yellow|orange|purple|violet|pink|magenta|cyan|black|"
    r"white|gr[ae]y|brown)(?:ish)?"
)
_MARK_NOUN = (
    r"(?:spots?|dots?|bars?|lines?|circles?|squares?|triangles?|diamonds?|arrows?|arrowheads?|boxes|box|"
    r"areas?|regions?|curves?|symbols?|points?|stars?|shading|nodes?|edges?|columns?|cells?|colou?rs?)"
)
# A legend's key, a caption's sentence wherever it stands (one whose "Figure N." label a scrape lost included):
# a colour or a plot's mark, then what it stands for ("orange represents the ashm genes", "the red spots
# indicate ...", "error bars show s.e.m.", "asterisks denote p < 0.05"). "Red meat is ..." names no key.
_LEGEND = re.compile(
    rf"^\W*(?:\(?[a-z]\)\s*)?(?:the\s+)?(?:(?:{_COLOUR})(?:\s*(?:and|or|,)\s*(?:{_COLOUR}))*\s+{_MARK_NOUN}"
    rf"|(?:(?:{_COLOUR}|dashed|dotted|solid|open|filled|closed)\s+)?(?:error\s+bars|asterisks?|arrows?|"
    rf"arrowheads?|whiskers)|(?:dashed|dotted|solid)\s+(?:lines?|curves?))"
    r"\s+(?:represent|indicate|denote|show|mark)s?\b",
    re.IGNORECASE,
)


# A colour alone keys a legend only beside another key ("orange represents ...; green represents ..."): "Green
# represents hope to me" is a diarist's.
_COLOUR_KEY = re.compile(rf"\b(?:{_COLOUR})\s+(?:represent|indicate|denote|show|mark)s?\b", re.IGNORECASE)


def is_caption_line(sentence: str) -> bool:
    """Whether a sentence opens as a table's or a figure's caption ("Table 1: ROUGE F1 results ...", "FIGURE 3.
    Shoot density rose.", "Fig 5: ...", "Figure 1 | Layout of cages.", "Figure 4 — ...") or is a legend's key
    ("the red spots indicate ...", "error bars show s.e.m.")."""
    if _CAPTION.match(sentence) is not None or _LEGEND.match(sentence) is not None:
        return True
    return (
        _COLOUR_KEY.match(sentence.lstrip("( ").removeprefix("the ")) is not None
        and len(_COLOUR_KEY.findall(sentence)) >= 2
    )


# A line that ends as a sentence does: a heading over a list ("References") does not.
_STOP = re.compile(r"[.!?…][\"'”’)\]]*\s*$")
_PARAGRAPH = re.compile(r"\n[ \t]*\n")


def is_apparatus_text(text: str) -> bool:
    """Whether ``text`` (a chunk of a paper, say) holds nothing but apparatus: each of its paragraphs is a
    reference list or a caption, but for a heading's line over them ("References"). A chunk deep in a paper's
    references has no heading left to say so; such a text has no summary at all, never its citations as one. Its
    first paragraph may be the rest of an entry the chunk's start cut ("(1990). Seagrass decline ... 260–844."):
    before a list, one signature says so."""
    paragraphs = [[ln for ln in p.split("\n") if ln.strip()] for p in _PARAGRAPH.split(text)]
    body = [p for p in paragraphs if p and not (len(p) == 1 and len(p[0].split()) <= 12 and not _STOP.search(p[0]))]
    return bool(body) and all(
        is_reference_list(p) or is_caption_line(p[0]) or (i == 0 and len(body) > 1 and is_reference(" ".join(p)))
        for i, p in enumerate(body)
    )


# An institution's name in an affiliation; its address follows, in parts between commas.
_INSTITUTION = re.compile(
    r"\b(?:Department|Dept\.|Institute|Institut[eo]?|Universit(?:y|ät|é|à|y College)|Universidad[e]?|College|"
    r"School|Faculty|Hospital|Laborator(?:y|ies|io)|Cent(?:re|er|ro)|Division|Clinic)\b"
)
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
# An address's postcode: "14195 Berlin", "221 00 Lund", "0150 Oslo", "MA 02139", "CB2 1TN", "H3A 0G4" (a four-digit
# one only before its town: "in 2024, then ..." is a year).
_POSTCODE = re.compile(
    r"\b(?:\d{5}(?:-\d{4})?|\d{3}\s\d{2}|[A-Z]{1,2}\d[A-Z\d]?\s\d[A-Z]{2}|[A-Z]\d[A-Z]\s?\d[A-Z]\d)\b"
    r"|\b\d{4}\s+[A-Z][a-zäöüåéø]"
)
# The countries an affiliation ends with, most often.
_COUNTRY = re.compile(
    r",\s*(?:USA|U\.S\.A\.|United States(?: of America)?|UK|U\.K\.|United Kingdom|England|Scotland|Wales|Ireland"
    r"|Canada|Mexico|Brazil|Argentina|Chile|Colombia|Peru|Australia|New Zealand|China|P\.\s?R\.\s?China|Japan"
    r"|(?:South )?Korea|Taiwan|Hong Kong|Singapore|India|Pakistan|Bangladesh|Iran|Israel|Turkey|Egypt|Nigeria"
    r"|South Africa|Kenya|Germany|France|Italy|Spain|Portugal|Netherlands|The Netherlands|Belgium|Switzerland"
    r"|Austria|Sweden|Norway|Denmark|Finland|Iceland|Poland|Czech Republic|Czechia|Hungary|Greece|Russia"
    r"|Ukraine|Romania|Estonia|Latvia|Lithuania|Slovenia|Croatia|Serbia|Saudi Arabia|Qatar|Thailand|Vietnam"
    r"|Malaysia|Indonesia|Philippines)\W*$"
)
# What opens a line of a paper's front matter: an affiliation's or a footnote's mark, or a label.
_MARK = re.compile(r"^\s*(?:\d{1,2}\s|[*†‡§]|[¹²³⁴⁵⁶⁷⁸⁹⁰]+)")
_CONTACT = re.compile(r"^\W*(?:corresponding authors?|correspondence|e-?mails?|contact)\b", re.IGNORECASE)
_SPEECH = re.compile(r"[\"“”]|[a-z]{2}[.!?]\s+[A-Z]")
_LINE_END = re.compile(r"[.!?][\"'”’)\]]*\s*$")


def is_front_matter_line(line: str) -> bool:
    """Whether a line is a paper's front matter, never a sentence of it: an affiliation (an institution's name,
    its address in parts between commas, no sentence's stop, and an affiliation's sign: its mark or number, a
    postcode, a country or an e-mail: "2 Max Planck Institute for Human Development, Lentzeallee 94, 14195
    Berlin, Germany"), "* Corresponding author: ...", or a marked or labelled line of e-mail addresses ("†
    maria.lindqvist@psyk.uu.se"). A journal's "Drove Mom to St. Mary's Hospital for her scan, picked up ...,
    made ..." has no such sign. The caller asks it only of the lines before a document's first paragraph."""
    s = line.strip()
    if _CONTACT.match(s):
        return True
    if "@" in s and _EMAIL.search(s) and _MARK.match(s):
        return True
    # No quotation nor sentence's end in it: "... back to Center Base without filling the shelves, ... —" is speech.
    if s.count(",") < 2 or _LINE_END.search(s) or _SPEECH.search(s):
        return False
    if _INSTITUTION.search(s) is None:
        return False
    return bool(_MARK.match(s) or _POSTCODE.search(s) or _COUNTRY.search(s) or ("@" in s and _EMAIL.search(s)))


# The environments LaTeX sets as display math (starred: unnumbered), as batchsum.readers.latex leaves them out.
_DISPLAY_ENVS = r"(?:equation|align|alignat|flalign|gather|multline|eqnarray|displaymath|dmath)\*?"
# Inline math: "$...$" on one line whose inside holds TeX (_TEX_INSIDE);
# "\(...\)"; any "$$", "\[" or a display environment's "\begin{equation}" or "\end{align*}".
_INLINE_MATH = re.compile(r"(?<![\\$])\$(?!\s)([^$\n]{1,400}?)(?<!\s)\$(?!\d)")
# A control word ("\\lambda") or symbol ("\\|w\\|", "\\,"), a sub- or superscript, a brace, an operator ("$A = c / n$",
# "$p < 0.001$"), or a lone variable with no space in it ("$c$", "$CI$", "$x'$"); money's "$" never closes a span
# around these.
_TEX_INSIDE = re.compile(r"\\(?:[A-Za-z]+|[|{},;:!])|[_^{}=<>/+]|^[A-Za-z]{1,3}[0-9']*$")  # not "$PATH:$HOME"
_OTHER_MATH = re.compile(rf"\$\$|\\\(.{{0,400}}?\\\)|\\\[|\\(?:begin|end)\{{{_DISPLAY_ENVS}\}}")


def is_tex_math(sentence: str) -> bool:
    """Whether a sentence carries raw TeX math (``$\\lambda_1 + \\lambda_2 = 1$``, ``\\(x^2\\)``,
    ``\\begin{equation}``); money ("$5 and $10") is none."""
    if "$" not in sentence and "\\" not in sentence:
        return False
    if _OTHER_MATH.search(sentence):
        return True
    return any(_TEX_INSIDE.search(m.group(1)) for m in _INLINE_MATH.finditer(sentence))


# A display block: "$$ ... $$", "\[ ... \]" or "\begin{equation} ... \end{equation}" (align, gather, ...), over
# lines or on one (bounded: an unclosed one stays).
_DISPLAY = re.compile(
    r"\$\$(?:[^$]|\$(?!\$)){0,4000}?\$\$|\\\[(?:.|\n){0,4000}?\\\]"
    rf"|\\begin\{{({_DISPLAY_ENVS})\}}(?:.|\n){{0,4000}}?\\end\{{\1\}}"
)
_REST_OF_LINE = re.compile(r"[ \t]*(?:\n|$)")


def without_display_math(text: str) -> str:
    """``text`` without its display math blocks, the sentence around each running on as in the typeset page
    ("solves the problem $$...$$ for every example" reads "solves the problem for every example"). A block on
    lines of its own goes with them, line break and all: a blank line left there would end the paragraph, and
    the sentence with it. One inside a line leaves a space. Paragraphs stay where they were."""
    if "$$" not in text and "\\[" not in text and "\\begin{" not in text:
        return text
    out, pos = [], 0
    for m in _DISPLAY.finditer(text):
        rest = _REST_OF_LINE.match(text, m.end())
        own_lines = rest is not None and not text[text.rfind("\n", 0, m.start()) + 1 : m.start()].strip()
        out += [text[pos : m.start()], "" if own_lines else " "]
        pos = rest.end() if rest is not None and own_lines else m.end()
    return "".join(out) + text[pos:]
