"""``batchsum facts`` names its sources as ``run`` does: a path inside a folder the output was built from
keeps the name (and so the scope) the whole folder gave it, so facts land beside the file's summaries
and a later pass over the folder finds them done instead of extracting them a second time."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main
from batchsum.memory.files import iter_facts
from tests.fakeserver import FakeLLMServer
from tests.test_facts import facts_cli, facts_json

CALL = "Ana: I moved to Lisbon last month.\nBen: How is the new flat?\nAna: Small, but I love the light.\n" * 2
CHAT = "Ana: My sister Eva starts at the bakery on Monday.\nBen: Good news!\nAna: She is thrilled.\n" * 2
LISBON = "The user moved to Lisbon."


def _corpus(tmp_path: Path) -> Path:
    src = tmp_path / "research"
    (src / "interviews").mkdir(parents=True)
    (src / "tickets").mkdir()
    (src / "interviews" / "call.txt").write_text(CALL, encoding="utf-8")
    (src / "tickets" / "chat.txt").write_text(CHAT, encoding="utf-8")
    return src


def _facts_at(out: Path) -> list[tuple[str, str]]:
    """(scope folder under ``out``, source path) of every live fact."""
    return sorted(
        (str(f.path.parent.parent.relative_to(out)) if f.path else "", f.source_path) for f in iter_facts(out)
    )


def test_facts_on_files_of_a_summarized_folder_keep_the_folders_names(fake_llm: FakeLLMServer, tmp_path: Path) -> None:
    src, out = _corpus(tmp_path), tmp_path / "out"
    fake_llm.configure(rules=[{"match": "The conversation turns:", "content": facts_json(LISBON)}])
    ran = CliRunner().invoke(main, ["run", str(src), "--out", str(out)], catch_exceptions=False)
    assert ran.exit_code == 0, ran.output
    assert (out / "interviews" / "call.txt").is_dir()

    two = facts_cli(
        src / "interviews" / "call.txt", src / "tickets" / "chat.txt", "--out", out, base_url=fake_llm.base_url
    )
    assert two.exit_code == 0, two.output
    expected = [("interviews/call.txt", "interviews/call.txt"), ("tickets/chat.txt", "tickets/chat.txt")]
    assert _facts_at(out) == expected
    assert "call.txt/call.txt" not in two.output and not (out / "call.txt").exists()

    # The whole folder afterwards: both files are done, nothing is extracted twice.
    fake_llm.configure(reset_log=True)
    whole = facts_cli(src, "--out", out, base_url=fake_llm.base_url)
    assert whole.exit_code == 0, whole.output
    assert fake_llm.request_count == 0
    assert _facts_at(out) == expected


def test_facts_on_a_file_after_facts_on_its_folder_finds_it_done(fake_llm: FakeLLMServer, tmp_path: Path) -> None:
    src, out = _corpus(tmp_path), tmp_path / "out"
    fake_llm.configure(rules=[{"match": "The conversation turns:", "content": facts_json(LISBON)}])
    assert facts_cli(src, "--out", out, base_url=fake_llm.base_url).exit_code == 0
    before = _facts_at(out)
    assert ("interviews/call.txt", "interviews/call.txt") in before

    fake_llm.configure(reset_log=True)
    again = facts_cli(src / "interviews" / "call.txt", "--out", out, base_url=fake_llm.base_url)
    assert again.exit_code == 0, again.output
    assert fake_llm.request_count == 0
    assert _facts_at(out) == before


def test_a_missing_path_inside_a_folder_facts_were_built_from_is_an_error(
    fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    """A mistyped file name inside a folder the output knows: `path does not exist` and exit 2, as `run`
    says, not an empty pass that exits 0 ("0 files") and leaves a nightly job none the wiser."""
    src, out = _corpus(tmp_path), tmp_path / "out"
    fake_llm.configure(rules=[{"match": "I moved to Lisbon", "content": facts_json(LISBON)},
                              {"match": "My sister Eva", "content": facts_json()}])  # fmt: skip
    first = facts_cli(src, "--out", out, base_url=fake_llm.base_url)
    assert first.exit_code == 0, first.output
    missing = src / "interviews" / "cal.txt"
    res = facts_cli(missing, "--out", out, base_url=fake_llm.base_url)
    assert res.exit_code == 2 and f"path does not exist: {missing}" in res.output, res.output
