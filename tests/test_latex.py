"""LaTeX sources (.tex) are read as the text a reader of the typeset paper sees: the title, the abstract and the
sections as Markdown headings, the body's prose without markup, comments, citations, footnotes, display math,
tables and the bibliography; a figure's or a table's caption a caption line. Bad input skips the file with a
reason naming its line."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from batchsum.backends.apparatus import is_caption_line
from batchsum.cli import main
from batchsum.readers.latex import render_latex
from batchsum.tree import node_path, read_node
from batchsum.walk import SourceRef, read_document

PAPER = r"""\documentclass{article}
\usepackage{amsmath}
\newcommand{\ours}{MoE-16}
\newcommand{\metric}[1]{\textsc{#1} accuracy}
\title{Sparse Experts at Equal Compute}
\author{Ana Silva \and Ben Okafor}
\begin{document}
\maketitle
\begin{abstract}
We compare a dense transformer with \ours{}, a mixture of sixteen experts, when both get the same training compute.
Our main finding is that \ours{} improves held-out accuracy by 3.1 points over the dense model at equal compute.
\end{abstract}

\section{Introduction} \label{sec:intro}
% reviewer 2 asked for a stronger baseline here
Mixture-of-experts models send each token to a few experts~\cite{shazeer2017}, so a model can hold many parameters
while each token uses only some of them.
Earlier comparisons held the parameter count fixed \citep[see][p.~4]{fedus2022}, which favours the dense
model\footnote{A dense model uses every parameter for every token.}.
We ask which model learns more when the \emph{compute} is held fixed instead, as ``practitioners''
pay for it --- 50\% of a budget.

\section{Method}
We train both models on the same web corpus for one hundred thousand steps with the same batch size.
The loss is the usual cross-entropy,
\begin{equation}
  \mathcal{L} = -\sum_i \log p(y_i \mid x_i),
\end{equation}
and the router adds a load-balancing term weighted by $\alpha = 0.01$ to it.
Each expert is a feed-forward block of the same width as the dense model's, and two experts serve each token.

\section{Results}
\begin{table}[t]
\centering
\begin{tabular}{lcc}
Model & Acc & F1 \\
Dense (equal compute) & 18.2 & 41.5 \\
MoE-16 & 21.3 & 44.0 \\
\end{tabular}
\caption{Accuracy of the dense and the sparse model at equal compute.}
\label{tab:main}
\end{table}
Table~\ref{tab:main} shows the \metric{held-out} of both models.
The sparse model is ahead on every one of the five evaluation tasks we ran.
% TODO: add the seeds
Its lead is largest on the reasoning tasks and smallest on the reading tasks.

\section{Conclusion}
Sparse experts learn more than a dense model when both are given the same compute.
We release the training code so that others can check the comparison at larger scales.

\bibliographystyle{plain}
\begin{thebibliography}{9}
\bibitem{shazeer2017} N. Shazeer et al. Outrageously large neural networks. ICLR, 2017.
\end{thebibliography}
\end{document}
This line after the document is never typeset.
"""

_COMMAND = re.compile(r"\\[A-Za-z]+")
_TABLE_ROW = re.compile(r"&.*\\\\|\d & \d")


def test_the_reader_gives_the_typeset_text_as_markdown() -> None:
    warnings: list[str] = []
    text = render_latex(PAPER, warnings)
    lines = text.splitlines()
    assert lines[0] == "# Sparse Experts at Equal Compute"
    headings = [ln for ln in lines if ln.startswith("## ")]
    assert headings == ["## Abstract", "## Introduction", "## Method", "## Results", "## Conclusion"]
    # The preamble, the author line, the bibliography and what follows \end{document} are no text.
    for gone in ("documentclass", "Ana Silva", "Shazeer", "never typeset", "reviewer 2", "TODO", "every parameter"):
        assert gone not in text, gone
    assert not _TABLE_ROW.search(text) and "18.2" not in text and "mathcal" not in text
    # Only inline math keeps its TeX; markup, citations and labels are gone, macros expanded.
    assert not _COMMAND.search(re.sub(r"\$[^$]*\$", "", text)), text
    assert "MoE-16, a mixture" in text and "Table 1 shows the held-out accuracy of both" in text
    assert "to a few experts, so a model" in text and "fixed, which favours the dense model." in text
    assert "“practitioners” pay for it — 50% of a budget" in text
    # The display equation is no text, and the sentence around it runs on in one paragraph.
    assert "cross-entropy, and the router adds a load-balancing term weighted by $\\alpha = 0.01$" in text
    captions = [ln for ln in lines if ln.startswith("Table 1:")]
    assert captions == ["Table 1: Accuracy of the dense and the sparse model at equal compute."]
    assert is_caption_line(captions[0])  # apparatus, as the summarizer reads it
    assert warnings == []


def test_comments_lists_accents_and_fragments() -> None:
    text = render_latex(
        "% a fragment: no \\begin{document}\n"
        "Caf\\'e na\\\"{\\i}ve, 100\\% sure; half%\n"
        "  way and \\verb|50%{x|.\n"
        "\\begin{enumerate}[label=(\\alph*)]\n\\item one % not this\n\\item[Key] two\n\\end{enumerate}\n"
        "\\begin{itemize}\\item three\\end{itemize}\n"
        "\\begin{figure}\\begin{subfigure}{.5\\linewidth}\\caption{left}\\end{subfigure}\\caption{Both.}\\end{figure}\n"
        "\\input{appendix}\n"
        "\\newcommand{\\tool}{Sift\\xspace}\\tool keeps \\url{http://x.org/a%20b#c}.\n"
        "\\iffalse\nAn old draft with {a brace.\n\\fi\n"
        "Its last line.\n",
        warnings := [],
    )
    assert text.splitlines() == [
        "Café naïve, 100% sure; halfway and 50%{x.",
        "",
        "1. one",
        "- **Key** two",
        "",
        "- three",
        "",
        "Figure 1: Both.",
        "",
        "Sift keeps http://x.org/a%20b#c. Its last line.",
    ]
    assert warnings and "appendix" in warnings[0] and "not followed" in warnings[0]


@pytest.mark.parametrize(
    ("source", "reason"),
    [
        ("\\begin{document}\n\\section{A}\nText with {an open brace.\n\\end{document}\n", "line 3 is never closed"),
        ("\\begin{document}\nA brace } too many.\n\\end{document}\n", "line 2 closes no"),
        ("\\begin{document}\n\\begin{figure}\nx\n\\end{document}\n", "line 2: \\begin{figure} is never ended"),
        ("\\begin{document}\nPrice $5 and no more.\n\\end{document}\n", "line 2: a $ opens math"),
        ("\\def\\a{\\a}\n\\begin{document}\n\\a\n\\end{document}\n", "line 3, in \\a: \\a expands without end"),
    ],
)
def test_bad_latex_is_a_clear_reason(tmp_path: Path, source: str, reason: str) -> None:
    with pytest.raises(ValueError, match=re.escape(reason)):
        render_latex(source)


def test_a_paper_source_is_summarized_from_its_prose(tmp_path: Path) -> None:
    corpus, out = tmp_path / "c", tmp_path / "o"
    corpus.mkdir()
    (corpus / "moe.tex").write_text(PAPER, encoding="utf-8")
    plan = CliRunner().invoke(main, ["plan", str(corpus), "--out", str(out)])
    assert "+ moe.tex" in plan.stdout and "passed over" not in plan.output, plan.output
    r = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--no-index"])
    assert r.exit_code == 0, r.output
    meta, body = read_node(node_path(out, "moe.tex", 3, None))
    body = body.split("<!--")[0]
    assert meta["content_type"] == "document" and meta["content_type_reason"] == "extension .tex"
    assert "improves held-out accuracy by 3.1 points" in body, body  # the abstract's finding
    assert not _COMMAND.search(body) and not _TABLE_ROW.search(body) and "&" not in body, body
    assert "reviewer" not in body and "TODO" not in body, body
    doc = read_document(SourceRef(corpus / "moe.tex", "moe.tex", corpus))
    assert "\n## Conclusion\n" in doc.text and "\n## Abstract\n" in doc.text


def test_a_bad_tex_file_is_skipped_with_its_reason_and_the_others_read(tmp_path: Path) -> None:
    corpus = tmp_path / "c"
    corpus.mkdir()
    (corpus / "broken.tex").write_text("\\begin{document}\n\\section{Intro}\nText {open.\n\\end{document}\n")
    (corpus / "blob.tex").write_bytes(b"\x00\x01\xff\xfe" * 100)
    (corpus / "ok.tex").write_text(PAPER)
    r = CliRunner().invoke(main, ["run", str(corpus), "--out", str(tmp_path / "o"), "--no-index", "--json"])
    data = json.loads(r.stdout)
    assert r.exit_code == 1
    reasons = {Path(p["path"]).name: p["reason"] for p in data["problems"]}
    assert "unbalanced braces" in reasons["broken.tex"] and "line 3" in reasons["broken.tex"]
    assert "binary" in reasons["blob.tex"]
    assert {f["relpath"] for f in data["files"] if f["status"] == "done"} == {"ok.tex"}


def test_metadata_blocks_are_no_text_and_dropped_refs_leave_no_comma_run() -> None:
    text = render_latex(
        "\\begin{document}\n\\begin{CCSXML}\n<ccs2012><concept_id>10002951</concept_id></ccs2012>\n\\end{CCSXML}\n"
        "\\ccsdesc[500]{Information systems~Data mining}\n"
        "The results are in Tables~\\ref{a}, \\ref{b}, \\ref{c} and the appendix.\n\\end{document}\n"
    )
    assert text == "The results are in Tables, and the appendix."


def test_a_title_nested_too_deep_skips_its_file_not_the_run(tmp_path: Path) -> None:
    corpus = tmp_path / "c"
    corpus.mkdir()
    deep = "{" * 3000 + "x" + "}" * 3000
    (corpus / "deep.tex").write_text(f"\\title{{{deep}}}\n\\begin{{document}}\nHi.\n\\end{{document}}\n")
    (corpus / "ok.tex").write_text(PAPER)
    r = CliRunner().invoke(main, ["run", str(corpus), "--out", str(tmp_path / "o"), "--no-index", "--json"])
    assert r.exit_code == 1, r.output
    data = json.loads(r.stdout)
    reasons = {Path(p["path"]).name: p["reason"] for p in data["problems"]}
    assert "nested too deep" in reasons["deep.tex"]
    assert {f["relpath"] for f in data["files"] if f["status"] == "done"} == {"ok.tex"}


def test_environments_opened_and_closed_by_the_papers_own_macros() -> None:
    text = render_latex(
        "\\newcommand{\\be}{\\begin{equation}}\n\\newcommand{\\ee}{\\end{equation}}\n"
        "\\def\\bi{\\begin{itemize}}\\def\\ei{\\end{itemize}}\n\\newcommand{\\R}{\\mathbb{R}}\n"
        "\\begin{document}\nThe energy is \\be E = mc^2 \\ee as known in $\\R^3$.\n"
        "\\bi \\item one \\item two \\ei Done.\n\\end{document}\n"
    )
    assert text.splitlines() == ["The energy is as known in $\\R^3$.", "", "- one", "- two", "", "Done."]
    # An environment a macro opens and nothing closes is still the file's reason, on the line of the call.
    with pytest.raises(ValueError, match=re.escape("line 4: \\begin{equation} is never ended")):
        render_latex("\\newcommand{\\be}{\\begin{equation}}\n\\begin{document}\nOne.\nTwo \\be x\n\\end{document}\n")


def test_a_macro_used_more_than_a_hundred_thousand_times_is_read_and_a_doubling_one_is_not() -> None:
    uses = 100_001
    text = render_latex("\\newcommand{\\x}{a}\n\\begin{document}\n" + "\\x{} " * uses + "\n\\end{document}\n")
    assert text.split() == ["a"] * uses
    doubling = "\\def\\y#1{#1#1}" + "\\y{" * 19 + "a" * 16 + "}" * 19
    with pytest.raises(ValueError, match=re.escape("\\y expands without end")):
        render_latex(doubling)


def test_brackets_of_the_text_stay_and_only_those_a_dropped_citation_emptied_go() -> None:
    text = render_latex(
        "The call \\texttt{close()} frees it, $f()$ is empty, \\texttt{argv[]} too; "
        "shown (\\cite{a}; \\citep{b}) [\\ref{c}] before (see \\cite{d}).\n"
    )
    assert "close()" in text and "$f()$" in text and "argv[]" in text, text
    assert "shown before (see)." in text, text


def test_an_accent_over_nothing_is_its_spacing_character() -> None:
    text = render_latex("Home page: www.x.edu/\\~{}smith and x\\^{}2, caf\\'e.\n")
    assert text == "Home page: www.x.edu/~smith and x^2, café."


def test_layout_commands_leak_no_arguments_and_quantities_keep_their_units() -> None:
    text = render_latex(
        "\\begin{document}\n\\section*{References}\\addcontentsline{toc}{section}{References}\n"
        "Text \\definecolor{myblue}{rgb}{0.1,0.2,0.3}\\newcounter{step}\\setcounter{step}{2}\\rule{1pt}{2pt}here. "
        "We used \\SI{5}{\\milli\\second} delays at \\SI{3}{\\kilo\\metre\\per\\hour}, "
        "\\num{12} runs of \\si{\\giga\\byte} and \\SI{2}{\\square\\metre}.\n\\end{document}\n"
    )
    body = text.split("\n\n", 1)[1]
    for leaked in ("toc", "myblue", "rgb", "0.1", "step", "1pt"):
        assert leaked not in body, body
    assert body.startswith("Text here.") and "5 ms delays at 3 km/h, 12 runs of GB and 2." in body, body
