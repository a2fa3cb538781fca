"""HTML pages (``.html``, ``.htm``: saved web articles, Notion, Confluence and Evernote exports) read as Markdown.

The page's main content is the text: an ``<article>`` or ``<main>`` element when there is one (readability's
idea), else the body. Headings are ``#`` headings, list items ``- `` lines (nested ones indented), tables Markdown
rows, ``<pre>`` and multi-line ``<code>`` fenced (the summarizer leaves code out), quotes ``> `` lines. What a
reader of the page does not read as its text is left out: scripts, styles, the head (but its ``<title>``, the
text's ``#`` title when the content has no ``<h1>``, without the site's name) and the page's furniture
(navigation, header, footer, asides, forms, elements hidden from screen readers, and elements whose class or id
names furniture: comments, banners, share buttons, related links, sidebars). Whitespace collapses as a browser
collapses it; invisible characters (soft hyphens, zero-width ones) are none. The page's own date (its article's
``<time>``, a date ``<meta>``) dates it.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

from batchsum.doc_dates import stamp_day
from batchsum.readers.decoding import decode_bytes

__all__ = ["join_blocks", "markdown_table", "page_source", "read_page", "render_html", "saved_page_folder"]

_VOID = frozenset("area base br col embed hr img input link meta param source track wbr".split())
_DROPPED = frozenset("script style noscript template svg head nav header footer aside form iframe object".split())
_DROPPED |= {"canvas", "button", "select", "textarea", "dialog"}
_DROPPED_ROLES = frozenset({"navigation", "banner", "contentinfo", "complementary", "search"})
_HEADINGS = {f"h{n}": n for n in range(1, 7)}
_LISTS = frozenset({"ul", "ol", "menu", "dir"})
_BLOCKS = frozenset(
    (
        "p div section article main figure figcaption dl dt dd address center details summary body html hr "
        "fieldset legend caption hgroup picture video audio"
    ).split()
)
# A start tag that closes the open element of these names first (HTML's implied end tags).
_CLOSES: dict[str, frozenset[str]] = {
    **dict.fromkeys(("li",), frozenset({"li"})),
    **dict.fromkeys(("dt", "dd"), frozenset({"dt", "dd"})),
    **dict.fromkeys(("tr",), frozenset({"tr", "td", "th"})),
    **dict.fromkeys(("td", "th"), frozenset({"td", "th"})),
    **dict.fromkeys(("thead", "tbody", "tfoot"), frozenset({"thead", "tbody", "tfoot", "tr", "td", "th"})),
}
_CLOSES_P = _BLOCKS | _LISTS | set(_HEADINGS) | {"table", "pre", "blockquote", "li", "ul", "ol"}
# Where an implied end stops looking: an <li> closes the <li> of its own list, not one of the list around it.
_SCOPES = _LISTS | {"table", "blockquote", "td", "th", "dl"}
_MAX_DEPTH = 100  # deeper elements are read as their parent's text (a table's too): no recursion past Python's limit
_MIN_CONTENT_SHARE = 0.25  # of the page's words, that its <main> or <article>s must hold to be its text
_WS = re.compile(r"[ \t\n\r\f]+")
# Page furniture by its class or id (Mozilla Readability's unlikelyCandidates, boilerpipe's idea): comments,
# banners, share buttons, related links, sign-up boxes, sidebars, a wiki's edit links, navboxes and categories.
_FURNITURE = re.compile(
    r"comment|share|sharing|social|related|cookie|consent|gdpr|banner|newsletter|subscribe|signup|sidebar|widget"
    r"|promo|advert|sponsor|footer|header|masthead|menu|breadcrumb|pagination|pager|popup|modal|disqus|skyscraper"
    r"|shoutbox|mw-editsection|navbox|catlinks|printfooter|mw-jump|toc-|noprint",
    re.IGNORECASE,
)
# Invisible characters a browser shows as nothing, which split a word for search ("Lebensmittel\xadüberwachung").
_INVISIBLE = dict.fromkeys(map(ord, "\xad\u200b\u200c\u200d\u2060\ufeff"))
_TITLE_SEPARATORS = re.compile(r" (?:\||—|–|-|::|·) ")
_DATE_METAS = frozenset({"article:published_time", "date", "dc.date", "dcterms.date", "created", "pubdate"})
# A browser's "Save page, complete" puts the page's images and scripts in a folder named after it.
_SAVED_FILES = re.compile(r"(.+)(?:_files|-Dateien|_archivos|_fichiers|-bestanden|_file|_arquivos|_pliki)")
_FIRST_HEADING = re.compile(r"^(#{2,6}) (.+)$", re.MULTILINE)
_ANY_HEADING = re.compile(r"^#{1,6} (.+)$", re.MULTILINE)
_BR = "\x1e"  # a <br> in the collapsed text (control characters are removed from the data)


class _Node:
    __slots__ = ("attrs", "children", "tag")

    def __init__(self, tag: str, attrs: dict[str, str]) -> None:
        self.tag = tag
        self.attrs = attrs
        self.children: list[_Node | str] = []


class _Tree(HTMLParser):
    """The page as a tree of elements, end tags implied where HTML implies them."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = _Node("#root", {})
        self.stack = [self.root]
        self.title: list[str] = []
        self.in_title = False
        # Tags open inside a dropped element that began past _MAX_DEPTH: none of their text is the page's.
        self.deep: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "title" and not any(n.tag == "svg" for n in self.stack):  # an icon's <title> names no page
            self.in_title = True
            return
        if self.deep or (len(self.stack) >= _MAX_DEPTH and _dropped_markup(tag, dict(attrs))):
            if tag not in _VOID:
                self.deep.append(tag)
            return
        closes = _CLOSES.get(tag, frozenset())
        if tag in _CLOSES_P:
            closes = closes | {"p"}
        if closes:
            self._close_open(closes)
        node = _Node(tag, {k: v or "" for k, v in attrs})
        self.stack[-1].children.append(node)
        if tag not in _VOID and len(self.stack) < _MAX_DEPTH:
            self.stack.append(node)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in _VOID and self.stack[-1].tag == tag and len(self.stack) > 1:
            self.stack.pop()  # <div/>: no element stays open

    def _close_open(self, names: frozenset[str]) -> None:
        """Close the outermost open element of ``names`` inside the nearest scope (a <tr> closes its row, not
        only the row's open cell), with everything inside it."""
        found = 0
        for i in range(len(self.stack) - 1, 0, -1):
            tag = self.stack[i].tag
            if tag in names:
                found = i
            elif tag in _SCOPES:
                break
        if found:
            del self.stack[found:]

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self.in_title = False
            return
        if self.deep:
            if tag in self.deep:
                del self.deep[len(self.deep) - 1 - self.deep[::-1].index(tag) :]
            return
        for i in range(len(self.stack) - 1, 0, -1):
            if self.stack[i].tag == tag:
                del self.stack[i:]
                return
        if tag == "p":  # "</p>" with no <p> open is an empty paragraph to a browser: a break
            self.stack[-1].children.append(_Node("br", {}))

    def handle_data(self, data: str) -> None:
        data = data.replace(_BR, "").translate(_INVISIBLE)
        if self.deep:
            return
        if self.in_title:
            self.title.append(data)
        else:
            self.stack[-1].children.append(data)


