"""What an agent session's digest and compaction list: the files it touched (not a search's hits), its
entities (a file once, by its fullest path; no folder of it, command name or word of the language) and
its errors (the error, not the tool's request to retry)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from batchsum.cli import main
from batchsum.tree import node_path, read_node

_SHELL = "(Open file: {open})\n(Current directory: /repo)\nbash-$"
SESSION = "\n\n".join(
    [
        "### user\n\nThe pixel handler crashes on float images: it requires PixelRepresentation. Fix it.",
        '### assistant\n\nLet\'s find the handler with `find_file`.\n```\nfind_file "handler.py"\n```',
        '### user\n\nFound 3 matches for "handler.py" in /repo:\n/repo/pkg/pixels/handler.py\n'
        "/repo/pkg/overlays/handler.py\n/repo/pkg/waveforms/handler.py\n" + _SHELL.format(open="n/a"),
        "### assistant\n\nThe `pkg` folder has it; `handler.py` in `pkg/pixels` is the one.\n"
        "```\nopen pkg/pixels/handler.py\n```",
        "### user\n\n[File: /repo/pkg/pixels/handler.py (2 lines total)]\n1:def read(ds):\n"
        "2:    return ds.PixelRepresentation\n" + _SHELL.format(open="/repo/pkg/pixels/handler.py"),
        "### assistant\n\nIt should default to 0 when `True` float data is present; I'll edit `handler.py`.\n"
        '```\nedit 2:2\n    return ds.get("PixelRepresentation", 0))\nend_of_edit\n```',
        "### user\n\nYour proposed edit has introduced new syntax error(s). Please read this error message "
        "carefully and then retry editing the file.\n\nERRORS:\n- E999 SyntaxError: unmatched ')'\n\n"
        "This is how your edit would have looked if applied\n-------------------------------------------------\n"
        "[File: /repo/pkg/pixels/handler.py (2 lines total)]\n1:def read(ds):\n"
        '2:    return ds.get("PixelRepresentation", 0))\n' + _SHELL.format(open="/repo/pkg/pixels/handler.py"),
        "### assistant\n\nThe handler is fixed now, calling `submit`.\n```\nsubmit\n```",
        "### user\n\ndiff --git a/pkg/pixels/handler.py b/pkg/pixels/handler.py\n" + _SHELL.format(open="n/a"),
    ]
)


Lists = tuple[list[str], list[str], list[str]]  # files touched, entities, errors


@pytest.fixture(scope="module")
def both(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Lists]:
    """The session's lists as a batch run's digest writes them and as ``batchsum compact --json`` does."""
    tmp = tmp_path_factory.mktemp("session")
    corpus, out = tmp / "corpus", tmp / "out"
    corpus.mkdir()
    (corpus / "session.md").write_text(SESSION, encoding="utf-8")
    res = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--no-index", "--no-metrics", "-q"])
    assert res.exit_code == 0, res.output
    meta, body = read_node(node_path(out, "session.md", 3, None))
    assert meta["agent_session"]
    shown = body.split("**Files touched:**", 1)[1].split("\n", 1)[0]
    assert shown.count("handler.py") == len(meta["files_touched"])  # the body lists what the front matter does
    res = CliRunner().invoke(main, ["compact", str(corpus / "session.md"), "--json", "--preserve-recent", "1"])
    assert res.exit_code == 0, res.output
    context = json.loads(res.stdout)["record"]["context"]
    entities = [e for e in context["domain_entities"] if e not in context["commands_run"]]
    return {
        "run": (meta["files_touched"], meta["entities"], meta["errors"]),
        "compact": (context["files_touched"], entities, context["errors"]),
    }


@pytest.mark.parametrize("where", ["run", "compact"])
def test_a_search_hit_is_no_file_touched(both: dict[str, Lists], where: str) -> None:
    files, _, _ = both[where]
    assert files == ["/repo/pkg/pixels/handler.py"]  # the other two were only listed by find_file


@pytest.mark.parametrize("where", ["run", "compact"])
def test_entities_name_a_file_once_and_no_tool_or_language_word(both: dict[str, Lists], where: str) -> None:
    _, entities, _ = both[where]
    assert "/repo/pkg/pixels/handler.py" in entities
    # A file once, by its fullest path: no entity is the end of another's path, nor a folder in one.
    paths = [e for e in entities if "/" in e or e.endswith(".py") or e == "pkg"]
    assert not [(p, q) for p in paths for q in paths if p != q and (q.endswith("/" + p) or f"/{p}/" in q)]
    assert not {"True", "submit", "find_file"} & set(entities), entities


@pytest.mark.parametrize("where", ["run", "compact"])
def test_the_tools_request_to_retry_is_no_error(both: dict[str, Lists], where: str) -> None:
    _, _, errors = both[where]
    assert "E999 SyntaxError: unmatched ')'" in errors
    assert not any("retry" in e or e.startswith("Your proposed edit") for e in errors), errors
