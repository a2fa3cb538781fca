"""Change detection: which sources are new, changed, unchanged or deleted since the last run.

The cheap test comes first: a file whose size and mtime match its manifest entry, under the same
configuration, with its tree intact, is unchanged without being read. Only the others are read; one
whose content hash still matches was merely touched (see :func:`known_content`), and one read by
another reader version is summarized again only when its text is now another.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from batchsum import statefile
from batchsum.backends.budget import FINAL_WORDS
from batchsum.backends.identity import EXTRACTIVE_VERSION, extractive_identity
from batchsum.backends.prompts import prompts_fingerprint
from batchsum.model import SummaryLevel, level_and_index_of
from batchsum.state import NODE_FORMAT, ManifestEntry, node_key
from batchsum.tree import atomic_write_bytes
from batchsum.walk import PLAIN_TEXT_HINT, READER_VERSION, Problem, SourceRef, discover

if TYPE_CHECKING:
    from batchsum.config import RunConfig
    from batchsum.model import Document

# The output folder's own absolute path when each corpus root's Source links were last written (place_changed):
# one "root<TAB>path" line a root; a folder's first version held the path alone, for every root.
PLACE_NAME = "place"


def backend_and_model(cfg: RunConfig) -> tuple[str, str | None]:
    """(backend name, model) of a run with ``cfg`` as its record names them: an LLM's model, the
    extractive summarizer's version."""
    kind = cfg.backend_kind
    return kind, cfg.llm.model if kind == "llm" else extractive_identity()


def backend_identity(cfg: RunConfig) -> tuple[str, str | None]:
    """(backend name, what shapes its outputs) of a run with ``cfg``: part of every node key (digests'
    too) and of the run's signature. For an LLM that is its model and, when they are not batchsum's
    own, its prompts' content: an edited prompt file makes every LLM node anew. For the extractive
    summarizer, its version."""
    name, model = backend_and_model(cfg)
    prompts = prompts_fingerprint(cfg.llm.prompts_dir) if name == "llm" else None
    return name, model if prompts is None else f"{model} prompts={prompts}"


@dataclass(frozen=True)
class Signature:
    """A run's settings signature as each file's manifest entry records it. The final's word cap shapes only
    a HIERARCHICAL file's tree, so only that file's signature holds it: another cap re-plans no other file."""

    common: str  # of a file of any other level
    capped: str  # of a HIERARCHICAL file (the common one under the default cap)

    def of(self, level: str) -> str:
        """The signature a file planned at ``level`` (a SummaryLevel value) is recorded with."""
        return self.capped if level == SummaryLevel.HIERARCHICAL.value else self.common

    def holds(self, entry: ManifestEntry) -> bool:
        """Whether ``entry`` was made under this run's settings. An entry of another level recorded before its
        signature left the cap out holds ``capped``: made under these settings too, cap included."""
        return entry.config_sig in (self.of(entry.level), self.capped)


def config_signature(cfg: RunConfig) -> Signature:
    """The signature of the settings that shape each file's tree; a change re-plans the files it shapes."""
    return Signature(_settings_hash(cfg, capped=False), _settings_hash(cfg, capped=True))


def _settings_hash(cfg: RunConfig, *, capped: bool, identity: tuple[str, str | None] | None = None) -> str:
    t = cfg.thresholds
    name, model = identity or backend_identity(cfg)
    return node_key(
        NODE_FORMAT,
        name,
        model,
        cfg.encoding,
        [t.none, t.brief, t.standard, t.detailed],
        cfg.chunk_size,
        cfg.chunk_overlap,
        cfg.group_size,
        cfg.content_type,
        cfg.keep_short,
        # Only when on, so turning redaction on re-reads every file but default signatures stay as they were.
        *(["redact"] if cfg.redact_secrets else []),
        # The same for the final's word cap, in a HIERARCHICAL file's signature only (see Signature).
        *([f"final_words={cfg.final_words}"] if capped and cfg.final_words != FINAL_WORDS else []),
        # A language set for the run decides how every file is split, keyed and indexed.
        *([f"language={cfg.language}"] if cfg.language != "auto" else []),
        # Facets on or off shape every final's facet sections (offline or the LLM's); unset keeps the
        # signature it had.
        *([f"facets={cfg.llm.facets}"] if cfg.llm.facets is not None else []),
    )[:16]


# Per this run's signature, the ones its settings had under each earlier extractive summarizer version.
_EARLIER: dict[Signature, dict[str, int]] = {}


