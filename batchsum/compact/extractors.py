"""Rule-based summaries of tool results: what an agent read, ran, searched and changed.

Each tool kind has an extractor that keeps the facts a later turn may need and drops the bulk:

* **read_file** - path, line count, file type, top-level definitions (Python, JS/TS, Rust, Go, Java, C);
* **shell** - command, exit status, error lines, the last lines of output;
* **search** - pattern, match count, files with matches;
* **create_file / edit_file** - path and size of the change;
* anything else - the head and tail of the result with the middle cut out.

The tool behind a result is known from the OpenAI ``tool_calls`` it answers, from a fenced
(```` ``` ```` or ``<command>``) command in the assistant turn before it (agent exports where tool
observations are user turns), or, failing both, from the shape of the output. Everything here is
deterministic and offline.
"""

from __future__ import annotations

import functools
import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from batchsum.backends.budget import middle_truncate
from batchsum.compact.error_lines import LINE_NO as _LINE_NO
from batchsum.compact.error_lines import clip, error_lines
from batchsum.compact.messages import Message, call_command
from batchsum.tokens import Tokenizer
from batchsum.transcript_shape import TOOL_NAMES, ToolKind

TurnKind = Literal["system", "summary", "task", "user", "assistant", "tool_result"]
Status = Literal["success", "error", "partial"]

SUMMARY_MARK = "[Conversation summary"  # first characters of every summary message we write
MAX_FACT_CHARS = 160
DEFAULT_EXCERPT_TOKENS = 60  # head + tail kept from a result no extractor understands

