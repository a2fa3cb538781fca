"""Secrets: one rule table for redacting source text and for masking logs, metrics and commands.

Two uses of the same rules:

* :func:`redact` rewrites *content* (a journal line, a transcript) before it is summarized,
  indexed or sent to a server: each secret becomes ``[REDACTED:<kind>]`` and the counts per kind
  are returned, so a run can report them.
* :func:`scrub_text` masks *our own* strings (log lines, error messages, metrics rows, the stored
  command line) with ``***``, keeping a short prefix (``sk-***``, ``--api-key ***``) so a reader
  still sees what was hidden.

Provider rules come from gitleaks' maintained rule set (``config/gitleaks.toml``, MIT licence, (c) 2019
Zachary Rice), vendored as data in ``batchsum/data/secret_rules.json`` by
``scripts/update_secret_rules.py``: ~220 providers (Stripe ``sk_live_``, GitLab ``glpat-``, npm ``npm_``,
Hugging Face ``hf_``, ...), each a pattern, the keywords one of which every match contains, and an
entropy floor for the captured secret, applied as gitleaks applies them (only the captured secret is
replaced). Around them, batchsum keeps a few rules of its own: PEM private-key blocks (they span lines),
Anthropic and current OpenAI keys, passwords in URLs and Azure ``AccountKey=`` (detect-secrets'
``BasicAuthDetector`` and ``AzureStorageKeyDetector``), and ``password:``/``api_key=``-style assignments.
detect-secrets itself is not a dependency: it imports ``requests`` on load and scans line by line.
"""

from __future__ import annotations

import functools
import math
import re
import warnings
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from batchsum import jsonio

MASK = "***"

# Field names whose value is a credential, whatever it looks like (exact names only:
# "input_tokens" must stay visible while "token" is hidden).
SECRET_KEYS = frozenset(
    {
        "api_key",
        "apikey",
        "x_api_key",
        "authorization",
        "proxy_authorization",
        "token",
        "access_token",
        "refresh_token",
        "bearer",
        "secret",
        "client_secret",
        "password",
        "passwd",
        "passphrase",
    }
)
# Command-line options whose next argument (or ``=value``) is a credential.
SECRET_FLAGS = frozenset(
    {
        "--api-key",
        "--api_key",
        "--serve-key",
        "--serve_key",
        "--token",
        "--auth-token",
        "--password",
        "--secret",
        "--access-key",
        "--authorization",
    }
)


@dataclass(frozen=True)
class _Rule:
    """One kind of secret. Group ``keep`` (a label) stays in place; group ``prefix`` only when masking."""

    kind: str
    pattern: str
    markers: tuple[str, ...]  # lower-case substrings one of which every match contains (in any case)
    flags: int = 0
    multiline: bool = False  # may span lines: run over the whole text, not the lines around a marker
    # gitleaks' form: only the captured secret (this group; 0 = the first that matched, or the whole
    # match) is replaced, and only when its Shannon entropy reaches ``entropy`` and no ``allow`` matches it.
    group: int | None = None
    entropy: float = 0.0
    allow: tuple[str, ...] = ()


