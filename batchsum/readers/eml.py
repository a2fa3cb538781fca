"""E-mail messages (``.eml``, RFC 5322, multipart or not) rendered as the text of an e-mail thread.

The shape is the one the summarizer reads in a ``.txt`` thread (:func:`batchsum.text.email_headers`): a
``From:``/``Date:``/``To:``/``Subject:`` header block, then the body. The body is the text/plain part,
else the text/html part stripped to text; attachments are named, not read. A reply quoted under
"On <date>, <name> wrote:" becomes a header block of its own with the quote's text under it, so its
sender is the speaker of what they wrote. The messages are in the order they were written: a quote (and a
forwarded or "Original Message" one) before the reply above it. Each writer's words are one turn, without the
salutation, closing and signature (:mod:`batchsum.readers.eml_words`).
"""

from __future__ import annotations

import email
import email.policy
import re
from email.message import EmailMessage, Message
from html.parser import HTMLParser

from batchsum.readers.decoding import decode_bytes
from batchsum.readers.eml_words import embedded_messages, own_words

__all__ = ["read_eml", "render_eml"]

HEADERS = ("From", "Date", "To", "Cc", "Subject")
# "On Tue, 12 Mar 2024 at 17:40, Ben Okafor <ben@example.com> wrote:" (Gmail, Apple Mail, Thunderbird).
_ATTRIBUTION = re.compile(r"On (?P<date>.+),\s+(?P<who>[^,]+?)\s+wrote:\s*")
_BLANK_RUNS = re.compile(r"\n{3,}")


def render_eml(raw: bytes) -> str:
    """The message in ``raw`` as a header block and its body (:func:`read_eml` without its decoding note)."""
    return read_eml(raw)[0]


def read_eml(raw: bytes) -> tuple[str, str | None]:
    """(The message in ``raw`` as a header block and its body, the note of a decode that was lossy or not of
    UTF-8 or a declared charset, else None). Raises ValueError when it has none of the From, To, Subject and
    Date headers (no e-mail message)."""
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    values, note = _header_values(msg)
    header = [f"{name}: {text}" for name, text in values.items() if text]
    if not header:
        raise ValueError("not an e-mail message: no From, To, Subject or Date header")
    parts = ["\n".join(header)]
    # The block that gives the message's own words back to its sender after a quote: From and Date.
    own = [ln for ln in header if ln.startswith(("From: ", "Date: "))]
    writer = values.get("From", "")
    content, body_note = _body(msg)
    body = _unquote_replies(content, "\n".join(own) if len(own) == 2 else "", writer)
    if body:
        parts.append(body)
    attached = _attachment_names(msg)
    if attached:
        parts.append(f"[Attachments, not read: {', '.join(attached)}]")
    notes = sorted({n for n in (note, body_note) if n}, key=lambda n: not n.startswith("lossy"))
    return "\n\n".join(parts), "; ".join(notes) or None


def _header_values(msg: Message) -> tuple[dict[str, str], str | None]:
    """The message's :data:`HEADERS` as text (one line each, "" for one missing or too malformed to parse),
    and the note of their decoding. A header of 8-bit bytes (RFC 5322 allows none; RFC 6532's are UTF-8) is
    decoded as a text file is (:func:`~batchsum.readers.decoding.decode_bytes`), all of them together: the
    parser had made "Renée" in Windows-1252 "Ren\ufffde"."""
    raw: dict[str, str] = {}
    for name, value in msg.raw_items():
        if name.title() in HEADERS:
            raw.setdefault(name.title(), value)  # the first, as msg.get has it
    eight_bit = [name for name, value in raw.items() if not value.isascii()]
    decoded: dict[str, str] = {}
    note = None
    if eight_bit:
        # The parser keeps a header's undecodable bytes as surrogates; one line each, so they split back.
        joined = b"\n".join(_unfolded(raw[name]).encode("ascii", "surrogateescape") for name in eight_bit)
        text, note = _decoded(joined)
        lines = text.split("\n")
        if len(lines) == len(eight_bit):
            decoded = dict(zip(eight_bit, lines, strict=True))
    values: dict[str, str] = {}
    for name in HEADERS:
        try:
            header = email.policy.default.header_factory(name, decoded[name]) if name in decoded else msg.get(name)
            values[name] = " ".join(str(header).split()) if header is not None else ""
        except (ValueError, TypeError, LookupError, AttributeError):  # a header too malformed to parse
            values[name] = ""
    return values, note