def earlier_summarizer(entry: ManifestEntry, cfg: RunConfig, sig: Signature) -> int | None:
    """The earlier extractive summarizer version that made ``entry`` under this run's settings otherwise (an
    upgrade redoes its tree once), found by its recorded signature; None for any other entry."""
    if cfg.backend_kind == "llm":
        return None
    earlier = _EARLIER.get(sig)
    if earlier is None:
        name = backend_identity(cfg)[0]
        earlier = {
            _settings_hash(cfg, capped=capped, identity=(name, f"v{v}")): v
            for v in range(1, EXTRACTIVE_VERSION)
            for capped in (False, True)
        }
        _EARLIER[sig] = earlier
    return earlier.get(entry.config_sig)


EDITED = "edited"
REDATED = "dated otherwise"
FELL_BACK = "nodes had fallen back to extractive"


def change_reason(entry: ManifestEntry, doc: Document, cfg: RunConfig, sig: Signature) -> str:
    """Why a file with summaries is planned again, as ``plan`` names it: ``edited`` (its bytes and text changed:
    the user's doing) first, then what this batchsum changed: ``summarizer vN -> vM``, ``settings changed``, nodes
    that had fallen back to extractive (the LLM failed them), ``read as another text`` (a new reader), ``dated
    otherwise``, else ``summaries restored`` (a damaged tree)."""
    if entry.sha256 != doc.sha256 and entry.text_sha != doc.text_sha:
        return EDITED
    if (old := earlier_summarizer(entry, cfg, sig)) is not None:
        return f"summarizer v{old} -> v{EXTRACTIVE_VERSION}"
    if not sig.holds(entry):
        return "settings changed"
    if entry.fallback_nodes:  # provisional nodes: redone whatever else holds (diff, known_content)
        return FELL_BACK
    if entry.text_sha not in ("", doc.text_sha):
        return "read as another text"
    # The rule a run restores such a file by: a date from this reader version, not any date that moved.
    if Known(entry.sha256, doc_date=entry.doc_date, reader=entry.reader).redated(doc.doc_date):
        return REDATED
    return "summaries restored"


def redone_note(versions: Mapping[int, int]) -> str:
    """What a run and ``plan`` say of the files an earlier summarizer version made (``versions``: files by
    that version), redone once for the new version whatever else they hold."""
    n = sum(versions.values())
    old = ", ".join(map(str, sorted(versions)))
    return (
        f"{n} file{'s' if n != 1 else ''}: the extractive summarizer changed (version {old} -> "
        f"{EXTRACTIVE_VERSION}): redone once, their sources unchanged"
    )


def fell_back_note(files: int, nodes: int) -> str:
    """What a run and ``plan`` say of the ``files`` unedited files redone because ``nodes`` of theirs had fallen
    back to the extractive summarizer (the LLM failed them on an earlier run)."""
    return (
        f"{files} file{'s' if files != 1 else ''} redone: {nodes} node{'s' if nodes != 1 else ''} had fallen back "
        "to extractive (the LLM failed them), their sources unchanged"
    )


def redated_note(n: int) -> str:
    """What a run and ``plan`` say of the ``n`` files this version dates otherwise (:meth:`Known.redated`)."""
    files, its = (f"{n} files", "their") if n != 1 else ("1 file", "its")
    return (
        f"{files} dated otherwise by this version of batchsum (a modification time read as the local day): "
        f"{its} date{'s' if n != 1 else ''} rewritten, {its} summar{'ies' if n != 1 else 'y'} kept"
    )


def own_signatures(manifest: Mapping[str, ManifestEntry], sig: Signature) -> list[ManifestEntry]:
    """The entries ``sig`` holds that an older batchsum recorded with another file's signature (the final's
    word cap in every file's), each with its own now."""
    return [
        replace(e, config_sig=sig.of(e.level))
        for e in manifest.values()
        if e.config_sig != sig.of(e.level) and sig.holds(e)
    ]


def tree_intact(out: str, entry: ManifestEntry) -> bool:
    """True when every node file the entry names is a regular file on disk, and the final is the one
    this tool wrote (same size and mtime as recorded). One stat per node: a deleted L1, a final replaced
    by a folder or edited into broken front matter is restored by the run that notices it."""
    if entry.final_id is None:
        return True
    import stat

    base = f"{out}/{entry.relpath}/summaries"  # plain strings: this runs per file on every re-run
    for nid in entry.node_ids or [entry.final_id]:
        level, index = level_and_index_of(nid)
        name = "L3/final.md" if level == 3 else (f"L1/chunk_{index}.md" if level == 1 else f"L2/group_{index}.md")
        try:
            st = os.stat(f"{base}/{name}")
        except OSError:
            return False
        if not stat.S_ISREG(st.st_mode):
            return False
        if level == 3 and entry.final_stat and [st.st_size, st.st_mtime_ns] != entry.final_stat:
            return False
    return True


