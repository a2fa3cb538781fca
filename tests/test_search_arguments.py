"""The library takes what the command takes (``since="2024-03"``, ``type=``, ``path=``) and refuses a bad
argument with ConfigError; ``--path`` is read relative to the corpus root however it is written; a hit's
``summary_path`` does not depend on how ``--out`` was spelled."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import batchsum
from batchsum.cli import main

NOTES = {
    "notes/2024-01-10.md": "# Wednesday\n\nThe budget for the boiler repair was agreed with the landlord.\n",
    "notes/2024-04-02.md": "# Tuesday\n\nThe quarterly budget review moved to Thursday afternoon.\n",
    "letters/2024-05-06.md": "# Monday\n\nDear Ana, the budget for the garden fence is settled at last.\n",
}


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("arguments")
    for rel, text in NOTES.items():
        (base / "corpus" / rel).parent.mkdir(parents=True, exist_ok=True)
        (base / "corpus" / rel).write_text(text, encoding="utf-8")
    res = CliRunner().invoke(main, ["run", str(base / "corpus"), "--out", str(base / "out"), "--quiet"])
    assert res.exit_code == 0, res.output
    return base / "corpus", base / "out"


def _sources(hits: list[Any]) -> set[str]:
    return {h.source_path if hasattr(h, "source_path") else h["source_path"] for h in hits}


def _cli(args: list[str]) -> tuple[int, str]:
    res = CliRunner().invoke(main, ["search", "budget", *args], catch_exceptions=False)
    return res.exit_code, res.output


def test_the_library_takes_the_commands_option_names_and_forms(folders: tuple[Path, Path]) -> None:
    _, out = folders
    cli = {json.dumps(h["node_id"]) for h in json.loads(_cli(["-o", str(out), "--since", "2024-03", "--json"])[1])}
    hits = batchsum.search(str(out), "budget", since="2024-03")
    assert {json.dumps(h.node_id) for h in hits} == cli
    # The year's digest summarizes entries of April and May: it passes --since 2024-03 with them.
    assert _sources(hits) - {"digests/2024.md"} == {"notes/2024-04-02.md", "letters/2024-05-06.md"}
    assert _sources(batchsum.search(out, "budget", since=2024)) == _sources(batchsum.search(out, "budget"))
    by_path = batchsum.search(out, "budget", path="notes/*")
    assert _sources(by_path) == _sources(batchsum.search(out, "budget", path_glob="notes/*"))
    assert _sources(by_path) == {"notes/2024-01-10.md", "notes/2024-04-02.md"}
    assert _sources(batchsum.search(out, "budget", type="journal")) == _sources(
        batchsum.search(out, "budget", content_type="journal")
    )


@pytest.mark.parametrize(
    ("kwargs", "named"),
    [({"k": "3"}, "k="), ({"since": "soon"}, "since "), ({"type": 3}, "type="), ({"k": 0}, "k="),
     ({"type": "journal", "content_type": "document"}, "give one of them"), ({"path": 5}, "path=")],
)  # fmt: skip
def test_a_bad_search_argument_is_a_config_error(
    folders: tuple[Path, Path], kwargs: dict[str, Any], named: str
) -> None:
    with pytest.raises(batchsum.ConfigError, match=named):
        batchsum.search(folders[1], "budget", **kwargs)


def test_report_and_plan_refuse_bad_arguments_with_config_errors(folders: tuple[Path, Path]) -> None:
    corpus, out = folders
    assert batchsum.report(out, type="journal", price="0.15,0.60").cost is not None
    for kwargs in ({"last": "3"}, {"price": "cheap"}, {"price_per_1k": "x"}):
        with pytest.raises(batchsum.ConfigError):
            batchsum.report(out, **kwargs)
    with pytest.raises(batchsum.ConfigError, match="chunk_size=-1"):
        batchsum.plan(corpus, out=out, chunk_size=-1)


@pytest.mark.parametrize("spelled", ["./notes/*", "{corpus}/notes/*", "{corpus}/notes/", "././notes/*"])
def test_a_path_filter_is_read_relative_to_the_corpus_root(folders: tuple[Path, Path], spelled: str) -> None:
    corpus, out = folders
    want = json.loads(_cli(["-o", str(out), "--path", "notes/*", "--json"])[1])
    code, got = _cli(["-o", str(out), "--path", spelled.format(corpus=corpus), "--json"])
    assert code == 0 and len(want) == 2 and json.loads(got) == want
    assert _sources(batchsum.search(out, "budget", path=spelled.format(corpus=corpus))) == _sources(want)


@pytest.mark.parametrize("spelled", ["corpus/notes/*", "corpus/notes/", "../{name}/corpus/notes/*"])
def test_a_path_filter_written_from_the_working_folder_finds_its_sources(
    folders: tuple[Path, Path], spelled: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--path corpus/notes/*`` typed where ``batchsum run corpus`` was run had matched nothing."""
    corpus, out = folders
    want = json.loads(_cli(["-o", str(out), "--path", "notes/*", "--json"])[1])
    monkeypatch.chdir(corpus.parent)
    code, got = _cli(["-o", str(out), "--path", spelled.format(name=corpus.parent.name), "--json"])
    assert code == 0 and len(want) == 2 and json.loads(got) == want, got
    assert _sources(batchsum.search(out, "budget", path=spelled.format(name=corpus.parent.name))) == _sources(want)
    # A folder of the corpus here, as the run's paths name it, is read as written.
    monkeypatch.chdir(corpus)
    assert json.loads(_cli(["-o", str(out), "--path", "notes/*", "--json"])[1]) == want


def test_a_path_filter_matching_no_source_says_paths_are_relative_to_the_root(folders: tuple[Path, Path]) -> None:
    corpus, out = folders
    code, output = _cli(["-o", str(out), "--path", "/elsewhere/notes/*"])
    assert code == 0 and "relative to the corpus root" in output and str(corpus) in output
    assert any(rel in output for rel in NOTES), output  # one example of a path that works


def test_summary_path_is_the_same_however_out_is_spelled(
    folders: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, out = folders
    seen = set()
    for cwd, spelled in ((out.parent, "out"), (out.parent, str(out)), (out, "."), (out / "notes", "..")):
        monkeypatch.chdir(cwd)
        hits = json.loads(_cli(["-o", spelled, "-k", "1", "--json"])[1])
        seen.add(hits[0]["summary_path"])
        assert batchsum.search(spelled, "budget", k=1)[0].summary_path == Path(hits[0]["summary_path"])
    assert len(seen) == 1
    path = Path(seen.pop())
    assert (
        path.is_absolute() and path.is_file() and ".." not in path.parts and os.path.commonpath([path, out]) == str(out)
    )


def test_limit_is_the_long_name_of_k(folders: tuple[Path, Path]) -> None:
    _, out = folders
    code, text = _cli(["-o", str(out), "--limit", "1", "--json"])
    assert code == 0, text
    by_k = json.loads(_cli(["-o", str(out), "-k", "1", "--json"])[1])
    assert len(json.loads(text)) == 1
    assert [h["node_id"] for h in json.loads(text)] == [h["node_id"] for h in by_k]


def test_the_advice_for_a_collection_with_spaces_quotes_it_so_it_can_be_pasted(folders: tuple[Path, Path]) -> None:
    _, out = folders
    res = CliRunner().invoke(main, ["search", "budget", "-o", str(out), "--collection", "bad name!"])
    assert res.exit_code != 0
    assert "--collection 'bad name!'`" in res.output, res.output
