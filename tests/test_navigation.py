"""Links between levels and to the source, and the root index (pure rendering; runs are tested in test_tree)."""

from __future__ import annotations

from pathlib import Path

from batchsum.navigation import (
    IndexRow,
    PeriodPage,
    escape_html,
    escape_text,
    links_block,
    render_index,
    strip_links,
    title_for,
    with_links,
)


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


def test_index_by_period_counts_in_words_that_agree() -> None:
    one = [IndexRow("j/2026-03-01.md", "journal", "BRIEF", "2026-03-01", 300, 60, "A walk.", "month:2026-03")]
    pages = {
        "month:2026-03": PeriodPage("month:2026-03", "March 2026", "digests/2026/2026-03.md", "A walk."),
        "year:2026": PeriodPage("year:2026", "2026", "digests/2026.md", ""),
    }
    text = render_index(one, periods=pages, generated_at="2026-11-22T00:00:00Z")
    assert "1 file; 1 month over 1 year. Year digests: [2026](<digests/2026.md>)" in text
    assert "### March 2026 (1 file)" in text
    many = [
        IndexRow(f"j/{d}.md", "journal", "BRIEF", d, 300, 60, "A walk.", f"month:{d[:7]}")
        for d in ("2025-12-31", "2026-03-01", "2026-03-02")
    ]
    text = render_index(many, periods=pages, generated_at="2026-11-22T00:00:00Z")
    assert "3 files; 2 months over 2 years." in text and "### March 2026 (2 files)" in text


def _run(args: list[str]) -> None:
    from click.testing import CliRunner

    from batchsum.cli import main

    res = CliRunner().invoke(main, args, catch_exceptions=False)
    assert res.exit_code == 0, res.output


def test_a_run_writes_a_navigable_tree_readable_by_others(tmp_path: Path) -> None:
    import os
    import re
    import stat

    from batchsum.tree import parse_markdown, read_node
    from tests.conftest import SAMPLE_CORPUS

    out = tmp_path / "out"
    old = os.umask(0o022)
    try:
        _run(["run", str(SAMPLE_CORPUS), "--out", str(out), "--no-index", "--quiet"])
    finally:
        os.umask(old)
    finals = sorted(out.rglob("summaries/L3/final.md"))
    assert finals
    for final in [*finals, out / "index.md"]:
        assert stat.S_IMODE(final.stat().st_mode) == 0o644, final
    # Every relative link of every node file resolves to an existing file.
    nodes = [p for p in out.rglob("summaries/L*/*.md")]
    for node in nodes:
        text = node.read_text(encoding="utf-8")
        meta, body = parse_markdown(text)
        assert meta["title"] and meta["title"] != "final"
        links = re.findall(r"\]\(<([^>]+)>\)", body)
        assert any(link.endswith(meta["source_path"].rsplit("/", 1)[-1]) for link in links), node
        for link in links:
            assert (node.parent / link).resolve().is_file(), (node, link)
        assert "batchsum:links" not in read_node(node)[1]  # readers get the summary text alone
    # Where each date came from: a file name is a real date, a copy time is not (search's recency uses it).
    journal_meta, _ = read_node(out / "journal" / "2026-10-05.md" / "summaries" / "L3" / "final.md")
    memo_meta, _ = read_node(out / "docs" / "battery-field-study-memo.md" / "summaries" / "L3" / "final.md")
    assert journal_meta["date_source"] == "name" and memo_meta["date_source"] == "mtime"
    logbook = out / "logbook" / "harbor-logbook-2025-2026.md" / "summaries"
    final_body = (logbook / "L3" / "final.md").read_text(encoding="utf-8")
    assert "(<../L2/group_0.md>)" in final_body
    assert "Up: [group 0](<../L2/group_0.md>)" in (logbook / "L1" / "chunk_0.md").read_text(encoding="utf-8")
    # The root index lists every final once, with a working link.
    index = (out / "index.md").read_text(encoding="utf-8")
    linked = re.findall(r"\]\(<([^>]+)>\)", index)
    assert sorted(out / link for link in linked if link.endswith("/final.md")) == finals
    # ... and every month, year and folder digest, whose own links all resolve too.
    digests = sorted((out / "digests").rglob("*.md"))
    assert {out / link for link in linked if not link.endswith("/final.md")} == set(digests)
    for digest in digests:
        for link in re.findall(r"\]\(<([^>]+)>\)", digest.read_text(encoding="utf-8")):
            assert (digest.parent / link).resolve().is_file(), (digest, link)
    # A re-run with nothing changed leaves the index page alone.
    before = (out / "index.md").stat().st_mtime_ns
    _run(["run", str(SAMPLE_CORPUS), "--out", str(out), "--no-index", "--quiet"])
    assert (out / "index.md").stat().st_mtime_ns == before


def test_the_index_embeds_a_final_without_its_extracted_sections(tmp_path: Path) -> None:
    """Facets picked by rules are shown to the reader but not embedded: names and action items pull
    unrelated queries towards the final."""
    from click.testing import CliRunner

    from batchsum.cli import main
    from batchsum.index.records import doc_nodes
    from batchsum.navigation import summary_only
    from batchsum.tree import node_path, read_node

    corpus = tmp_path / "in"
    corpus.mkdir()
    (corpus / "standup.txt").write_text(
        "Ana: I'll send the calibration report by Friday, then we can close the ticket.\n"
        "Ben: We decided to ship the new firmware on Monday after the field test.\n"
        "Cleo: Should we also update the dashboard colours before the release?\n"
        "Ana: The open question is still whether the old buoys can take the update.\n" * 3
    )
    out = tmp_path / "out"
    res = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--no-index", "--no-metrics", "-q"])
    assert res.exit_code == 0, res.output
    _, body = read_node(node_path(out, "standup.txt", 3, None))
    assert "## Facets (extracted)" in body
    final = next(n for n in doc_nodes(out, "standup.txt") if n.id.endswith(":L3:final"))
    assert final.body == summary_only(body) and final.body.strip()
    assert "Facets" not in final.body and body.startswith(final.body)


def test_prose_in_a_page_escapes_only_what_would_be_html() -> None:
    # "D&D" and "a < b" read the same raw and rendered; a tag, a comment and an entity are shown, not acted on.
    assert escape_html("D&D and a < b, x -> y") == "D&D and a < b, x -> y"
    assert escape_html("<b>bold</b> <!-- hide") == "&lt;b>bold&lt;/b> &lt;!-- hide"
    assert escape_html("Tom &amp; Jerry &#39;") == "Tom &amp;amp; Jerry &amp;#39;"


def test_a_name_keeps_the_underscores_inside_its_words() -> None:
    # CommonMark starts no emphasis inside a word: "val_Bed002" stays readable; at a word's edge it is escaped.
    assert escape_text("val_Bed002 crypto__eps.md") == "val_Bed002 crypto__eps.md"
    assert escape_text("__init__.py _x a*b*c") == "\\_\\_init\\_\\_.py \\_x a\\*b\\*c"