@dataclass
class Diff:
    """The walk compared with the manifest."""

    todo: list[SourceRef] = field(default_factory=list)  # new, or stat differs: to be read
    unchanged: list[ManifestEntry] = field(default_factory=list)  # stat matches: not read
    deleted: list[ManifestEntry] = field(default_factory=list)  # under a walked root, no longer there
    unindexed: list[str] = field(default_factory=list)  # trees written by a run that died before indexing
    problems: list[Problem] = field(default_factory=list)  # met by the walk
    roots: dict[str, str] = field(default_factory=dict)  # relpath -> corpus root as given
    names: dict[str, str] = field(default_factory=dict)  # corpus root -> its name in the relpaths (walk.names)
    # Unchanged files found under another root than their entry's (a folder moved, a symlink): by relpath,
    # the source's path now, so their entries and Source links follow it.
    rehomed: dict[str, str] = field(default_factory=dict)
    files: int = 0  # files found by the walk
    passed_over: Counter[str] = field(default_factory=Counter)  # files of types never read, by extension


def passed_over_note(counts: Counter[str]) -> str | None:
    """One line for the files of types a run never reads ("3 files of types batchsum does not read passed
    over: .png 2, .pdf 1"); None when there were none. A vault's images and PDFs are no problem,
    but a user should see what was not read."""
    if not counts:
        return None
    kinds = ", ".join(
        f"{ext or '(no extension)'} {n}" for ext, n in sorted(counts.items(), key=lambda x: (-x[1], x[0]))
    )
    total = sum(counts.values())
    hint = f" ({PLAIN_TEXT_HINT[1]})" if PLAIN_TEXT_HINT[0] & set(counts) else ""
    return f"{total} file{'s' if total != 1 else ''} of types batchsum does not read passed over: {kinds}{hint}"


def diff(cfg: RunConfig, manifest: dict[str, ManifestEntry], sig: Signature) -> Diff:
    """Walk ``cfg.paths`` and sort every file (and every vanished one) by what a run must do with it.

    A path inside a folder the output was built from (``notes/calls`` of ``notes``) is walked as that
    folder, limited to the path: its files keep the names the folder gave them (``calls/x.txt``), so
    a run over part of a corpus redoes its files in place instead of summarizing them a second time
    under other names."""
    paths, scopes = within_recorded_roots(cfg.paths, {e.root for e in manifest.values()})
    walk = discover(
        paths,
        out=cfg.out,
        extra_ignore=cfg.ignore,
        corpus_ignores=cfg.corpus_ignores,
        type_overrides=cfg.type_overrides,
        follow_symlinks=cfg.follow_symlinks,
        skip_missing=cfg.skip_missing,
    )
    seen = {r.relpath for r in walk.refs}
    if scopes:
        walk.refs = [r for r in walk.refs if in_scope(r, scopes)]
    passed_over = Counter(
        os.path.splitext(r.fspath)[1].lower() for r in walk.passed_over if not scopes or in_scope(r, scopes)
    )
    d = Diff(problems=list(walk.problems), files=len(walk.refs), passed_over=passed_over)
    roots = {str(r) for r in walk.roots}
    d.names = {str(r): name for r, name in walk.names.items()}
    moved = moved_roots(walk.refs, manifest)
    # A source under a folder the walk could not list is unknown now, not gone: kept as it is.
    d.deleted = [
        e
        for rel, e in sorted(manifest.items())
        if (e.root in roots or e.root in moved) and rel not in seen and not walk.unreached(rel)
    ]
    d.unindexed = [rel for rel, e in sorted(manifest.items()) if not e.indexed and rel in seen]
    out = str(cfg.out)
    places = recorded_places(cfg)
    relink = {root: place_changed(cfg, root, places) for root in roots}
    for ref in walk.refs:
        d.roots[ref.relpath] = str(ref.root)
        entry = manifest.get(ref.relpath)
        if (
            entry is not None
            and _stat_matches(ref, entry, sig)
            and tree_intact(out, entry)
            and not entry.fallback_nodes
            and (entry.tokens or entry.final_id is not None)  # an empty file recorded by an older version
        ):
            d.unchanged.append(entry)
            if relink.get(str(ref.root), True) or entry.root != d.roots[ref.relpath]:
                d.rehomed[ref.relpath] = ref.fspath
        else:
            d.todo.append(ref)
    return d


