"""The final of a file short enough to be its own (level NONE): its text as a reader should see it.

A note keeps its text as written, a Markdown meeting note too (headings, lists, prose between turns), without
its own front matter: the final's front matter already holds what it says (its date), and a second "---" block
in the body renders as a rule over a heading of its keys ("date: 2022-07-02 mood: great"). A note-taking app's
marks read as its app shows them (:func:`batchsum.readers.note_syntax.note_syntax_as_text`): a hidden "%% ... %%"
comment, a property ("mood:: calm"), a drawer, an embed or block reference is not in the final, a link is its
text, a task box is ☐/☑ as digests show it; the final is what serve shows and search indexes. Its Markdown
stays (code, links, headings): serve renders it.

A plain-text conversation reads as the summarizer reads conversations: each turn cleaned of transcript markup,
disfluencies and tokenizer spacing, its speaker named as a summary names them (DialogSum's "#Person1#:" as
"Person1:"), so a kept-whole dialogue and a summarized one look alike; a heading of the source stays between
the turns it heads (an export of several chats, each under its name). So does a Markdown conversation of
turns only ("**Maya:** [00:00] Welcome back ..." on every line): a transcript written as Markdown, its
timestamps gone as a .txt's are.
"""

from __future__ import annotations

import re

from batchsum.backends.identity import EXTRACTIVE_VERSION
from batchsum.engine.nodes import BLANK_RUN, kept_whole_key
from batchsum.language import run_on
from batchsum.model import Document, SummaryOutput
from batchsum.planning import FilePlan
from batchsum.readers.note_syntax import front_matter, note_syntax_as_text
from batchsum.speaker_labels import is_turn
from batchsum.state import NODE_FORMAT, node_key

__all__ = ["kept_whole_output", "kept_whole_text"]

_MARKDOWN = (".md", ".markdown")
# A Markdown heading on a line of its own, as a reader writes a chat's name over its turns.
_HEADING = re.compile(r"^(#{1,6}[ \t]+\S[^\n]*)$", re.MULTILINE)


def _read_as_speech(doc: Document) -> bool:
    """Whether ``doc`` kept whole is cleaned as the summarizer reads speech: a transcript, not a note (a
    Markdown conversation is one when each of its lines is a turn)."""
    if doc.content_type != "conversation":
        return False
    if doc.path.suffix.lower() not in _MARKDOWN:
        return True
    front = front_matter(doc.text)
    lines = [ln for ln in doc.text[front.end() if front else 0 :].splitlines() if ln.strip()]
    return bool(lines) and all(map(is_turn, lines))


def kept_whole_text(doc: Document) -> str:
    """What the final of ``doc`` kept whole says: a transcript's turns cleaned, one line each; any other
    text as its note-taking app shows it (module docstring), without its front matter."""
    if not _read_as_speech(doc):
        shown = note_syntax_as_text(doc.text)
        if shown == doc.text:
            return doc.text
        # A removed mark (front matter, a hidden comment, a drawer) leaves its lines blank: one blank line stays.
        return BLANK_RUN.sub("\n\n", shown).strip("\n") + ("\n" if doc.text.endswith("\n") else "")
    # An export of several chats heads each with its name ("# Helpdesk", "# Mira Koch"): the heading stays
    # between their turns, so two chats do not read as one conversation.
    pieces = _HEADING.split(doc.text)
    blocks = [_turn_lines(pieces[0], doc.language)]
    for heading, body in zip(pieces[1::2], pieces[2::2], strict=True):
        turns = _turn_lines(body, doc.language)
        blocks.append(f"{heading.strip()}\n\n{turns}" if turns else "")
    return "\n\n".join(block for block in blocks if block) or doc.text


def _turn_lines(text: str, language: str | None) -> str:
    """A transcript's turns cleaned as the summarizer reads speech, one line each with its speaker."""
    # Imported here: a run that keeps no transcript whole (an unchanged re-run) never loads the reader.
    from batchsum.backends.units import units_from_text

    turns: dict[int, tuple[str | None, list[str]]] = {}
    for unit in units_from_text(text, "conversation", language=language):
        turns.setdefault(unit.turn, (unit.speaker, []))[1].append(unit.body)
    lines = [run_on(said) for _, said in turns.values()]  # no space between sentences where a script has none
    named = [f"{who}: {line}" if who else line for (who, _), line in zip(turns.values(), lines, strict=True)]
    return "\n".join(line for line, said in zip(named, lines, strict=True) if said.strip())


def kept_whole_output(plan: FilePlan) -> tuple[SummaryOutput, str]:
    """The output and node key of ``plan``'s file kept whole. A transcript's key holds the summarizer's
    version too: the text written for the same content changes with its cleaning, and a tree written
    before is redone once."""
    doc = plan.doc
    output = SummaryOutput(text=kept_whole_text(doc), backend="source", attempts=0)
    if not _read_as_speech(doc):
        # A note with front matter is written without it: its key says so, so a tree written before is redone.
        return output, kept_whole_key(plan) if output.text == doc.text else node_key(kept_whole_key(plan), "body")
    return output, node_key(NODE_FORMAT, "source", doc.sha256, "conversation", EXTRACTIVE_VERSION, doc.language)
