""".html and .htm pages (saved articles, Notion/Confluence/Evernote exports) are read as Markdown: the main
content's headings, paragraphs, lists, tables, quotes and code; scripts, styles and the page's furniture left
out. Bad input skips its file with a reason, the others read."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main
from batchsum.readers.html_text import render_html
from batchsum.walk import SourceRef, read_document

ARTICLE = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Harbour survey results | The Coastal Blog</title>
<style>p { color: red }</style><script>var hidden = "<p>never shown</p>";</script></head>
<body>
<nav><ul><li><a href="/">Home</a></li><li>Archive</li></ul></nav>
<header><h1>The Coastal Blog</h1></header>
<div role="navigation">Skip to content</div>
<article>
<header><h2>Harbour survey   results</h2><p>By Marta Olsen &amp; Ben Okafor</p></header>
<p>The harbour survey found that the northern breakwater lost <b>two metres</b> of stone<br>in the winter storms.
<p>The authority decided to repair the breakwater before the autumn&nbsp;tides.</p>
<ul><li>Breakwater<ul><li>North arm</li><li>South arm</ul></li><li><p>Lighthouse</p><p>repainted</p></li></ul>
<blockquote><p>The sea always wins in the end.</p></blockquote>
<pre><code>survey --site north
  --depth 12</code></pre>
<p>Run <code>survey</code> again in May.</p>
<table><thead><tr><th>Site</th><th>Loss (m)</th></tr></thead>
<tbody><tr><td>North | arm</td><td>2.0</td></tr><tr><td>South arm<td>0.4</tbody></table>
<span aria-hidden="true">ICON</span><form><input name="q"><button>Search</button></form>
<footer>Share this article</footer>
</article>
<aside>Related posts: kayaks</aside>
<footer>Copyright 2024 The Coastal Blog</footer>
</body></html>
"""


def test_the_main_content_is_read_as_markdown() -> None:
    text = render_html(ARTICLE)
    assert text.startswith("# Harbour survey results\n\nBy Marta Olsen & Ben Okafor\n\n"), text
    assert "lost two metres of stone\nin the winter storms." in text  # whitespace collapsed, <br> a line
    assert "before the autumn tides." in text  # an implied </p>, &nbsp;
    assert "- Breakwater\n  - North arm\n  - South arm\n- Lighthouse\n  repainted" in text
    assert "> The sea always wins in the end." in text
    assert "```\nsurvey --site north\n  --depth 12\n```" in text and "Run `survey` again in May." in text
    assert "| Site | Loss (m) |\n| --- | --- |\n| North \\| arm | 2.0 |\n| South arm | 0.4 |" in text
    for furniture in ("Home", "Skip to", "never shown", "color", "ICON", "Search", "Share", "kayaks", "Copyright"):
        assert furniture not in text, furniture
    assert "Coastal Blog" not in text  # the site's name: its header and the title's " | " part


def test_title_headings_and_a_page_without_an_article() -> None:
    page = "<title>Weekly notes</title><body><h3>Monday</h3><p>We met.</p><div>Plain &lt;div&gt; text</div></body>"
    assert render_html(page) == "# Weekly notes\n\n### Monday\n\nWe met.\n\nPlain <div> text"
    with_h1 = "<title>Site name</title><main><h1>Own title</h1><p>Body.</p></main><p>outside</p>"
    teaser = "<article><p>Accept cookies?</p></article><div><p>" + "The real page text goes on. " * 5 + "</p></div>"
    assert render_html(teaser).startswith("Accept cookies?\n\nThe real page")  # a short <article> is no content
    assert render_html(with_h1) == "# Own title\n\nBody."  # <main> is the content; an <h1> needs no title
    assert render_html("<html><head><title>Only a title</title></head><body> </body></html>") == ""
    assert render_html("<script>alert(1)</script><style>x{}</style>") == ""
    deep = "<div>" * 5000 + "deep text" + "</div>" * 5000
    assert render_html(deep) == "deep text"  # no recursion past Python's limit


def test_end_tags_html_leaves_out_are_implied_as_a_browser_implies_them() -> None:
    page = "<ul><li><p>One<li>Two<ul><li>Two a<li>Two b</ul><li>Three</ul><p>After<div>Block</div>"
    assert render_html(page) == "- One\n- Two\n  - Two a\n  - Two b\n- Three\n\nAfter\n\nBlock"
    table = "<table><tr><th>A<th>B<tr><td>1<td>2<tr><td>3<td>4</table><svg><title>icon</title></svg>"
    assert render_html(f"<title>Page</title>{table}") == "# Page\n\n| A | B |\n| --- | --- |\n| 1 | 2 |\n| 3 | 4 |"


def test_a_layout_table_of_one_column_is_read_as_paragraphs() -> None:
    page = "<table><tr><td><p>First block.</p></td></tr><tr><td>Second block.</td></tr></table>"
    assert render_html(page) == "First block.\n\nSecond block."


def test_pages_are_summarized_and_searched_and_bad_ones_skipped(tmp_path: Path) -> None:
    corpus, out = tmp_path / "c", tmp_path / "o"
    corpus.mkdir()
    (corpus / "survey.html").write_text(ARTICLE, encoding="utf-8")
    (corpus / "export.htm").write_text("<p>The lighthouse keeper logs the ferry times.</p>", encoding="utf-8")
    (corpus / "blob.html").write_bytes(b"\x00\x01\xff\xfe" * 100)  # wrong bytes for the extension
    (corpus / "empty.html").write_bytes(b"")
    (corpus / "only-script.html").write_text("<script>var a = 1;</script>", encoding="utf-8")
    plan = CliRunner().invoke(main, ["plan", str(corpus), "--out", str(out)])
    assert "+ survey.html" in plan.stdout and "passed over" not in plan.output, plan.output
    r = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--json"])
    data = json.loads(r.stdout)
    assert r.exit_code == 1, r.output
    reasons = {Path(p["path"]).name: p["reason"] for p in data["problems"]}
    assert "binary" in reasons["blob.html"]
    skipped = {f["relpath"]: f["error"] for f in data["files"] if f["status"] == "skipped"}
    assert skipped["empty.html"].startswith("empty file") and skipped["only-script.html"].startswith("no text")
    assert {f["relpath"] for f in data["files"] if f["status"] == "done"} == {"survey.html", "export.htm"}
    final = (out / "survey.html" / "summaries" / "L3" / "final.md").read_text(encoding="utf-8")
    assert "breakwater" in final and "var hidden" not in final and "<p>" not in final
    kept = (out / "export.htm" / "summaries" / "L3" / "final.md").read_text(encoding="utf-8")
    assert "The lighthouse keeper logs the ferry times." in kept and "<p>" not in kept  # kept whole, as text
    found = CliRunner().invoke(main, ["search", "breakwater storms", "--out", str(out), "--json"])
    assert found.exit_code == 0, found.output
    assert json.loads(found.output)[0]["doc_id"] == "survey.html"


def test_read_document_gives_the_rendered_text(tmp_path: Path) -> None:
    path = tmp_path / "page.HTM"
    path.write_text("<h1>Plan</h1><ol><li>Draft</li><li>Review</li></ol>", encoding="utf-8")
    doc = read_document(SourceRef(path, path.name, tmp_path))
    assert doc.text == "# Plan\n\n- Draft\n- Review"