def recorded_places(cfg: RunConfig) -> dict[str, str]:
    """Where the output folder was when each corpus root's Source links were last written (a root of "" stands
    for every root: a first version's record)."""
    try:
        text = statefile.read_bytes(cfg.state_dir / PLACE_NAME, 1 << 20).decode("utf-8", "surrogateescape")
    except (OSError, ValueError):
        return {}
    if "\t" not in text:
        return {"": text}
    return dict(line.split("\t", 1) for line in text.splitlines() if "\t" in line)


def place_changed(cfg: RunConfig, root: str, places: dict[str, str] | None = None) -> bool:
    """Whether the output folder is not where the Source links of ``root``'s files were written from (moved or
    copied with ``mv``, ``cp -a``, ``rsync -a``: the finals' stat is kept, so they count as intact). A root whose
    place was never recorded (an older version's folder, a run that never finished) counts as moved: its links
    are checked once, a read of each node file."""
    known = recorded_places(cfg) if places is None else places
    return known.get(root, known.get("")) != os.path.abspath(cfg.out)


def record_place(cfg: RunConfig, manifest: dict[str, ManifestEntry], walked: Mapping[str, str]) -> None:
    """Remember where the output folder is for each root this run walked whole: its files' links were all
    written from here. A root left partly unwalked (a run over a part of it) keeps its old record: the next run
    that walks the rest rewrites those links. Another corpus in the folder keeps its own."""
    if not cfg.state_dir.is_dir():  # nothing recorded here: no links to keep right
        return
    before = {root: out for root, out in recorded_places(cfg).items() if root}
    places, here = dict(before), os.path.abspath(cfg.out)
    for root in set(walked.values()):
        if places.get(root) != here and all(rel in walked for rel, e in manifest.items() if e.root == root):
            places[root] = here
    if places != before:
        data = "".join(f"{root}\t{out}\n" for root, out in sorted(places.items()))
        atomic_write_bytes(cfg.state_dir / PLACE_NAME, data.encode("utf-8", "surrogateescape"), durable=False)


def moved_roots(refs: list[SourceRef], manifest: dict[str, ManifestEntry]) -> set[str]:
    """The recorded roots this walk found again under another path: the same folder reached another way
    (a symlink), or a folder gone from where it was whose files turned up under a walked root (moved or
    renamed). Their entries not found by the walk are deleted sources, as a walked root's are."""
    found: dict[str, str] = {}
    for ref in refs:
        entry = manifest.get(ref.relpath)
        if entry is not None and entry.root and entry.root != str(ref.root):
            found.setdefault(entry.root, str(ref.root))
    # Only then: another corpus summarized into the same output under other names is no moved folder.
    return {
        old for old, new in found.items() if not os.path.isdir(old) or os.path.realpath(old) == os.path.realpath(new)
    }


def source_path(entry: ManifestEntry) -> str | None:
    """The file ``entry`` was made from, where it is now: under its recorded root by its relpath less the name a
    walk of several roots put first (``notes/journal/a.md`` of the root ``notes``, the entry's recorded prefix);
    None when gone. Nowhere else: a file of the same name elsewhere under the root is another file, and so is
    one under the root's own name in a walk of that root alone (``notes/todo.md`` of ``notes`` is
    ``notes/notes/todo.md``). An entry from before prefixes were recorded is looked for by its relpath only."""
    if os.path.isfile(entry.root):  # a file given on its own is its root
        return entry.root
    first, _, rest = entry.relpath.partition("/")
    under = rest if entry.prefix and first == entry.prefix else entry.relpath
    path = os.path.join(entry.root, under)
    return path if os.path.isfile(path) else None


def _file_id(path: str) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def moved_sources(gone: Mapping[str, str], new: Mapping[str, str]) -> dict[str, str]:
    """Of the sources whose trees go (``gone``: old relpath -> its file now, :func:`source_path`), those that
    are the same file as a new one (``new``: relpath -> its file), as new relpath -> old relpath: a folder given
    inside another is walked as part of it now, its files named as that folder names them."""
    by_file = {fid: rel for rel, path in gone.items() if (fid := _file_id(path)) is not None}
    return {rel: old for rel, path in new.items() if (old := by_file.get(_file_id(path) or (-1, -1))) is not None}


def moved_note(moved: Mapping[str, str]) -> str:
    """What a run and ``plan`` say of the summaries that move to other paths, the sources the same files."""
    n = len(moved)
    new, old = next(iter(sorted(moved.items())))
    return (
        f"{n} summar{'ies' if n != 1 else 'y'} moved to other paths in the output, the same source files named "
        f"otherwise by the paths given (a folder given inside another is walked as part of it; several folders are "
        f"each named in the output): e.g. {old} -> {new}; links "
        "and bookmarks into the old paths no longer lead there (the old trees go to deleted/)"
    )


