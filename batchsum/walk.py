"""Find source files, read and decode them, render chats/subtitles, and classify them.

Every problem with a single file becomes a ``Problem`` (path + one-line reason) or an
``InputError``; nothing here stops a batch.
"""

from __future__ import annotations

import codecs
import datetime as dt
import functools
import json
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from batchsum.config import STATE_DIR, TypeChoice
from batchsum.errors import ConfigError, InputError
from batchsum.model import ContentType, Document

TEXT_EXTS = {".md", ".markdown", ".txt"}
CHAT_EXTS = {".jsonl", ".json"}
SUBTITLE_EXTS = {".vtt", ".srt"}
ALL_EXTS = TEXT_EXTS | CHAT_EXTS | SUBTITLE_EXTS
IGNORE_FILE = ".batchsumignore"
TYPE_ALIASES = {"transcript": "conversation", "transcripts": "conversation", "chat": "conversation"}


class _Patterns:
    """The classification regexes, compiled on first use: an unchanged re-run classifies nothing."""

    __slots__ = ("date", "dated_heading", "front_date", "speaker")

    def __init__(self) -> None:
        self.date = re.compile(r"(?<!\d)(\d{4})[-_.]?(\d{2})[-_.]?(\d{2})(?!\d)")
        self.speaker = re.compile(
            r"^\s*(?:\[[^\]]{1,20}\]\s*)?([A-Z][\w .'-]{0,40}?|[A-Z]{2,}\d*)\s*:\s+\S", re.MULTILINE
        )
        self.dated_heading = re.compile(
            r"^\s{0,3}(?:#{1,6}\s*)?(?:\*\*)?\s*(?:\d{4}-\d{2}-\d{2}|(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)\w*,?\s+\w+\s+\d{1,2}"
            r"|(?:January|February|March|April|May|June|July|August|September|October|November|December)\s+\d{1,2},?\s+\d{4})",
            re.MULTILINE | re.IGNORECASE,
        )
        self.front_date = re.compile(r"^date:\s*['\"]?(\d{4}-\d{2}-\d{2})", re.MULTILINE)


_rx = functools.cache(_Patterns)


if TYPE_CHECKING:
    import pathspec


class SourceRef:
    """A file found by the walk, not yet read.

    ``path`` is built on first use: an unchanged re-run only stats ``fspath``, and a Path per file
    was a measurable share of walking a few thousand files.
    """

    __slots__ = ("_path", "fspath", "relpath", "root", "type_override")

    def __init__(self, path: Path | str, relpath: str, root: Path, type_override: TypeChoice | None = None) -> None:
        self.fspath = os.fspath(path)
        self._path = path if isinstance(path, Path) else None
        self.relpath = relpath
        self.root = root
        self.type_override = type_override

    @property
    def path(self) -> Path:
        """The file's path."""
        if self._path is None:
            self._path = Path(self.fspath)
        return self._path

    def __repr__(self) -> str:
        return f"SourceRef({self.fspath!r}, relpath={self.relpath!r})"


@dataclass
class Problem:
    """A file that was skipped or needs attention, with a one-line reason."""

    path: str
    reason: str


@dataclass
class WalkResult:
    """Files to process and problems met on the way."""

    refs: list[SourceRef] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    roots: list[Path] = field(default_factory=list)


def normalize_type(value: str) -> TypeChoice:
    """Map aliases (``transcript``) to canonical type names; raise ConfigError on unknown."""
    v = TYPE_ALIASES.get(value.lower(), value.lower())
    if v not in ("journal", "conversation", "document", "auto"):
        raise ConfigError(f"unknown --type {value!r} (choose journal, conversation, transcript, document or auto)")
    return v  # type: ignore[return-value]


def _root_names(roots: list[Path]) -> dict[Path, str]:
    """Relpath prefix per root: none for a single root, its (de-duplicated) name for several."""
    if len(roots) == 1:
        return {roots[0]: ""}
    names: dict[Path, str] = {}
    seen: dict[str, int] = {}
    for r in roots:
        base = r.name or "root"
        n = seen.get(base, 0)
        seen[base] = n + 1
        names[r] = base if n == 0 else f"{base}-{n + 1}"
    return names