_FENCED = re.compile(r"```[^\n]*\n(.*?)```|<command>\s*\n?(.*?)</command>", re.S)
_FILE_HEADER = re.compile(r"^\[File: (.+?) \((\d+) lines total\)\]", re.M)
_OPEN_FILE = re.compile(r"^\(Open file: (.+?)\)\s*$", re.M)
_CWD = re.compile(r"^\(Current directory: (.+?)\)\s*$", re.M)
# An agent shell's status line: the open file, the directory, the prompt.
_SHELL_STATUS = r"\((?:Open file|Current directory): .*\)|bash-\$"
_TRAILER = re.compile(rf"^(?:{_SHELL_STATUS}|\$)\s*$")
_FOUND = re.compile(r'Found (\d+) match(?:es)? for "(.*?)" in (\S+?):?\s*$', re.M)
_NO_MATCH = re.compile(r'No matches found for "(.*?)"', re.M)
_SEARCH_FILE_LINE = re.compile(r"^(\S+?) \((\d+) match(?:es)?\)\s*$", re.M)
_GREP_LINE = re.compile(r"^([\w./~-]+\.\w+):(\d+):", re.M)
_EXIT = re.compile(
    r"(?:exit(?:ed)?(?: with)?(?: code| status)?|returned non-zero exit status|return code)[:= ]+(-?\d+)", re.I
)
_DIR_ARG = re.compile(r"(?:~|\.{1,2})?/?(?:[\w.-]+/)+[\w.-]*|/[\w.-]+")
_EDIT_FAILED = re.compile(
    r"introduced new syntax error|Your proposed edit has introduced|^(?:Error|ERROR)\b[:!]"
    r"|^No replacement was performed|^(?:Edit|Write) failed",
    re.M,
)
_RETRY = re.compile(r"^Your proposed edit has\b|\bretry (?:your|editing|the)\b", re.I)
_EXTS = (
    "py pyi pyx ipynb js mjs cjs ts tsx jsx md rst txt json jsonl yaml yml toml cfg ini conf env c h cc cpp cxx hpp "
    "rs go java kt scala rb php pl sh bash zsh ps1 html htm css scss xml csv tsv sql lock log out patch diff traj "
    "enc pem key crt bin elf so o a exe dll img png jpg jpeg gif svg pdf zip tar gz tgz bz2 xz 7z pcap pcapng dat "
    "asm s sage wasm swift m lua r jl dart vue ex exs erl hs ml tex bib gradle mk cmake dockerfile "
    "mp3 mp4 m4a m4v mpeg mpg avi mov mkv webm wav ogg flac bmp ico tif tiff webp iso dmg apk jar whl"
).split()
_PATH = re.compile(r"(?<![\w/.@:-])((?:~|\.{1,2})?/?(?:[\w.-]+/)*[\w-][\w.-]*\.(?:" + "|".join(_EXTS) + r"))(?![\w/-])")
_ABS_PATH = re.compile(r"(?<![\w/.:-])(/(?:[\w.-]+/)+[\w.-]+)")
_DEFS: dict[str, re.Pattern[str]] = {
    "python": re.compile(r"^(?:async\s+)?(?:def|class)\s+([A-Za-z_]\w*)", re.M),
    "javascript": re.compile(
        r"^(?:export\s+(?:default\s+)?)?(?:async\s+)?(?:function\*?|class|const|let|interface|type|enum)\s+([A-Za-z_$][\w$]*)",
        re.M,
    ),
    "rust": re.compile(
        r"^(?:pub(?:\([^)]*\))?\s+)?(?:async\s+)?(?:fn|struct|enum|trait|mod|type)\s+([A-Za-z_]\w*)", re.M
    ),
    "go": re.compile(r"^(?:func(?:\s+\([^)]*\))?|type)\s+([A-Za-z_]\w*)", re.M),
    "java": re.compile(
        r"^(?:public\s+|private\s+|protected\s+)?(?:abstract\s+|final\s+|static\s+)*(?:class|interface|enum|record)\s+(\w+)",
        re.M,
    ),
    "c": re.compile(r"^(?:static\s+)?(?:[\w*]+\s+)+\**([A-Za-z_]\w*)\s*\([^;]*$", re.M),
}
_FILE_TYPES = {
    "py": "python",
    "pyi": "python",
    "js": "javascript",
    "mjs": "javascript",
    "cjs": "javascript",
    "jsx": "javascript",
    "ts": "typescript",
    "tsx": "typescript",
    "rs": "rust",
    "go": "go",
    "java": "java",
    "kt": "kotlin",
    "c": "c",
    "h": "c",
    "cc": "c++",
    "cpp": "c++",
    "hpp": "c++",
    "md": "markdown",
    "rst": "restructuredtext",
    "json": "json",
    "yaml": "yaml",
    "yml": "yaml",
    "toml": "toml",
    "sh": "shell",
    "html": "html",
    "css": "css",
    "txt": "text",
}
_READ_CMDS = {"open", "cat", "head", "tail", "less", "more", "view", "goto", "scroll_down", "scroll_up", "nl", "bat"}
_SEARCH_CMDS = {"search_dir", "search_file", "find_file", "grep", "rg", "ag", "find", "ack", "egrep", "fgrep", "locate"}
_CREATE_CMDS = {"create", "touch", "write_file", "create_file"}
_EDIT_CMDS = {"edit", "str_replace", "insert", "apply_patch", "patch"}
COMMAND_NAMES = frozenset(_READ_CMDS | _SEARCH_CMDS | _CREATE_CMDS | _EDIT_CMDS)  # the commands read by kind


@dataclass
class ToolSummary:
    """What one tool result said, in a few facts."""

    tool: str  # the tool's name as called (or the kind when unnamed)
    kind: ToolKind
    status: Status
    key_facts: list[str]
    metadata: dict[str, str | int] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)
    command: str | None = None
    errors: list[str] = field(default_factory=list)


@dataclass
class Turn:
    """One message with its role in an agent session."""

    index: int
    message: Message
    kind: TurnKind
    command: str | None = None  # assistant: the command it issued; tool_result: the command it answers
    tool_name: str | None = None
    tool_args: dict[str, Any] = field(default_factory=dict)


# ---- helpers -----------------------------------------------------------------------------------
def _clip(text: str, limit: int = MAX_FACT_CHARS) -> str:
    return clip(text, limit)


