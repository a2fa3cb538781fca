"""How an extractive summary writes its picks: a journal's under their dates, a conversation's by turn, prose
run on, a list item on a line of its own under its list's label."""

from __future__ import annotations

from batchsum.backends.units import Unit
from batchsum.language import run_on
from batchsum.text import LIST_ITEM

__all__ = ["join_picks", "markdown_item"]


def join_picks(units: list[Unit], order: list[int], conversation: bool) -> str:
    """The picked sentences; a journal's are grouped by entry, one line per date ("2025-03-02: ..."), and a
    conversation's (or a play's) by turn, one line per turn with its speaker ("Luis: ..."). Prose runs on
    with a space between sentences, none after a full-width stop (:func:`batchsum.language.run_on`):
    decided per sentence, since a digest of several languages holds Chinese beside French."""
    if any(units[i].turn >= 0 for i in order):
        turns: list[str] = []
        prev: tuple[int, int] | None = None
        for i in order:
            u = units[i]
            key = (u.part, u.turn)
            if key == prev and turns and u.speaker:
                turns[-1] += " " + u.body
            elif key == prev and turns and u.turn < 0:  # a play's narration between its turns: one paragraph
                turns[-1] += " " + u.text
            else:
                turns.append(u.text)
            prev = key
        return "\n".join(turns)
    if not any(units[i].date for i in order):
        if conversation:
            return "\n".join(units[i].text for i in order)
        # A list item ("- Function-like macros ...", often no sentence) keeps a line of its own, as in
        # its source; run into a paragraph, it glued to the sentence after it. Blank lines around a
        # list keep the prose after it out of its last item when the Markdown is rendered. Its list's
        # heading goes above it as a label: "- Corrections of past readings." under "Non-goals" says
        # the opposite of what it says alone.
        text = ""
        prev_label: str | None = None  # the label of the list the previous pick belongs to; None: prose
        for k, i in enumerate(order):
            item = LIST_ITEM.match(units[i].text) is not None
            label = units[i].heading if item else None
            piece = markdown_item(units[i].text) if item else units[i].text
            if item and label and label != prev_label:  # a new list: blank line, its label, its first item
                sep, piece = "\n\n", f"{label}:\n{piece}"
            elif item and prev_label is not None:  # the next item of the same list
                sep = "\n"
            elif not item and prev_label is None:  # prose after prose runs on
                sep = " "
            else:  # into a list or out of one
                sep = "\n\n"
            text = run_on((text, piece)) if sep == " " and k else text + ("" if k == 0 else sep) + piece
            prev_label = label
        return text
    lines: list[str] = []
    last: str | None = None
    for i in order:
        u = units[i]
        if u.date and u.date != last:
            lines.append(f"{u.date}: {u.text}")
            last = u.date
        elif lines:
            lines[-1] = run_on((lines[-1], u.text))
        else:
            lines.append(u.text)
    return "\n".join(lines)


def markdown_item(item: str) -> str:
    """A list item as Markdown writes it: a PDF's or a slide's bullet glyph ("▪ ", "● ") as "- ", which a
    rendered summary shows as a list; under its label, "▪ ..." lines had run into one paragraph."""
    m = LIST_ITEM.match(item)
    marker = m.group(0).strip() if m is not None else "-"
    if m is None or marker in "-*+" or marker[:1].isdigit():
        return item
    indent = m.group(0)[: len(m.group(0)) - len(m.group(0).lstrip())]  # a nested item stays nested
    return f"{indent}- {item[m.end() :].lstrip()}"
