"""Reading one source that may have changed and planning its summary tree.

:func:`prepare_file` is a function of the file and the settings alone: a run calls it from a worker
thread while its event loop sends requests, and ``batchsum plan`` calls it to preview the same plan.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from batchsum.errors import InputError, NotASource
from batchsum.hashing import sha256_text
from batchsum.language import check_language, detect_language
from batchsum.lazy import load
from batchsum.model import SummaryLevel
from batchsum.planning import plan_file
from batchsum.readers.note_syntax import front_matter
from batchsum.summary_files import previous_final
from batchsum.walk import (
    BYTE_READERS,
    CHAT_EXTS,
    HTML_EXTS,
    LATEX_EXTS,
    ORG_EXTS,
    READER_VERSION,
    SUBTITLE_EXTS,
    Problem,
    SourceRef,
    read_document,
)
from batchsum.written_facets import has_written_facets

# The extras of a conversation (an agent session's digest, offline facets), loaded with the first one:
# their rules are ~20 ms of imports (facets, compaction's extractors) a run of other files never uses.
EXTRAS = "batchsum.agent_transcript:run_extras"

if TYPE_CHECKING:
    from batchsum.agent_transcript import RunExtras
    from batchsum.config import RunConfig
    from batchsum.engine.changes import Known
    from batchsum.model import Document
    from batchsum.planning import FilePlan
    from batchsum.state import ManifestEntry
    from batchsum.tokens import Tokenizer


@dataclass
class Prepared:
    """A read file: its document (or the problem that kept it from being read) and its plan, which
    is None when the content is the one the caller already has (``known``)."""

    doc: Document | Problem
    plan: FilePlan | None = None


def read_source(ref: SourceRef, cfg: RunConfig) -> Document | Problem:
    """The decoded document, or the problem that kept it from being read (no failure for a file that is
    no source: :class:`~batchsum.errors.NotASource`)."""
    try:
        return read_document(ref, cfg.content_type, redact=cfg.redact_secrets)
    except InputError as exc:
        return Problem(exc.path, exc.reason, ref.relpath, failure=not isinstance(exc, NotASource))


# Formats read from their markup: a file of only markup (a page of scripts, an empty Word document) is no
# whitespace, though it reads as none. So are the formats rendered from their text: `WEBVTT` alone, a chat
# export's `[]` or a LaTeX preamble had been "only whitespace", which the user can see they are not.
_MARKUP_ONLY = (
    {ext: "markup only" for ext in BYTE_READERS}
    | dict.fromkeys(HTML_EXTS, "markup and scripts only")
    | dict.fromkeys(LATEX_EXTS | ORG_EXTS, "markup only")
    | dict.fromkeys(SUBTITLE_EXTS, "subtitles with no cue text")
    | dict.fromkeys(CHAT_EXTS, "a chat with no message text")
)


def blank_reason(doc: Document) -> str | None:
    """Why a read file is passed over for holding no text (a zero-byte file, only whitespace, a chat or
    subtitle file with nothing in it, or only markup: front matter, code, comments, embeds, link
    definitions, which its reader never sees as words), or None when it holds some."""
    if not doc.text or doc.text.isspace():  # not strip(): that copies the whole text
        if not doc.size:
            return "empty file (0 bytes), nothing to summarize: skipped"
        if (markup := _MARKUP_ONLY.get(doc.path.suffix.lower())) is not None:
            return f"no text once read ({doc.size} bytes: {markup}), nothing to summarize: skipped"
        return f"no text once read ({doc.size} bytes, only whitespace), nothing to summarize: skipped"
    # As the summarizer reads it (units_from_text): a note of only code had been "summarized" as its raw
    # markup on one line, an unclosed fence that swallowed the rest of its page.
    shown = load(_AS_READ)(doc.text)
    if not shown or shown.isspace():
        return f"no text once read ({doc.size} bytes, only markup), nothing to summarize: skipped"
    if not _holds_text(shown):
        return f"no text once read ({doc.size} bytes, only headings and empty items), nothing to summarize: skipped"
    return None


_AS_READ = "batchsum.backends.noise:markdown_as_text"
# A line that holds no text of its own: blank, a heading (what it would title), a list item or task with no words
# ("- ", "- [ ] ", "☐", Logseq's empty page "- "), a rule. An empty daily note of only its template's headings
# and boxes had been summarized whole and counted in its month; a heading over a sentence is text.
_NO_TEXT_LINE = re.compile(
    # One way only to read a run of blanks (no two adjacent [ \t]* in the loop): "- - - ... 8< cut" fails at once.
    r"[ \t]*(?:#{1,6}(?:[ \t][^\n]*)?|(?:(?:[-*+]|\d{1,9}[.)])[ \t]*(?:(?:\[[ xX]\]|[☐☑])[ \t]*)?)+"
    r"|[-*_=]{3,}[ \t]*)?\Z"
)


def _holds_text(shown: str) -> bool:
    """Whether a line of ``shown`` holds text (:data:`_NO_TEXT_LINE`), read a line at a time: a book's first
    line answers, and no list of its lines doubles its memory."""
    start = 0
    while start <= len(shown):
        end = shown.find("\n", start)
        end = len(shown) if end < 0 else end
        if not _NO_TEXT_LINE.match(shown, start, end):
            return True
        start = end + 1
    return False


def set_language(doc: Document, cfg: RunConfig) -> None:
    """``doc.language``: the configured one, else the one its front matter declares (``lang: fr``,
    ``language: German``), else detected from the text (``auto``): a three-word French note had been read
    as English, its month's digest titled and labelled in English."""
    if cfg.language != "auto":
        doc.language, doc.language_source = cfg.language, "configured"
        return
    if declared := declared_language(doc.text):
        doc.language, doc.language_source = declared, "front matter"
        return
    doc.language, doc.language_source = detect_language(doc.text), "detected"


