"""A month's entries as its digest reads them: a file of many days' entries (a month's or a week's file, a
one-file diary) read entry by entry, each day a part of its own beside the month's day files.

A month's entries are peers, whatever file holds them: the digest quotes every entry once before any
twice. A month's file read as one part had one quote among its month's day files, and its final, a whole
text's summary with an opening prior, kept its first day or two: May 2023's five entries had read as the
3rd and the 9th, a March's resignation on the 23rd was lost behind the 2nd.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from batchsum.backends.units import units_from_text
from batchsum.digest_state import named_for_days
from batchsum.periods import FileFacts, digest_words
from batchsum.sources import read_source
from batchsum.text import DATE_LABEL

if TYPE_CHECKING:
    from batchsum.config import RunConfig
    from batchsum.state import ManifestEntry


def entries_whole(facts: FileFacts, final: str, roots: Mapping[str, ManifestEntry], cfg: RunConfig, room: int) -> str:
    """A file of many days' entries (``facts``; its manifest entry in ``roots``) as its digest reads it: its
    entries whole, each line after its day ("2023-05-12: ..."), as a short day's file is read kept whole. A
    month's or a week's file is always so read (its days are the month's entries, :func:`per_day` makes each
    a part); a one-file diary (dated by its first entry, its entries maybe of years) when its final
    (``final``) left some of its words out and its month's word budget (``room``) holds them all: a BRIEF
    final of a month's file of three entries had kept one sentence of the first and the last, and the
    month's digest lost the second (a birth) with no room used. "" otherwise (the final is read)."""
    entry = roots.get(facts.relpath)
    if not facts.many_days or entry is None or not final.strip():
        return ""
    doc = read_source(entry.root, entry.relpath, entry.sha256, cfg.content_type, redact=cfg.redact_secrets)
    if doc is None:
        return ""
    named = named_for_days(facts.relpath)
    lines: list[tuple[str | None, list[str]]] = []
    for unit in units_from_text(doc.text, "journal", language=facts.language):
        if unit.date is None and not (named and all(day is None for day, _ in lines)):
            return ""  # words of no known day: no line of the file can be labelled for certain
        if lines and lines[-1][0] == unit.date:
            lines[-1][1].append(unit.text)
        else:
            lines.append((unit.date, [unit.text]))
    # A month's file may open with words of no day ("Goals this month: ..."): they lead, under the file's name.
    text = "\n".join(f"{day}: {' '.join(said)}" if day else " ".join(said) for day, said in lines)
    if named and any(day for day, _ in lines):
        return text
    words = digest_words(text) - len(lines)  # a line's "2023-05-12:" label is no word of the entry
    return text if lines and digest_words(final) < words <= room else ""


def per_day(owned: list[tuple[FileFacts, str]]) -> list[tuple[FileFacts, str]]:
    """The parts of a month's digest, (file, text): a month's or a week's file whose text is dated line by line
    (:func:`entries_whole`) as a part per day, so its entries are the month's peers; any other as it is."""
    out: list[tuple[FileFacts, str]] = []
    for facts, text in owned:
        pieces = DATE_LABEL.split(text)
        if not facts.many_days or not named_for_days(facts.relpath) or len(pieces) < 5 - (not pieces[0].strip()):
            out.append((facts, text))  # a single day, or words of no day alone: one part
            continue
        # Words before its first day (a month's opening "Goals: ..."), a part of their own under the file's name.
        out += [(facts, pieces[0].strip())] if pieces[0].strip() else []
        out += [(facts, f"{pieces[k]}: {pieces[k + 1].strip()}") for k in range(1, len(pieces) - 1, 2)]
    return out


def input_tokens(members: list[FileFacts], owned: list[tuple[FileFacts, str]], count: Callable[[str], int]) -> int:
    """The tokens a month's digest is made from (its cap is half of them): its files' finals, and of a month's
    or a week's file the entries it reads (``owned``, counted by ``count``), not that file's final. Capped by
    its final, a month's file of five entries whose BRIEF line was 112 tokens had a digest of one entry."""
    read = {f.relpath for f, _ in owned if named_for_days(f.relpath)}
    return sum(f.tokens for f in members if f.relpath not in read) + sum(
        count(t) for f, t in owned if f.relpath in read
    )
