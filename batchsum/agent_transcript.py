"""Agent and chat transcripts: read and write them as OpenAI-style message lists.

Three layouts are read:

* **Markdown** with one ``### user`` / ``### assistant`` / ``### tool`` / ``### system`` section
  per message (the layout agent-session exports use; tool observations may also be user turns);
* **JSON**: a list of messages or ``{"messages": [...]}``;
* **JSONL**: one message per line (or lines holding ``{"messages": [...]}``).

Messages come back as the dicts found in the file, so a compaction's verbatim tail can be written
back unchanged. :func:`~batchsum.transcript_shape.agent_transcript_reason` tells a batch run that a
text is an agent/tool transcript rather than a plain conversation.
"""

from __future__ import annotations

import errno
import json
import logging
import os
import re
import stat
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from batchsum import jsonio
from batchsum.compact.entities import session_entities
from batchsum.compact.extractors import (
    classify_turns,
    command_line,
    format_summary,
    most_specific,
    summarize_tool_result,
    touched_paths,
    turn_prose,
    without_lead_in,
    without_standing_orders,
    without_viewer_lines,
)
from batchsum.compact.messages import as_message
from batchsum.errors import InputError
from batchsum.facets import (
    ExtractedFacets,
    date_dues,
    extract_facets,
    facets_front_matter,
    render_facets_markdown,
    typed_chat,
)
from batchsum.readers.decoding import decode_bytes
from batchsum.text import split_sentences
from batchsum.tokens import Tokenizer, get_tokenizer
from batchsum.transcript_shape import RENDERED_TURN, SECTION, known_tool_name
from batchsum.written_facets import unshown, with_written, written_facets

TranscriptFormat = Literal["markdown", "json", "jsonl", "rendered"]

log = logging.getLogger(__name__)
_RENDERED_ROLE = re.compile(r"^(User|Assistant|Tool|System|Function): ", re.M)


@dataclass
class Transcript:
    """Messages of one transcript plus what is needed to write it back in its own layout."""

    messages: list[dict[str, Any]]
    format: TranscriptFormat
    preamble: str = ""  # Markdown text before the first section (a title), kept for writing back
    extra: dict[str, Any] = field(default_factory=dict)  # other keys of a {"messages": [...]} JSON object


def parse_markdown(text: str, where: str = "transcript") -> Transcript:
    """Messages of a Markdown transcript with ``### <role>`` sections."""
    heads = list(SECTION.finditer(text))
    if not heads:
        raise InputError(where, "no '### user' / '### assistant' sections found")
    messages: list[dict[str, Any]] = []
    for i, head in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(text)
        body = text[head.end() : end].strip("\n")
        messages.append({"role": head.group(1).lower(), "content": body})
    return Transcript(messages, "markdown", preamble=text[: heads[0].start()].strip("\n"))


def _check(messages: list[Any], where: str, lines: list[int] | None = None) -> list[dict[str, Any]]:
    for i, m in enumerate(messages):
        loc = f"{where}: line {lines[i]}" if lines else f"{where}: message {i + 1}"
        as_message(m, loc)  # raises InputError naming the line/message and the reason
    return messages


def parse_json(text: str, where: str = "transcript") -> Transcript:
    """Messages of a JSON chat: a list, or an object with a ``messages`` list."""
    try:
        data = jsonio.loads(text)
    except jsonio.TooDeep as exc:
        raise InputError(where, f"invalid JSON: {exc}") from None
    except ValueError as exc:
        detail = f"{exc.msg} (line {exc.lineno})" if isinstance(exc, json.JSONDecodeError) else str(exc)
        raise InputError(where, f"invalid JSON: {detail}") from None
    extra: dict[str, Any] = {}
    if isinstance(data, dict):
        if not isinstance(data.get("messages"), list):
            raise InputError(where, "JSON object has no 'messages' list")
        extra = {k: v for k, v in data.items() if k != "messages"}
        data = data["messages"]
    if not isinstance(data, list):
        raise InputError(where, "JSON is not a chat: expected a list of messages or {'messages': [...]}")
    return Transcript(_check(data, where), "json", extra=extra)


