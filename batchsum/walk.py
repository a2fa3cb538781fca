"""Find source files, read them (decoding.py decodes, formats.py renders chats and subtitles), and classify them.

Every problem with a single file becomes a ``Problem`` (path + one-line reason) or an
``InputError``; nothing here stops a batch.
"""

from __future__ import annotations

import errno
import functools
import logging
import os
import re
import stat
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from batchsum.config import STATE_DIR, TypeChoice
from batchsum.datelines import dated_entries
from batchsum.doc_dates import dated, name_date, whatsapp_day
from batchsum.errors import ConfigError, InputError, NotASource
from batchsum.folder_types import folder_kind
from batchsum.hashing import sha256_bytes
from batchsum.lazy import load
from batchsum.model import ContentType, Document
from batchsum.readers.bracket_turns import CUE_LINES, caption_cue_lines
from batchsum.readers.chat_exports import ExportMetadata, ExportText
from batchsum.readers.court_layout import strip_control  # decoding's, a court transcript's page layout read away first
from batchsum.readers.decoding import decode_bytes
from batchsum.readers.export_side_files import export_rendering
from batchsum.readers.formats import render_chat, render_subtitles
from batchsum.readers.latex import render_latex
from batchsum.readers.note_files import app_file, chat_below_front_matter
from batchsum.readers.note_syntax import front_matter_problem, without_data_uris
from batchsum.readers.screenplay import screenplay_cues
from batchsum.secrets import redact as redact_secrets
from batchsum.speaker_labels import is_turn
from batchsum.transcript_shape import agent_transcript_reason
from batchsum.walk_paths import kind_name, kind_of, outermost, printable, root_names

log = logging.getLogger(__name__)

# A Fountain screenplay (.fountain) is plain text in the layout batchsum.readers.screenplay reads.
TEXT_EXTS = {".md", ".markdown", ".txt", ".fountain"}
CHAT_EXTS = {".jsonl", ".json"}
SUBTITLE_EXTS = {".vtt", ".srt"}
EMAIL_EXTS = {".eml"}
LATEX_EXTS = {".tex", ".latex"}
HTML_EXTS = {".html", ".htm"}
# Read from their bytes by these readers, loaded by a run that reads one: zips of XML parts, and web pages (which
# name their charset and their day). Each gives (text, decoding note) and (day, source) when the file says
# when it was made: a document's created day ("document properties"), a page's own date ("page date").
BYTE_READERS = {".docx": "batchsum.readers.office_docs:docx_source", ".odt": "batchsum.readers.office_docs:odt_source"}
BYTE_READERS |= dict.fromkeys(HTML_EXTS, "batchsum.readers.html_text:page_source")
ORG_EXTS = {".org"}  # Emacs Org mode, rendered as Markdown by org.py
ALL_EXTS = TEXT_EXTS | CHAT_EXTS | SUBTITLE_EXTS | EMAIL_EXTS | LATEX_EXTS | ORG_EXTS | set(BYTE_READERS)
# Plain text under a name batchsum does not read: the reason says how to have it read (a 5 MB server.log).
PLAIN_TEXT_HINT = {".log", ".text", ".rst", ".adoc"}, "plain text? rename it .txt to have it read"
# Formats rendered from their text, each renderer given the run's warnings for the file and its path (a LaTeX
# source's \input files are looked up from its folder). Org files are rendered by a module loaded by name
# (batchsum.lazy) only by a run that reads one.
_RENDERERS: dict[str, Callable[[str, list[str], Path], str]] = {
    **dict.fromkeys(SUBTITLE_EXTS, lambda text, warnings, _path: render_subtitles(text, warnings)),
    **dict.fromkeys(LATEX_EXTS, render_latex),
    **dict.fromkeys(
        ORG_EXTS, lambda text, warnings, path: load("batchsum.readers.org:render_org")(text, warnings, path)
    ),
}
IGNORE_FILE = ".batchsumignore"


