"""A LaTeX file that inputs many files names the right line of its main file in a message, past all its inputs
(each input's line is counted on from the last one; the time it takes is bench material, not a test's). And
a reference command is read as one (its number), by one table only."""

from __future__ import annotations

from pathlib import Path

import pytest

from batchsum.readers.latex import _ARGS, render_latex
from batchsum.readers.latex_refs import REFERENCES

INPUTS = 300


def test_a_line_past_many_inputs_is_named_right(tmp_path: Path) -> None:
    main = "\\begin{document}\n" + "Some words of the paper.\n\\input{t}\n" * INPUTS + "\\begin{figure}\n"
    (tmp_path / "main.tex").write_text(main, encoding="utf-8")
    (tmp_path / "t.tex").write_text("A short part.\n", encoding="utf-8")
    # The unended figure is still named at its own line of the main file, past all the inputs.
    with pytest.raises(ValueError, match=rf"line {2 * INPUTS + 2}\b(?! of)"):
        render_latex(main, [], tmp_path / "main.tex")


def test_a_reference_is_read_by_the_references_table_only() -> None:
    assert not set(_ARGS) & REFERENCES
    doc = "\\begin{document}\n\\begin{equation}x=1\\label{e}\\end{equation}\nBy \\eqref{e} and \\cref{e}.\n"
    assert "(1)" in render_latex(doc + "\\end{document}\n", []), doc
