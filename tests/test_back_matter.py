"""A book's back matter (its index, the Project Gutenberg closing line, a publisher's catalogue, transcriber's
notes) is never a summary sentence: a chunk or a short file of nothing else gets an empty summary, which the
level above passes over, not its lines as one."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from batchsum.backends.extractive import summarize_text
from batchsum.backends.noise import is_back_matter, is_boilerplate
from batchsum.backends.units import units_from_text
from batchsum.cli import main
from batchsum.tokens import get_tokenizer
from batchsum.tree import read_node
from tests.one_final import final_node

_INDEX = "\n".join(
    f"   {name}, {a}, {a + 7}, {a + 19}"
    for name, a in [
        ("Abbotsford", 12),
        ("Acland, Sir Thomas", 31),
        ("Bacon, Francis", 44),
        ("Balzac", 58),
        ("Browning", 63),
        ("Carlyle, Thomas", 77),
        ("Darwin, Charles", 81),
        ("Dickens", 95),
        ("Emerson", 102),
        ("Flaubert", 117),
    ]
)
_CLOSING = "End of the Project Gutenberg EBook of The Harbour Diary, by\nMartin Ellery"
_PAGE_REFS = re.compile(r",\s\d{1,3},\s\d{1,3}")


def test_a_file_of_an_index_and_the_closing_line_has_no_summary(tmp_path: Path) -> None:
    """The tail of a Gutenberg book (its index, then its closing line) had been summarized as that closing line."""
    text = "INDEX\n\n" + _INDEX + "\n\n   Zola, 17\n\n\n\n" + _CLOSING + "\n"
    _, body = final_node(tmp_path, "tail.txt", text)
    assert "Gutenberg" not in body, body
    assert not _PAGE_REFS.search(body), body


def test_chunks_of_back_matter_give_no_summary_and_the_final_quotes_the_story(tmp_path: Path) -> None:
    """A book's last chunks, its index and closing line alone, had their entries as their summaries, and so
    had the final."""
    story = [
        f"On day {d} the fishing boat {boat} left the harbour before dawn and came back with {n} crates of herring."
        for d, boat, n in [(1, "Marlin", 12), (2, "Osprey", 9), (3, "Gannet", 15), (4, "Puffin", 7)]
    ]
    story += [
        "The harbour master closed the quay for repairs after the storm broke the northern wall.",
        "Everyone in the village helped carry stones to rebuild the wall before the winter tides came.",
    ] * 3
    text = "\n\n".join(story) + "\n\nINDEX\n\n" + _INDEX + "\n\n" + _INDEX.replace("   ", "   Old ") + "\n\n"
    text += _CLOSING + "\n"
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    (src / "book.txt").write_text(text, encoding="utf-8")
    args = ["run", str(src), "--out", str(out), "--no-index", "-q", "--chunk-size", "120", "--chunk-overlap", "0"]
    args += ["--thresholds", "10,20,40,100000"]
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 0, r.output
    chunks = sorted((out / "book.txt" / "summaries" / "L1").glob("chunk_*.md"))
    assert len(chunks) >= 3
    for chunk in chunks:
        _, body = read_node(chunk)
        said = body.split("<!-- batchsum:links -->")[0]
        assert not _PAGE_REFS.search(said) and "Gutenberg" not in said, (chunk.name, said)
    _, final = read_node(out / "book.txt" / "summaries" / "L3" / "final.md")
    assert "harbour" in final, final
    assert not _PAGE_REFS.search(final) and "Gutenberg" not in final, final


def test_a_publishers_catalogue_is_no_candidate() -> None:
    """A catalogue's lines at a book's end ("6 vols. By J. T. TROWBRIDGE $7.25.") had been a chunk's summary."""
    text = (
        "LUCK AND PLUCK SERIES—Second Series. Victor Vane, or the Young Secretary.\n\n"
        "6 vols. By J. T. TROWBRIDGE $7.25.\n\n"
        "All books in this series are 12mo, cloth, $1.25 each, with eight full page illustrations.\n\n"
        "The boys spent the whole summer building a raft to cross the river behind the mill.\n"
    )
    picked = [u.text for u in units_from_text(text, "document") if u.candidate]
    assert not any(re.search(r"SERIES|vols\.|12mo", sent) for sent in picked), picked
    assert "The boys spent the whole summer building a raft to cross the river behind the mill." in picked, picked


_TODO = (
    "# Todo\n\nRenew the license for the office accounting software before the end of March, or the invoices stop."
    " Ask Maria whether the copyright notice on the website needs the new company name too."
)


def test_a_note_that_names_a_licence_keeps_its_summary(tmp_path: Path) -> None:
    """A note whose sentences name a licence or a copyright (boilerplate words, so no candidates) is no back
    matter: its summary is one of its sentences, as it was before the back-matter rule, not empty."""
    _, body = final_node(tmp_path, "todo.md", _TODO, "--thresholds", "10,20,40,100000")
    assert "Maria" in body or "license" in body, body
    cut = summarize_text(
        _TODO, target_tokens=12, max_tokens=12, kind="standard", content_type="document", tokenizer=get_tokenizer()
    )
    assert cut.startswith(("Renew the license", "Ask Maria")), cut


def test_a_catalogue_word_alone_is_prose(tmp_path: Path) -> None:
    """A format, a set's volumes, a price or "SERIES" alone is everyday prose: only a catalogue's shape (a format or
    volumes with a price, a series' name in capitals opening its line) is boilerplate."""
    prose = [
        "We have 18mo of runway left after the seed round closes.",
        "The 12mo plan costs less than monthly billing.",
        "We watched the NBA SERIES final at the bar with the whole team.",
        "Cloth, $5 a yard at the market was the cheapest we found.",
        "Sold 3 vols. of the encyclopedia.",
    ]
    assert not [s for s in prose if is_boilerplate(s, advert=False)]
    catalogue = ["6 vols. By J. T. TROWBRIDGE $7.25.", "12mo. Cloth, $1.25", "LUCK AND PLUCK SERIES—Second Series."]
    assert all(is_boilerplate(s, advert=False) for s in catalogue)
    _, body = final_node(tmp_path, "board.md", "# Board update\n\nWe have 18mo of runway at the current burn.\n")
    assert "runway" in body, body


def test_a_long_price_list_without_a_set_is_no_back_matter() -> None:
    """Price and set are two searches: one pattern with a look-ahead for the price backtracked from every
    position of a long line (a 63 KB price list took 14 s to summarize)."""
    prices = " ".join(f"${i % 97 + 1} item{i}" for i in range(20000))
    assert not is_back_matter(prices)
    assert is_back_matter(prices + " 6 vols. in a box")