def _dropped_markup(tag: str, attrs: dict[str, str | None]) -> bool:
    """Whether an element is no text by its tag or its role (code a browser runs, navigation, hidden)."""
    return (
        tag in _DROPPED
        or (attrs.get("role") or "").lower() in _DROPPED_ROLES
        or (attrs.get("aria-hidden") or "").lower() == "true"
        or "hidden" in attrs
    )


def _furniture_named(node: _Node) -> bool:
    """Whether ``node``'s class or id names page furniture; the page's <article> or <main> never is."""
    if node.tag in ("article", "main", "body", "html") or node.attrs.get("role", "").lower() == "main":
        return False
    return _FURNITURE.search(node.attrs.get("class", "") + " " + node.attrs.get("id", "")) is not None


def _own_words(node: _Node) -> int:
    """The words of ``node`` a reader sees, less those of the furniture inside it (by markup or by name)."""
    count = 0
    stack: list[_Node | str] = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            count += len(item.split())
        elif item is node or not (_dropped_markup(item.tag, dict(item.attrs)) or _furniture_named(item)):
            stack.extend(item.children)
    return count


def _holders(root: _Node, targets: list[_Node]) -> tuple[set[int], set[int]]:
    """The ids of the elements holding one of ``targets`` (or being one), and of those holding an <h1>."""
    wanted = {id(t) for t in targets}
    holds, h1s = set(), set()
    order: list[_Node] = []
    stack = [root]
    while stack:  # parents before their children: read backwards, children come first
        node = stack.pop()
        order.append(node)
        stack.extend(c for c in node.children if isinstance(c, _Node))
    for node in reversed(order):
        kids = [id(c) for c in node.children if isinstance(c, _Node)]
        if id(node) in wanted or any(k in holds for k in kids):
            holds.add(id(node))
        if node.tag == "h1" or any(k in h1s for k in kids):
            h1s.add(id(node))
    return holds, h1s