class _Patterns:
    """The classification regexes, compiled on first use: an unchanged re-run classifies nothing."""

    __slots__ = ("date", "dated_heading")

    def __init__(self) -> None:
        self.date = re.compile(r"(?<!\d)(\d{4})[-_.]?(0[1-9]|1[0-2])[-_.]?(0[1-9]|[12]\d|3[01])(?!\d)")  # 2019-2021: no
        self.dated_heading = re.compile(
            # [ \t], not \s, before the date: \s crosses newlines, and a run of blank lines was then scanned
            # once per line (quadratic: minutes for a 20 KB file of blank lines).
            r"^[ \t]{0,3}(?:#{1,6}[ \t]*)?(?:\*\*)?[ \t]*"
            r"(?:\d{4}-\d{2}-\d{2}|(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)\w*,?\s+\w+\s+\d{1,2}"
            r"|(?:January|February|March|April|May|June|July|August|September|October|November|December)\s+\d{1,2},?\s+\d{4})",
            re.MULTILINE | re.IGNORECASE,
        )


_rx = functools.cache(_Patterns)


if TYPE_CHECKING:
    import pathspec

    from batchsum.readers.chat_lines import ChatExport


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
    relpath: str | None = None  # a source file's name in the run (a skipped file counts as one)
    # False: skipped by design, not a failure (an export's metadata file): counted as skipped, listed by
    # ``report``, but no problem that makes the run partial.
    failure: bool = True
    # Said in the closing summary though no failure (an empty file the user may not know of; not an
    # export's metadata file, skipped every night by design).
    notice: bool = False

    def to_dict(self) -> dict[str, Any]:
        """Its fields, JSON-ready (as every result object of the library gives them)."""
        return dict(self.__dict__)