def extract_command(text: str) -> str | None:
    """The last fenced (```` ``` ```` or ``<command>``) block of an assistant turn, stripped."""
    found = [(m.group(1) if m.group(1) is not None else m.group(2)) for m in _FENCED.finditer(text)]
    found = [f.strip() for f in found if f and f.strip()]
    return found[-1] if found else None


MAX_COMMAND_CHARS = 4000  # a command line is kept verbatim up to this; summaries shorten it when shown


def command_line(command: str) -> str:
    """The first line of a command, verbatim (an ``edit 1:1`` block's header, a one-line shell command)."""
    line = command.strip().split("\n", 1)[0].strip()
    return line if len(line) <= MAX_COMMAND_CHARS else line[: MAX_COMMAND_CHARS - 1] + "…"


@functools.lru_cache(maxsize=4096)
def _argv(command: str) -> tuple[str, ...]:
    # Cached: each command is split by several extractors, and shlex is slow.
    line = command_line(command)
    try:
        return tuple(shlex.split(line))
    except ValueError:
        return tuple(line.split())


def command_kind(command: str) -> ToolKind:
    """The tool kind a command line belongs to (``open x.py`` reads, ``edit 3:5`` edits, ...)."""
    argv = _argv(command)
    if not argv:
        return "other"
    word = argv[0].rsplit("/", 1)[-1]
    if word == "sed" and any(a.startswith("-i") for a in argv[1:]):
        return "edit_file"
    if word in _READ_CMDS:
        return "read_file"
    if word in _SEARCH_CMDS:
        return "search"
    if word in _CREATE_CMDS:
        return "create_file"
    if word in _EDIT_CMDS:
        return "edit_file"
    if word == "str_replace_editor" and len(argv) > 1:
        return {"view": "read_file", "create": "create_file"}.get(argv[1], "edit_file")  # type: ignore[return-value]
    return "shell"


def find_paths(text: str) -> list[str]:
    """File paths mentioned in ``text`` (known extensions, or absolute paths with two or more parts)."""
    out: list[str] = []
    for m in _PATH.finditer(text):
        path = m.group(1).rstrip(".")
        if path and not path.startswith(("http", "www.")) and path not in out:
            out.append(path)
    for m in _ABS_PATH.finditer(text):
        path = m.group(1).rstrip(".:,")
        if path not in out and not any(o.endswith(path) or path.endswith(o) for o in out if "/" in o):
            out.append(path)
    return out


def command_paths(command: str) -> list[str]:
    """Paths among a command line's arguments (``python reproduce.py`` -> ``reproduce.py``)."""
    out: list[str] = []
    for arg in _argv(command)[1:]:
        if arg.startswith("-") or "://" in arg:
            continue
        found = find_paths(arg)
        if not found and _DIR_ARG.fullmatch(arg):
            found = [arg]  # a folder argument such as src/ or /testbed
        for p in found:
            if p not in out:
                out.append(p)
    return out


def touched_paths(command: str) -> list[str]:
    """The files a command touches (opens, edits, creates or runs): its :func:`command_paths`, none for a
    search, whose arguments are a pattern and where to look (``find_file "numpy_handler.py" src``)."""
    return [] if command_kind(command) == "search" else command_paths(command)


# Not prose in a turn: fenced command blocks, agent-shell status lines, and a file viewer's numbered
# lines ("1493:", "1494:    :param keys: ...") or its "(517 more lines below)".
_COMMAND_BLOCK = re.compile(r"```.*?```|<command>.*?</command>", re.S)
# Where a line ending in a colon introduced a dropped block: "…" marks left-out text, as in a long command's
# "start … end"; the cleaner drops a bracketed "[code]" from turns as a transcript's aside.
DROPPED_BLOCK = "…"
_NOT_PROSE_LINE = re.compile(
    rf"^(?:{_SHELL_STATUS})\s*$|^\d{{1,6}}:(?!\d).*$|^\(\d+ more lines (?:above|below)\)\s*$", re.M
)