def within_recorded_roots(paths: list[Path], recorded: set[str]) -> tuple[list[Path], dict[str, list[str]]]:
    """``paths`` with each one inside a recorded root replaced by that root (once), and the parts of
    each such root the run is limited to (absolute paths, by root)."""
    out: list[Path] = []
    scopes: dict[str, list[str]] = {}
    for path in paths:
        given = os.path.abspath(path)
        outer = next((r for r in sorted(recorded) if given.startswith(r.rstrip(os.sep) + os.sep)), None)
        if outer is None:
            out.append(path)
            continue
        if outer not in scopes:
            out.append(Path(outer))
        scopes.setdefault(outer, []).append(given)
    if any(str(os.path.abspath(p)) in scopes for p in paths):  # the whole root was given too
        return list(paths), {}
    return out, scopes


def in_scope(ref: SourceRef, scopes: dict[str, list[str]]) -> bool:
    """Whether ``ref`` lies in the parts of its root a run is limited to (see :func:`within_recorded_roots`)."""
    parts = scopes.get(str(ref.root))
    if parts is None:
        return True
    path = os.path.abspath(ref.fspath)
    return any(path == p or path.startswith(p.rstrip(os.sep) + os.sep) for p in parts)


def _stat_matches(ref: SourceRef, entry: ManifestEntry, sig: Signature) -> bool:
    if not sig.holds(entry) or entry.reader != READER_VERSION:
        return False
    try:
        st = os.stat(ref.fspath)
    except OSError:
        return False  # reading it reports why
    return entry.size == st.st_size and entry.mtime_ns == st.st_mtime_ns


@dataclass(frozen=True)
class Known:
    """What a re-read file must still be to count as merely touched: the hash of the text it was read as
    (None: no text recorded, then the hash of its bytes decides). Its bytes may differ (a document saved
    again, the same text in it); its read text may differ under the same bytes (a LaTeX file whose
    ``\\input`` changed, a new reader version)."""

    sha256: str
    text_sha: str | None = None
    # The date its entry records and the reader version that read it: a date from its mtime alone is no part of
    # ``text_sha`` (a touch would redo it), so a new reader that dates an mtime otherwise is told by these.
    doc_date: str | None = None
    reader: int = READER_VERSION

    def holds(self, sha256: str, text_sha: str) -> bool:
        """Whether a file read now as ``text_sha`` (bytes ``sha256``) is still what its summaries were made from."""
        return text_sha == self.text_sha if self.text_sha is not None else sha256 == self.sha256

    def redated(self, doc_date: str | None) -> bool:
        """Whether this reader version dates the file otherwise than the older one that recorded it (an mtime
        read as the local day, not the UTC one): planned again, its final and month take the new date while its
        recorded nodes are restored, not summarized again."""
        return self.reader != READER_VERSION and doc_date != self.doc_date


def read_anew(entry: ManifestEntry | None, sha256: str, text_sha: str, sig: Signature) -> bool:
    """Whether a file whose bytes did not change reads as another text only because another reader
    version read it last: not a changed setting (``--type``), which a run names itself."""
    return (
        entry is not None
        and entry.sha256 == sha256
        and entry.text_sha not in ("", text_sha)
        and entry.reader != READER_VERSION
        and sig.holds(entry)
    )


def reread_note(n: int) -> str:
    """What a run and ``plan`` say of the ``n`` unchanged files a reader upgrade reads as another text."""
    files = f"{n} unchanged file{'s' if n != 1 else ''}"
    return f"{files} read as another text by this version of batchsum (a format it reads better now): summarized again"


def known_content(entry: ManifestEntry | None, sig: Signature, out: Path) -> Known | None:
    """What a re-read file must still be to count as merely touched (its stat or the reader changed,
    its settings and tree did not); None when it must be planned whatever it holds.

    What decides is the text the file is read as, not its bytes: a file whose bytes changed but whose
    text did not (a .docx saved again) is not summarized again, and one whose bytes did not change but
    whose text did (a LaTeX main file after its ``\\input`` changed; a new reader version's reading) is.
    An upgrade costs an LLM-built folder one reading, not its summaries. An entry from before texts
    were recorded is compared by its bytes (its text is recorded then, for the next time)."""
    if entry is None or not sig.holds(entry) or entry.fallback_nodes:
        return None  # provisional nodes are redone, not kept
    if not tree_intact(str(out), entry):
        return None
    return Known(entry.sha256, entry.text_sha or None, entry.doc_date, entry.reader)
