"""Where digest pages and the index page go when names collide or do not fit: a folder name too long for a
digest file gets a digest under a name cut to fit (stable from night to night); one page that cannot be
written costs that page alone, with a warning naming it; sources that own both the usual and the
alternative names of the index page and of the digests folder get the next free index name and no
digest written into a source's tree (all three had stopped every digest, or the index page, with a raw
Errno and exit 0)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main
from batchsum.tree import read_node

LONG = "会议记录" * 20  # 240 bytes: the folder fits, ".<name>.md.<pid>.<n>.tmp" beside its digest does not
DAY = "Went to the market today. Bought bread and cheese. It rained all afternoon.\n"
NOTE = "We met about the budget. The budget was approved after a long debate. Alice will send the figures.\n"


def _run(corpus: Path, out: Path) -> dict:
    r = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--no-index", "--json"])
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


def _index_links(out: Path, page: str = "index.md") -> list[str]:
    text = (out / page).read_text(encoding="utf-8")
    return re.findall(r"\]\(<([^>]+)>\)", text)


def test_a_folder_name_too_long_for_its_digest_costs_no_digest(tmp_path: Path) -> None:
    for name in (LONG, "n" * 254):
        corpus, out = tmp_path / f"c{len(name)}", tmp_path / f"o{len(name)}"
        (corpus / name).mkdir(parents=True)
        (corpus / name / "notes.md").write_text(NOTE, encoding="utf-8")
        (corpus / "2024-03-05.md").write_text(DAY, encoding="utf-8")
        data = _run(corpus, out)
        assert not any("digests not updated" in w or "Errno" in w for w in data["warnings"]), data["warnings"]
        assert (out / "digests" / "2024" / "2024-03.md").is_file()
        (page,) = (out / "digests" / "folders").glob("*.md")
        assert len(os.fsencode(page.name)) <= 255 - 40 and page.name.startswith(name[:20])
        assert read_node(page)[0]["period"] == name  # the whole name, in its front matter
        # index.md links to the page written, under its cut name.
        assert f"digests/folders/{page.name}" in _index_links(out)
        # The next night, with that folder changed, writes the same page under the same name.
        (corpus / name / "more.md").write_text("The figures came on Friday. They were fine.\n", encoding="utf-8")
        _run(corpus, out)
        assert list((out / "digests" / "folders").glob("*.md")) == [page]
        assert read_node(page)[0]["files"] == 2


def test_one_digest_page_that_cannot_be_written_costs_that_page_alone(tmp_path: Path) -> None:
    # Folder "x"'s digest is the file digests/folders/x.md; folder "x.md/sub"'s would be inside it.
    corpus, out = tmp_path / "c", tmp_path / "o"
    (corpus / "x").mkdir(parents=True)
    (corpus / "x.md" / "sub").mkdir(parents=True)
    (corpus / "x" / "a.md").write_text("A note about apples. Apples are red and sweet.\n", encoding="utf-8")
    (corpus / "x.md" / "sub" / "b.md").write_text("A note about pears. Pears are green.\n", encoding="utf-8")
    (corpus / "2024-03-05.md").write_text(DAY, encoding="utf-8")
    warnings = _run(corpus, out)["warnings"]
    assert not any("digests not updated" in w for w in warnings), warnings
    assert any("folder 'x.md/sub'" in w and "not written" in w for w in warnings), warnings
    assert (out / "digests" / "2024" / "2024-03.md").is_file() and (out / "digests" / "2024.md").is_file()
    assert read_node(out / "digests" / "folders" / "x.md")[0]["period"] == "x"


def test_sources_owning_both_names_get_the_next_index_name_and_no_digest_in_their_trees(tmp_path: Path) -> None:
    corpus, out = tmp_path / "c", tmp_path / "o"
    for rel, text in {
        "index.md": "Index notes: the first page lists what we did.\n",
        "batchsum-index.md": "Other index notes: they list more of it.\n",
        "digests/book.md": "Digest of a book I read. It was long and I liked it.\n",
        "batchsum-digests/food.md": "Another digest note, about food. Tasty.\n",
        "2024-03-05.md": DAY,
    }.items():
        (corpus / rel).parent.mkdir(parents=True, exist_ok=True)
        (corpus / rel).write_text(text, encoding="utf-8")
    warnings = _run(corpus, out)["warnings"]
    assert not any("Errno" in w or "index page not written" in w for w in warnings), warnings
    assert any(str(out / "digests") in w and str(out / "batchsum-digests") in w for w in warnings), warnings
    # The index page under the next free name, listing every source; the sources' trees as they were.
    links = _index_links(out, "batchsum-index-2.md")
    assert "batchsum-index.md/summaries/L3/final.md" in links and "2024-03-05.md/summaries/L3/final.md" in links
    assert (out / "index.md").is_dir() and (out / "batchsum-index.md").is_dir()
    for folder in ("digests", "batchsum-digests"):
        pages = [p for p in (out / folder).rglob("*.md") if p.is_file() and "summaries" not in p.parts]
        assert not pages, pages