def discover(
    paths: Iterable[Path],
    *,
    out: Path | None = None,
    extra_ignore: Iterable[str] = (),
    corpus_ignores: dict[str, list[str]] | None = None,
    type_overrides: dict[str, TypeChoice] | None = None,
) -> WalkResult:
    """Walk files and folders recursively in a deterministic order."""
    result = WalkResult()
    given = list(paths)
    roots: list[Path] = []
    for p in given:
        if not os.path.lexists(p):
            raise ConfigError(f"path does not exist: {p}")
        roots.append(Path(os.path.abspath(p)))
    result.roots = roots
    out_abs = Path(os.path.abspath(out)) if out else None
    prefixes = _root_names(roots)
    seen_files: set[str] = set()
    for given_path, root in zip(given, roots, strict=True):
        override = (type_overrides or {}).get(str(given_path))
        patterns = list(extra_ignore) + list((corpus_ignores or {}).get(str(given_path), []))
        prefix = prefixes[root]
        if root.is_file() or (root.is_symlink() and not root.is_dir()):
            rel = f"{prefix}/{root.name}" if prefix else root.name
            _add_file(result, root, rel, root, override, seen_files, explicit=True)
            continue
        ignore_file = root / IGNORE_FILE
        if ignore_file.is_file():
            try:
                patterns += ignore_file.read_text(encoding="utf-8", errors="replace").splitlines()
            except OSError as exc:
                result.problems.append(Problem(str(ignore_file), f"cannot read ignore file: {exc.strerror}"))
        spec = None
        if any(p.strip() and not p.lstrip().startswith("#") for p in patterns):
            import pathspec  # only when there is something to ignore: it costs ~15 ms to import

            spec = pathspec.GitIgnoreSpec.from_lines(patterns)
        _walk_dir(result, root, root, "", prefix, spec, out_abs, override, seen_files, visited=set())
    return result


def _walk_dir(
    result: WalkResult,
    root: Path,
    folder: Path,
    rel_folder: str,
    prefix: str,
    spec: pathspec.PathSpec | None,
    out_abs: Path | None,
    override: TypeChoice | None,
    seen_files: set[str],
    visited: set[tuple[int, int]],
) -> None:
    # Per-entry work is plain string handling on scandir's cached d_type: a nightly re-run of a
    # 1,253-file journal spends most of its time here otherwise.
    try:
        st = folder.stat()
    except OSError as exc:
        result.problems.append(Problem(str(folder), f"cannot read folder: {exc.strerror or exc}"))
        return
    key = (st.st_dev, st.st_ino)
    if key in visited:
        result.problems.append(Problem(str(folder), "symlink loop: folder already visited, skipped"))
        return
    visited = visited | {key}
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError as exc:
        result.problems.append(Problem(str(folder), f"cannot list folder: {exc.strerror or exc}"))
        return
    out_str = str(out_abs) if out_abs is not None else None
    for entry in entries:
        name = entry.name
        if name.startswith(".") or name == STATE_DIR:
            continue
        rel_in_root = f"{rel_folder}/{name}" if rel_folder else name
        try:
            is_dir = entry.is_dir(follow_symlinks=True)
        except OSError:
            is_dir = False
        if not name.isascii() and not _utf8_name(name):
            kind = "folder" if is_dir else "file"
            result.problems.append(Problem(entry.path, f"{kind} name is not valid UTF-8, skipped (rename it)"))
            continue
        if is_dir:
            if out_str is not None and os.path.abspath(entry.path) == out_str:
                continue
            if spec is not None and spec.match_file(rel_in_root + "/"):
                continue
            if out_abs is not None and os.path.realpath(entry.path) == os.path.realpath(out_abs):
                continue
            _walk_dir(result, root, Path(entry.path), rel_in_root, prefix, spec, out_abs, override, seen_files, visited)
            continue
        dot = name.rfind(".")  # splitext's answer for names not starting with a dot (skipped above)
        if dot <= 0 or name[dot:].lower() not in ALL_EXTS:
            continue
        if spec is not None and spec.match_file(rel_in_root):
            continue
        rel = f"{prefix}/{rel_in_root}" if prefix else rel_in_root
        if entry.is_symlink() and not os.path.exists(entry.path):
            result.problems.append(Problem(entry.path, "broken symlink, skipped"))
            continue
        if rel in seen_files:
            continue
        seen_files.add(rel)
        result.refs.append(SourceRef(entry.path, rel, root, override))


def _add_file(
    result: WalkResult,
    path: Path,
    rel: str,
    root: Path,
    override: TypeChoice | None,
    seen: set[str],
    *,
    explicit: bool,
) -> None:
    ext = path.suffix.lower()
    if not _utf8_name(rel):
        result.problems.append(Problem(str(path), "file name is not valid UTF-8, skipped (rename it)"))
        return
    if ext not in ALL_EXTS:
        if explicit:
            result.problems.append(Problem(str(path), f"unsupported file type {ext or '(none)'!r}, skipped"))
        return
    if path.is_symlink() and not path.exists():
        result.problems.append(Problem(str(path), "broken symlink, skipped"))
        return
    if rel in seen:
        return
    seen.add(rel)
    result.refs.append(SourceRef(path=path, relpath=rel, root=root, type_override=override))