def without_viewer_lines(text: str) -> str:
    """``text`` without agent-shell status lines and a file viewer's numbered lines (code the turn
    quotes, not something anyone said); the other lines kept as they are."""
    return _NOT_PROSE_LINE.sub("", text)


def turn_prose(text: str) -> str:
    """A turn's prose on one line: :func:`without_viewer_lines`, and without fenced command blocks.

    Its lines are sentences apart: one that ends without a stop (a title, a label's value, a list) gets one,
    unless the next line goes on with its sentence (starts in lower case, or it ends mid-sentence: a comma),
    so "TimeDelta serialization precision" and "Hi there!" do not read as one sentence. A line that ends
    with a colon reads on into what it introduces; when that was a command block, dropped here,
    :data:`DROPPED_BLOCK` stands in its place ("I'm running `x.py` as follows: … but I get ..."), where a
    stop ("as follows. but I get") read as a whole sentence and a bare colon breaks one off."""
    lines: list[tuple[str, str]] = []  # each line, and what follows it: "" (a line), "blank" or "block"
    pieces = _COMMAND_BLOCK.split(text)
    for k, piece in enumerate(pieces):
        for line in without_viewer_lines(piece).split("\n"):
            flat = " ".join(line.split())
            if flat:
                lines.append((flat, ""))
            elif lines:
                lines[-1] = (lines[-1][0], lines[-1][1] or "blank")
        if lines and k + 1 < len(pieces):
            lines[-1] = (lines[-1][0], "block")
    out = []
    for i, (line, after) in enumerate(lines):
        if i + 1 < len(lines) or after == "block":  # the last line too, when what it introduced was dropped
            line = _ended(line, after, lines[i + 1][0] if i + 1 < len(lines) else "")
        out.append(line)
    return " ".join(out)


def _ended(line: str, after: str, following: str) -> str:
    """``line`` as it reads before ``following`` (``after`` it: a line break, a blank line or a dropped
    block): with a stop where a sentence ends at its end, as it is where it reads on."""
    if line.endswith(":") and after == "block":
        return f"{line} {DROPPED_BLOCK}"  # reads on into "but I get ...", ends a sentence before "The ..."
    if line.endswith(":"):
        return line
    ends_word = line[-1].isalnum() or line[-1] in "`'\")]}\u201d\u2019"
    if not ends_word or _SENTENCE_END.search(line) or _EMOTICON.search(line):
        return line
    if not after and following[:1].islower():
        return line  # a hard-wrapped sentence goes on
    return line + "."


# A line that ends a sentence: a stop, then closing quotes, brackets or a code span's mark at most.
_SENTENCE_END = re.compile(r"[.!?\u2026][\"'\u201d\u2019)\]`]*$")
_EMOTICON = re.compile(r"(?<!\S)[:;]-?[()DPp]$")  # ";)" closes its sentence as a stop would


def _strip_trailer(text: str) -> tuple[str, list[str]]:
    """Output without agent-shell status lines (``(Open file: ...)``, ``bash-$``); plus the open file."""
    files = [p for p in _OPEN_FILE.findall(text) if p.strip() and p.strip() != "n/a"]
    lines = text.rstrip().split("\n")
    while lines and _TRAILER.match(lines[-1].strip()):
        lines.pop()
    return "\n".join(lines).rstrip(), files


def _exit_code(text: str) -> int | None:
    found = _EXIT.findall(text)
    return int(found[-1]) if found else None


def _last_lines(text: str, n: int = 2) -> list[str]:
    lines = [ln.strip() for ln in text.split("\n") if ln.strip()]
    return [_clip(ln, 120) for ln in lines[-n:]]


def file_type(path: str) -> str:
    """A short type name from a path's extension ("python", "markdown", ...)."""
    ext = path.rsplit(".", 1)[-1].lower() if "." in path.rsplit("/", 1)[-1] else ""
    return _FILE_TYPES.get(ext, ext or "unknown")