@dataclass
class WalkResult:
    """Files to process and problems met on the way."""

    refs: list[SourceRef] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    roots: list[Path] = field(default_factory=list)
    # Each root's name put first in its files' relpaths (walk_paths.root_names): "" in a walk of one root.
    names: dict[Path, str] = field(default_factory=dict)
    # Files of types never read (".png", ".pdf"): said once, counted by type, not one by one.
    passed_over: list[SourceRef] = field(default_factory=list)
    # Relpaths the walk could not look into (a folder it may not list, a link whose target went away): what
    # was recorded under them is unknown now, not gone (see :meth:`unreached`).
    unlisted: list[str] = field(default_factory=list)
    # The same paths as a set: a run asks about every deleted entry, so a lookup costs the depth of its
    # path, not the number of unlisted paths.
    _unlisted_set: set[str] = field(default_factory=set, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._unlisted_set.update(self.unlisted)

    def unreached(self, relpath: str) -> bool:
        """Whether the source ``relpath`` lies at or under a path the walk could not look into."""
        prefix = relpath
        while prefix:
            if prefix in self._unlisted_set:
                return True
            prefix = prefix.rpartition("/")[0]
        return "" in self._unlisted_set  # a whole root went unlisted

    def cannot_look(self, path: str, reason: str, rel: str) -> None:
        """The path ``rel`` (empty: a whole root) could not be looked into: a problem counted as one skipped
        source, and whatever was recorded under it is kept as it is."""
        self.problems.append(Problem(path, reason, rel or os.path.basename(path)))
        self.unlisted.append(rel)
        self._unlisted_set.add(rel)


def require_paths(paths: Iterable[Path]) -> None:
    """Raise :class:`ConfigError` naming the first of ``paths`` that does not exist (a link counts)."""
    for p in paths:
        if not os.path.lexists(p):
            raise ConfigError(f"path does not exist: {p}")


def discover(
    paths: Iterable[Path],
    *,
    out: Path | None = None,
    extra_ignore: Iterable[str] = (),
    corpus_ignores: dict[str, list[str]] | None = None,
    type_overrides: dict[str, TypeChoice] | None = None,
    follow_symlinks: bool = False,
    skip_missing: bool = False,
) -> WalkResult:
    """Walk files and folders recursively in a deterministic order.

    ``skip_missing``: a path that does not exist is passed over (not among the roots, so its files are no
    deleted sources) instead of raising; the others keep the names all the paths give them.

    Only regular files become refs: FIFOs, sockets and devices are problems naming their kind,
    found by ``stat`` and never opened. A symlink whose target lies outside every given path is
    a problem too, unless ``follow_symlinks``.
    """
    result = WalkResult()
    given = list(paths)
    if not skip_missing:
        require_paths(given)
    walked_given = outermost(given)
    folded = [p for p in given if p not in walked_given]
    given = walked_given
    roots = [Path(os.path.abspath(p)) for p in given]
    out_abs = Path(os.path.abspath(out)) if out else None
    prefixes = root_names(roots)
    result.names = prefixes
    policy = _LinkPolicy(roots, follow_symlinks)
    seen_files: set[str] = set()
    walked = [(g, r) for g, r in zip(given, roots, strict=True) if not skip_missing or os.path.lexists(g)]
    result.roots = [r for _, r in walked]
    for given_path, root in walked:
        override = (type_overrides or {}).get(str(given_path))
        patterns = list(extra_ignore) + list((corpus_ignores or {}).get(str(given_path), []))
        prefix = prefixes[root]
        if root.is_file() or (root.is_symlink() and not root.is_dir()):
            rel = f"{prefix}/{root.name}" if prefix else root.name
            _add_file(result, root, rel, root, override, seen_files, explicit=True)
            continue
        if not root.is_dir():
            result.problems.append(Problem(str(root), f"{kind_of(root)}, not a regular file or folder: skipped"))
            continue
        spec = ignore_spec(root, patterns, result.problems)
        _walk_dir(result, root, root, "", prefix, spec, out_abs, override, seen_files, set(), policy)
    if folded:
        _keep_folded_settings(result, folded, roots, prefixes, type_overrides or {}, corpus_ignores or {}, seen_files)
    return result


def _keep_folded_settings(
    result: WalkResult,
    folded: list[Path],
    roots: list[Path],
    prefixes: dict[Path, str],
    type_overrides: dict[str, TypeChoice],
    corpus_ignores: dict[str, list[str]],
    seen: set[str],
) -> None:
    """What a PATH folded into a folder around it still says (:func:`outermost`): its own type and ignore
    rules (a pipeline file's corpus ``notes/calls``, typed apart from ``notes``) hold for the files under it,
    the nearest PATH's winning, and a file named on its own is read even where the folder's rules skip it."""
    inner = sorted((os.path.abspath(p).rstrip(os.sep) + os.sep, str(p)) for p in folded if os.path.isdir(p))
    if inner:
        specs = {key: ignore_spec(Path(folder), corpus_ignores.get(key, []), []) for folder, key in inner}
        kept = []
        for ref in result.refs:
            within = [(folder, key) for folder, key in inner if ref.fspath.startswith(folder)]
            folder, key = max(within, key=lambda fk: len(fk[0]), default=("", ""))
            spec = specs.get(key)
            if spec is not None and spec.match_file(ref.fspath[len(folder) :]):
                seen.discard(ref.relpath)
                continue  # the inner PATH's own ignore rules skip it
            if key in type_overrides:
                ref.type_override = type_overrides[key]
            kept.append(ref)
        result.refs[:] = kept
    for path in folded:
        absolute = Path(os.path.abspath(path))
        if absolute.is_dir():
            continue
        root = max((r for r in roots if absolute.is_relative_to(r)), key=lambda r: len(r.parts))
        rel = absolute.relative_to(root).as_posix()
        rel = f"{prefixes[root]}/{rel}" if prefixes[root] else rel
        _add_file(result, absolute, rel, root, type_overrides.get(str(path)), seen, explicit=True)


def ignore_spec(root: Path, patterns: list[str], problems: list[Problem]) -> pathspec.PathSpec | None:
    """The gitignore rules a walk of the folder ``root`` skips paths by: ``patterns`` (``--ignore``, the
    corpus's) and its ``.batchsumignore``; None when there are none. A file that cannot be read is a problem."""
    ignore_file = root / IGNORE_FILE
    if ignore_file.is_file():
        try:
            patterns = [*patterns, *ignore_file.read_text(encoding="utf-8", errors="replace").splitlines()]
        except OSError as exc:
            problems.append(Problem(str(ignore_file), f"cannot read ignore file: {exc.strerror}"))
    if not any(p.strip() and not p.lstrip().startswith("#") for p in patterns):
        return None
    import pathspec  # only when there is something to ignore: it costs ~15 ms to import

    # NFC on both sides: a name synced from a Mac (NFD) matches the pattern as it is typed.
    return pathspec.GitIgnoreSpec.from_lines([unicodedata.normalize("NFC", p) for p in patterns])


def _unseen(name: str) -> bool:
    """A name a walk never reads: hidden (".obsidian"), the state folder, or an Office owner file ("~$notes.docx",
    which Word keeps beside a document while it is open: a few bytes of the user's name, no document)."""
    return name.startswith((".", "~$")) or name == STATE_DIR


def walk_skips(rel_in_root: str, spec: pathspec.PathSpec | None) -> bool:
    """Whether a walk of a folder never reads the path ``rel_in_root`` ("/"-separated) under it: a name on the
    way is one it never reads (:func:`_unseen`), or an ignore rule (:func:`ignore_spec`)
    matches it or a folder it is in. What :func:`_walk_dir` skips, for a path it is not walking."""
    parts = rel_in_root.split("/")
    if any(_unseen(name) for name in parts):
        return True
    paths = ["/".join(parts[:i]) + "/" for i in range(1, len(parts))] + [rel_in_root]
    return spec is not None and any(spec.match_file(unicodedata.normalize("NFC", p)) for p in paths)


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
    policy: _LinkPolicy,
) -> None:
    # Per-entry work is plain string handling on scandir's cached d_type: a nightly re-run of a
    # 1,253-file journal spends most of its time here otherwise.
    # Named as a file is, so it counts among the skipped files.
    folder_rel = f"{prefix}/{rel_folder}" if prefix and rel_folder else prefix or rel_folder
    try:
        st = folder.stat()
    except OSError as exc:
        result.cannot_look(str(folder), f"cannot read folder: {exc.strerror or exc}, skipped", folder_rel)
        return
    key = (st.st_dev, st.st_ino)
    if key in visited:
        result.problems.append(Problem(str(folder), "symlink loop: folder already visited, skipped", folder_rel))
        return
    visited = visited | {key}
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError as exc:
        result.cannot_look(str(folder), f"cannot list folder: {exc.strerror or exc}, skipped", folder_rel)
        return
    out_str = str(out_abs) if out_abs is not None else None
    pages = {e.name for e in entries if os.path.splitext(e.name)[1].lower() in HTML_EXTS}
    for entry in entries:
        name = entry.name
        if _unseen(name):
            continue
        rel_in_root = f"{rel_folder}/{name}" if rel_folder else name
        try:
            is_dir = entry.is_dir(follow_symlinks=True)
        except OSError:
            is_dir = False
        if not name.isascii() and not _utf8_name(name):
            kind = "folder" if is_dir else "file"
            shown = printable(f"{prefix}/{rel_in_root}" if prefix else rel_in_root)
            reason = f"{kind} name is not valid UTF-8, skipped (rename it)"
            result.problems.append(Problem(printable(entry.path), reason, shown))
            continue
        if is_dir:
            if out_str is not None and os.path.abspath(entry.path) == out_str:
                continue
            if spec is not None and spec.match_file(unicodedata.normalize("NFC", rel_in_root) + "/"):
                continue
            if out_abs is not None and os.path.realpath(entry.path) == os.path.realpath(out_abs):
                continue
            if entry.is_symlink() and policy.refuses(entry.path, result):
                continue
            if pages and (why := load("batchsum.readers.html_text:saved_page_folder")(name, pages)) is not None:
                result.problems.append(Problem(entry.path, why, failure=False, notice=True))
                continue
            folder_args = (rel_in_root, prefix, spec, out_abs, override, seen_files, visited, policy)
            _walk_dir(result, root, Path(entry.path), *folder_args)
            continue
        # scandir's d_type answers this without a syscall for everything but symlinks.
        try:
            regular = entry.is_file(follow_symlinks=True)
        except OSError:
            regular = False
        dot = name.rfind(".")  # splitext's answer for names not starting with a dot (skipped above)
        supported = dot > 0 and name[dot:].lower() in ALL_EXTS
        rel = f"{prefix}/{rel_in_root}" if prefix else rel_in_root
        if not regular and os.path.exists(entry.path):
            # A FIFO would block the first read forever and /dev/zero never ends: report, never open.
            if spec is None or not spec.match_file(unicodedata.normalize("NFC", rel_in_root)):
                result.problems.append(
                    Problem(entry.path, f"{kind_of(Path(entry.path))}, not a regular file: skipped", rel)
                )
            continue
        if spec is not None and spec.match_file(unicodedata.normalize("NFC", rel_in_root)):
            continue
        # Before the extension: a link to a folder that went away (an unmounted disk) has none, and is no
        # file of a type never read; what was recorded under it is kept (see WalkResult.unlisted).
        if entry.is_symlink() and _link_broken(entry.path, rel, result):
            continue
        if not supported:
            result.passed_over.append(SourceRef(entry.path, rel, root))
            continue
        if entry.is_symlink() and policy.refuses(entry.path, result, rel):
            continue
        if rel in seen_files:
            continue
        seen_files.add(rel)
        result.refs.append(SourceRef(entry.path, rel, root, override))