def parse_jsonl(text: str, where: str = "transcript") -> Transcript:
    """Messages of a JSONL chat: one message (or one ``{"messages": [...]}``) per line."""
    messages: list[Any] = []
    lines: list[int] = []
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            item = jsonio.loads(line)
        except ValueError as exc:
            detail = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
            raise InputError(where, f"invalid JSON on line {lineno}: {detail}") from None
        if isinstance(item, dict) and isinstance(item.get("messages"), list):
            messages.extend(item["messages"])
            lines.extend([lineno] * len(item["messages"]))
        else:
            messages.append(item)
            lines.append(lineno)
    return Transcript(_check(messages, where, lines), "jsonl")


def parse_rendered(text: str, where: str = "transcript") -> Transcript:
    """Messages of a chat already rendered as ``Role: text`` turns separated by blank lines.

    This is how a batch run holds a .json/.jsonl chat; a label that is not a role (a tool's or a
    person's name) becomes ``name``, on a tool message when it names a known tool.
    """

    heads = list(RENDERED_TURN.finditer(text))
    if not heads:
        raise InputError(where, "no 'Role: text' turns found")
    messages: list[dict[str, Any]] = []
    for i, head in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(text)
        label = head.group(1)
        body = text[head.end() : end].strip("\n")
        role = label.lower()
        if role in ("user", "assistant", "tool", "system", "function"):
            messages.append({"role": role, "content": body})
        elif known_tool_name(role):
            messages.append({"role": "tool", "name": role, "content": body})
        else:
            messages.append({"role": "user", "name": label, "content": body})
    return Transcript(messages, "rendered")


def parse_transcript(text: str, fmt: TranscriptFormat | None = None, where: str = "transcript") -> Transcript:
    """Parse ``text`` in ``fmt``, or guess the layout from its first character and its sections."""
    if fmt is None:
        head = text.lstrip()[:1]
        if head == "[":
            fmt = "json"
        elif head == "{":
            first = text.lstrip().split("\n", 1)[0]
            try:
                jsonio.loads(first)
                fmt = "jsonl"
            except ValueError:
                fmt = "json"
        elif SECTION.search(text) is None and _RENDERED_ROLE.search(text) is not None:
            fmt = "rendered"
        else:
            fmt = "markdown"
    if fmt == "markdown":
        return parse_markdown(text, where)
    if fmt == "rendered":
        return parse_rendered(text, where)
    if fmt == "json":
        return parse_json(text, where)
    return parse_jsonl(text, where)


MAX_TRANSCRIPT_BYTES = 256 << 20  # a session past this is not a chat to compact (the context windows are MBs)


def _read_bounded(path: Path) -> bytes:
    """A regular file's bytes: FIFOs and devices (``/dev/zero``) are refused, never waited on or read
    forever, and a file over :data:`MAX_TRANSCRIPT_BYTES` is refused before it is read."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    with open(fd, "rb") as fh:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(errno.EISDIR, "is a folder", str(path))
        if not stat.S_ISREG(st.st_mode):
            raise InputError(str(path), "not a regular file (a FIFO, socket or device); give a transcript file")
        if st.st_size > MAX_TRANSCRIPT_BYTES:
            raise InputError(
                str(path),
                f"{st.st_size / 2**20:.0f} MiB; compact reads sessions up to {MAX_TRANSCRIPT_BYTES >> 20} MiB",
            )
        os.set_blocking(fd, True)
        raw = fh.read(MAX_TRANSCRIPT_BYTES + 1)
    if len(raw) > MAX_TRANSCRIPT_BYTES:  # grew while being read
        raise InputError(str(path), f"over {MAX_TRANSCRIPT_BYTES >> 20} MiB; compact reads sessions up to that size")
    return raw


def read_transcript(path: Path) -> Transcript:
    """Read a transcript file; the extension decides the layout (.json, .jsonl, else Markdown)."""
    try:
        raw = _read_bounded(path)
    except FileNotFoundError:
        raise InputError(str(path), "no such file") from None
    except IsADirectoryError:
        raise InputError(str(path), "is a folder, not a transcript file") from None
    except OSError as exc:
        raise InputError(str(path), f"cannot read: {exc.strerror or exc}") from None
    try:
        # As a run reads it: PowerShell's ">" writes UTF-16, an old tool Windows-1252.
        text, note = decode_bytes(raw)
    except ValueError as exc:
        raise InputError(str(path), str(exc)) from None
    if note and note.startswith("lossy"):
        log.warning("%s: %s", path, note)
    text = text.replace("\r\n", "\n")
    ext = path.suffix.lower()
    fmt: TranscriptFormat | None = {".json": "json", ".jsonl": "jsonl", ".md": "markdown"}.get(ext)  # type: ignore[assignment]
    return parse_transcript(text, fmt, str(path))


def render_markdown(messages: list[dict[str, Any]], preamble: str = "") -> str:
    """Messages as ``### <role>`` sections (the layout :func:`parse_markdown` reads back)."""
    parts = [preamble] if preamble else []
    for m in messages:
        msg = as_message(m)
        body = msg.content
        if msg.tool_calls and not body:
            body = "\n".join(f"[tool call {c.name}: {c.arguments}]" for c in msg.tool_calls)
        parts.append(f"### {msg.role}\n\n{body}")
    return "\n\n".join(parts) + "\n"


