"""A LaTeX source's ``\\input`` and ``\\include`` files are read in their place, looked up from the main file's
folder, bounded and cycle-safe: the main file's summary covers the whole paper, a missing included file is a
warning naming both files and the rest is read, and each included file is still summarized on its own."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main
from batchsum.readers.latex_source import MAX_INPUT_DEPTH
from batchsum.tree import node_path, read_node
from batchsum.walk import SourceRef, read_document

MAIN = r"""\documentclass{article}
\input{macros}
\title{Tidal Power in Narrow Straits}
\begin{document}
\maketitle
\input{sections/intro}
\include{sections/results}
\input{sections/missing}
\input{figures/plot.pgf}
\section{Conclusion}
Tidal turbines in narrow straits give steady power at a known cost.
\end{document}
"""
INTRO = r"""\section{Introduction}
We measure how much power \ours{} turbines draw from the tide in three narrow straits.
\input{sections/site}
"""


def _paper(folder: Path) -> None:
    (folder / "sections").mkdir(parents=True)
    (folder / "main.tex").write_text(MAIN, encoding="utf-8")
    (folder / "macros.tex").write_text("\\newcommand{\\ours}{TideMill}\n", encoding="utf-8")
    (folder / "sections" / "intro.tex").write_text(INTRO, encoding="utf-8")
    # Nested: named from the main file's folder, as LaTeX looks it up.
    (folder / "sections" / "site.tex").write_text("The straits lie between islands of granite.\n", encoding="utf-8")
    (folder / "sections" / "results.tex").write_text(
        "\\section{Results}\nThe turbines gave 4.2 megawatts on average over a year of tides.\n", encoding="utf-8"
    )


def test_a_papers_included_files_are_read_in_its_place(tmp_path: Path) -> None:
    corpus, out = tmp_path / "c", tmp_path / "o"
    _paper(corpus)
    r = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--no-index", "--json"])
    data = json.loads(r.stdout)
    assert r.exit_code == 0, r.output
    doc = read_document(SourceRef(corpus / "main.tex", "main.tex", corpus))
    for part in ("TideMill turbines draw", "islands of granite", "## Results", "4.2 megawatts", "## Conclusion"):
        assert part in doc.text, doc.text
    assert "\\input" not in doc.text and "plot.pgf" not in doc.text
    # The missing file is a warning naming both files; a picture's code is not looked for.
    assert any(
        "main.tex" in w and "sections/missing.tex does not exist" in w and "rest is read" in w for w in data["warnings"]
    ), data["warnings"]
    assert not any("plot.pgf" in w for w in data["warnings"]), data["warnings"]
    _, body = read_node(node_path(out, "main.tex", 3, None))
    assert "4.2 megawatts" in body, body  # the main file's summary covers the included results
    done = {f["relpath"] for f in data["files"] if f["status"] == "done"}
    assert {"main.tex", "sections/intro.tex", "sections/results.tex"} <= done, data["files"]


def test_a_cycle_and_a_deep_chain_of_inputs_end(tmp_path: Path) -> None:
    corpus = tmp_path / "c"
    corpus.mkdir()
    (corpus / "a.tex").write_text("\\begin{document}\nFirst words.\n\\input{b}\n\\end{document}\n")
    (corpus / "b.tex").write_text("Second words.\n\\input{a}\n")
    chain = MAX_INPUT_DEPTH + 3
    for i in range(chain):
        (corpus / f"d{i}.tex").write_text(f"Level {i}.\n\\input{{d{i + 1}}}\n")
    (corpus / f"d{chain}.tex").write_text("The bottom.\n")
    doc = read_document(SourceRef(corpus / "a.tex", "a.tex", corpus))
    assert doc.text.count("First words.") == 1 and doc.text.count("Second words.") == 1, doc.text
    assert any("a.tex" in w and "b.tex" in w and "being read already" in w for w in doc.warnings), doc.warnings
    deep = read_document(SourceRef(corpus / "d0.tex", "d0.tex", corpus))
    assert "Level 0." in deep.text and "The bottom." not in deep.text, deep.text
    assert any(f"more than {MAX_INPUT_DEPTH} files deep" in w for w in deep.warnings), deep.warnings


def test_an_error_in_an_included_file_names_that_file(tmp_path: Path) -> None:
    corpus = tmp_path / "c"
    (corpus / "sec").mkdir(parents=True)
    (corpus / "main.tex").write_text("\\begin{document}\nIntro.\n\\input{sec/a}\n\\end{document}\n")
    (corpus / "sec" / "a.tex").write_text("Words.\n\\begin{figure}\nNever ended.\n")
    (corpus / "bad.tex").write_text("\\begin{document}\nStart.\n\\input{sec/b}\n\\end{document}\n")
    (corpus / "sec" / "b.tex").write_text("An open { brace.\n")
    r = CliRunner().invoke(main, ["run", str(corpus), "--out", str(tmp_path / "o"), "--no-index", "--json"])
    data = json.loads(r.stdout)
    reasons = {p["relpath"]: p["reason"] for p in data["problems"]}
    assert "line 2 of sec/a.tex" in reasons["main.tex"], reasons
    # Unbalanced braces in an included file leave that file out, not the paper.
    assert "bad.tex" not in reasons, reasons
    assert any("sec/b.tex" in w and "unbalanced braces" in w for w in data["warnings"]), data["warnings"]
