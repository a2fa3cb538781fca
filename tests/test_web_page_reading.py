"""Web pages read as a reader reads them: page furniture named by class or id (comments, banners, share
buttons, related links, sidebars, a wiki's edit links) left out, layout tables read as blocks, spanning cells
repeated, the site's name kept out of the title, invisible characters out of words, the page's own date
dating it, and a browser's folder of saved page files not read as documents."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main
from batchsum.walk import SourceRef, read_document

COMMENTS = "".join(
    f'<div class="comment"><p>Reader{i}: I think the ferry timetable change is wrong for us.</p>'
    f'<time datetime="2024-0{i % 9 + 1}-11">then</time></div>'
    for i in range(12)
)


def _read(tmp_path: Path, page: str, name: str = "page.html") -> tuple[str, str, str, str]:
    path = tmp_path / name
    path.write_text(page, encoding="utf-8")
    doc = read_document(SourceRef(path, name, tmp_path))
    return doc.text, doc.doc_date, doc.date_source, doc.content_type


def test_furniture_named_by_class_or_id_is_left_out(tmp_path: Path) -> None:
    page = (
        "<title>Harbour works</title><body>"
        '<div class="cookie-consent">We use cookies. Accept all</div>'
        '<div id="header-wrap"><div class="post"><p>The harbour works start in May and end in June.</p>'
        '<h2>Plan <span class="mw-editsection">[edit]</span></h2><p>The crane arrives first.</p></div>'
        '<div class="share-buttons">Share on Mastodon</div>'
        '<div class="related-articles"><p>Related: Ferry strike ends</p></div>'
        '<div class="newsletter-box"><p>Subscribe to our weekly letter</p></div>'
        '<div id="sidebar"><div class="widget">Popular this week</div></div></div>'
        f'<section id="comments">{COMMENTS}</section>'
        '<div class="navbox">Ports of the region</div><div id="catlinks">Categories: Harbours</div></body>'
    )
    text, _day, _source, ctype = _read(tmp_path, page)
    # The wrapper is named "header" but holds the article: kept, as Readability keeps it.
    assert "start in May and end in June." in text and "## Plan" in text and "crane arrives" in text, text
    for furniture in ("cookies", "[edit]", "Mastodon", "Ferry strike", "Subscribe", "Popular", "Reader", "Ports"):
        assert furniture not in text, (furniture, text)
    assert "Categories" not in text and ctype != "conversation"  # a page of comments is no conversation


def test_an_article_under_many_comments_is_still_the_page_s_text(tmp_path: Path) -> None:
    # Its words against the page's once the comments (furniture) are left out: it holds most of them.
    page = (
        "<body><div><p>Print edition: Tuesday, page four.</p></div>"
        "<article><h1>Ferry timetable</h1><p>The ferry runs twice a day from May, the council said.</p>"
        f'</article><div id="comments">{COMMENTS}</div></body>'
    )
    text, _day, _source, _ctype = _read(tmp_path, page)
    assert text.startswith("# Ferry timetable") and "twice a day" in text, text
    assert "Print edition" not in text and "Reader" not in text, text


def test_a_layout_table_is_read_as_blocks_and_a_data_table_keeps_its_spans(tmp_path: Path) -> None:
    page = (
        '<table><tr><td><a href="/">Home</a></td><td><h1>Field notes</h1><p>Lupins flowered early.</p>'
        "<p>Beans did not.</p><ul><li>Plot A</li></ul></td></tr></table>"
        "<table><caption>Yield by plot</caption><tr><th colspan=2>Plot</th><th>Yield</th></tr>"
        "<tr><td rowspan=2>North</td><td>A</td><td>2.1</td></tr><tr><td>B</td><td>1.7</td></tr></table>"
    )
    text, _day, _source, _ctype = _read(tmp_path, page)
    assert "# Field notes\n\nLupins flowered early.\n\nBeans did not.\n\n- Plot A" in text, text
    lines = text.split("\n")
    table = [ln for ln in lines if ln.startswith("|")]
    assert lines[lines.index(table[0]) - 2] == "Yield by plot", text  # the caption, a line above its table
    assert [ln.count("|") for ln in table] == [4] * 4, table  # every row as wide as the header
    assert table[0].split("|")[1:3] == [" Plot ", " Plot "] and table[3].startswith("| North | B |"), table


def test_the_site_name_is_no_title(tmp_path: Path) -> None:
    page = "<title>Budget cuts | The International Herald Tribune Online Edition</title><p>The council cut it.</p>"
    assert _read(tmp_path, page)[0].startswith("# Budget cuts\n\n"), _read(tmp_path, page)[0]
    page = "<title>Trial results 2023 — Field Station Blog</title><p>Lupins yielded well.</p>"
    assert _read(tmp_path, page)[0].startswith("# Trial results 2023\n\n"), _read(tmp_path, page)[0]
    page = "<title>Field Station Blog - Trial results 2023</title><h2>Trial results 2023</h2><p>Well.</p>"
    assert _read(tmp_path, page)[0] == "# Trial results 2023\n\nWell.", _read(tmp_path, page)[0]


def test_a_page_is_dated_by_its_own_date(tmp_path: Path) -> None:
    article = '<article><h1>Lupins</h1><p>They flowered.</p><time datetime="2023-06-14T08:00">June</time></article>'
    meta = '<meta property="article:published_time" content="2022-01-02T00:00:00Z">'
    page = f"<head>{meta}</head><body>{article}<div class='comments'>{COMMENTS}</div></body>"
    assert _read(tmp_path, page)[1:3] == ("2023-06-14", "page date")  # the article's <time> first
    page = f"<head>{meta}</head><body><p>They flowered.</p><div class='comments'>{COMMENTS}</div></body>"
    assert _read(tmp_path, page)[1:3] == ("2022-01-02", "page date")  # not a comment's <time>
    evernote = '<head><meta name="created" content="2019-08-21 14:03:22 +0000"/></head><body><div>Quotes.</div>'
    assert _read(tmp_path, evernote)[1:3] == ("2019-08-21", "page date")
    assert _read(tmp_path, "<p>No date here.</p>")[2] == "mtime"


def test_invisible_characters_and_deep_scripts_are_no_text(tmp_path: Path) -> None:
    page = "<p>Die Lebensmittel&shy;überwachung prüft Zero\u200bwidth und Join\u2060ers\ufeff.</p>"
    text = _read(tmp_path, page)[0]
    assert "Lebensmittelüberwachung" in text and "Zerowidth" in text and "Joiners." in text, text
    deep = "<div>" * 150 + "<script>var tracker = 1;</script><nav>Home Archive</nav><p>Kept words.</p>" + "</div>" * 150
    text = _read(tmp_path, deep)[0]
    assert "Kept words." in text and "tracker" not in text and "Archive" not in text, text


def test_a_saved_page_s_folder_is_skipped_and_a_script_page_says_why(tmp_path: Path) -> None:
    corpus, out = tmp_path / "c", tmp_path / "o"
    for folder in ("Article_files", "Bericht-Dateien", "Loose_files"):
        (corpus / folder).mkdir(parents=True)
        (corpus / folder / "saved_resource.html").write_text("<p>Ad frame text of the saved page.</p>")
    (corpus / "Article.html").write_text("<p>The ferry runs twice a day from May.</p>", encoding="utf-8")
    (corpus / "Bericht.htm").write_text("<p>Die Fähre fährt zweimal am Tag.</p>", encoding="utf-8")
    (corpus / "app.html").write_text("<script>" + "var a = 1;\n" * 50 + "</script>", encoding="utf-8")
    r = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    files = {f["relpath"]: f for f in data["files"]}
    assert {"Article.html", "Bericht.htm", "Loose_files/saved_resource.html"} <= set(files), files
    assert not any(rel.startswith(("Article_files", "Bericht-Dateien")) for rel in files), files
    assert "markup and scripts only" in files["app.html"]["error"], files["app.html"]
    said = json.dumps(data)
    assert "Article_files" in said and "Bericht-Dateien" in said and "Loose_files:" not in said


def test_a_span_of_no_ascii_number_spans_one_cell(tmp_path: Path) -> None:
    # "²" is a digit to str.isdigit but no number to int(): the page had been skipped as unreadable (review).
    page = (
        '<html><body><table><tr><td colspan="²">Beans</td><td>4</td></tr><tr><td>Peas</td><td>9</td></tr>'
        f'<tr><td colspan="{"9" * 5000}">Corn</td><td>2</td></tr></table></body></html>'
    )
    text, _day, _source, _type = _read(tmp_path, page)
    assert "Beans" in text and "Peas" in text and "Corn" in text