class _LinkPolicy:
    """Symlinks may point anywhere inside the given paths; outside only with ``follow_symlinks``."""

    __slots__ = ("follow", "real_roots")

    def __init__(self, roots: list[Path], follow: bool) -> None:
        self.follow = follow
        self.real_roots = [os.path.realpath(r) for r in roots]

    def refuses(self, link: str, result: WalkResult, rel: str | None = None) -> bool:
        """True (and a problem recorded, for the source file ``rel`` if it is one) when ``link`` resolves
        outside every root."""
        if self.follow:
            return False
        target = os.path.realpath(link)
        for root in self.real_roots:
            if target == root or target.startswith(root.rstrip(os.sep) + os.sep):
                return False
        result.problems.append(
            Problem(
                link, f"symlink to {target}, outside the given paths: skipped (use --follow-symlinks to read it)", rel
            )
        )
        return True


def _link_broken(link: str, rel: str, result: WalkResult) -> bool:
    """True (and ``rel`` recorded as a path the walk could not look into) when the symlink ``link`` leads
    nowhere: broken, or links that lead back to each other."""
    try:
        os.stat(link)
    except OSError as exc:
        # os.path.exists is False for a loop too (ELOOP): it is no broken link, and is named as one.
        reason = "symlink loop, skipped" if exc.errno == errno.ELOOP else "broken symlink, skipped"
        result.cannot_look(link, reason, rel)
        return True
    return False


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
        reason = "file name is not valid UTF-8, skipped (rename it)"
        result.problems.append(Problem(printable(str(path)), reason, printable(rel)))
        return
    if ext not in ALL_EXTS:
        if explicit:  # named on the command line: counted (and reported) as a skipped file
            hint = f" ({PLAIN_TEXT_HINT[1]})" if ext in PLAIN_TEXT_HINT[0] else ""
            result.problems.append(Problem(str(path), f"unsupported file type {ext or '(none)'!r}, skipped{hint}", rel))
        return
    if path.is_symlink() and not path.exists():
        result.problems.append(Problem(str(path), "broken symlink, skipped", rel))
        return
    if not path.is_file():
        result.problems.append(Problem(str(path), f"{kind_of(path)}, not a regular file: skipped", rel))
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