def _utf8_name(name: str) -> bool:
    # Undecodable bytes of a name live on as lone surrogates, which no UTF-8 file (YAML front
    # matter, JSON state, DuckDB rows, the index) can hold.
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


# ---------------------------------------------------------------- reading and decoding


def _sha256(raw: bytes) -> str:
    import hashlib  # not at module level: the walk of an unchanged re-run hashes nothing

    return hashlib.sha256(raw).hexdigest()


def decode_bytes(raw: bytes) -> tuple[str, str | None]:
    """Decode with BOM sniffing, then strict UTF-8, then a recorded lossy decode.

    Returns (text, note); note is None for a clean UTF-8 decode.
    """
    if raw.startswith(codecs.BOM_UTF8):
        return raw[len(codecs.BOM_UTF8) :].decode("utf-8", errors="replace"), "utf-8 with BOM"
    if raw.startswith(codecs.BOM_UTF16_LE) or raw.startswith(codecs.BOM_UTF16_BE):
        return raw.decode("utf-16", errors="replace"), "utf-16 (BOM)"
    if b"\x00" in raw[:8192]:
        raise ValueError("binary file (contains NUL bytes)")
    try:
        return raw.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        text = raw.decode("utf-8", errors="replace")
        bad = text.count("\ufffd")
        if bad > max(16, len(text) // 10):
            raise ValueError(f"binary or undecodable file ({bad} invalid UTF-8 sequences)") from exc
        return text, f"lossy utf-8 decode: {bad} invalid byte sequence(s) replaced"


def render_chat(raw_text: str, path: Path) -> str:
    """Render OpenAI chat messages (.jsonl lines or a ``messages`` list) as ``Role: content`` lines."""
    messages: list[Any]
    stripped = raw_text.strip()
    if not stripped:
        return ""
    try:
        if path.suffix.lower() == ".json":
            data = json.loads(stripped)
            messages = data.get("messages", []) if isinstance(data, dict) else data
        else:
            messages = []
            for lineno, line in enumerate(raw_text.splitlines(), 1):
                if not line.strip():
                    continue
                try:
                    item = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise ValueError(f"invalid JSON on line {lineno}: {exc.msg}") from exc
                if isinstance(item, dict) and "messages" in item and isinstance(item["messages"], list):
                    messages.extend(item["messages"])
                else:
                    messages.append(item)
    except json.JSONDecodeError as exc:
        raise ValueError(f"invalid JSON: {exc.msg} (line {exc.lineno})") from exc
    if not isinstance(messages, list):
        raise ValueError("JSON is not a chat: expected a list of messages or {'messages': [...]}")
    lines: list[str] = []
    for i, m in enumerate(messages):
        if not isinstance(m, dict) or "content" not in m:
            raise ValueError(f"message {i + 1} has no 'content' (expected {{'role', 'content'}})")
        role = str(m.get("name") or m.get("role") or "unknown").strip()
        content = m["content"]
        if isinstance(content, list):  # multi-part content: keep the text parts
            content = " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
        content = str(content or "").strip()
        if content:
            lines.append(f"{role[:1].upper()}{role[1:]}: {content}")
    return "\n\n".join(lines)


_VTT_TS = re.compile(r"^\s*(?:\d+:)?\d{1,2}:\d{2}[.,]\d{3}\s*-->")
_VOICE = re.compile(r"<v(?:\.[^ >]*)?\s+([^>]+)>")
_TAG = re.compile(r"</?[^>]+>")


def render_subtitles(raw_text: str) -> str:
    """Render WebVTT/SRT cues as ``Speaker: text`` lines, merging consecutive cues of one speaker."""
    turns: list[tuple[str | None, str]] = []
    block: list[str] = []

    def flush() -> None:
        text_lines = [ln for ln in block if ln.strip()]
        block.clear()
        if not text_lines:
            return
        joined = " ".join(ln.strip() for ln in text_lines)
        speaker: str | None = None
        m = _VOICE.search(joined)
        if m:
            speaker = m.group(1).strip()
        else:
            m2 = re.match(r"^([A-Z][\w .'-]{0,40}):\s+", joined)
            if m2:
                speaker = m2.group(1)
                joined = joined[m2.end() :]
        text = _TAG.sub("", joined).strip()
        if not text:
            return
        if turns and turns[-1][0] == speaker:
            turns[-1] = (speaker, turns[-1][1] + " " + text)
        else:
            turns.append((speaker, text))

    in_cue = False
    for line in raw_text.splitlines():
        s = line.strip()
        if not s:
            flush()
            in_cue = False
            continue
        if s.startswith("WEBVTT") or s.startswith("NOTE") or s.startswith("STYLE"):
            continue
        if _VTT_TS.match(s):
            block.clear()
            in_cue = True
            continue
        if not in_cue:
            continue  # cue numbers and identifiers
        block.append(s)
    flush()
    return "\n\n".join(f"{sp}: {tx}" if sp else tx for sp, tx in turns)


def detect_type(path: Path, text: str, relpath: str) -> tuple[ContentType, str]:
    """Decide journal/conversation/document from extension, content shape and folder names."""
    ext = path.suffix.lower()
    if ext in CHAT_EXTS or ext in SUBTITLE_EXTS:
        return "conversation", f"extension {ext}"
    parts = [p.lower() for p in Path(relpath).parts[:-1]]
    for part in parts:
        if any(w in part for w in ("journal", "diary", "daily", "log")):
            return "journal", f"folder '{part}'"
        if any(w in part for w in ("meeting", "transcript", "chat", "conversation", "call", "interview")):
            return "conversation", f"folder '{part}'"
    sample = text[:20000]
    lines = [ln for ln in sample.splitlines() if ln.strip()]
    if lines:
        speaker_lines = len(_rx().speaker.findall(sample))
        if speaker_lines >= 4 and speaker_lines / len(lines) >= 0.4:
            return "conversation", f"speaker turns ({speaker_lines}/{len(lines)} lines)"
    headings = len(_rx().dated_heading.findall(sample))
    if headings >= 1 and (_rx().date.search(path.stem) or headings >= 2):
        return "journal", f"dated headings ({headings})"
    if _rx().date.search(path.stem) and re.search(r"\b(I|I'm|I've|my|me)\b", sample):
        return "journal", "dated file name, first-person text"
    return "document", "default"


def doc_date_for(path: Path, text: str, mtime_ns: int) -> str:
    """Journal date from the file name or front matter, else the file's mtime (ISO date)."""
    m = _rx().date.search(path.stem)
    if m:
        try:
            return dt.date(int(m.group(1)), int(m.group(2)), int(m.group(3))).isoformat()
        except ValueError:
            pass
    fm = _rx().front_date.search(text[:2000]) if text.startswith("---") else None
    if fm:
        return fm.group(1)
    return dt.datetime.fromtimestamp(mtime_ns / 1e9, tz=dt.UTC).date().isoformat()


def read_document(ref: SourceRef, type_choice: TypeChoice = "auto") -> Document:
    """Read, decode, render and classify one file. Raises InputError with a one-line reason."""
    path = ref.path
    try:
        st = path.stat()
        with open(path, "rb") as fh:
            raw = fh.read()
    except FileNotFoundError as exc:
        if path.is_symlink():
            raise InputError(str(path), "broken symlink") from exc
        raise InputError(str(path), "file vanished before it could be read") from exc
    except IsADirectoryError as exc:
        raise InputError(str(path), "is a folder, not a file") from exc
    except PermissionError as exc:
        raise InputError(str(path), "permission denied") from exc
    except OSError as exc:
        if exc.errno == 40:  # ELOOP
            raise InputError(str(path), "symlink loop") from exc
        raise InputError(str(path), f"cannot read: {exc.strerror or exc}") from exc
    try:
        text, note = decode_bytes(raw)
    except ValueError as exc:
        raise InputError(str(path), str(exc)) from exc
    ext = path.suffix.lower()
    try:
        if ext in CHAT_EXTS:
            text = render_chat(text, path)
        elif ext in SUBTITLE_EXTS:
            text = render_subtitles(text)
    except ValueError as exc:
        raise InputError(str(path), str(exc)) from exc
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    choice = ref.type_override or type_choice
    if choice == "auto":
        ctype, reason = detect_type(path, text, ref.relpath)
    else:
        ctype, reason = choice, "--type"
    return Document(
        path=path,
        relpath=ref.relpath,
        text=text,
        sha256=_sha256(raw),
        size=st.st_size,
        mtime_ns=st.st_mtime_ns,
        content_type=ctype,
        type_reason=reason,
        doc_date=doc_date_for(path, text, st.st_mtime_ns),
        decode_note=note,
    )