class _Page:
    """What tells furniture from text on one page: its main content and its words once furniture is dropped."""

    def __init__(self, root: _Node, content: list[_Node] | None) -> None:
        self.content = content or []
        self.holds, self.h1s = _holders(root, self.content)
        # The page's words once its furniture is dropped: those in no element named as furniture, then the
        # named ones' own that hold most of what is kept so far (a "header-wrap" around the article is text,
        # each of many comments no more than a comment).
        self.words = _own_words(root)
        self.kept: set[int] = set()
        for words, node in sorted(_named(root), key=lambda item: -item[0]):
            if words > self.words:
                self.kept.add(id(node))
                self.words += words

    def dropped(self, node: _Node, in_content: bool) -> bool:
        """Whether ``node`` is no text of the page: code a browser runs, or the page's furniture. Inside an
        <article> or <main>, a <header> is the article's own (its title and byline): kept. An element named
        as furniture is kept when it wraps the article or the page's <h1>, or holds most of its text
        (readability's exceptions: a layout's "header-wrap" around everything)."""
        own_header = node.tag == "header" and in_content
        if _dropped_markup("" if own_header else node.tag, dict(node.attrs)):
            return True
        if not _furniture_named(node) or id(node) in self.holds or (in_content and id(node) in self.h1s):
            return False
        return id(node) not in self.kept


def _named(root: _Node) -> list[tuple[int, _Node]]:
    """The elements named as furniture outside those dropped by markup, each with its own words."""
    found: list[tuple[int, _Node]] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node is not root and _dropped_markup(node.tag, dict(node.attrs)):
            continue
        if node is not root and _furniture_named(node):
            found.append((_own_words(node), node))
        stack.extend(c for c in node.children if isinstance(c, _Node))
    return found


class _Out:
    """Blocks of Markdown, and the inline text of the block being read."""

    def __init__(self) -> None:
        self.blocks: list[tuple[str, str]] = []  # (kind, text): "p", "li" (joined to the next item by one newline)
        self.inline: list[str] = []

    def flush(self) -> None:
        text = _collapse("".join(self.inline))
        self.inline.clear()
        if text:
            self.blocks.append(("p", text))

    def block(self, kind: str, text: str) -> None:
        self.flush()
        if text.strip():
            self.blocks.append((kind, text))


def _collapse(text: str) -> str:
    """Whitespace as a browser shows it: a run is one space, lines begin and end with none; a <br> a line."""
    lines = (_WS.sub(" ", line.replace("\xa0", " ")).strip() for line in text.split(_BR))
    return "\n".join(line for line in lines if line)


def join_blocks(blocks: list[tuple[str, str]], *, tight: bool = False) -> str:
    """Blocks as Markdown: paragraphs apart by a blank line, consecutive list items (kind ``li``) by a newline
    (``tight``: every block by a newline, as inside a list item)."""
    out: list[str] = []
    for i, (kind, text) in enumerate(blocks):
        if i:
            out.append("\n" if tight or (kind == "li" and blocks[i - 1][0] == "li") else "\n\n")
        out.append(text)
    return "".join(out)


