"""Links between levels and to the source, and the root index (pure rendering; runs are tested in test_tree)."""

from __future__ import annotations

from pathlib import Path

from batchsum.navigation import IndexRow, links_block, render_index, strip_links, title_for, with_links


def test_final_links_down_and_to_the_source(tmp_path: Path) -> None:
    source = tmp_path / "corpus" / "log book.md"
    node_dir = tmp_path / "out" / "log book.md" / "summaries" / "L3"
    block = links_block(level=3, index=None, source=source, node_dir=node_dir, parent=None, children=[(2, 0), (2, 1)])
    assert "[group 0](<../L2/group_0.md>)" in block and "[group 1](<../L2/group_1.md>)" in block
    assert "[log book.md](<../../../../corpus/log book.md>)" in block
    assert (node_dir / "../../../../corpus/log book.md").resolve() == source.resolve()
    body = with_links("The summary.", block)
    assert strip_links(body) == "The summary."
    assert strip_links("No links here.") == "No links here."


def test_chunk_links_up_to_its_group() -> None:
    block = links_block(level=1, index=7, source=None, node_dir=Path("x"), parent=(2, 1), children=[])
    assert block.splitlines()[1] == "Up: [group 1](<../L2/group_1.md>)"
    assert links_block(level=3, index=None, source=None, node_dir=Path("x"), parent=None, children=[]) == ""


def test_index_groups_by_type_newest_first() -> None:
    rows = [
        IndexRow("journal/2026-01-02.md", "journal", "BRIEF", "2026-01-02", 300, 60),
        IndexRow("journal/2026-03-01.md", "journal", "STANDARD", "2026-03-01", 900, 110),
        IndexRow("journal/undated.md", "journal", "NONE", None, 40, 40),
        IndexRow("meetings/standup.vtt", "conversation", "DETAILED", "2026-02-02", 5000, 350),
    ]
    text = render_index(rows, generated_at="2026-11-22T00:00:00Z")
    lines = [line for line in text.splitlines() if line.startswith("- ")]
    assert [line.split("](")[0] for line in lines] == [
        "- [meetings/standup.vtt",
        "- [journal/2026-03-01.md",
        "- [journal/2026-01-02.md",
        "- [journal/undated.md",
    ]
    assert "## Journal (3)" in text and "## Conversation (1)" in text
    assert "(<journal/2026-03-01.md/summaries/L3/final.md>)" in text
    assert "kept whole" in lines[-1]
    assert title_for("journal/2026-03-01.md") == "2026-03-01" and title_for("notes/README") == "README"
