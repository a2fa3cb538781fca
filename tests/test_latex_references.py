"""A LaTeX source's ``\\ref``, ``\\eqref``, ``\\cref`` and ``\\autoref`` read as the numbers LaTeX prints: sections,
floats, equation rows (not those marked ``\\nonumber``) and theorems counted in document order; a label no one
defines leaves no "??" and no empty brackets (real reader, real run)."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main
from batchsum.readers.latex import render_latex
from batchsum.tree import node_path, read_node
from batchsum.walk import SourceRef, read_document

PAPER = r"""\documentclass{article}
\newtheorem{theorem}{Theorem}[section]
\newtheorem{lemma}[theorem]{Lemma}
\begin{document}
\section{Introduction}\label{sec:intro}
Table~\ref{tab:results} shows the results, as in Eq.~\eqref{eq:loss} and \cref{eq:second}.
\Cref{fig:curves} and \autoref{sec:setup} give the details, and \cref{tab:results,tab:ablation} the numbers.
A label nobody defines (\ref{tab:gone}) reads as nothing, and so does \cref{fig:gone} here.
\begin{equation}\label{eq:loss} L = -\log p \end{equation}
\begin{align}
a &= b \nonumber \\
c &= d \label{eq:second}
\end{align}
\section{Method}
\subsection{Setup}\label{sec:setup}
\begin{lemma}\label{lem:bound} The bound holds. \end{lemma}
\begin{figure}\caption{Loss curves.}\label{fig:curves}\end{figure}
\begin{table}\caption{Ablations.}\label{tab:ablation}\end{table}
\begin{table}\caption{Main results.}\label{tab:results}\end{table}
By \cref{lem:bound} the loss falls.
\end{document}
"""


def test_references_read_as_latex_numbers_them() -> None:
    warnings: list[str] = []
    text = render_latex(PAPER, warnings)
    assert "Table 2 shows the results, as in Eq. (1) and Eq. (2)." in text, text
    assert "Figure 1 and Section 2.1 give the details, and Tables 1 and 2 the numbers." in text, text
    assert "By Lemma 2.1 the loss falls." in text, text
    # A caption line carries the number a reference to it reads.
    assert "Table 2: Main results." in text.splitlines(), text
    assert "??" not in text and "()" not in text and "reads as nothing, and so does here." in text, text
    assert warnings == []


def test_a_run_reads_a_papers_references(tmp_path: Path) -> None:
    corpus, out = tmp_path / "c", tmp_path / "o"
    corpus.mkdir()
    (corpus / "paper.tex").write_text(PAPER, encoding="utf-8")
    r = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--no-index"])
    assert r.exit_code == 0, r.output
    doc = read_document(SourceRef(corpus / "paper.tex", "paper.tex", corpus))
    assert "Table 2 shows the results" in doc.text, doc.text
    _, body = read_node(node_path(out, "paper.tex", 3, None))
    # Whatever the summary picked, no reference in it is left empty.
    assert not re.search(r"\b(?:Table|Figure|Eq\.|Section)\s*(?:\(\s*\))?[,.]", body.split("<!--")[0]), body
