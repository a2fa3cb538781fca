"""What the lexical index holds of a document: its text cut into overlapping passages of index terms.

* the source of every document (rendered as the run saw it) and every node's own summary are cut into
  windows of :data:`PASSAGE_WORDS` words every :data:`PASSAGE_STRIDE` words; a window's terms are those
  of :func:`batchsum.index.analysis.analyze` in the document's language;
* each node summarizes a span of the source (:func:`node_spans`): an L1 its chunk, an L2 the chunks of
  its group, an L3 (and a single-node file) the whole source;
* the document's terms in order, and each window's range in that order, serve the proximity score
  (:mod:`batchsum.index.proximity`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from batchsum.index.analysis import CJK_CLASS, analyze, due_term
from batchsum.index.analysis import stem as analysis_stem
from batchsum.index.unshown import unshown_note_marks
from batchsum.readers.bracket_turns import LINK_DEFINITION
from batchsum.readers.note_syntax import draft_marks_blanked, front_matter

if TYPE_CHECKING:
    from batchsum.index.records import IndexNode

PASSAGE_WORDS = 100  # QMSum: 60-150 words score alike; whole chunks lose ~4 points of recall@5
PASSAGE_STRIDE = 50

# A passage's "words": whitespace-separated runs, and in CJK text (no spaces) every two characters.
_WORD_SPAN = re.compile(rf"[{CJK_CLASS}]{{1,2}}|[^\s{CJK_CLASS}]+")


def stem(word: str, language: str | None = None) -> str:
    """Snowball stem of a word (lowercased first), in ``language`` or by script: "died" -> "die"."""
    return analysis_stem(word.lower().removesuffix("'s"), language)


def tokenize(text: str, language: str | None = None, others: Sequence[str] = ()) -> list[str]:
    """The index terms of ``text`` (see :mod:`batchsum.index.analysis`): "The Budgets were CUT" -> budget, cut.
    ``others``: other languages the text holds, whose function words are dropped too."""
    return analyze(text, language, others)


def passages(text: str, words: int = PASSAGE_WORDS, stride: int = PASSAGE_STRIDE) -> Iterator[tuple[int, str]]:
    """(char offset, text) of overlapping windows of ``words`` words, every ``stride`` words."""
    spans = [(m.start(), m.end()) for m in _WORD_SPAN.finditer(text)]
    if not spans:
        return
    start = 0
    while True:
        end = min(len(spans), start + words)
        yield spans[start][0], text[spans[start][0] : spans[end - 1][1]]
        if end == len(spans):
            return
        start += stride


def passage_terms(
    text: str, language: str | None = None, others: Sequence[str] = ()
) -> tuple[list[tuple[int, Counter[str]]], list[str], list[tuple[int, int]]]:
    """The :func:`passages` windows of ``text`` as (char offset, term counts), its terms in order, and each
    window's range in that order. Every word is tokenized once: a window is two consecutive half-windows
    (PASSAGE_WORDS = 2 * PASSAGE_STRIDE)."""
    spans = [m.start() for m in _WORD_SPAN.finditer(text)]
    if not spans:
        return [], [], []
    terms: list[str] = []
    halves: list[tuple[int, Counter[str], int]] = []  # (char offset, counts, first term)
    for i in range(0, len(spans), PASSAGE_STRIDE):
        stop = spans[i + PASSAGE_STRIDE] if i + PASSAGE_STRIDE < len(spans) else len(text)
        words = tokenize(text[spans[i] : stop], language, others)
        halves.append((spans[i], Counter(words), len(terms)))
        terms.extend(words)
    if len(halves) == 1:
        return [(halves[0][0], halves[0][1])], terms, [(0, len(terms))]
    out: list[tuple[int, Counter[str]]] = []
    ranges: list[tuple[int, int]] = []
    for i in range(len(halves) - 1):
        both = halves[i][1].copy()
        both.update(halves[i + 1][1])
        out.append((halves[i][0], both))
        ranges.append((halves[i][2], halves[i + 2][2] if i + 2 < len(halves) else len(terms)))
    return out, terms, ranges


def doc_language(nodes: Sequence[IndexNode]) -> str | None:
    """The language a document's nodes record (the front matter's ``language``), or None."""
    for n in nodes:
        lang = n.metadata.get("language")
        if lang:
            return str(lang)
    return None


def doc_languages(nodes: Sequence[IndexNode]) -> tuple[str, ...]:
    """Every language a document's nodes record holding (a digest of entries in several: ``languages``)."""
    for n in nodes:
        langs = n.metadata.get("languages")
        if langs:
            return tuple(str(langs).split(","))
    return ()