def render_transcript(
    messages: list[dict[str, Any]],
    fmt: TranscriptFormat,
    *,
    preamble: str = "",
    extra: dict[str, Any] | None = None,
) -> str:
    """Messages written in ``fmt`` (``extra``: the other keys of a ``{"messages": [...]}`` JSON object)."""
    if fmt == "markdown":
        return render_markdown(messages, preamble)
    if fmt == "json":
        data: Any = {**extra, "messages": messages} if extra else messages
        return json.dumps(data, ensure_ascii=False, indent=2) + "\n"
    if fmt == "rendered":
        parts = []
        for m in messages:
            msg = as_message(m)
            label = msg.name or msg.role
            parts.append(f"{label[:1].upper()}{label[1:]}: {msg.content}")
        return "\n\n".join(parts) + "\n"
    return "".join(json.dumps(m, ensure_ascii=False) + "\n" for m in messages)


# ---- agent sessions in batch runs ----------------------------------------------------------------
@dataclass
class AgentDigest:
    """An agent session prepared for the summary tree, plus its facets.

    ``text`` is the session as ``Role: text`` turns with every tool result replaced by its
    extractor one-liner (what the normal tree should summarize); the lists are what the session
    touched, ran and hit, for the final's front matter and body.
    """

    text: str
    files_touched: list[str]
    commands_run: list[str]
    errors: list[str]
    facets: ExtractedFacets
    tool_results: int
    turns: int
    ending: str = ""  # the agent's closing words: whether the task was done, and what it did last
    task: str = ""  # the opening of what the agent was asked, whole sentences

    def front_matter(self) -> dict[str, Any]:
        """Front-matter keys for the session's final summary (YAML-ready plain data)."""
        out: dict[str, Any] = {"agent_session": True, "tool_results": self.tool_results}
        if self.files_touched:
            out["files_touched"] = list(self.files_touched)
        if self.commands_run:
            out["commands_run"] = list(self.commands_run)
        if self.errors:
            out["errors"] = list(self.errors)
        if self.task:
            out["task"] = self.task
        if self.ending:
            out["ending"] = self.ending
        out.update(facets_front_matter(self.facets))
        return out

    def markdown(self, facets: ExtractedFacets | None = None) -> str:
        """A Markdown section for the final's body: files, commands, errors, then the extracted facets (its own,
        or ``facets``: those its final does not show already)."""
        lines = ["## Agent session (extracted)", ""]
        if self.task:
            lines += [f"**Task:** {self.task}", ""]
        if self.ending:
            last = f" (last command: `{shown_command(self.commands_run[-1])}`)" if self.commands_run else ""
            lines += [f"**How it ended:** {self.ending}{last}", ""]
        if self.files_touched:
            lines += ["**Files touched:** " + ", ".join(f"`{f}`" for f in self.files_touched), ""]
        if self.commands_run:
            lines += ["**Commands run:**", ""] + [f"- `{shown_command(c)}`" for c in self.commands_run] + [""]
        if self.errors:
            lines += ["**Errors:**", ""] + [f"- {e}" for e in self.errors] + [""]
        body = "\n".join(lines)
        section = render_facets_markdown(self.facets if facets is None else facets, heading="### Facets (extracted)")
        return body + "\n" + section


SHOWN_COMMAND_CHARS = 200  # a command in the final's body; the front matter keeps it whole


def shown_command(command: str) -> str:
    """A command line as the final's body shows it: a long one (a 3,000-character ``echo '0110...'``) as
    its start and its end around "…", so the list stays readable."""
    if len(command) <= SHOWN_COMMAND_CHARS:
        return command
    return command[: SHOWN_COMMAND_CHARS - 41].rstrip() + " … " + command[-40:].lstrip()