def markdown_table(rows: list[list[str]]) -> str:
    """Rows of cell texts as Markdown table rows, the first one the header; short rows padded."""
    width = max(len(r) for r in rows)
    cells = [[" ".join(c.split()).replace("|", "\\|") for c in r] + [""] * (width - len(r)) for r in rows]
    lines = ["| " + " | ".join(r) + " |" for r in cells]
    lines.insert(1, "|" + " --- |" * width)
    return "\n".join(lines)


class _Reader:
    """Walks the tree of the page's content and writes its Markdown."""

    def __init__(self, page: _Page) -> None:
        self.page = page
        self.in_content = bool(page.content)
        self.h1 = False

    def children(self, node: _Node, out: _Out) -> None:
        for child in node.children:
            if isinstance(child, str):
                out.inline.append(child)
            else:
                self.element(child, out)

    def element(self, node: _Node, out: _Out) -> None:
        tag = node.tag
        if self.page.dropped(node, self.in_content):
            return
        if tag == "br":
            out.inline.append(_BR)
        elif tag in _HEADINGS:
            self.h1 = self.h1 or tag == "h1"
            text = _inline_text(self, node).replace("\n", " ")
            out.block("h", "#" * _HEADINGS[tag] + " " + text if text else "")
        elif tag == "li":
            out.block("li", self._item(node))
        elif tag == "blockquote":
            inner = self.container(node)
            out.block("q", "\n".join(f"> {ln}" if ln else ">" for ln in inner.split("\n")))
        elif tag == "pre" or (tag == "code" and "\n" in _raw_text(node).strip()):
            out.block("pre", _fenced(_raw_text(node)))
        elif tag == "code":
            text = _collapse(_raw_text(node))
            out.inline.append(f"`{text}`" if text else "")
        elif tag == "table":
            self._table(node, out)
        elif tag in _BLOCKS or tag in _LISTS or tag in _CLOSES:
            out.flush()
            self.children(node, out)
            out.flush()
        else:
            self.children(node, out)

    def container(self, node: _Node, *, tight: bool = False) -> str:
        """The Markdown of ``node``'s content as a document of its own."""
        out = _Out()
        self.children(node, out)
        out.flush()
        return join_blocks(out.blocks, tight=tight)

    def _item(self, node: _Node) -> str:
        lines = self.container(node, tight=True).split("\n")
        return "\n".join([f"- {lines[0]}", *(f"  {ln}" for ln in lines[1:])]) if lines[0] or len(lines) > 1 else ""

    def _table(self, node: _Node, out: _Out) -> None:
        # What a table holds outside its cells is shown before it, as a browser shows it (foster parenting): stray
        # text, and the text of a page nested past _MAX_DEPTH, which its deepest element holds.
        if strays := _strays(node):
            out.flush()
            for item in strays:
                if isinstance(item, str):
                    out.inline.append(item)
                else:
                    self.element(item, out)
            out.flush()
        cells = _rows(node)
        if not any(cells):
            return
        # Layout or data, decided before a cell is rendered: a cell rendered both ways rendered the tables nested
        # in it twice at each level (2^depth: a 300-byte page of 20 nested tables took 17 s).
        if max(len(row) for row in cells) == 1 or _layout(cells):  # its cells are the page's blocks, in order
            out.flush()
            for row in cells:
                for cell in row:
                    self.children(cell, out)
                    out.flush()
            return
        rows = _spread([[(_inline_text(self, cell), cell.attrs) for cell in row] for row in cells])
        rows = [r for r in rows if any(r)]
        if not rows:
            return
        captions = [c for c in node.children if isinstance(c, _Node) and c.tag == "caption"]
        out.block("p", " ".join(_inline_text(self, c).replace("\n", " ") for c in captions))
        out.block("table", markdown_table(rows))


def _span(attrs: dict[str, str], name: str, most: int) -> int:
    value = attrs.get(name, "").strip()  # ASCII digits only: "²" is a digit to str.isdigit, not to int()
    return min(most, int(value)) if re.fullmatch(r"[0-9]{1,4}", value) and int(value) > 0 else 1


