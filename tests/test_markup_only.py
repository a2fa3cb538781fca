"""A note that is only markup (code, comments, embeds, link definitions, front matter) has no text once
read: it is skipped with its reason like a blank file, never "summarized" as its raw markup on one line
(an unclosed fence that swallowed its page's ``Source:`` link, private ``%%comments%%`` shown). A text
the summarizer finds all noise (a table) is summarized as it reads, without its pipes; a month of a
front-matter-only entry leaves no permanent "stale" in ``index --check``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from batchsum.backends.extractive import summarize_text
from batchsum.cli import main
from batchsum.tokens import get_tokenizer
from batchsum.tree import node_path, read_node

CODE = "```python\n" + "\n".join(f"def f{i}(x):\n    return x*{i}\n" for i in range(40)) + "```\n"
MARKUP = {
    "code.md": CODE,
    "comment.md": "<!--\n" + " ".join(["secret draft words"] * 60) + "\n-->\n",
    "private.md": "%%\n" + " ".join(["private comment words"] * 60) + "\n%%\n",
    "embeds.md": "\n".join(f"![[photo_{i}.png]]" for i in range(60)) + "\n",
    "refs.md": "\n".join(f"[ref{i}]: https://example.com/page/{i}" for i in range(40)) + "\n",
    "2024-03-07.md": "---\ntitle: A day\ntags: [a, b]\ndate: 2024-03-07\n---\n",
}
TABLE = "| a | b | c |\n|---|---|---|\n" + "\n".join(f"| x{i} | y{i} | z{i} |" for i in range(40)) + "\n"


def _run(corpus: Path, out: Path, *extra: str) -> dict:
    r = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--json", *extra])
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


@pytest.mark.parametrize("name", sorted(MARKUP))
def test_a_markup_only_note_is_skipped_as_no_text_once_read(tmp_path: Path, name: str) -> None:
    corpus, out = tmp_path / "c", tmp_path / "o"
    corpus.mkdir()
    (corpus / name).write_text(MARKUP[name], encoding="utf-8")
    (corpus / "2024-04-05.md").write_text("Went to the market today. Bought bread and cheese.\n", encoding="utf-8")
    data = _run(corpus, out, "--no-index")
    assert any(name in w and "no text once read" in w and "only markup" in w for w in data["warnings"]), data
    assert not node_path(out, name, 3, None).exists()
    assert node_path(out, "2024-04-05.md", 3, None).is_file()


def test_text_that_is_all_noise_is_summarized_as_read_not_as_markup(tmp_path: Path) -> None:
    corpus, out = tmp_path / "c", tmp_path / "o"
    corpus.mkdir()
    (corpus / "table.md").write_text(TABLE, encoding="utf-8")
    _run(corpus, out, "--no-index")
    _, body = read_node(node_path(out, "table.md", 3, None))
    assert body.strip().startswith("a, b, c; x0, y0, z0; x1, y1, z1")
    assert "|" not in body and "---" not in body
    # The library call says the same: nothing of a code block's markup is a summary.
    tok = get_tokenizer("cl100k_base")
    summary = summarize_text(
        CODE, target_tokens=50, max_tokens=80, kind="standard", content_type="document", tokenizer=tok
    )
    assert summary == ""


def test_a_front_matter_only_entry_leaves_the_index_check_clean(tmp_path: Path) -> None:
    corpus, out = tmp_path / "c", tmp_path / "o"
    corpus.mkdir()
    (corpus / "2024-03-07.md").write_text(MARKUP["2024-03-07.md"], encoding="utf-8")
    (corpus / "2024-04-05.md").write_text("Went to the market today. Bought bread and cheese.\n", encoding="utf-8")
    _run(corpus, out)
    r = CliRunner().invoke(main, ["index", str(out), "--check"])
    assert r.exit_code == 0, r.output
    assert "0 stale" in r.output
