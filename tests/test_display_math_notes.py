"""Display math in a Markdown note (``$$...$$``, ``\\[...\\]``, ``\\begin{equation}...\\end{equation}``) is no
summary text, and the sentence written around it runs on as it does on the typeset page."""

from __future__ import annotations

import re
from pathlib import Path

from batchsum.backends.apparatus import is_tex_math, without_display_math
from batchsum.backends.units import units_from_text
from tests.one_final import final_node

_LECTURE = """# Lecture 9: Support vector machines

The hard-margin SVM solves the problem
$$\\min_{w,b} \\frac{1}{2}\\|w\\|^2 \\quad \\text{s.t.} \\quad y_i(w^\\top x_i + b) \\ge 1$$
for every training example, which keeps the two classes far apart on either side of the plane.

When the data is not separable we add slack variables, and the soft-margin objective becomes
\\[
\\min_{w,b,\\xi} \\frac{1}{2}\\|w\\|^2 + C\\sum_i \\xi_i
\\]
where the constant C trades the width of the margin against the training errors.

The radial basis kernel is
\\begin{equation}
k(x, x') = \\exp\\left(-\\gamma \\|x - x'\\|^2\\right)
\\end{equation}
and its bandwidth gamma controls how smooth the decision boundary is.

The margin is $2/\\|w\\|$ wide, which the optimiser widens as far as the data allows.
"""


def test_a_display_leaves_its_sentence_whole_and_no_tex() -> None:
    """Each display goes with its own lines: the sentence around it is one unit, opening with its capital."""
    shown = [u.text for u in units_from_text(_LECTURE, "document")]
    joined = " ".join(shown)
    assert not re.search(r"\\begin|\\end|\$\$|\\\[", joined), shown
    for opening in ("The hard-margin SVM solves the problem for every", "The radial basis kernel is and its"):
        assert any(t.startswith(opening) for t in shown), (opening, shown)
    assert not any(t[:1].islower() for t in shown), shown


def test_display_environments_and_control_symbols_are_tex_math() -> None:
    """A display environment's lines and a "$...$" span holding a control symbol ("\\|w\\|") are TeX, money none."""
    assert is_tex_math("The kernel is \\begin{align*} k(x, y) \\end{align*} and so on.")
    assert is_tex_math("k = 1 \\end{equation} and its bandwidth gamma")
    assert is_tex_math("The margin is $2/\\|w\\|$ wide.")
    assert not is_tex_math("The tickets cost $5 and $10 at the door.")
    # A display inside a line leaves a space; a paragraph break around one stays.
    assert without_display_math("so $$x^2$$ holds") == "so   holds"
    assert "\n\n" in without_display_math("First one.\n\n\\begin{gather}\nx\n\\end{gather}\n\nSecond one.")


def test_a_lecture_note_final_holds_no_math_nor_a_broken_sentence(tmp_path: Path) -> None:
    """The whole run: the final quotes neither a display nor a fragment left by one."""
    _, body = final_node(tmp_path, "lecture09_svm.md", _LECTURE)
    summary = body.split("<!--")[0].strip()
    assert summary, body
    assert not re.search(r"\\begin|\\end|\$|\\\[", summary), summary
    sentences = re.split(r"(?<=[.!?])\s+", summary)
    assert not any(s[:1].islower() for s in sentences), summary