def node_spans(nodes: Sequence[IndexNode], n_chars: int) -> dict[str, tuple[int, int]]:
    """The source span each node of one document summarizes (L1: its chunk; L2: its group; L3: all)."""
    spans: dict[str, tuple[int, int]] = {}
    groups: dict[Any, list[tuple[int, int]]] = {}
    for n in nodes:
        if n.metadata.get("level") == 1 and n.span is not None:
            spans[n.id] = n.span
            groups.setdefault(n.metadata.get("parent_group"), []).append(n.span)
    for n in nodes:
        level = n.metadata.get("level")
        if level == 2:
            kids = groups.get(n.metadata.get("group_index"))
            if kids:
                spans[n.id] = (min(s for s, _ in kids), max(e for _, e in kids))
        elif level == 3 or n.metadata.get("is_final"):
            spans[n.id] = (0, n_chars)
    return spans


@dataclass
class DocPassages:
    """One document's passages: the source's, then each node's summary's, in that order."""

    language: str | None
    spans: dict[str, tuple[int, int]]  # node id -> the source span it summarizes
    others: tuple[str, ...] = ()  # further languages it holds: their function words are dropped too
    units: list[tuple[str | None, int, Counter[str]]] = field(default_factory=list)  # (node id or None, offset, terms)
    order: list[str] = field(default_factory=list)  # the document's terms in order
    ranges: list[int] = field(default_factory=list)  # per unit, its (start, stop) in ``order``, flat
    title: set[str] = field(default_factory=set)  # a Markdown page's title terms (:func:`page_title`)


# What a rendered Markdown page never shows: link reference definitions ("[references-and-borrowing]:
# ch04-02-references-and-borrowing.html#references-and-borrowing", a book's chapter ends with dozens), the
# target of an inline link or image ("(https://...)") and the label of a reference link ("[Chapter 4][ch04]"),
# and HTML comments. The summarizer never reads them (batchsum.backends.noise.markdown_as_text), nor does a
# snippet; as evidence they made the lifetimes chapter, whose last lines define links to "references and
# borrowing", the best answer to "references and borrowing".
MARKDOWN_EXTS = (".md", ".markdown")
_LINK_DEF = LINK_DEFINITION  # one URL or path: "[SPEAKER_00]: Welcome back." is a turn
_LINK_TARGET = re.compile(r"(?<=\])(?:\((?:[^()\s]|\([^()\s]*\))+(?:[ \t]+\"[^\"\n]*\")?\)|\[[^\[\]\n]+\])")
_HTML_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.S)
# A page's YAML front matter (the block :func:`batchsum.readers.note_syntax.front_matter` finds, which the summarizer
# leaves out) shows in a note app as the page's properties: their values ("tags: [cuento, ideas]" shows the
# tags "cuento" and "ideas", "title: ..." the title), not their keys, which are field names ("fecha:
# 2025-06-02" had made "fecha", Spanish for "date", find the note at 1.000), nor YAML's own marks: the fences,
# a list item's dash, a flow list's brackets and commas, comments.
_FRONT_KEY = re.compile(r"^([ \t]*(?:-[ \t]+)*)[A-Za-z_][\w-]*:(?=[ \t]|$)", re.M)
_FRONT_MARK = re.compile(r"^[ \t]*-(?=[ \t]|$)|(?<!\S)#[^\n]*|[\[\]{},]", re.M)


def _blank(m: re.Match[str]) -> str:
    return re.sub(r"[^\n]", " ", m.group(0))


def _front_key(m: re.Match[str]) -> str:
    return m.group(1) + " " * (len(m.group(0)) - len(m.group(1)))


# A key whose value is a block scalar ("description: |"): the lines indented under it are its text, where
# "Agenda: budget review" is words, not a key (review).
_BLOCK_SCALAR = re.compile(r"^([ \t]*)(?:-[ \t]+)*[A-Za-z_][\w-]*:[ \t]*[|>][-+0-9]*[ \t]*(?:#.*)?$")


def _visible_yaml(yaml: str) -> str:
    """A front matter's YAML with its keys and marks blanked, a block scalar's lines kept as they are."""
    out: list[str] = []
    block: int | None = None  # the indentation of the key whose block scalar is under way
    for line in yaml.splitlines(keepends=True):
        indent = len(line) - len(line.lstrip(" \t"))
        if block is not None and (not line.strip() or indent > block):
            out.append(line)
            continue
        scalar = _BLOCK_SCALAR.match(line.rstrip("\n"))
        block = len(scalar.group(1)) if scalar else None
        out.append(_FRONT_MARK.sub(_blank, _FRONT_KEY.sub(_front_key, line)))
    return "".join(out)