# Order matters: specific provider forms before the generic ``sk-``/``key-`` forms, and private-key
# blocks first so their base64 body is never half-matched by another rule.
_RULES: tuple[_Rule, ...] = (
    _Rule(
        "private_key",
        # A literal first: re finds "-----BEGIN" by fast substring search, so this is cheap on any text.
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?"
        r"(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\Z)",
        ("private key",),
        multiline=True,
    ),
    _Rule("anthropic_key", r"\bsk-ant-(?:api|admin)\d{2}-[A-Za-z0-9_\-]{20,}", ("sk-ant-",)),
    _Rule(
        "openai_key",
        r"\bsk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_\-]{16,}|\bsk-[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}\b",
        ("sk-",),
    ),
    _Rule(
        "aws_access_key",
        r"\b(?:A3T[A-Z0-9]|ABIA|ACCA|AKIA|ASIA)[0-9A-Z]{16}\b",
        ("a3t", "abia", "acca", "akia", "asia"),
    ),
    _Rule(
        "aws_secret_key",
        r"(?P<keep>\baws_?(?:secret_?access_?key|secret_?key)[\"']?\s*[:=]\s*[\"']?)[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+])",
        ("aws",),
        re.IGNORECASE,
    ),
    _Rule(
        "github_token",
        r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b",
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    ),
    _Rule(
        "slack_token",
        r"\bxox[abposr]-(?:[0-9]+-)*[A-Za-z0-9-]{10,}|https://hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9_/]+",
        ("xox", "hooks.slack.com"),
        re.IGNORECASE,
    ),
    _Rule("google_api_key", r"\bAIza[0-9A-Za-z_\-]{35}(?![0-9A-Za-z_\-])", ("aiza",)),
    _Rule("jwt", r"\beyJ[A-Za-z0-9_\-]{5,}\.eyJ[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]{5,}", ("eyj",)),
    # detect-secrets BasicAuthDetector: a password in a URL's user info (postgres://user:pass@host).
    _Rule("url_password", r"(?P<keep>\b[a-z][a-z0-9+.-]*://[^\s:@/{}]+:)[^\s@/{}]+(?=@)", ("://",), re.IGNORECASE),
    # detect-secrets AzureStorageKeyDetector: storage connection strings.
    _Rule("azure_storage_key", r"(?P<keep>\bAccountKey\s*=\s*)[A-Za-z0-9+/=]{40,}", ("accountkey",), re.IGNORECASE),
    _Rule(
        "bearer_token",
        r"(?P<keep>\bbearer\s+)[A-Za-z0-9._~+/=\-]{6,}",
        ("bearer",),
        re.IGNORECASE,
    ),
    _Rule(
        "generic_key", r"(?P<prefix>\bsk-)[A-Za-z0-9_\-]{16,}|(?P<prefix2>\bkey-)[A-Za-z0-9]{20,}\b", ("sk-", "key-")
    ),
    _Rule(
        "password",
        r"(?P<keep>\b(?:password|passphrase|passwd|pwd)\b[\"']?[ \t]*[:=][ \t]*)"
        r"(?:\"[^\"\n]{1,200}\"|'[^'\n]{1,200}'|[^\s\"',;]{2,200})",
        ("pass", "pwd"),
        re.IGNORECASE,
    ),
    _Rule(
        "credential",
        r"(?P<keep>(?:api[-_]?key|secret[-_]?key|client[-_]?secret|access[-_]?token|auth[-_]?token"
        r"|refresh[-_]?token)[A-Za-z0-9_]*[\"']?[ \t]*[:=][ \t]*[\"']?)[^\s\"'&,;}]{6,}",
        ("apikey", "api_key", "api-key", "secret", "token"),
        re.IGNORECASE,
    ),
)

# Only for masking our own strings: forms that name their value as secret in logs and commands.
_SCRUB_ONLY: tuple[_Rule, ...] = (
    _Rule(
        "flag",
        # A value has a letter or digit: prose punctuation after the flag's name ("--api-key / ...") stays.
        r"(?P<keep>--(?:api[-_]?key|serve[-_]?key|token|auth[-_]?token|password|secret|access[-_]?key)(?:\s+|=))"
        r"(?:\"[^\"]*\"|'[^']*'|(?=[^\s\w]*\w)\S+)",
        ("--api", "--serve", "--token", "--auth", "--password", "--secret", "--access"),
        re.IGNORECASE,
    ),
    _Rule(
        "authorization",
        r"(?P<keep>\b(?:proxy-)?authorization\b[\"']?\s*[:=]\s*[\"']?)(?:(?:bearer|basic|token)\s+)?[^\s\"',;)\]}]+",
        ("authorization",),
        re.IGNORECASE,
    ),
    _Rule(
        "assignment",
        r"(?P<keep>(?:api[-_]?key|secret|password|passphrase|access[-_]?token|auth[-_]?token)"
        r"[A-Za-z0-9_]*[\"']?\s*[:=]\s*[\"']?)[^\s\"'&,;}]+",
        ("apikey", "api_key", "api-key", "secret", "pass", "token"),
        re.IGNORECASE,
    ),
)