def _spread(rows: list[list[tuple[str, dict[str, str]]]]) -> list[list[str]]:
    """Rows of cell texts with each spanning cell repeated in every column and row it spans."""
    grid: list[list[str]] = []
    pending: dict[int, tuple[str, int]] = {}  # column: (text, rows it still spans below)
    for i, row in enumerate(rows):
        cells: list[str] = []
        queue = list(row)
        while queue or any(col >= len(cells) for col in pending):
            col = len(cells)
            if col in pending:
                text, left = pending.pop(col)
                cells.append(text)
                if left > 1:
                    pending[col] = (text, left - 1)
                continue
            if not queue:
                cells.append("")
                continue
            text, attrs = queue.pop(0)
            down = _span(attrs, "rowspan", len(rows) - i)
            for _ in range(_span(attrs, "colspan", 100)):
                if down > 1:
                    pending[len(cells)] = (text, down - 1)
                cells.append(text)
        grid.append(cells)
    return grid


def _layout(rows: list[list[_Node]]) -> bool:
    """Whether a table (its rows' cells) lays out the page rather than holding data: a cell holds a heading, or
    its one row's cells hold paragraphs or lists (a two-column page: navigation and the article)."""
    blocks = set(_HEADINGS) if len(rows) > 1 else {*_HEADINGS, "p", "ul", "ol", "blockquote", "pre"}
    stack = [cell for row in rows for cell in row]
    while stack:
        node = stack.pop()
        if node.tag in blocks:
            return True
        stack.extend(c for c in node.children if isinstance(c, _Node) and c.tag != "table")
    return False


_SECTIONS = frozenset({"thead", "tbody", "tfoot"})
_TABLE_PARTS = _SECTIONS | {"tr", "td", "th", "caption", "colgroup", "col"}


def _rows(table: _Node) -> list[list[_Node]]:
    """The cells of the table's rows, through <thead>, <tbody> and <tfoot>, not those of a table nested in a
    cell. Cells directly in the table or a section are one row, as a browser implies their <tr>."""
    found: list[list[_Node]] = []
    loose: list[_Node] = []
    for child in table.children:
        if not isinstance(child, _Node):
            continue
        if child.tag in ("td", "th"):
            loose.append(child)
            continue
        if loose:
            found.append(loose)
            loose = []
        if child.tag == "tr":
            found.append(_cells(child))
        elif child.tag in _SECTIONS:
            found.extend(_rows(child))
    return [*found, loose] if loose else found


def _strays(node: _Node) -> list[_Node | str]:
    """What a table, a section or a row holds outside its cells, captions and columns: text, other elements."""
    found: list[_Node | str] = []
    for child in node.children:
        if isinstance(child, str):
            if child.strip():
                found.append(child)
        elif child.tag == "tr" or child.tag in _SECTIONS:
            found.extend(_strays(child))
        elif child.tag not in _TABLE_PARTS:
            found.append(child)
    return found


def _cells(tr: _Node) -> list[_Node]:
    return [c for c in tr.children if isinstance(c, _Node) and c.tag in ("td", "th")]


def _inline_text(reader: _Reader, node: _Node) -> str:
    """``node``'s text on one line per <br>, its blocks run together (a heading's, a table cell's)."""
    return reader.container(node, tight=True)


def _raw_text(node: _Node) -> str:
    """``node``'s text as written, its whitespace kept (a <pre>'s), <br> as a newline."""
    out: list[str] = []
    stack: list[_Node | str] = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
        elif item.tag == "br":
            out.append("\n")
        elif item.tag not in ("script", "style", "template"):
            stack.extend(reversed(item.children))
    return "".join(out)


def _fenced(code: str) -> str:
    code = code.strip("\n").rstrip()
    if not code.strip():
        return ""
    fence = "```"
    while fence in code:
        fence += "`"
    return f"{fence}\n{code}\n{fence}"


def _content(root: _Node) -> list[_Node] | None:
    """The page's main content (readability's idea): its <main> (or role="main"), else its outermost
    <article>s; None when it has neither."""
    articles: list[_Node] = []
    stack: list[_Node] = [root]
    while stack:
        node = stack.pop()
        if node.tag == "main" or node.attrs.get("role", "").lower() == "main":
            return [node]
        if node.tag == "article":
            articles.append(node)
            continue  # an article's comments (articles inside it) are its own
        stack.extend(reversed([c for c in node.children if isinstance(c, _Node)]))
    return articles or None