def definitions(content: str, ftype: str) -> list[str]:
    """Top-level definitions (classes, functions, exports) of a file's text, in order."""
    lang = {"typescript": "javascript", "kotlin": "java", "c++": "c"}.get(ftype, ftype)
    rx = _DEFS.get(lang)
    if rx is None:
        return []
    lines = [_LINE_NO.sub("", ln, count=1) for ln in content.split("\n")]
    text = "\n".join(lines)
    out: list[str] = []
    for name in rx.findall(text):
        if name not in out and name not in ("if", "for", "while", "switch", "return", "main" if lang == "c" else ""):
            out.append(name)
    return out


# ---- extractors --------------------------------------------------------------------------------
def _path_arg(args: dict[str, Any], command: str | None) -> str | None:
    for key in ("path", "file_path", "filename", "file", "target_file", "filepath"):
        if isinstance(args.get(key), str) and args[key].strip():
            return str(args[key]).strip()
    if command:
        paths = command_paths(command)
        if paths:
            return paths[0]
    return None


def summarize_read(content: str, tool: str, args: dict[str, Any], command: str | None) -> ToolSummary:
    """File read: path, lines, type, top-level definitions."""
    body, open_files = _strip_trailer(content)
    header = _FILE_HEADER.search(body)
    path = header.group(1) if header else (_path_arg(args, command) or (open_files[0] if open_files else "unknown"))
    lines = int(header.group(2)) if header else len(body.split("\n"))
    ftype = file_type(path)
    facts = [f"File: {path}", f"Lines: {lines}", f"Type: {ftype}"]
    defs = definitions(body, ftype)
    if defs:
        more = f" (+{len(defs) - 8} more)" if len(defs) > 8 else ""
        facts.append(f"Defines: {', '.join(defs[:8])}{more}")
    files = [p for p in [path, *open_files] if p != "unknown"]
    if command:
        files = command_paths(command) + files
    return ToolSummary(
        tool,
        "read_file",
        "success",
        facts,
        {"path": path, "lines": lines, "definitions": len(defs)},
        files=_dedupe(files),
        command=command_line(command) if command else None,
    )


def summarize_shell(
    content: str, tool: str, args: dict[str, Any], command: str | None, *, keep_errors: bool = True
) -> ToolSummary:
    """Shell command: command, exit status, error lines, last lines of output."""
    cmd = command or call_command(tool, args) or "unknown"
    body, open_files = _strip_trailer(content)
    code = _exit_code(body)
    errors = error_lines(body, 300 if keep_errors else 120)
    failed = code not in (None, 0) or (code is None and bool(errors))
    out_lines = len([ln for ln in body.split("\n") if ln.strip()])
    facts = [f"Command: {_clip(command_line(cmd), 80)}"]
    if code is not None:  # agent shells often do not report it; "Exit: ?" would only cost tokens
        facts.append(f"Exit: {code}")
    facts.append(f"Output: {out_lines} lines")
    if errors:
        facts.append(f"Error: {errors[0] if keep_errors else _clip(errors[0], 100)}")
    last = _last_lines(body)
    if last and (not errors or last[-1] != errors[0]):
        facts.append(f"Last: {' / '.join(last)}")
    files = command_paths(cmd) + open_files
    return ToolSummary(
        tool,
        "shell",
        "error" if failed else "success",
        facts,
        {"command": command_line(cmd), "exit_code": "?" if code is None else code, "output_lines": out_lines},
        files=_dedupe(files),
        command=command_line(cmd),
        errors=errors[:3] if failed else [],
    )


