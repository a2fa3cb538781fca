"""``--git``: version the output folder with one commit per run.

Git is a convenience on top of the tree, never a requirement: a missing binary, a failing
hook or a full disk produce a warning and ``None``, and the run still succeeds.
"""

from __future__ import annotations

import logging
import os
import subprocess
from pathlib import Path

from batchsum.config import STATE_DIR

log = logging.getLogger(__name__)

GIT_TIMEOUT = 60.0
IGNORE_LINE = f"{STATE_DIR}/"
DEFAULT_NAME = "batchsum"
DEFAULT_EMAIL = "batchsum@localhost"

# Variables a calling git hook or shell may export that would point us at another repository.
_REPO_ENV = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR", "GIT_PREFIX")


class _GitError(Exception):
    pass


def _git(out: Path, *args: str, check: bool = True, timeout: float = GIT_TIMEOUT) -> subprocess.CompletedProcess[str]:
    """Run ``git -C out args``; raise _GitError with git's own words on any failure."""
    env = {k: v for k, v in os.environ.items() if k not in _REPO_ENV}
    env["GIT_TERMINAL_PROMPT"] = "0"  # cron has nobody to answer a prompt
    try:
        proc = subprocess.run(
            ["git", "-C", str(out), *args],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env,
            check=False,
        )
    except FileNotFoundError as exc:
        raise _GitError("git is not installed or not on PATH") from exc
    except subprocess.TimeoutExpired as exc:
        raise _GitError(f"git {args[0]} timed out after {timeout:g} s") from exc
    except OSError as exc:
        raise _GitError(f"git {args[0]} could not start: {exc}") from exc
    if check and proc.returncode != 0:
        detail = (proc.stderr or proc.stdout).strip().splitlines()
        reason = detail[-1] if detail else f"exit code {proc.returncode}"
        raise _GitError(f"git {args[0]} failed: {reason}")
    return proc


def _ensure_gitignore(out: Path) -> None:
    path = out / ".gitignore"
    try:
        existing = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        existing = ""
    lines = {line.strip() for line in existing.splitlines()}
    if IGNORE_LINE in lines or STATE_DIR in lines or f"/{IGNORE_LINE}" in lines:
        return
    prefix = "" if not existing or existing.endswith("\n") else "\n"
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(f"{prefix}# batchsum state (locks, caches, metrics) is not part of the history\n{IGNORE_LINE}\n")


def _ensure_identity(out: Path) -> None:
    """Give the repository a local author when none is configured (bare CI machines)."""
    for key, default in (("user.name", DEFAULT_NAME), ("user.email", DEFAULT_EMAIL)):
        if _git(out, "config", "--get", key, check=False).returncode != 0:
            _git(out, "config", "--local", key, default)


def _setup(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    # Test for .git in out itself: an output folder inside another repository gets its own.
    if not (out / ".git").exists():
        _git(out, "-c", "init.defaultBranch=main", "init", "-q")
    _ensure_gitignore(out)
    _ensure_identity(out)


def ensure_repo(out: Path) -> bool:
    """Make ``out`` a git repository with a ``.gitignore`` for the state folder.

    Returns True when the folder is a usable repository afterwards, False (with a
    warning) when git is unavailable or fails.
    """
    try:
        _setup(out)
    except (_GitError, OSError) as exc:
        log.warning("--git: cannot prepare %s as a git repository (%s); the run goes on without commits", out, exc)
        return False
    return True


def commit_message(run_id: str, *, added: int, changed: int, deleted: int) -> str:
    """The one-line commit message of a run."""
    return f"batchsum run {run_id}: {added} added, {changed} changed, {deleted} deleted"


def commit_run(out: Path, *, added: int, changed: int, deleted: int, run_id: str, digests: int = 0) -> str | None:
    """Stage everything in ``out`` and commit it; return the new commit's sha. ``digests``: the month,
    year and folder digests the run redid or removed (new digest budgets change no file, yet rewrite them).

    Returns None when there is nothing to commit or when anything fails (the failure
    is logged as a warning: a failed commit never fails the run).
    """
    message = commit_message(run_id, added=added, changed=changed, deleted=deleted)
    try:
        _setup(out)
        _git(out, "add", "-A", ".")
        if _git(out, "diff", "--cached", "--quiet", check=False).returncode == 0:
            log.info("--git: nothing changed in %s; no commit", out)
            return None
        if not (added or changed or deleted) and digests:
            message += f"; {digests} digest{'s' if digests != 1 else ''} redone"
        elif not (added or changed or deleted):
            # What is staged was written by runs made without --git (or by hand): say so, not "0 changed".
            staged = _git(out, "diff", "--cached", "--name-only").stdout.split("\n")
            n = sum(1 for path in staged if path.strip())
            message = f"batchsum run {run_id}: {n} files written since the last commit (runs without --git)"
        _git(out, "commit", "-q", "-m", message)
        sha = _git(out, "rev-parse", "HEAD").stdout.strip()
    except (_GitError, OSError) as exc:
        log.warning("--git: commit in %s failed (%s); the summaries are written, only the commit is missing", out, exc)
        return None
    log.info("--git: committed %s in %s: %s", sha[:12], out, message)
    return sha