def _page_title(title: str, body: str) -> str:
    """The <title>'s text without the site's name beside it ("Ten tips | The Blog", "Blog — Ten tips"): the
    part the page's first heading says, else the first part (where most sites put the page's own name)."""
    text = " ".join(title.split())
    parts = [p.strip() for p in _TITLE_SEPARATORS.split(text) if p.strip()]
    if len(parts) < 2:
        return text
    first = _ANY_HEADING.search(body)
    heading = first.group(1).casefold() if first is not None else ""
    return next((p for p in parts if p.casefold() == heading), parts[0])


def _page_day(root: _Node, page: _Page) -> str | None:
    """The day the page says it was published: the first <time datetime> in the text read (its article's,
    not a comment's), else a date <meta> (article:published_time, date, dc.date, Evernote's created)."""
    times: list[str] = []
    metas: list[str] = []
    stack = list(reversed(page.content or [root]))
    while stack:
        node = stack.pop()
        if node.tag == "time" and node.attrs.get("datetime"):
            times.append(node.attrs["datetime"])
        kept = (c for c in node.children if isinstance(c, _Node) and not page.dropped(c, bool(page.content)))
        stack.extend(reversed(list(kept)))
    stack = [root]
    while stack:
        node = stack.pop()
        name = (node.attrs.get("property") or node.attrs.get("name") or "").lower()
        if node.tag == "meta" and name in _DATE_METAS:
            metas.append(node.attrs.get("content", ""))
        stack.extend(reversed([c for c in node.children if isinstance(c, _Node)]))
    return next((day for when in times[:1] + metas if (day := stamp_day(when)) is not None), None)


def saved_page_folder(name: str, pages: set[str]) -> str | None:
    """Why folder ``name`` is skipped when it holds the images and scripts a browser saved with a page of
    ``pages`` beside it (``Article_files`` or ``Article-Dateien`` next to ``Article.html``), else None."""
    m = _SAVED_FILES.fullmatch(name)
    page = next((p for p in sorted(pages) if m is not None and p.rpartition(".")[0] == m.group(1)), None)
    return f"the files a browser saved with {page} (images, scripts): skipped" if page else None


def page_source(raw: bytes | bytearray) -> tuple[tuple[str, str | None], tuple[str, str] | None]:
    """A page's bytes as a run reads them: (Markdown, decoding note) and (its own day, "page date") or None."""
    text, note = decode_bytes(raw)
    text, day = read_page(text)
    return (text, note), ((day, "page date") if day else None)


def render_html(markup: str) -> str:
    """The page in ``markup`` as Markdown (see the module's docstring); empty when it holds no text."""
    return read_page(markup)[0]


def read_page(markup: str) -> tuple[str, str | None]:
    """(Markdown, ISO day the page says it was published or None) of the page in ``markup``."""
    tree = _Tree()
    try:
        tree.feed(markup)
        tree.close()
    except AssertionError as exc:  # html.parser's few refusals (a marked section it cannot read)
        raise ValueError(f"HTML the parser cannot read: {exc}") from None
    content = _content(tree.root)
    page = _Page(tree.root, content)
    # Compared with the page's text once its furniture is left out: many comments had outweighed an article.
    if content is not None and sum(_own_words(n) for n in content) < _MIN_CONTENT_SHARE * page.words:
        content = page.content = []  # a cookie notice or a teaser in an <article>: the page's text is elsewhere
    reader = _Reader(page)
    out = _Out()
    for node in page.content or [tree.root]:
        if node is tree.root:
            reader.children(node, out)
        else:
            reader.element(node, out)
        out.flush()
    body = join_blocks(out.blocks)
    day = _page_day(tree.root, page)
    title = _page_title("".join(tree.title), body)
    if title and not reader.h1 and body:
        first = _FIRST_HEADING.search(body)
        if first is not None and first.group(2).casefold() == title.casefold():
            # The article's own heading says the title: it becomes the "# " one, not said twice.
            return body[: first.start(1)] + "#" + body[first.end(1) :], day
        body = f"# {title}\n\n{body}"
    return body, day