def summarize_search(content: str, tool: str, args: dict[str, Any], command: str | None) -> ToolSummary:
    """Search/grep: pattern, match count, files with matches (named in its facts; not files it touched: the
    search opened none of them)."""
    body, open_files = _strip_trailer(content)
    pattern = str(args.get("pattern") or args.get("query") or args.get("regex") or "")
    found = _FOUND.search(body)
    if not pattern and found:
        pattern = found.group(2)
    if not pattern and command:
        argv = _argv(command)
        pattern = next((a for a in argv[1:] if not a.startswith("-")), "")
    files: list[str] = []
    counted = 0
    for m in _SEARCH_FILE_LINE.finditer(body):
        files.append(m.group(1))
        counted += int(m.group(2))
    for m in _GREP_LINE.finditer(body):
        files.append(m.group(1))
        counted += 1
    if not files:
        files = [ln.strip() for ln in body.split("\n") if ln.strip() and find_paths(ln.strip()) == [ln.strip()]]
    files = _dedupe(files)
    if found:
        matches = int(found.group(1))
    elif _NO_MATCH.search(body):
        matches = 0
    else:
        matches = counted or len(files)
    facts = [f'Pattern: "{_clip(pattern or "unknown", 60)}"', f"Matches: {matches}", f"Files: {len(files)}"]
    if files:
        facts.append(f"Top files: {', '.join(files[:3])}")
    return ToolSummary(
        tool,
        "search",
        "success" if matches else "partial",
        facts,
        {"pattern": pattern or "unknown", "match_count": matches, "file_count": len(files)},
        files=open_files,
        command=command_line(command) if command else None,
    )


def summarize_write(content: str, tool: str, args: dict[str, Any], command: str | None, kind: ToolKind) -> ToolSummary:
    """File create/edit: path and the size of the change."""
    body, open_files = _strip_trailer(content)
    header = _FILE_HEADER.search(body)
    path = _path_arg(args, command) or (header.group(1) if header else None) or (open_files[0] if open_files else None)
    facts = [f"File: {path or 'unknown'}"]
    meta: dict[str, str | int] = {"path": path or "unknown"}
    if header:
        facts.append(f"Now: {header.group(2)} lines")
        meta["lines"] = int(header.group(2))
    new_text = args.get("new_str") or args.get("content") or args.get("file_text") or args.get("new_content")
    old_text = args.get("old_str")
    if isinstance(new_text, str):
        added = len(new_text.split("\n"))
        removed = len(old_text.split("\n")) if isinstance(old_text, str) else 0
        facts.append(f"Change: +{added}/-{removed} lines")
        meta["added"], meta["removed"] = added, removed
    elif command and "\n" in command.strip():
        head, _, rest = command.strip().partition("\n")
        rest = rest.rsplit("\nend_of_edit", 1)[0] if rest.rstrip().endswith("end_of_edit") else rest
        added = len(rest.split("\n")) if rest else 0
        span = head.split()[1] if len(head.split()) > 1 else ""
        facts.append(f"Change: {added} lines written" + (f" at {span}" if span else ""))
        meta["added"] = added
    # Only the tool's own verdict counts: the edited code itself may well mention errors.
    failed = bool(_EDIT_FAILED.search(body))
    errors = error_lines(body.split("This is how your edit would have looked", 1)[0], 200) if failed else []
    # The tool's verdict and its request to retry say only that the edit failed: the error is what follows,
    # and when no line of it reads as an error, there is none to list (the status still says it failed).
    errors = [e for e in errors if not _RETRY.search(e)]
    if failed and errors:
        facts.append(f"Error: {errors[0]}")
    files = [path] if path else []
    return ToolSummary(
        tool,
        kind,
        "error" if failed else "success",
        facts,
        meta,
        files=_dedupe(files + open_files),
        command=command_line(command) if command else None,
        errors=errors[:3] if failed else [],
    )