# Masking is looser than redaction: a short "sk-..." in an error message is still hidden.
_SCRUB_LOOSE: tuple[_Rule, ...] = (_Rule("short_key", r"(?P<prefix>\bsk-)[A-Za-z0-9_\-]{6,}", ("sk-",)),)


RULES_FILE = Path(__file__).resolve().parent / "data" / "secret_rules.json"
# Ours, applied before gitleaks' rules, and generic forms applied after them.
_GENERIC = frozenset({"bearer_token", "generic_key", "password", "credential"})


@functools.cache
def provider_rules() -> tuple[_Rule, ...]:
    """gitleaks' provider rules from the vendored data file (see the module docstring)."""
    doc: dict[str, Any] = jsonio.loads(RULES_FILE.read_bytes())
    return tuple(
        _Rule(
            r["id"].replace("-", "_"),
            r["regex"],
            tuple(r["keywords"]),
            group=int(r.get("group") or 0),
            entropy=float(r.get("entropy") or 0),
            allow=tuple(r.get("allow") or ()),
        )
        for r in doc["rules"]
    )


def _all_rules() -> tuple[_Rule, ...]:
    own = [r for r in _RULES if r.kind not in _GENERIC]
    generic = [r for r in _RULES if r.kind in _GENERIC]
    return (*own, *provider_rules(), *generic)


def shannon_entropy(text: str) -> float:
    """Bits per character of ``text`` (gitleaks' entropy floor is measured this way)."""
    if not text:
        return 0.0
    n = len(text)
    return -sum(c / n * math.log2(c / n) for c in Counter(text).values())


@dataclass
class _Compiled:
    """A rule, compiled the first time a text contains one of its markers (most never are)."""

    rule: _Rule
    _regex: re.Pattern[str] | None = field(default=None, repr=False)
    _allow: list[re.Pattern[str]] = field(default_factory=list, repr=False)

    @property
    def kind(self) -> str:
        return self.rule.kind

    @property
    def markers(self) -> tuple[str, ...]:
        return self.rule.markers

    @property
    def multiline(self) -> bool:
        return self.rule.multiline

    @property
    def regex(self) -> re.Pattern[str]:
        if self._regex is None:
            with warnings.catch_warnings():  # gitleaks' patterns use "[[" and "--" in classes as literals
                warnings.simplefilter("ignore", FutureWarning)
                self._regex = re.compile(self.rule.pattern, self.rule.flags)
                self._allow = [re.compile(a) for a in self.rule.allow]
        return self._regex

    def secret_span(self, m: re.Match[str]) -> tuple[int, int] | None:
        """The span to replace in match ``m``, or None when gitleaks would not report it."""
        group = self.rule.group
        if group is None:
            return m.span()
        if group > 0:
            span = m.span(group)
        else:
            span = next((m.span(i) for i in range(1, (m.re.groups or 0) + 1) if m.group(i)), m.span())
        if span[0] < 0:
            return None
        secret = m.string[span[0] : span[1]]
        if shannon_entropy(secret) < self.rule.entropy or any(a.search(secret) for a in self._allow):
            return None
        return span


def _compile(rules: Sequence[_Rule]) -> list[_Compiled]:
    return [_Compiled(r) for r in rules]


@dataclass(frozen=True)
class _RuleSet:
    rules: list[_Compiled]
    markers: list[str]  # every rule's markers, found in one pass by ``matcher``
    matcher: Any  # ahocorasick_rs.AhoCorasick over ``markers``


def _rule_set(rules: Sequence[_Rule]) -> _RuleSet:
    import ahocorasick_rs

    markers = sorted({m for r in rules for m in r.markers})
    return _RuleSet(_compile(rules), markers, ahocorasick_rs.AhoCorasick(markers))