def _visible_front_matter(text: str) -> str:
    """``text`` with its front matter's keys, fences and YAML marks blanked (values kept), offsets unchanged."""
    front = front_matter(text)
    if front is None:
        return text
    yaml = _visible_yaml(front.group(1))
    fence, closing = text[: front.start(1)], text[front.end(1) : front.end()]
    return re.sub(r"[^\n]", " ", fence) + yaml + re.sub(r"[^\n]", " ", closing) + text[front.end() :]


def visible_markdown(text: str) -> str:
    """``text`` with what its rendered page never shows blanked out, character for character (line breaks
    kept), so an offset into it is still one into ``text``. Its front matter keeps only its values
    (:func:`_visible_front_matter`); a note app's comments and queries go (:func:`unshown_note_marks`)."""
    if text.startswith("---"):
        text = _visible_front_matter(text)
    text = unshown_note_marks(text)
    if "[" in text:
        text = _LINK_TARGET.sub(_blank, _LINK_DEF.sub(_blank, text))
    if "<!--" in text:
        text = _HTML_COMMENT.sub(_blank, text)
    return text


_TITLE_KEY = re.compile(r"^title:[ \t]*(.+?)[ \t]*$", re.M)
_HEADING_LINE = re.compile(r"#{1,6}[ \t]+(.+?)[ \t#]*")


def page_title(doc_id: str, source: str) -> str:
    """A Markdown page's title as a note app shows it: its front matter's ``title``, else the heading it opens
    with, else its file name when that holds no digit (a dated or numbered name such as "scott_1825-11-21" or
    "ch04-02-borrowing" is an identifier: its shared words would be in every page's title); "" for none."""
    body = source
    front = front_matter(source)
    if front is not None:
        title = _TITLE_KEY.search(front.group(1))
        if title:
            return title.group(1).strip("\"' ")
        body = source[front.end() :]
    first = body.lstrip().split("\n", 1)[0].strip()
    heading = _HEADING_LINE.fullmatch(first)
    if heading:
        return heading.group(1)
    stem = doc_id.rsplit("/", 1)[-1].rpartition(".")[0]
    return "" if any(ch.isdigit() for ch in stem) else re.sub(r"[-_]+", " ", stem)


def doc_passages(nodes: Sequence[IndexNode], source: str | None) -> DocPassages:
    """The passages of a document's source (None: not available) and of its nodes' summaries; windows holding
    no index term are left out. A Markdown file's source and summaries are read as their page shows them
    (:func:`visible_markdown`): a file kept whole is its own summary, front matter and link definitions too.
    A Markdown page's title (:func:`page_title`) is kept for search's ranking."""
    doc = DocPassages(
        doc_language(nodes), node_spans(nodes, len(source)) if source is not None else {}, doc_languages(nodes)
    )
    markdown = bool(nodes) and str(nodes[0].doc_id).lower().endswith(MARKDOWN_EXTS)
    for owner, text in [(None, source), *((n.id, n.body) for n in nodes)]:
        if text is None:
            continue
        # Any other text's draft marks too: a screenplay's boneyard in a .txt or .fountain is no more shown.
        text = visible_markdown(text) if markdown else draft_marks_blanked(text)
        windows, terms, where = passage_terms(text, doc.language, doc.others)
        for (off, held), (a, b) in zip(windows, where, strict=True):
            if held:
                doc.units.append((owner, off, held))
                doc.ranges.extend((a + len(doc.order), b + len(doc.order)))
        doc.order.extend(terms)
    for node in nodes:
        # A due day its page prints is found by a day's query only (no word of the Facets is indexed: their
        # names and tasks pulled unrelated queries towards a final).
        dues = list(dict.fromkeys(due_term(d) for d in node.dues))
        if dues:
            doc.units.append((node.id, len(node.body), Counter(dues)))
            doc.ranges.extend((len(doc.order), len(doc.order) + len(dues)))
            doc.order.extend(dues)
    if markdown and source is not None and doc.units:
        title = page_title(str(nodes[0].doc_id), source)
        doc.title = {t for t in tokenize(title, doc.language, doc.others) if not t.isdigit()}
        # A title the page's text does not show (a file name) is read as its first line; counted in every
        # passage, a long memo's title words had added up over its passages and outranked a day's entry.
        opening = doc.units[0][2]
        opening.update(word for word in doc.title if not opening[word])
    return doc