def summarize_other(content: str, tool: str, tokenizer: Tokenizer, budget: int = DEFAULT_EXCERPT_TOKENS) -> ToolSummary:
    """Anything else: line count plus the head and tail of the result (middle truncated)."""
    body, open_files = _strip_trailer(content)
    lines = len([ln for ln in body.split("\n") if ln.strip()])
    flat = " ".join(body.split())
    excerpt, _ = middle_truncate(flat, budget, tokenizer)
    excerpt = " ".join(excerpt.split())
    errors = error_lines(body, 200)
    facts = [f"Output: {lines} lines"]
    if excerpt:
        facts.append(f"Excerpt: {excerpt}")
    return ToolSummary(tool, "other", "success", facts, {"output_lines": lines}, files=open_files, errors=errors[:3])


def _dedupe(items: Sequence[str]) -> list[str]:
    out: list[str] = []
    for item in items:
        item = item.strip()
        if item and item not in out:
            out.append(item)
    return out


def _kind_from_output(content: str) -> ToolKind | None:
    if re.search(r"^(?:File updated|Text replaced|The file .* has been edited|Your proposed edit has)", content, re.M):
        return "edit_file"
    if _FOUND.search(content) or _NO_MATCH.search(content):
        return "search"
    header = _FILE_HEADER.search(content)
    if header:
        return "create_file" if int(header.group(2)) <= 1 and content.count("\n") < 8 else "read_file"
    return None


def tool_kind(turn: Turn) -> ToolKind:
    """The kind of tool behind one tool-result turn."""
    if turn.tool_name:
        name = turn.tool_name.lower()
        if name == "str_replace_editor":
            sub = str(turn.tool_args.get("command") or "")
            return {"view": "read_file", "create": "create_file"}.get(sub, "edit_file")  # type: ignore[return-value]
        if name in TOOL_NAMES:
            return TOOL_NAMES[name]
    if turn.command:
        return command_kind(turn.command)
    return _kind_from_output(turn.message.content) or "other"


def summarize_tool_result(
    turn: Turn, tokenizer: Tokenizer, *, keep_errors: bool = True, excerpt_tokens: int = DEFAULT_EXCERPT_TOKENS
) -> ToolSummary:
    """Summarize one tool-result turn with the extractor for its tool kind."""
    kind = tool_kind(turn)
    content = turn.message.content
    tool = turn.tool_name or kind
    args = turn.tool_args
    if kind == "read_file":
        return summarize_read(content, tool, args, turn.command)
    if kind == "shell":
        return summarize_shell(content, tool, args, turn.command, keep_errors=keep_errors)
    if kind == "search":
        return summarize_search(content, tool, args, turn.command)
    if kind in ("create_file", "edit_file"):
        return summarize_write(content, tool, args, turn.command, kind)
    summary = summarize_other(content, tool, tokenizer, excerpt_tokens)
    if turn.command:
        summary.command = command_line(turn.command)
        summary.files = _dedupe(command_paths(turn.command) + summary.files)
    return summary


def format_summary(summary: ToolSummary) -> str:
    """One compact line: ``[✓ read_file: File: app.py | Lines: 100 | Type: python]`` (``✗`` on error)."""
    mark = "✗" if summary.status == "error" else "✓"
    return f"[{mark} {summary.tool}: {' | '.join(summary.key_facts)}]"


