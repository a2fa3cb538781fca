"""Prompt templates of the LLM backend (seed 000 §5) and how a request becomes chat messages.

One template per name, loaded from ``batchsum/backends/prompts/<name>.txt`` or, when given, from
a user folder (``--prompts DIR``) whose files replace the defaults one by one:

* ``system`` - the system message of every call;
* ``brief``, ``standard``, ``chunk``, ``meta``, ``rolling`` - one per request kind;
* ``conversation``, ``journal``, ``document`` - the content-type focus, placed before the kind
  template on *every* kind (single call, chunk, group and final alike);
* ``facets`` - appended when structured facets (JSON) are requested.

Placeholders are ``{name}`` with a name from :data:`PLACEHOLDERS`; any other ``{identifier}`` is a
configuration error naming the file. A source in another language than English gets the summary
in its own language: the user message ends with :data:`LANGUAGE_LINE` unless a template places
``{language}`` itself. Braces that do not enclose a bare identifier (JSON examples
such as ``{"summary": ...}``) are literal text.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from batchsum.errors import ConfigError
from batchsum.language import language_name
from batchsum.model import SummaryRequest
from batchsum.state import node_key

DEFAULTS_DIR = Path(__file__).with_name("prompts")
KIND_NAMES = ("brief", "standard", "chunk", "meta", "rolling")
TYPE_NAMES = ("conversation", "journal", "document")
PROMPT_NAMES: tuple[str, ...] = ("system", *KIND_NAMES, *TYPE_NAMES, "facets")
PLACEHOLDERS = frozenset(
    {
        "content",  # the text to summarize (joined child summaries for meta/rolling)
        "summaries",  # child summaries as "Section i:" blocks (the content itself for other kinds)
        "chunk_index",  # 1-based section number (chunk prompts)
        "total_chunks",
        "prior_context",  # "Previous summary: ..." paragraph, or nothing when there is none
        "previous_summary",  # the previous summary itself, or "(none)"
        "content_type",  # journal / conversation / document
        "max_words",  # a word budget derived from max_tokens
        "language",  # the source's language in English ("German"), or "the language of the content"
    }
)
LANGUAGE_LINE = "Write the summary in {language}, the language of the content."
WORDS_PER_TOKEN = 0.75
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
_PRIOR_ONLY_LINE = re.compile(r"^[ \t]*\{prior_context\}[ \t]*\n?", re.MULTILINE)
PRIOR_INTRO = "Previous summary (for continuity: keep what still holds, update what changed):"


@dataclass(frozen=True)
class PromptSet:
    """The templates in use and where each came from (for error messages and logs)."""

    templates: Mapping[str, str]
    sources: Mapping[str, str]

    @classmethod
    def load(cls, prompts_dir: Path | None = None) -> PromptSet:
        """Defaults, overridden file by file by ``prompts_dir/<name>.txt``; raises ConfigError."""
        templates: dict[str, str] = {}
        sources: dict[str, str] = {}
        for name in PROMPT_NAMES:
            path = DEFAULTS_DIR / f"{name}.txt"
            templates[name] = path.read_text(encoding="utf-8")
            sources[name] = f"(default) {name}.txt"
        if prompts_dir is not None:
            if not prompts_dir.is_dir():
                raise ConfigError(f"{prompts_dir}: prompts folder does not exist or is not a folder")
            for path in sorted(prompts_dir.glob("*.txt")):
                name = path.stem
                if name not in PROMPT_NAMES:
                    raise ConfigError(
                        f"{path}: unknown prompt name {name!r}; expected one of {', '.join(PROMPT_NAMES)}"
                    )
                try:
                    text = path.read_text(encoding="utf-8")
                except (OSError, UnicodeDecodeError) as exc:
                    raise ConfigError(f"{path}: cannot read prompt file ({exc})") from exc
                if not text.strip():
                    raise ConfigError(f"{path}: prompt file is empty")
                templates[name] = text
                sources[name] = str(path)
        for name, text in templates.items():
            unknown = sorted({m.group(1) for m in _PLACEHOLDER.finditer(text)} - PLACEHOLDERS)
            if unknown:
                raise ConfigError(
                    f"{sources[name]}: unknown placeholder(s) {', '.join('{' + u + '}' for u in unknown)}; "
                    f"allowed: {', '.join('{' + p + '}' for p in sorted(PLACEHOLDERS))}"
                )
        _require(templates, sources)
        return cls(templates=templates, sources=sources)

    def fingerprint(self) -> str | None:
        """A short hash of the templates in use; None when they are all batchsum's own, so a folder of
        unedited copies (or none) keys nodes as before. The defaults' own changes are NODE_FORMAT's."""
        if dict(self.templates) == dict(PromptSet.load().templates):
            return None
        return node_key(sorted(self.templates.items()))[:16]

    def build_messages(
        self,
        request: SummaryRequest,
        *,
        text: str,
        parts: Sequence[str],
        prior: str | None,
        max_tokens: int,
        facets: bool,
    ) -> list[dict[str, str]]:
        """The chat messages for ``request`` with (possibly fitted) ``text``/``parts``/``prior``."""
        kind_template = self.templates[request.kind]
        type_template = self.templates[request.content_type]
        summaries = "\n\n".join(f"Section {i}:\n{p.strip()}" for i, p in enumerate(parts, 1)) if parts else text
        prior_text = (prior or "").strip()
        # The previous summary is shown once: where the kind template asks for it by name, else at the
        # first {prior_context}, so rolling/standard prompts never repeat it.
        wants_previous = "{previous_summary}" in kind_template
        values = {
            "content": text.strip(),
            "summaries": summaries,
            "chunk_index": str(request.chunk_index if request.chunk_index is not None else 1),
            "total_chunks": str(request.total_chunks if request.total_chunks is not None else 1),
            "previous_summary": prior_text or "(none)",
            "content_type": request.content_type,
            "max_words": str(max(8, int(max_tokens * WORDS_PER_TOKEN))),
            "language": language_name(request.language) or "the language of the content",
        }
        prior_block = f"{PRIOR_INTRO}\n{prior_text}\n" if prior_text and not wants_previous else ""
        pieces = [type_template, kind_template]
        if facets:
            pieces.append(self.templates["facets"])
        placed = any("{language}" in self.templates[n] for n in ("system", request.content_type, request.kind))
        if request.language and request.language != "en" and not placed:
            pieces.append(LANGUAGE_LINE)
        rendered: list[str] = []
        for piece in pieces:
            out, prior_block = _render(piece, values, prior_block)
            if out.strip():
                rendered.append(out.strip())
        return [
            {"role": "system", "content": _render(self.templates["system"], values, "")[0].strip()},
            {"role": "user", "content": "\n\n".join(rendered)},
        ]


def prompts_fingerprint(prompts_dir: Path | None) -> str | None:
    """:meth:`PromptSet.fingerprint` of the prompts ``prompts_dir`` gives (None: no folder, or only
    unedited copies); raises ConfigError as :meth:`PromptSet.load` does."""
    return None if prompts_dir is None else PromptSet.load(prompts_dir).fingerprint()


def _render(template: str, values: Mapping[str, str], prior_block: str) -> tuple[str, str]:
    """Fill ``template``; the prior block goes into the first {prior_context} only.

    Returns the rendered text and whatever prior block is still unplaced.
    """
    if not prior_block:
        template = _PRIOR_ONLY_LINE.sub("", template)
    remaining = [prior_block]

    def sub(match: re.Match[str]) -> str:
        name = match.group(1)
        if name == "prior_context":
            block, remaining[0] = remaining[0], ""
            return block.rstrip("\n")
        return values.get(name, match.group(0))

    # One pass over the template only: placeholders inside substituted content stay literal text.
    return _PLACEHOLDER.sub(sub, template), remaining[0]


def _require(templates: Mapping[str, str], sources: Mapping[str, str]) -> None:
    """Each kind template must carry the input, or the model would never see it."""
    needs = {
        "brief": ("content",),
        "standard": ("content",),
        "chunk": ("content",),
        "meta": ("summaries", "content"),
        "rolling": ("content", "summaries"),
    }
    for name, options in needs.items():
        found = {m.group(1) for m in _PLACEHOLDER.finditer(templates[name])}
        if not found.intersection(options):
            raise ConfigError(f"{sources[name]}: must contain {' or '.join('{' + o + '}' for o in options)}")