def _unfolded(value: str) -> str:
    return re.sub(r"[\r\n]+", " ", value)


def _decoded(raw: bytes) -> tuple[str, str | None]:
    """``raw`` decoded as a text file is (:func:`~batchsum.readers.decoding.decode_bytes`); bytes it takes for
    binary data (NULs) as UTF-8, what fails replaced, and said so."""
    try:
        return decode_bytes(raw)
    except ValueError:
        text = raw.decode("utf-8", "replace")
        bad = text.count("\ufffd")
        return text, (f"lossy utf-8 decode: {bad} invalid byte sequence(s) replaced" if bad else None)


def _body(msg: Message) -> tuple[str, str | None]:
    """The message's text (its plain part, else its HTML part as text, else nothing) and the note of its
    decoding. A part in the charset it declares; a part that declares none, one Python does not know, or one
    its bytes are not (8-bit Windows-1252 said to be UTF-8 or ASCII) is decoded as a text file is
    (:func:`_decoded`): e-mail's own decoding had replaced every such byte without a word."""
    part = msg.get_body(preferencelist=("plain", "html")) if isinstance(msg, EmailMessage) else None
    if part is None:
        return "", None
    try:
        payload = part.get_payload(decode=True)
    except (LookupError, ValueError, AssertionError):  # a broken transfer encoding
        payload = None
    if not isinstance(payload, bytes):
        return "", None
    content, note = None, None
    if charset := part.get_content_charset():
        try:
            content = payload.decode(charset)
        except (LookupError, UnicodeDecodeError):
            pass
    if content is None:
        content, note = _decoded(payload)
    if part.get_content_subtype() == "html":
        content = _html_to_text(content)
    text = "\n".join(line.rstrip() for line in content.replace("\r\n", "\n").replace("\r", "\n").split("\n"))
    return _BLANK_RUNS.sub("\n\n", text).strip(), note


def _attachment_names(msg: Message) -> list[str]:
    """The file names (or types) of the message's attachments."""
    if not isinstance(msg, EmailMessage) or not msg.is_multipart():
        return []
    names: list[str] = []
    for part in msg.iter_attachments():
        name = part.get_filename()
        names.append(" ".join(name.split()) if name else part.get_content_type())
    return names


_MAX_NESTING = 50  # quotes inside quotes deeper than this stay quoted text (no recursion without end)


def _unquote_replies(body: str, sender: str = "", writer: str = "", depth: int = 0) -> str:
    """``body``, the text of a message whose header block is ``sender`` (``From:`` and ``Date:``; empty
    when unknown) and whose From address is ``writer``, as its writers' words in the order they were
    written (:func:`_pieces`), each under its writer's header block where the one above is another's."""
    out: list[str] = []
    above = sender  # the header block the text above belongs to (the message's own, right over it)
    for header, words in _pieces(body, sender, writer, depth):
        out.append(f"{header}\n\n{words}" if header and header != above else words)
        above = header
    return "\n\n".join(out)


def _pieces(body: str, sender: str, writer: str, depth: int) -> list[tuple[str, str]]:
    """(header block, words) of each writer's part of ``body``, oldest first.

    A quoted message is older than the reply above it (top-posting): it comes first, so a thread reads
    request, answer, thanks instead of backwards. A forwarded or "Original Message" header block in the
    body opens an older message (:func:`~batchsum.readers.eml_words.embedded_messages`); a reply quoted with ``>``
    under an "On <date>, <name> wrote:" line is its sender's (a header block ``From: <name>``, ``Date:
    <date>``), nested quotes likewise (:func:`_quotes`)."""
    out: list[tuple[str, str]] = []
    for header, who, text in reversed(embedded_messages(body, writer)):
        out += _quotes(text, header or sender, who, depth)
    return out


