"""HTML pages (``.html``, ``.htm``: saved web articles, Notion, Confluence and Evernote exports) read as Markdown.

The page's main content is the text: an ``<article>`` or ``<main>`` element when there is one (readability's
idea), else the body. Headings are ``#`` headings, list items ``- `` lines (nested ones indented), tables Markdown
rows, ``<pre>`` and multi-line ``<code>`` fenced (the summarizer leaves code out), quotes ``> `` lines. What a
reader of the page does not read as its text is left out: scripts, styles, the head (but its ``<title>``, the
text's ``#`` title when the content has no ``<h1>``) and the page's furniture (navigation, header, footer,
asides, forms, elements hidden from screen readers). Whitespace collapses as a browser collapses it.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

__all__ = ["join_blocks", "markdown_table", "render_html"]

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
_MAX_DEPTH = 100  # deeper elements are read as their parent's text: no recursion past Python's limit
_MIN_CONTENT_SHARE = 0.25  # of the page's words, that its <main> or <article>s must hold to be its text
_WS = re.compile(r"[ \t\n\r\f]+")
_FIRST_HEADING = re.compile(r"^(#{2,6}) (.+)$", re.MULTILINE)
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

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "title" and not any(n.tag == "svg" for n in self.stack):  # an icon's <title> names no page
            self.in_title = True
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
        for i in range(len(self.stack) - 1, 0, -1):
            if self.stack[i].tag == tag:
                del self.stack[i:]
                return
        if tag == "p":  # "</p>" with no <p> open is an empty paragraph to a browser: a break
            self.stack[-1].children.append(_Node("br", {}))

    def handle_data(self, data: str) -> None:
        data = data.replace(_BR, "")
        if self.in_title:
            self.title.append(data)
        else:
            self.stack[-1].children.append(data)


def _dropped(node: _Node, in_content: bool) -> bool:
    """Whether ``node`` is no text of the page: code a browser runs, or the page's furniture. Inside an
    <article> or <main>, a <header> is the article's own (its title and byline): kept."""
    if node.tag in _DROPPED and not (node.tag == "header" and in_content):
        return True
    attrs = node.attrs
    return (
        attrs.get("role", "").lower() in _DROPPED_ROLES
        or attrs.get("aria-hidden", "").lower() == "true"
        or "hidden" in attrs
    )


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

    def __init__(self, in_content: bool) -> None:
        self.in_content = in_content
        self.h1 = False

    def children(self, node: _Node, out: _Out) -> None:
        for child in node.children:
            if isinstance(child, str):
                out.inline.append(child)
            else:
                self.element(child, out)

    def element(self, node: _Node, out: _Out) -> None:
        tag = node.tag
        if _dropped(node, self.in_content):
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
        rows = [[_inline_text(self, cell) for cell in _cells(tr)] for tr in _rows(node)]
        rows = [r for r in rows if any(r)]
        if not rows:
            return
        if max(len(r) for r in rows) == 1:  # a layout table (one column): its cells are the page's blocks
            out.flush()
            for tr in _rows(node):
                for cell in _cells(tr):
                    self.children(cell, out)
                    out.flush()
            return
        out.block("table", markdown_table(rows))


def _rows(table: _Node) -> list[_Node]:
    """The table's rows, through <thead>, <tbody> and <tfoot>, not those of a table nested in a cell."""
    found: list[_Node] = []
    for child in table.children:
        if isinstance(child, _Node):
            if child.tag == "tr":
                found.append(child)
            elif child.tag in ("thead", "tbody", "tfoot"):
                found.extend(_rows(child))
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


def _words(nodes: list[_Node]) -> int:
    return sum(len(_raw_text(node).split()) for node in nodes)


def _page_title(title: str) -> str:
    """The <title>'s text without the site's name after a " | " ("Ten tips | The Blog": "Ten tips")."""
    text = " ".join(title.split())
    parts = [p.strip() for p in text.split(" | ") if p.strip()]
    return max(parts, key=len) if len(parts) > 1 else text


def render_html(markup: str) -> str:
    """The page in ``markup`` as Markdown (see the module's docstring); empty when it holds no text."""
    tree = _Tree()
    try:
        tree.feed(markup)
        tree.close()
    except AssertionError as exc:  # html.parser's few refusals (a marked section it cannot read)
        raise ValueError(f"HTML the parser cannot read: {exc}") from None
    content = _content(tree.root)
    if content is not None and _words(content) < _MIN_CONTENT_SHARE * _words([tree.root]):
        content = None  # a cookie notice or a teaser in an <article>: the page's text is elsewhere
    reader = _Reader(in_content=content is not None)
    out = _Out()
    for node in content or [tree.root]:
        if node is tree.root:
            reader.children(node, out)
        else:
            reader.element(node, out)
        out.flush()
    body = join_blocks(out.blocks)
    title = _page_title("".join(tree.title))
    if title and not reader.h1 and body:
        first = _FIRST_HEADING.search(body)
        if first is not None and first.group(2).casefold() == title.casefold():
            # The article's own heading says the title: it becomes the "# " one, not said twice.
            return body[: first.start(1)] + "#" + body[first.end(1) :]
        body = f"# {title}\n\n{body}"
    return body
