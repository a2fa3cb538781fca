"""What a writer says in an e-mail's body: its signature, salutation and closing left out, its paragraphs one
turn.

A message is one turn of its sender: read a paragraph a turn, "Dear Tom," and "Ruth" had been turns of their
own, and the signature's phone number a sentence of the summary. The rules are conservative: a salutation
is a short first line of a greeting word ending with a comma, a closing the last short lines that are a
valediction and/or the writer's name, and the signature what follows RFC 3676's ``-- `` line.
"""

from __future__ import annotations

import re

from batchsum.language import run_on
from batchsum.text import BULLET, email_headers, email_sender

__all__ = ["embedded_messages", "own_words"]

# RFC 3676 §4.3: "-- " on a line of its own opens the signature; many clients drop its trailing space.
_SIGNATURE = re.compile(r"--[ \t]?")
_SALUTATION = re.compile(
    r"(?i)(?:dear|hi|hello|hey|hiya|greetings|good (?:morning|afternoon|evening)|"
    r"hallo|liebe[rs]?|sehr geehrte[rs]?|bonjour|salut|cher|chère|hola|querid[oa]s?|estimad[oa]s?|ciao|"
    r"car[oa]|hej)\b[^!?:;,\n]{0,40},"
)
_VALEDICTION = re.compile(
    r"(?i)((?:(?:best|kind|warm|warmest|many|with (?:best|kind|warm))\s+)?(?:regards|wishes)|best|all the best|"
    r"cheers|thanks(?: again| so much| a lot| in advance)?|thank you(?: again| so much| in advance)?|"
    r"many thanks|(?:very )?(?:sincerely|truly|faithfully|cordially) yours|(?:(?:very )?yours )?(?:sincerely|"
    r"truly|faithfully)|yours|respectfully(?: yours| submitted)?|love|warmly|take care|talk soon|speak soon|"
    r"(?:viele|beste|liebe|herzliche) grüße|mit freundlichen grüßen|gruß|grüße|lg|vg|mfg|cordialement|"
    r"bien à vous|amitiés|bises|saludos|un saludo|atentamente|cordiali saluti|saluti|met vriendelijke groet|"
    r"groeten|hälsningar|mvh)[ \t]*[,.!]*[ \t]*(.*)"
)
_MAX_CLOSING_LINES = 3
# A paragraph whose lines are items (a list, a quote, a table) keeps its lines: run into one, they read as
# one muddled sentence.
_ITEM_LINE = re.compile(r"[ \t]*(?:" + BULLET + r"|[>|]|\d{1,3}[.)])\s")
_SENTENCE_END = re.compile(r"[.!?:)\]\"'”’]$")


def embedded_messages(text: str, writer: str) -> list[tuple[str, str, str]]:
    """(header block, its sender, text) of each message in ``text``, a part of a message written by
    ``writer`` (a From address): first the writer's own (header ""), then each stretch under an embedded
    header block (a forwarded or "Original Message" one), that block's sender's."""
    parts: list[tuple[str, str, str]] = []
    header = ""
    stretch: list[str] = []
    for paragraph in re.split(r"\n[ \t]*\n", text):
        rows = paragraph.split("\n")
        if email_headers(rows) is None:
            stretch.append(paragraph)
            continue
        parts.append((header, writer, "\n\n".join(stretch)))
        header, writer, stretch = paragraph.strip("\n"), email_sender(rows) or "", []
    parts.append((header, writer, "\n\n".join(stretch)))
    return parts


def own_words(text: str, writer: str) -> str:
    """``text``, one writer's words, as it reads: without its signature, salutation and closing
    (:func:`_trimmed`); its prose paragraphs as one paragraph (one turn of its writer), a paragraph of
    list items, quoted lines or table rows kept line by line."""
    return _joined(_trimmed(re.split(r"\n[ \t]*\n", text), writer))


def _trimmed(paragraphs: list[str], writer: str) -> list[str]:
    """The paragraphs without the signature (from a ``-- `` line on), the first line when it is a
    salutation and the last lines when they are a valediction and/or the writer's name; as they were
    when that would leave no words."""
    lines = "\n\n".join(paragraphs).split("\n")
    signature = next((i for i, ln in enumerate(lines) if _SIGNATURE.fullmatch(ln)), len(lines))
    lines = lines[:signature]
    words = [i for i, ln in enumerate(lines) if ln.strip()]
    if not words:
        return paragraphs
    first, last = words[0], words[-1] + 1
    if _SALUTATION.fullmatch(lines[first].strip()):
        first += 1
    last = _closing_starts(lines, first, last, _names(writer))
    kept = "\n".join(lines[first:last]).strip("\n")
    if not kept.strip():
        kept = "\n".join(lines).strip("\n")
    return re.split(r"\n[ \t]*\n", kept) if kept.strip() else paragraphs


def _closing_starts(lines: list[str], first: int, end: int, names: set[str]) -> int:
    """Where the closing of ``lines[first:end]`` begins (``end`` when it has none): up to
    :data:`_MAX_CLOSING_LINES` last lines, each a valediction ("Best,", "Thanks, Ruth") after a sentence's
    end or a blank line or over the writer's name, or the writer's name: on the last line, or under a
    valediction or a blank line."""
    taken = 0
    cut = end
    while cut > first and taken < _MAX_CLOSING_LINES:
        line = lines[cut - 1].strip()
        above = lines[cut - 2].strip() if cut - 2 >= first else ""
        if not line:
            cut -= 1
            continue
        closing = _is_valediction(line, names)
        # "... and we all said" / "thanks" is a sentence's wrapped end, not a closing; over a name signed, it is.
        if closing and not taken and above and not _SENTENCE_END.search(above) and not _is_valediction(above, names):
            closing = False
        if not closing and _is_name(line, names):
            # The writer's name alone on the last line is signed, right under the text or not ("... please.\nDana").
            closing = not taken or not above or _is_valediction(above, names)
        if not closing:
            break
        cut -= 1
        taken += 1
    return cut


def _is_valediction(line: str, names: set[str]) -> bool:
    """Whether ``line`` is a valediction, alone or with the writer's name ("Best,", "Thanks, Ruth")."""
    m = _VALEDICTION.fullmatch(line.strip())
    return m is not None and (not m.group(2) or _is_name(m.group(2), names))


def _is_name(line: str, names: set[str]) -> bool:
    """Whether ``line`` is the writer's name (full or first), a dash before it or a stop after it aside."""
    return " ".join(line.strip(" \t-–—.,!").split()).casefold() in names if names else False


def _names(writer: str) -> set[str]:
    """The ways a writer signs: the full name and the first name ("Olsen, Ruth" is Ruth Olsen)."""
    name = " ".join(writer.split("<", 1)[0].strip().strip('"').split())
    if name.count(",") == 1:
        last, given = (part.strip() for part in name.split(","))
        name = f"{given} {last}"
    if not name or "@" in name:
        return set()
    return {name.casefold(), name.split()[0].casefold()}


def _joined(paragraphs: list[str]) -> str:
    """Prose paragraphs as one, their lines run on; a paragraph of items keeps its lines, apart."""
    out: list[str] = []
    prose: list[str] = []
    for paragraph in paragraphs:
        rows = [row for row in paragraph.split("\n") if row.strip()]
        if not rows:
            continue
        if any(_ITEM_LINE.match(row) for row in rows):
            out += [run_on(prose), "\n".join(rows)] if prose else ["\n".join(rows)]
            prose = []
        else:
            prose += [" ".join(row.split()) for row in rows]
    if prose:
        out.append(run_on(prose))
    return "\n\n".join(out)
