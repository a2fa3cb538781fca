"""A LaTeX file that inputs many files is read in time linear in its length: each input's line in the main file
is counted on from the last one, not from the file's start again; the lines named in messages stay right. And
a reference command is read as one (its number), by one table only."""

from __future__ import annotations

from pathlib import Path

import pytest

import batchsum.latex_source as latex_source
from batchsum.latex import _ARGS, render_latex
from batchsum.latex_refs import REFERENCES

INPUTS = 300


def test_many_inputs_are_counted_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    main = "\\begin{document}\n" + "Some words of the paper.\n\\input{t}\n" * INPUTS + "\\begin{figure}\n"
    (tmp_path / "main.tex").write_text(main, encoding="utf-8")
    (tmp_path / "t.tex").write_text("A short part.\n", encoding="utf-8")
    counted: list[int] = []
    real = latex_source._lines

    def spy(text: str) -> int:
        counted.append(len(text))
        return real(text)

    monkeypatch.setattr(latex_source, "_lines", spy)
    # The unended figure is still named at its own line of the main file, past all the inputs.
    with pytest.raises(ValueError, match=rf"line {2 * INPUTS + 2}\b(?! of)"):
        render_latex(main, [], tmp_path / "main.tex")
    # Each character is counted a few times at most (the text, its inputs, the parts around them): not once
    # per input before it.
    assert sum(counted) < 10 * (len(main) + INPUTS * 20), (sum(counted), len(main))


def test_a_reference_is_read_by_the_references_table_only() -> None:
    assert not set(_ARGS) & REFERENCES
    doc = "\\begin{document}\n\\begin{equation}x=1\\label{e}\\end{equation}\nBy \\eqref{e} and \\cref{e}.\n"
    assert "(1)" in render_latex(doc + "\\end{document}\n", []), doc
