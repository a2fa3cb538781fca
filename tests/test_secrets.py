"""Secrets: redaction of source text (--redact) and masking of our own logs, with one rule table."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from batchsum.backends.extractive import ExtractiveBackend
from batchsum.backends.llm import LLMBackend
from batchsum.config import LLMConfig, RunConfig
from batchsum.model import SummaryRequest
from batchsum.secrets import is_loopback_url, redact, redact_by_default, scrub_argv, scrub_command, scrub_text
from batchsum.tokens import get_tokenizer
from batchsum.walk import discover, read_document
from tests.fakeserver import FakeLLMServer

REPO = Path(__file__).resolve().parent.parent

# Built from pieces so this file itself holds no literal that a scanner would flag as a live key.
SECRETS: dict[str, str] = {
    "openai_key": "sk-proj-" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4",
    "anthropic_key": "sk-ant-api03-" + "Zy9Xw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe",
    "aws_access_key": "AKIA" + "IOSFODNN7EXAMPLE",
    "aws_secret_key": "wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYEXAMPLEKEY",
    "github_token": "ghp_" + "0123456789abcdefghijABCDEFGHIJ012345",
    "slack_token": "xoxb-" + "1234567890-0987654321-AbCdEfGhIjKlMnOp",
    "google_api_key": "AIza" + "SyA1234567890abcdefghijklmnopqrstuv",
    "generic_key": "key-" + "0123456789abcdefghijklmnopqrstuv",
    "jwt": "eyJhbGciOiJIUzI1NiJ9." + "eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "bearer_token": "c2VjcmV0LWJlYXJlci12YWx1ZQ",
    "password": "hunter2-Tr0ub4dor",
    "private_key": "MIIEpAIBAAKCAQEA7bq98xExampleOnlyNotARealKeyButLongEnough",
}
PEM = "-----BEGIN RSA PRIVATE KEY-----\n{body}\nQk9HVVMgS0VZIExJTkUgVFdP\n-----END RSA PRIVATE KEY-----"


def journal_with_secrets() -> str:
    s = SECRETS
    lines = [
        "# 2024-03-05",
        "Today I rotated the deployment credentials for the billing service after the audit.",
        f"The new OpenAI key is {s['openai_key']} and Claude uses {s['anthropic_key']} now.",
        f"AWS access key id {s['aws_access_key']} with aws_secret_access_key = {s['aws_secret_key']} for backups.",
        f"GitHub token {s['github_token']} and the Slack bot token {s['slack_token']} went into the vault.",
        f"Maps uses Google key {s['google_api_key']}; the mail relay has {s['generic_key']}.",
        f"The session cookie was {s['jwt']} which expires tonight.",
        f"curl sends Authorization: Bearer {s['bearer_token']} to the staging server.",
        f"The database password: {s['password']} must change next week.",
        PEM.format(body=s["private_key"]),
        "After that the team met to plan the spring release and agreed to ship the search feature first.",
        "We also talked about hiring two engineers and moving the standup to ten in the morning.",
    ]
    return "\n\n".join(lines * 3)


def assert_no_secret(text: str, where: str) -> None:
    for kind, value in SECRETS.items():
        assert value not in text, f"{kind} leaked into {where}"


def test_each_kind_is_redacted_and_counted() -> None:
    text, counts = redact(journal_with_secrets())
    assert_no_secret(text, "redacted text")
    for kind in (
        "openai_key",
        "anthropic_key",
        "aws_access_key",
        "aws_secret_key",
        "github_token",
        "slack_token",
        "google_api_key",
        "generic_key",
        "jwt",
        "bearer_token",
        "password",
        "private_key",
    ):
        assert f"[REDACTED:{kind}]" in text, kind
        assert counts[kind] == 3, (kind, counts)
    assert "Authorization: Bearer [REDACTED:bearer_token]" in text
    assert "password: [REDACTED:password]" in text
    assert "plan the spring release" in text


@pytest.mark.parametrize(
    "line",
    [
        'passphrase="correct horse battery staple" in the notes',
        "PASSWORD=s3cr3t-value",
        "export OPENAI_API_KEY=sk-" + "abcdefghijklmnopqrstuvwx",
        'client_secret: "Zm9vYmFyYmF6cXV4MTIz"',
        "hooks: https://hooks.slack.com/services/" + "T000/B000/XXXXXXXXXXXXXXXXXXXX",
    ],
)
def test_assignment_and_url_forms(line: str) -> None:
    text, counts = redact(line)
    assert "[REDACTED:" in text and counts
    for secret in ("correct horse", "s3cr3t-value", "abcdefghijklmnop", "Zm9vYmFy", "XXXXXXXXXXXX"):
        assert secret not in text


@pytest.mark.parametrize(
    "prose",
    [
        "The key points were the budget and the timeline; the token ring network is gone.",
        "I passed the exam. My secret is that I love pancakes.",
        "We discussed the monkey-patching approach and the API keys rotation policy.",
        "Meeting at 10:30, sk-ating afterwards with Ana.",
    ],
)
def test_ordinary_prose_is_left_alone(prose: str) -> None:
    assert redact(prose) == (prose, {})


def test_private_key_block_without_end_is_redacted_to_the_end() -> None:
    text, counts = redact("before\n-----BEGIN OPENSSH PRIVATE KEY-----\nAAAAB3NzaC1yc2E\nAAAA")
    assert text == "before\n[REDACTED:private_key]" and counts == {"private_key": 1}


def test_long_single_line_is_scanned_around_each_marker() -> None:
    filler = "lorem ipsum dolor sit amet " * 2000
    text, counts = redact(filler + SECRETS["github_token"] + " " + filler + SECRETS["aws_access_key"] + " " + filler)
    assert counts == {"github_token": 1, "aws_access_key": 1}
    assert len(text) < len(filler) * 3 + 100


def test_masking_keeps_prefixes_and_flags() -> None:
    assert scrub_text("retrying with key sk-proj-ZZZZZZZZZZZZ after 429") == "retrying with key sk-*** after 429"
    assert scrub_text("HTTP 401: Authorization: Bearer abc.def.ghi") == "HTTP 401: Authorization: ***"
    assert SECRETS["github_token"] not in scrub_text(f"push failed for {SECRETS['github_token']}")
    assert scrub_argv(["run", "--api-key", "abc", "--token=xyz"]) == ["run", "--api-key", "***", "--token=***"]
    assert scrub_command("batchsum run c --api-key sk-abc123456 --model m") == "batchsum run c --api-key *** --model m"


@pytest.mark.parametrize(
    ("url", "loopback"),
    [
        (None, True),
        ("http://127.0.0.1:8080/v1", True),
        ("http://localhost:11434/v1", True),
        ("http://[::1]:8000/v1", True),
        ("http://127.8.9.1/v1", True),
        ("https://api.openai.com/v1", False),
        ("http://10.0.0.5:8000/v1", False),
        ("http://localhost.example.com/v1", False),
    ],
)
def test_loopback_detection(url: str | None, loopback: bool) -> None:
    assert is_loopback_url(url) is loopback


def test_redaction_default_follows_where_text_goes(tmp_path: Path) -> None:
    assert redact_by_default(None, None) is False
    assert redact_by_default("http://127.0.0.1:9/v1", None) is False
    assert redact_by_default("https://api.example.com/v1", None) is True
    assert redact_by_default(None, "https://embed.example.com/v1") is True
    cfg = RunConfig(paths=[tmp_path], llm=LLMConfig(base_url="https://api.example.com/v1", model="m"))
    assert cfg.redact_secrets is True
    cfg.redact = False
    assert cfg.redact_secrets is False
    local = RunConfig(paths=[tmp_path], llm=LLMConfig(base_url="http://127.0.0.1:1/v1", model="m"))
    assert local.redact_secrets is False
    local.redact = True
    assert local.redact_secrets is True


def test_redacted_documents_reach_the_llm_without_secrets(tmp_path: Path) -> None:
    """read_document(redact=True) feeds the backend; the loopback server's log is the witness."""
    c = tmp_path / "c"
    c.mkdir()
    (c / "2024-03-05.md").write_text(journal_with_secrets())
    original = (c / "2024-03-05.md").read_bytes()
    (ref,) = discover([c]).refs
    doc = read_document(ref, redact=True)
    assert doc.redactions["password"] == 3 and sum(doc.redactions.values()) == 36
    assert_no_secret(doc.text, "the document")
    assert (c / "2024-03-05.md").read_bytes() == original, "the source file is never modified"
    tok = get_tokenizer()
    request = SummaryRequest(
        node_id="2024-03-05.md:summary:L3:final",
        kind="standard",
        content_type="journal",
        text=doc.text,
        input_tokens=tok.count(doc.text),
        target_tokens=120,
        max_tokens=120,
    )
    with FakeLLMServer().start() as server:
        backend = LLMBackend(
            LLMConfig(base_url=server.base_url, model="fake", rpm=None, tpm=None),
            tokenizer=tok,
            fallback=ExtractiveBackend(tok),
            cache_dir=None,
        )

        async def main() -> str:
            try:
                return (await backend.summarize(request)).text
            finally:
                await backend.aclose()

        summary = asyncio.run(main())
        (entry,) = server.log
    assert "[REDACTED:" in entry.prompt_text
    assert_no_secret(entry.prompt_text, "the request")
    assert_no_secret(summary, "the summary")