def detect_type(path: Path, text: str, relpath: str, named: str = "") -> tuple[ContentType, str]:
    """Decide journal/conversation/document from extension, content shape and folder names; ``named``, the folder
    named on the command line (`run ~/journal`), says what its files are when their shape does not."""
    agent = agent_transcript_reason(text)
    if agent is not None:
        return "conversation", agent  # the reason starts "agent transcript" (see agent_transcript.run_extras)
    ext = path.suffix.lower()
    if ext in CHAT_EXTS or ext in SUBTITLE_EXTS or ext in EMAIL_EXTS:
        return "conversation", f"extension {ext}"
    if ext in LATEX_EXTS:
        return "document", f"extension {ext}"  # typeset prose (a paper, a thesis): its shape is no log or chat
    for part in Path(relpath).parts[:-1]:
        if kind := folder_kind(part):
            return kind, f"folder '{part}'"
    sample = text[:20000]
    lines = [ln for ln in sample.splitlines() if ln.strip()]
    if lines:
        speaker_lines = sum(is_turn(line) for line in lines)
        if speaker_lines >= 4 and speaker_lines / len(lines) >= 0.4:
            return "conversation", f"speaker turns ({speaker_lines}/{len(lines)} lines)"
        if screenplay := screenplay_cues(sample):
            return "conversation", "screenplay cues ({}/{} paragraphs)".format(*screenplay)
    headings = len(_rx().dated_heading.findall(sample))
    # A day in the name in any form that dates the file ("14-03-2025.md", "March 15, 2025.md"), as in ISO.
    dated_name = _rx().date.search(path.stem) is not None or name_date(path) is not None
    if headings >= 1 and (dated_name or headings >= 2):
        return "journal", f"dated headings ({headings})"
    # After the dated headings: a training log's "(rest day)" under its days is an entry, not a caption.
    if (captions := caption_cue_lines(lines)) >= CUE_LINES:
        return "conversation", f"caption cues ({captions} lines: [Music], (laughs), ...)"
    if dated_name and re.search(r"\b(I|I'm|I've|my|me)\b", sample):
        return "journal", "dated file name, first-person text"
    # Entries that open their paragraphs with the day ("June 18th.--A walk ...", "Trient, den 10. September."
    # alone): a diary printed as one book, dated as a dated heading would date it.
    entries = dated_entries(sample)
    if entries >= 3 or (entries >= 1 and dated_name):
        return "journal", f"dated entries ({entries})"
    return (kind, f"folder '{named}'") if named and (kind := folder_kind(named)) else ("document", "default")