@functools.cache
def _redact_rules() -> _RuleSet:
    return _rule_set(_all_rules())


@functools.cache
def _scrub_rules() -> _RuleSet:
    # Flags and headers first: "--api-key sk-..." keeps its flag name, not a half-masked key.
    return _rule_set(_SCRUB_ONLY + _all_rules() + _SCRUB_LOOSE)


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
WINDOW = 4096  # at most this much of a (very long) line either side of a marker is scanned


def _keep(m: re.Match[str], masking: bool) -> str:
    # "keep" is a label ("password: "); "prefix" is a key's public prefix, shown only in masked logs.
    groups = m.groupdict()
    kept = groups.get("keep") or ""
    if masking:
        kept += groups.get("prefix") or groups.get("prefix2") or ""
    return kept


def _lower(text: str) -> str:
    low = text.lower()
    # Offsets must match the original; the few characters whose lower case is longer (U+0130) force
    # the ASCII-only mapping, which is all the markers need.
    return low if len(low) == len(text) else text.translate(_ASCII_LOWER)


def _found(text: str, rule_set: _RuleSet) -> list[tuple[str, int]]:
    """(marker, offset) of every marker in ``text`` (lower-cased), in order of offset."""
    found = rule_set.matcher.find_matches_as_indexes(_lower(text), overlapping=True)
    return sorted((rule_set.markers[i], start) for i, start, _ in found) if found else []


def _windows(text: str, hits: list[tuple[str, int]]) -> list[tuple[int, int, set[str]]]:
    """Merged spans of the lines (capped at WINDOW each side) around the markers, with the markers in each."""
    merged: list[tuple[int, int, set[str]]] = []
    for marker, pos in sorted(hits, key=lambda h: h[1]):
        if merged and pos < merged[-1][1]:
            merged[-1][2].add(marker)
            continue
        # The line breaks are looked for within the window only: searched for to the text's ends, each
        # marker of a text without them had cost a scan of all of it (a 1.7 MB one-line text: 1.7 s).
        start = text.rfind("\n", max(0, pos - WINDOW), pos) + 1 or max(0, pos - WINDOW)
        end = text.find("\n", pos, pos + WINDOW)
        end = min(len(text), pos + WINDOW) if end < 0 else end
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end), merged[-1][2] | {marker})
        else:
            merged.append((start, end, {marker}))
    return merged


_DONE = ("[REDACTED:", MASK)


def _sub(text: str, rule: _Compiled, replace: str | None, counts: dict[str, int] | None) -> str:
    n = 0
    label = f"[REDACTED:{rule.kind}]" if replace is None else replace

    def one(m: re.Match[str]) -> str:
        nonlocal n
        if rule.rule.group is None:
            kept = _keep(m, replace is not None)
            if m.group()[len(kept) :].startswith(_DONE):  # "token=[REDACTED:npm_access_token]": done already
                return m.group()
            n += 1
            return kept + label
        span = rule.secret_span(m)
        if span is None:
            return m.group()
        n += 1
        start = m.start()
        whole = m.group()
        return whole[: span[0] - start] + label + whole[span[1] - start :]

    new = rule.regex.sub(one, text)
    if not n:
        return text
    if counts is not None:
        counts[rule.kind] = counts.get(rule.kind, 0) + n
    return new