# ---- turn classification -----------------------------------------------------------------------
def classify_turns(messages: Sequence[Message]) -> list[Turn]:
    """Label every message: system, summary, task, user, assistant or tool_result.

    A user turn right after an assistant turn that issued a command (fenced block or tool call),
    or one ending in an agent-shell prompt, is that command's observation, i.e. a tool result.
    """
    turns: list[Turn] = []
    calls: dict[str, tuple[str, dict[str, Any]]] = {}
    pending: list[tuple[str, dict[str, Any]]] = []  # tool calls of the last assistant turn, in order
    pending_command: str | None = None
    seen_task = False
    for i, m in enumerate(messages):
        if m.role in ("system", "developer"):
            kind: TurnKind = "summary" if m.content.lstrip().startswith(SUMMARY_MARK) else "system"
            turns.append(Turn(i, m, kind))
            seen_task = seen_task or kind == "summary"  # the opening request is already summarized
            continue
        if m.role == "assistant":
            pending = []
            for c in m.tool_calls:
                args = c.args()
                calls[c.id or f"#{len(calls)}"] = (c.name, args)
                pending.append((c.name, args))
            pending_command = extract_command(m.content)
            if pending_command is None and pending:
                pending_command = call_command(*pending[0])
            turns.append(Turn(i, m, "assistant", command=pending_command))
            continue
        if m.role in ("tool", "function"):
            name, args = (m.name or "", {})
            if m.tool_call_id and m.tool_call_id in calls:
                name, args = calls[m.tool_call_id]
                name = m.name or name
            elif pending:
                name, args = pending.pop(0)
                name = m.name or name
            command = call_command(name, args) or pending_command
            turns.append(Turn(i, m, "tool_result", command=command, tool_name=name or None, tool_args=args))
            pending_command = None
            continue
        # user
        observation = pending_command is not None or bool(pending)
        if not observation and seen_task and turns and turns[-1].kind == "assistant":
            # Only an answer to the agent: a second user message in a row (the task after a worked
            # example) ends with the shell prompt too, and is no command's output.
            tail = m.content.rstrip()[-200:]
            observation = "(Current directory:" in tail or tail.endswith("bash-$")
        if observation:
            name, args = pending.pop(0) if pending else ("", {})
            turns.append(Turn(i, m, "tool_result", command=pending_command, tool_name=name or None, tool_args=args))
            pending_command = None
        else:
            turns.append(Turn(i, m, "user" if seen_task else "task"))
            seen_task = True
    return turns


# What an agent framework (SWE-agent's layout) tells the agent in every session: a worked example of
# another task, and the instructions and tips that follow the task. Neither says what this session did.
_DEMONSTRATION = re.compile(r"\A.*?^-{3} DEMONSTRATION -{3}\s*$.*?^-{3} END OF DEMONSTRATION -{3}[^\n]*$", re.S | re.M)
_INSTRUCTIONS = re.compile(r"^(?:INSTRUCTIONS|IMPORTANT TIPS):\s*$.*", re.S | re.M)


# A sentence that names something of its own: a number, a quotation, a code span or a path.
_NAMES = re.compile(r"\d|[\"\u201c\u201d\u00ab\u00bb`/]|(?<!\w)'|'(?!\w)")


def without_lead_in(task: str) -> str:
    """A session's opening request without the framework's lead-in to the task's own text: while its first
    line ends with a colon and more text follows (the line introduces it: "We're currently solving the
    following issue within our repository. Here's the issue text:", then "ISSUE:"), that line's sentences
    naming nothing (no number, quotation, code or path) go, unless it introduces a command block ("I run it
    as follows:" is the task's). "The CTF challenge is a problem named "Baby Time Capsule"." is kept."""
    text = task.strip()
    while True:
        first, _, rest = text.partition("\n")
        if not first.rstrip().endswith(":") or not rest.strip() or _COMMAND_BLOCK.match(rest.lstrip()):
            return text
        sentences = re.split(r"(?<=[.!?])\s+", first.strip())
        kept = [s for s in sentences if _NAMES.search(s)]
        if len(kept) == len(sentences):
            return text
        text = (" ".join(kept) + "\n" + rest.lstrip("\n")) if kept else rest.strip()
        if kept:
            return text


def without_standing_orders(text: str) -> str:
    """A user turn of an agent session without a demonstration (and what introduces it) and without
    the instructions from an ``INSTRUCTIONS:`` line on."""
    return _INSTRUCTIONS.sub("", _DEMONSTRATION.sub("", text)).strip()


def most_specific(paths: Sequence[str]) -> list[str]:
    """``paths`` without a path that another one ends with: "chall.py" beside "/ctf/chall.py" is the
    same file named less fully (or, beside several such, no file in particular)."""
    return [p for p in paths if not any(q.endswith("/" + p.removeprefix("./")) for q in paths if q != p)]