def _open_regular(path: Path) -> tuple[int, os.stat_result]:
    """An fd on ``path`` after ``stat`` (following symlinks) showed a regular file; never blocks.

    O_NONBLOCK: a FIFO put in the file's place between the stat and the open must not hang the run.
    """
    st = os.stat(path)
    if not stat.S_ISREG(st.st_mode):
        raise InputError(str(path), f"{kind_name(st.st_mode)}, not a regular file: skipped")
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY)
    try:
        if not os.path.samestat(st, os.fstat(fd)):
            raise InputError(str(path), "replaced while being opened: skipped, it is read again next run")
    except BaseException:
        os.close(fd)
        raise
    return fd, st


def _read_all(path: Path) -> tuple[bytearray, os.stat_result]:
    """The bytes of a regular file, checked not to have changed while they were read."""
    fd, st = _open_regular(path)
    with open(fd, "rb", buffering=0, closefd=True) as fh:
        # One buffer of the stat'ed size, filled in place: no list of blocks joined into a copy.
        buf = bytearray(st.st_size)
        view = memoryview(buf)
        got = 0
        while got < st.st_size:
            n = fh.readinto(view[got:])
            if not n:
                break
            got += n
        view.release()
        grew = fh.read(1)
        after = os.fstat(fh.fileno())
    if after.st_nlink == 0:
        raise InputError(str(path), "deleted while being read: skipped")
    if grew or got != st.st_size or after.st_size != st.st_size or after.st_mtime_ns != st.st_mtime_ns:
        raise InputError(str(path), "changed while being read: skipped, it is read again next run")
    return buf, st


# Bump when the same bytes would be read as another text (decoding, chat, subtitle and e-mail
# rendering, type detection, dating). A run re-reads every file read by another version and summarizes
# again only those whose text changed: an LLM-built folder gets an upgrade's better reading without paying
# for the files it reads as before. What each version changed: `git log -L '/^READER_VERSION/,+1:batchsum/walk.py'`.
READER_VERSION = 13


def _first_message(day: str | None) -> tuple[str, str] | None:
    """A chat export's date: the day its first message was sent, where its reader found one."""
    return (day, "first message") if day else None


def _content_type(
    choice: TypeChoice, export: ChatExport | None, path: Path, text: str, relpath: str, named: str
) -> tuple[ContentType, str]:
    """A file's content type and the reason for it: a chat export is a conversation, ``auto`` is told by the
    text, a type given is kept (an agent session told to be a conversation is still read as one)."""
    if choice == "auto" and export is not None:
        return "conversation", export.format
    if choice == "auto":
        return detect_type(path, text, relpath, named)
    if choice == "conversation" and (agent := agent_transcript_reason(text)) is not None:
        # Its prompts, commands and tool output are read as such (they had filled its final, read as a
        # plain transcript).
        return choice, f"--type; {agent}"
    return choice, "--type"