def _apply(text: str, rule_set: _RuleSet, replace: str | None, counts: dict[str, int] | None) -> str:
    # Python's re tries an alternation at every position (~0.5 µs a character), so the rules' markers are
    # found first, all in one Aho-Corasick pass over a lower-cased copy, and each rule then runs only on
    # the lines around its own markers: text without a marker costs one lower() and that one pass.
    hits = _found(text, rule_set)
    if not hits:
        return text
    present = {m for m, _ in hits}
    rules = rule_set.rules
    multiline = [r for r in rules if r.multiline and not present.isdisjoint(r.markers)]
    for rule in multiline:
        text = _sub(text, rule, replace, counts)
    if multiline:
        hits = _found(text, rule_set)
        present = {m for m, _ in hits}
    local = [r for r in rules if not r.multiline and not present.isdisjoint(r.markers)]
    if not local:
        return text
    if len(text) <= WINDOW:
        for rule in local:
            text = _sub(text, rule, replace, counts)
        return text
    # Each rule runs on the windows around its own markers only: run on the windows around every
    # marker, each rule had scanned all of a line without breaks whose common markers ("ey", "s.")
    # merged the windows into the whole text (a 1.7 MB one-line journal: 1.7 s, 0.04 s with its breaks).
    # Its cost is then bounded by its own markers' windows, at most the text's length once.
    for rule in local:
        mine = [h for h in hits if h[0] in rule.markers]
        if not mine:
            continue
        new = _sub_windows(text, mine, rule, replace, counts)
        if new is not text:  # offsets moved: find the markers again for the rules after it
            text = new
            hits = _found(text, rule_set)
    return text


def _sub_windows(
    text: str, hits: list[tuple[str, int]], rule: _Compiled, replace: str | None, counts: dict[str, int] | None
) -> str:
    """``text`` with ``rule`` applied to the windows around ``hits`` (:func:`_windows`); ``text`` itself
    when it replaced nothing."""
    pieces: list[str] = []
    last = 0
    changed = False
    for start, end, _ in _windows(text, hits):
        piece = text[start:end]
        new = _sub(piece, rule, replace, counts)
        changed = changed or new is not piece
        pieces += [text[last:start], new]
        last = end
    if not changed:
        return text
    pieces.append(text[last:])
    return "".join(pieces)


def redact(text: str) -> tuple[str, dict[str, int]]:
    """``text`` with every secret replaced by ``[REDACTED:<kind>]``, and the count per kind."""
    counts: dict[str, int] = {}
    return _apply(text, _redact_rules(), None, counts), counts


def scrub_text(text: str) -> str:
    """``text`` with credentials masked as ``***`` (for logs, errors, metrics and reports)."""
    return _apply(text, _scrub_rules(), MASK, None)


def scrub_optional(text: str | None) -> str | None:
    """:func:`scrub_text` that passes ``None`` through."""
    return None if text is None else scrub_text(text)


def is_secret_key(key: str) -> bool:
    """True when a field or option named ``key`` carries a credential."""
    return key.strip().lstrip("-").lower().replace("-", "_") in SECRET_KEYS


def scrub_argv(argv: Sequence[str]) -> list[str]:
    """A copy of a command line with the values of secret options (and key-like strings) masked."""
    out: list[str] = []
    hide_next = False
    for arg in argv:
        if hide_next:
            out.append(MASK)
            hide_next = False
            continue
        flag, eq, _ = arg.partition("=")
        if flag in SECRET_FLAGS:
            if eq:
                out.append(f"{flag}={MASK}")
            else:
                out.append(arg)
                hide_next = True
            continue
        out.append(scrub_text(arg))
    return out


def scrub_command(cmd: str) -> str:
    """A command line as one string, secrets masked (what a run record stores)."""
    return " ".join(scrub_argv(cmd.split()))


def is_loopback_url(url: str | None) -> bool:
    """True for an http(s) URL whose host is this machine (``localhost``, 127.0.0.0/8, ``::1``)."""
    if not url:
        return True
    from urllib.parse import urlsplit

    try:
        host = (urlsplit(url).hostname or "").lower()
    except ValueError:
        return False
    if host in ("localhost", "::1", "ip6-localhost") or host.endswith(".localhost"):
        return True
    import ipaddress

    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def redact_by_default(base_url: str | None, embed_base_url: str | None) -> bool:
    """Redaction is on when text would leave the machine: a server URL that is not loopback."""
    return not (is_loopback_url(base_url) and is_loopback_url(embed_base_url))