def digest_agent_transcript(
    text: str, *, fmt: TranscriptFormat | None = None, tokenizer: Tokenizer | None = None
) -> AgentDigest:
    """Summarize the tool results of an agent session with the rule-based extractors.

    Raises InputError when ``text`` is not a transcript in any layout we read.
    """

    tok = tokenizer or get_tokenizer()
    transcript = parse_transcript(text, fmt)
    turns = classify_turns([as_message(m) for m in transcript.messages])
    lines: list[str] = []
    files: list[str] = []
    commands: list[str] = []
    errors: list[str] = []
    speaker_turns: list[tuple[str | None, str]] = []
    said: list[str] = []  # the assistant's prose, turn by turn
    asked = False  # the task read (the first user turn with words of its own, after a demonstration's)
    task = ""
    subject: set[str] = set()  # code the task names and the final diff changes
    diff: set[str] = set()
    results = 0
    for t in turns:
        if t.kind == "tool_result":
            diff = diff_names(t.message.content) or diff
            s = summarize_tool_result(t, tok)
            results += 1
            files += s.files
            errors += s.errors
            lines.append(f"Tool: {format_summary(s)}")
            continue
        message = t.message.content if t.kind == "assistant" else without_standing_orders(t.message.content)
        if t.kind != "assistant" and not asked:
            # The task's own text first (its title, its challenge's name): the framework's lead-in to it
            # opened every session's summary, and was the whole of some one-line summaries.
            message = without_lead_in(message)
            asked = bool(turn_prose(message))
            task = session_task(turn_prose(message))
            subject = code_names(turn_prose(message))
        content = turn_prose(message)
        if t.kind == "assistant" and t.command:
            commands.append(command_line(t.command))
            files += touched_paths(t.command)
        label = {"task": "User", "user": "User", "assistant": "Assistant"}.get(t.kind, t.message.role.capitalize())
        if content:
            lines.append(f"{label}: {content}")
            speaker_turns.append((label, without_viewer_lines(message)))
            if t.kind == "assistant":
                said.append(content)
    known = most_specific(_unique(files))  # commands have their own key; listed again they would only repeat
    facets = extract_facets(speaker_turns, entities=known, agent=results > 0)
    facets.entities = session_entities(facets.entities, commands, subject | diff)
    return AgentDigest(
        text="\n\n".join(lines),
        files_touched=known,
        commands_run=_unique(commands),
        errors=_unique(errors)[:20],
        facets=facets,
        tool_results=results,
        turns=len(turns),
        ending=session_ending(said),
        task=task,
    )


# Code a task names: "use `round`", "round() instead of int()"; not the word "round" of "a round number".
_CODE_NAME = re.compile(r"`([A-Za-z_]\w*)(?:\(\))?`|\b([A-Za-z_]\w*)\(")
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
_LINE_COMMENT = re.compile(r"\s(?:#|//).*")


def code_names(prose: str) -> set[str]:
    """The identifiers ``prose`` writes as code: in backticks or called (its words otherwise stay words)."""
    return {a or b for a, b in _CODE_NAME.findall(prose)}


def diff_names(text: str) -> set[str]:
    """The identifiers a unified diff in ``text`` (a tool result showing ``diff --git ...``) adds or removes:
    named more often on one side of its changed lines than on the other, comments left out ("int(x)" ->
    "int(round(x))" changes ``round``, not ``int``); empty when ``text`` shows no diff."""
    removed: Counter[str] = Counter()
    added: Counter[str] = Counter()
    in_diff = False
    for line in text.splitlines():
        in_diff = in_diff or line.startswith("diff --git ")
        if not in_diff or line.startswith(("+++ ", "--- ")) or line[:1] not in "+-" or not line:
            continue
        words = _IDENTIFIER.findall(_LINE_COMMENT.sub("", line[1:]))
        (added if line[0] == "+" else removed).update(words)
    return set((added - removed) + (removed - added))


TASK_WORDS = 50
_EMPHASIS = re.compile(r"\*\*([^*\n]+)\*\*|__([^_\n]+)__")
_FORM_HEADING = re.compile(r"(?:^|(?<=[.!?:]\s)|(?<=\n))[ \t]*(?:\*\*[^*\n]{1,40}\*\*|__[^_\n]{1,40}__)(?=\s+[A-Z])")