_DECLARED = re.compile(r"^(?:lang|language)[ \t]*:[ \t]*[\"']?([A-Za-z][A-Za-z_-]{1,20})[\"']?[ \t]*$", re.M)


def declared_language(text: str) -> str | None:
    """The language a note's front matter declares (``lang:`` or ``language:``, an ISO 639-1 code, a regional
    one such as ``fr-FR``, or an English name), when batchsum knows it."""
    front = front_matter(text) if text.startswith("---") else None
    m = _DECLARED.search(front.group(1)) if front else None
    if m is None:
        return None
    try:
        return check_language(m.group(1).replace("_", "-").split("-")[0])
    except ValueError:
        return None


def plan_document(doc: Document, cfg: RunConfig, tokenizer: Tokenizer) -> FilePlan:
    """Tokenize ``doc`` and plan its nodes (sets ``doc.tokens`` and ``doc.level``)."""
    return plan_file(doc, cfg, tokenizer)


def extras_for(doc: Document, cfg: RunConfig) -> RunExtras | None:
    """Offline facets for conversations (unless the LLM writes them) and agent-session digests."""

    if doc.content_type != "conversation" and not has_written_facets(doc.text):
        # The rules read conversations (an agent session is one: walk.detect_type); any file may write
        # its facets down ("## Action items", "- [ ] call the plumber").
        return None
    llm = cfg.llm
    llm_facets = llm.enabled and (llm.facets if llm.facets is not None else doc.content_type == "conversation")
    # --no-facets means none at all: the rules cost more CPU than reading and tokenizing a meeting.
    offline = llm.facets is not False and not llm_facets
    # A day that dates the whole file dates the weekdays its tasks are due on; a chat's first message or a
    # journal's first entry dates only that part, an mtime only a copy.
    day = doc.doc_date if doc.date_source in ("name", "front matter", "e-mail header") else None
    extras: RunExtras | None = load(EXTRAS)(
        doc.text, content_type=doc.content_type, type_reason=doc.type_reason, offline_facets=offline, day=day
    )
    return extras


def reading_sha(text: str, content_type: str, date: str) -> str:
    """The hash of what a reader made of a file: its type, a date its name or text gives ("" when only its
    mtime dates it) and its text. A new reader version that types or dates a file otherwise reads it as
    another text too."""
    return sha256_text(text, head=f"{content_type}\n{date}\n")


def prepare_file(ref: SourceRef, cfg: RunConfig, tokenizer: Tokenizer, known: Known | None = None) -> Prepared:
    """Read ``ref`` and plan it, unless it cannot be read or is still what ``known`` says."""
    doc = read_source(ref, cfg)
    if isinstance(doc, Problem):
        return Prepared(doc)
    blank = blank_reason(doc)
    if blank is not None:
        # Before the ``known`` test: an entry an older version recorded for an empty file is not kept.
        return Prepared(Problem(str(doc.path), blank, doc.relpath, failure=False, notice=True))
    dated = (doc.doc_date or "") if doc.date_source not in ("", "mtime") else ""
    doc.text_sha = reading_sha(doc.text, doc.content_type, dated)
    if known is not None and known.holds(doc.sha256, doc.text_sha) and not known.redated(doc.doc_date):
        return Prepared(doc)
    extras = extras_for(doc, cfg)
    if extras is not None and extras.text is not None:
        doc.text = extras.text  # an agent session is summarized from its digested tool results
    set_language(doc, cfg)
    plan = plan_document(doc, cfg, tokenizer)
    plan.extras = extras
    return Prepared(doc, plan)


def _read_otherwise(entry: ManifestEntry, plan: FilePlan) -> bool:
    """Whether the same bytes read as another text under the same reader (a LaTeX file whose ``\\input``
    changed): new content, which the rolling chain builds on as on an edit. A new reader version's
    reading is no new content."""
    return bool(entry.text_sha) and entry.reader == READER_VERSION and entry.text_sha != plan.doc.text_sha


def attach_prior(
    plan: FilePlan,
    entry: ManifestEntry | None,
    cfg: RunConfig,
    root: str | None,
    on_reset: Callable[[int], None] | None = None,
) -> None:
    """Rolling chain: a changed file's final is built on its previous final (``plan.prior_context``, its
    depth and parent), up to ``cfg.max_chain_depth`` (then ``on_reset`` hears the depth reached). A run
    and ``batchsum plan`` attach it alike, so the plan prices the request the run sends. ``root``: the
    folder the file was found under this time (None: not known)."""
    if entry is None or entry.final_id is None or plan.final_id is None:
        return
    if entry.level == SummaryLevel.NONE.value:
        return  # the previous final is the old source itself, not a summary to build on
    if entry.root and root is not None and entry.root != root:
        return  # the same relpath under another folder given: another source's summary
    if plan.level is SummaryLevel.BRIEF:
        return
    if entry.text_sha == plan.doc.text_sha or (entry.sha256 == plan.doc.sha256 and not _read_otherwise(entry, plan)):
        # The same text planned again because a setting changed (or its bytes only): nothing new to build on
        # the old final, and its stored nodes (keyed without a prior) are reused rather than summarized again.
        return
    depth = entry.depth + 1
    if depth > cfg.max_chain_depth:
        if on_reset is not None:
            on_reset(entry.depth)
        return  # a fresh summary from the source stops drift
    prior = previous_final(cfg.out, entry.relpath)
    if prior is None:
        return
    plan.prior_context = prior
    plan.depth = depth
    plan.parent_id = entry.final_key