def _run(corpus: Path, out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "batchsum", "run", str(corpus), "--out", str(out), "--json", *extra],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        cwd=REPO,
        timeout=300,
    )


def test_redact_end_to_end_summaries_index_and_requests(tmp_path: Path) -> None:
    c = tmp_path / "c"
    c.mkdir()
    (c / "2024-03-05.md").write_text(journal_with_secrets())
    out = tmp_path / "out"
    with FakeLLMServer().start() as server:
        proc = _run(c, out, "--base-url", server.base_url, "--model", "fake", "--redact", "--no-metrics")
        prompts = [e.prompt_text for e in server.log]
    assert proc.returncode == 0, proc.stderr
    assert prompts and all("[REDACTED:" in p for p in prompts[:1])
    for p in prompts:
        assert_no_secret(p, "an LLM request")
    for path in out.rglob("*"):
        if path.is_file():
            assert_no_secret(path.read_bytes().decode("utf-8", "replace"), str(path))
    found = subprocess.run(
        [
            sys.executable,
            "-m",
            "batchsum",
            "search",
            "deployment credentials of the billing service",
            "--out",
            str(out),
            "--json",
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        cwd=REPO,
        timeout=300,
    )
    assert found.returncode == 0, found.stderr
    assert_no_secret(found.stdout, "search results")
    assert json.loads(found.stdout)


@pytest.mark.parametrize(
    ("text", "kind", "secret"),
    [
        ("DATABASE_URL=postgres://admin:Sup3r-S3cret@db.internal:5432/app", "url_password", "Sup3r-S3cret"),
        ("mysql://root:hunter22@10.0.0.5/shop and more", "url_password", "hunter22"),
        ("stripe: sk_live_4eC39HqLyjWDarjtT1zdp7dc", "stripe_access_token", "sk_live_4eC39HqLyjWDarjtT1zdp7dc"),
        ("token glpat-AbCdEfGhIjKlMnOpQrSt for CI", "gitlab_pat", "glpat-AbCdEfGhIjKlMnOpQrSt"),
        ("//registry.npmjs.org/:_authToken=npm_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789 x", "npm_access_token",
         "npm_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"),
        ("HF_TOKEN is hf_aBcDeFgHiJkLmNoPqRsTuVwXyZaBcDeFgH now", "huggingface_access_token",
         "hf_aBcDeFgHiJkLmNoPqRsTuVwXyZaBcDeFgH"),
        ("DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=" + "Zm9vYmFy" * 11 + ";EndpointSuffix=x",
         "azure_storage_key", "Zm9vYmFy" * 11),
    ],
)  # fmt: skip
def test_rule_set_covers_database_urls_and_more_providers(text: str, kind: str, secret: str) -> None:
    redacted, counts = redact(text)
    assert secret not in redacted and f"[REDACTED:{kind}]" in redacted and counts == {kind: 1}, redacted
    assert secret not in scrub_text(text) and "***" in scrub_text(text)


def test_provider_rules_are_gitleaks_own_with_attribution() -> None:
    import json

    from batchsum.secrets import RULES_FILE, provider_rules

    doc = json.loads(RULES_FILE.read_text(encoding="utf-8"))
    assert "gitleaks" in doc["source"] and "MIT" in doc["license"]
    assert len(provider_rules()) >= 200 and all(r.markers for r in provider_rules())
    prose = "The key to a good talk is patience; ask Sarah. See https://example.com/a:b and s. 12 of the task."
    assert redact(prose) == (prose, {})


def test_provider_keys_end_before_prose_punctuation() -> None:
    text = "The gateway rejected sk_live_4eC39HqLyjWDarjtT1zdp7dc. Use (hf_aBcDeFgHiJkLmNoPqRsTuVwXyZaBcDeFgH), ok?"
    redacted, counts = redact(text)
    assert (
        redacted
        == "The gateway rejected [REDACTED:stripe_access_token]. Use ([REDACTED:huggingface_access_token]), ok?"
    )
    assert counts == {"stripe_access_token": 1, "huggingface_access_token": 1}