def session_task(asked: str) -> str:
    """The opening of the session's task, whole sentences up to :data:`TASK_WORDS` words; a first sentence
    longer than twice that (a text without stops) ends at a word with "…". The extractive tree picks what
    a session's turns say most about, and the task, said once, was in none of the summaries of 8 of the 22
    bench sessions: a reader asks first what the agent was asked to do."""
    picked: list[str] = []
    words = 0
    for sp in split_sentences(asked):
        # An issue's bold line ("**Describe the bug**" over its text) is its form's heading, not the task's
        # words; emphasis inside a sentence keeps its words.
        sentence = " ".join(_FORM_HEADING.sub("", asked[sp.start : sp.end]).split())
        sentence = _EMPHASIS.sub(lambda m: m.group(1) or m.group(2), sentence)
        n = len(sentence.split())
        if picked and words + n > TASK_WORDS:
            break
        if n > 2 * TASK_WORDS:
            sentence = " ".join(sentence.split()[: 2 * TASK_WORDS]) + " …"
        picked.append(sentence)
        words += n
    return " ".join(picked)


ENDING_WORDS = 15  # fewer closing words ("Calling `submit` to submit.") say nothing: the turn before is added
ENDING_MAX_WORDS = 80


def session_ending(said: list[str]) -> str:
    """The agent's closing words, whole sentences: its last turn, and the one before when the last says
    little; at most :data:`ENDING_MAX_WORDS` words, the last ones kept. A session's summary leans on its
    opening (the task), and the reader also wants to know how it ended ("Flag was recovered successfully!
    Will try to submit it now.")."""
    picked: list[str] = []
    for turn in reversed(said[-2:]):
        sentences = [" ".join(turn[sp.start : sp.end].split()) for sp in split_sentences(turn)]
        if sentences and sentences[-1][-1].isalnum():  # a turn ends its sentence: "Now let's run strings."
            sentences[-1] += "."
        while sentences and sum(len(x.split()) for x in [*sentences, *picked]) > ENDING_MAX_WORDS:
            sentences.pop(0)
        picked = sentences + picked
        if sum(len(x.split()) for x in picked) >= ENDING_WORDS:
            break
    return " ".join(picked)


def _unique(items: list[str]) -> list[str]:
    out: list[str] = []
    for item in items:
        if item and item not in out:
            out.append(item)
    return out


@dataclass
class RunExtras:
    """What a batch run adds for one conversation: text for the tree, front matter, a body section."""

    text: str | None  # replaces the document text before chunking (agent sessions); None keeps it
    front_matter: dict[str, Any]
    markdown: str
    digest: AgentDigest | None = None
    facets: ExtractedFacets | None = None  # those ``markdown`` shows

    def section_under(self, summary: str) -> str:
        """The Markdown section a final shows under ``summary``: ``markdown`` without the facet items the
        summary lists already (:func:`~batchsum.written_facets.unshown`); a facets section left with
        nothing to show is left out."""
        if self.facets is None or (left := unshown(self.facets, summary)) is self.facets:
            return self.markdown
        if self.digest is not None:
            return self.digest.markdown(left)
        return render_facets_markdown(left) if left.status or not left.is_empty() else ""


def run_extras(
    text: str, *, content_type: str, type_reason: str, offline_facets: bool, day: str | None = None
) -> RunExtras | None:
    """Offline extras of one document for ``batchsum run``, or None when there are none.

    Agent sessions (``type_reason`` from :func:`~batchsum.transcript_shape.agent_transcript_reason`) get
    their tool results reduced and their files, commands, errors and facets; other conversations get
    extracted facets when ``offline_facets`` (False when an LLM writes them, or facets are turned off).
    ``day``: the ISO date the whole file was written, which dates the weekdays its tasks are due on.
    """
    if type_reason.removeprefix("--type; ").startswith("agent transcript"):
        try:
            digest = digest_agent_transcript(text)
        except InputError:
            digest = None  # detected by its shape but not parseable as turns: plain conversation facets
        if digest is not None:
            return RunExtras(digest.text, digest.front_matter(), digest.markdown(), digest, digest.facets)
    if not offline_facets:
        return None
    typed = typed_chat(type_reason)
    found = extract_facets(text, typed=typed) if content_type == "conversation" else ExtractedFacets()
    written = written_facets(text, found.participants)  # in any file: "## Action items", "- [ ] ..."
    if content_type != "conversation" and written.is_empty():
        return None
    facets = with_written(written, found)
    if facets.is_empty():
        return None
    date_dues(facets, day)
    return RunExtras(None, facets_front_matter(facets), render_facets_markdown(facets), facets=facets)