def read_document(ref: SourceRef, type_choice: TypeChoice = "auto", *, redact: bool = False) -> Document:
    """Read, decode, render and classify one file. Raises InputError with a one-line reason.

    Only a regular file is opened (after resolving symlinks). ``redact``: secrets in the text are
    replaced by ``[REDACTED:<kind>]`` (counts in ``Document.redactions``) before anything else
    sees it; the source file is never modified.
    """
    path = ref.path
    try:
        raw, st = _read_all(path)
    except FileNotFoundError as exc:
        if path.is_symlink():
            raise InputError(str(path), "broken symlink") from exc
        raise InputError(str(path), "file vanished before it could be read: skipped") from exc
    except IsADirectoryError as exc:
        raise InputError(str(path), "is a folder, not a file") from exc
    except PermissionError as exc:
        raise InputError(str(path), "permission denied") from exc
    except MemoryError as exc:
        raise InputError(str(path), f"too large to read into memory ({path.stat().st_size} bytes)") from exc
    except OSError as exc:
        if exc.errno == 40:  # ELOOP
            raise InputError(str(path), "symlink loop") from exc
        raise InputError(str(path), f"cannot read: {exc.strerror or exc}") from exc
    sha = sha256_bytes(raw)
    ext = path.suffix.lower()
    if ext in HTML_EXTS and (rendering := export_rendering(path, raw)) is not None:
        raise NotASource(str(path), rendering)  # ChatGPT's chat.html: its conversations.json is read
    try:
        (text, note), own_day = load(BYTE_READERS[ext])(raw) if ext in BYTE_READERS else (decode_bytes(raw), None)
    except ValueError as exc:
        raise InputError(str(path), str(exc)) from exc
    warnings: list[str] = []
    export = None
    try:
        if ext in EMAIL_EXTS:
            from batchsum.readers.eml import read_eml  # the e-mail parser (~10 ms of imports) for a run reading one

            # From the bytes: a message names its parts' charsets and transfer encodings itself.
            text, note = read_eml(bytes(raw))
        del raw  # the decoded text is the one copy kept from here on
        if ext in CHAT_EXTS:
            text = render_chat(text, path)
            own_day, text = _first_message(text.first_day if isinstance(text, ExportText) else None), str(text)
        elif ext in _RENDERERS:
            text = _RENDERERS[ext](text, warnings, path)
        elif ext in TEXT_EXTS and (ref.type_override or type_choice) in ("auto", "conversation", "transcript"):
            # Told it is a journal or a document, a file is read as it is: its timestamps stay.
            export = chat_below_front_matter(text)
            if export is not None:
                whatsapp = export.format.startswith("WhatsApp")
                own_day = _first_message(export.first_day or (whatsapp_day(text) if whatsapp else None))
                text = export.text
    except ExportMetadata as exc:
        raise NotASource(str(path), str(exc)) from exc
    except ValueError as exc:
        raise InputError(str(path), str(exc)) from exc
    if ext in TEXT_EXTS and (why := app_file(ref.relpath, text)) is not None:
        raise NotASource(str(path), f"{why}, not a note: skipped")
    if ext in TEXT_EXTS:
        text = without_data_uris(text)  # an image pasted into a note: a megabyte of base64 no reader reads
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    text, controls = strip_control(text)
    if controls:
        warnings.append(f"{controls} control character(s) removed")
    if ext in TEXT_EXTS and text.startswith("---") and (front := front_matter_problem(text)) is not None:
        warnings.append(front)  # never closed, or not YAML: left out all the same, the note read
    redactions: dict[str, int] = {}
    if redact:
        text, redactions = redact_secrets(text)
    for w in warnings:
        log.debug("%s: %s", path, w)  # a run reports them (Document.warnings) once, in its warnings
    root = Path(os.path.relpath(ref.fspath, os.path.dirname(ref.root))).parts  # the named folder, then the file
    named = root[0] if len(root) > 1 else ""
    ctype, reason = _content_type(ref.type_override or type_choice, export, path, text, ref.relpath, named)
    doc_date, date_source = dated(path, text, st.st_mtime_ns, own_day, warnings)
    return Document(
        path=path,
        relpath=ref.relpath,
        text=text,
        sha256=sha,
        size=st.st_size,
        mtime_ns=st.st_mtime_ns,
        content_type=ctype,
        type_reason=reason,
        doc_date=doc_date,
        date_source=date_source,
        decode_note=note,
        warnings=warnings,
        redactions=redactions,
    )