def _quotes(body: str, sender: str, writer: str, depth: int) -> list[tuple[str, str]]:
    """(header block, words) of ``body``, one message's text, oldest first: each ``>`` quote (to
    :data:`_MAX_NESTING` levels) before the reply above it. Text under a quote (a reply written below it,
    or between two quotes) is the writer's again, under ``sender``: without it the quote's sender was
    taken for its writer, and credited with its decisions and promises. The replies one after another
    are taken in a loop (a thread of a thousand had exceeded the recursion limit).

    Each writer's part is read as :func:`~batchsum.readers.eml_words.own_words` gives it, ``writer`` naming
    whose name may close it: one turn, without salutation, closing and signature."""
    out: list[tuple[str, str]] = []
    while depth < _MAX_NESTING and (found := _first_quote(body.split("\n"))) is not None:
        above, who, date, quoted, body = found
        out += _pieces(quoted, f"From: {who}\nDate: {date}", who, depth + 1)
        out.append((sender, own_words(above, writer)))
    out.append((sender, own_words(body, writer)))
    return [(header, words) for header, words in out if words]


def _first_quote(lines: list[str]) -> tuple[str, str, str, str, str] | None:
    """(text above, who, date, quoted text, text after) of the first attributed quote, or None."""
    for i, line in enumerate(lines):
        attribution = line.strip()
        quote_at = i + 1
        if attribution.startswith("On ") and not attribution.endswith("wrote:") and i + 1 < len(lines):
            attribution = f"{attribution} {lines[i + 1].strip()}"  # wrapped over two lines
            quote_at = i + 2
        m = _ATTRIBUTION.fullmatch(attribution)
        if m is None or quote_at >= len(lines) or not lines[quote_at].startswith(">"):
            continue
        end = quote_at
        while end < len(lines) and (lines[end].startswith(">") or not lines[end].strip()):
            end += 1
        quoted = "\n".join(re.sub(r"^> ?", "", ln) for ln in lines[quote_at:end]).strip()
        above, rest = "\n".join(lines[:i]).rstrip(), "\n".join(lines[end:]).strip()
        return above, m.group("who").strip(), m.group("date").strip(), quoted, rest
    return None


class _TextOfHTML(HTMLParser):
    """The text of an HTML body: block elements on lines of their own, scripts and styles left out."""

    BLOCKS = frozenset({"p", "div", "br", "li", "tr", "table", "ul", "ol", "blockquote", "pre", "hr"})
    BLOCKS |= {f"h{n}" for n in range(1, 7)}
    HIDDEN = frozenset({"script", "style", "head", "title"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.pieces: list[str] = []
        self.hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.HIDDEN:
            self.hidden += 1
        elif tag in self.BLOCKS:
            self.pieces.append("\n\n" if tag == "p" else "\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in self.HIDDEN:
            self.hidden = max(0, self.hidden - 1)
        elif tag in self.BLOCKS:
            self.pieces.append("\n\n" if tag == "p" else "\n")

    def handle_data(self, data: str) -> None:
        if not self.hidden:
            self.pieces.append(data.replace("\r", " ").replace("\n", " "))  # the markup's line breaks are spaces


def _html_to_text(markup: str) -> str:
    """The text of an HTML document or fragment: one line per block element, entities decoded, runs of
    spaces and blank lines collapsed."""
    parser = _TextOfHTML()
    parser.feed(markup)
    parser.close()
    lines = [" ".join(line.split()) for line in "".join(parser.pieces).split("\n")]
    return _BLANK_RUNS.sub("\n\n", "\n".join(lines)).strip()
