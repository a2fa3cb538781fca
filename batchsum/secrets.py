"""Secrets: one rule table for redacting source text and for masking logs, metrics and commands.

Two uses of the same rules:

* :func:`redact` rewrites *content* (a journal line, a transcript) before it is summarized,
  indexed or sent to a server: each secret becomes ``[REDACTED:<kind>]`` and the counts per kind
  are returned, so a run can report them.
* :func:`scrub_text` masks *our own* strings (log lines, error messages, metrics rows, the stored
  command line) with ``***``, keeping a short prefix (``sk-***``, ``--api-key ***``) so a reader
  still sees what was hidden.

The provider patterns follow the public rule sets of detect-secrets (Yelp, ``plugins/*.py``) and
gitleaks (``config/gitleaks.toml``): AWS access key ids, GitHub ``gh?_``/``github_pat_`` tokens,
Slack ``xox?-`` tokens and webhooks, Google ``AIza`` keys, JWTs and PEM private-key blocks.
detect-secrets itself is not a dependency: it imports ``requests`` on load, has no Anthropic,
Google or current OpenAI (``sk-proj-``) rules, and scans line by line (a private-key block spans
lines).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass

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
        r"(?P<keep>--(?:api[-_]?key|serve[-_]?key|token|auth[-_]?token|password|secret|access[-_]?key)(?:\s+|=))"
        r"(?:\"[^\"]*\"|'[^']*'|\S+)",
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


@dataclass(frozen=True)
class _Compiled:
    kind: str
    regex: re.Pattern[str]
    markers: tuple[str, ...]
    multiline: bool


def _compile(rules: Sequence[_Rule]) -> list[_Compiled]:
    return [_Compiled(r.kind, re.compile(r.pattern, r.flags), r.markers, r.multiline) for r in rules]


@dataclass(frozen=True)
class _RuleSet:
    rules: list[_Compiled]
    markers: frozenset[str]  # every rule's markers, each searched once per text


def _rule_set(rules: Sequence[_Rule]) -> _RuleSet:
    return _RuleSet(_compile(rules), frozenset(m for r in rules for m in r.markers))


@functools.cache
def _redact_rules() -> _RuleSet:
    return _rule_set(_RULES)


@functools.cache
def _scrub_rules() -> _RuleSet:
    # Flags and headers first: "--api-key sk-..." keeps its flag name, not a half-masked key.
    return _rule_set(_SCRUB_ONLY + _RULES + _SCRUB_LOOSE)


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


def _windows(text: str, low: str, markers: set[str]) -> list[tuple[int, int]]:
    """Merged spans of the lines (capped at WINDOW each side) that contain a marker."""
    spans: list[tuple[int, int]] = []
    for marker in markers:
        pos = low.find(marker)
        while pos >= 0:
            start = max(text.rfind("\n", 0, pos) + 1, pos - WINDOW)
            end = text.find("\n", pos)
            end = len(text) if end < 0 else end
            end = min(end, pos + WINDOW)
            spans.append((start, end))
            pos = low.find(marker, end)  # the rest of this window is scanned anyway
    spans.sort()
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def _sub(text: str, rule: _Compiled, replace: str | None, counts: dict[str, int] | None) -> str:
    n = 0

    def one(m: re.Match[str]) -> str:
        nonlocal n
        n += 1
        return _keep(m, replace is not None) + (f"[REDACTED:{rule.kind}]" if replace is None else replace)

    new = rule.regex.sub(one, text)
    if not n:
        return text
    if counts is not None:
        counts[rule.kind] = counts.get(rule.kind, 0) + n
    return new


def _apply(text: str, rule_set: _RuleSet, replace: str | None, counts: dict[str, int] | None) -> str:
    # Python's re tries an alternation at every position (~0.5 µs a character); str.find is memchr-fast.
    # So markers are found by find() on a lower-cased copy, and the rules run only on the lines
    # around them: text without a marker costs one lower() and one find per distinct marker.
    low = _lower(text)
    present = {m for m in rule_set.markers if m in low}
    if not present:
        return text
    rules = rule_set.rules
    for rule in rules:
        if rule.multiline and not present.isdisjoint(rule.markers):
            text = _sub(text, rule, replace, counts)
            low = _lower(text)
    local = [r for r in rules if not r.multiline and not present.isdisjoint(r.markers)]
    if not local:
        return text
    if len(text) <= WINDOW:
        for rule in local:
            text = _sub(text, rule, replace, counts)
        return text
    spans = _windows(text, low, present)
    pieces: list[str] = []
    last = 0
    for start, end in spans:
        piece = text[start:end]
        for rule in local:
            if any(m in piece.lower() for m in rule.markers):
                piece = _sub(piece, rule, replace, counts)
        pieces.append(text[last:start])
        pieces.append(piece)
        last = end
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
