"""A final lists a sentence once: a facet item its summary already lists word for word (a note's own "Open
questions:" list) is left out of the facets section, a kind left empty with it. Real runs."""

from __future__ import annotations

from pathlib import Path

from batchsum.action_rules import ActionItem
from batchsum.facets import ExtractedFacets
from batchsum.written_facets import unshown
from tests.one_final import final_text

NOTE = r"""# Lecture 3 notes: Optimization

Date: 2026-09-15

## Gradient descent

We minimize the empirical risk $L(w) = \frac{1}{n}\sum_{i=1}^{n} \ell(f_w(x_i), y_i)$ over the weights $w$.
The update rule is $w_{t+1} = w_t - \eta \nabla L(w_t)$ where $\eta$ is the learning rate.
If the learning rate is too large, gradient descent overshoots the minimum and the loss diverges.
For a convex loss with $L$-Lipschitz gradient, choosing $\eta \le 1/L$ guarantees that the loss decreases at every step.

$$
\nabla L(w) = \frac{2}{n} X^\top (Xw - y)
$$

The closed form solution is $w^* = (X^\top X)^{-1} X^\top y$
when $X^\top X$ is invertible, but inverting the matrix costs $O(d^3)$ time,
 which is why gradient descent is preferred for large $d$.

## Stochastic gradient descent

Instead of the full gradient we use a mini-batch $B$ of size $b$: $g_t = \frac{1}{b}\sum_{i \in B} \nabla \ell_i(w_t)$.
The stochastic gradient is an unbiased estimate of the full gradient, so $\mathbb{E}[g_t] = \nabla L(w_t)$.
The professor stressed that the variance of the estimate shrinks as the batch size grows, roughly as $\sigma^2 / b$.

```python
def sgd(w, X, y, lr=0.01, epochs=10, batch=32):
    for epoch in range(epochs):
        for Xb, yb in batches(X, y, batch):
            w -= lr * grad(w, Xb, yb)
    return w
```

## Momentum and Adam

Momentum keeps a velocity $v_{t+1} = \beta v_t + \nabla L(w_t)$ and updates $w_{t+1} = w_t - \eta v_{t+1}$.
Adam keeps running averages of the gradient and its square, with bias correction $\hat m_t = m_t / (1 - \beta_1^t)$.
In practice Adam with a learning rate of 0.001 is a good default,
but plain SGD with momentum often generalizes better on image tasks.

## Open questions

- Why does SGD noise help escape saddle points?
- [ ] Ask the TA about the proof of the $1/L$ step size bound.
- [ ] Re-derive the gradient of the logistic loss $\log(1 + e^{-y w^\top x})$ for homework 2.
"""


def _final(tmp_path: Path, text: str) -> tuple[str, str]:
    """The summary and the facets section of the final of a note ``text``."""
    body = final_text(tmp_path, "lecture.md", text).split("\n---\n", 1)[1]
    summary, _, facets = body.partition("## Facets (extracted)")
    return summary, facets


def _norm(text: str) -> str:
    return " ".join(text.split())


def test_an_item_the_summary_lists_is_not_repeated_under_facets(tmp_path: Path) -> None:
    summary, facets = _final(tmp_path, NOTE)
    question = "Why does SGD noise help escape saddle points?"
    assert question in _norm(summary)  # the note's own list, picked whole
    assert question not in _norm(facets)
    assert "**Open questions**" not in facets  # left empty: left out
    assert "Re-derive the gradient" in facets  # not in the summary: kept


def test_spacing_and_marks_do_not_make_an_item_new() -> None:
    facets = ExtractedFacets(
        decisions=["We chose the rubber case for it."],
        action_items=[ActionItem("I’ll send the budget to Ana by Friday.", "Ben", "Friday")],
        entities=["Ana"],
    )
    shown = "Our notes.\n\n- We *chose*  the rubber case  for it.\n1. Ben: I'll send the budget to Ana by Friday."
    left = unshown(facets, shown)
    assert not left.decisions and not left.action_items
    assert left.entities == ["Ana"]
    # A sentence of the summary's running text (a conversation kept whole) is no list: its facet stays.
    assert unshown(facets, "Ana: We chose the rubber case for it. Ben: Fine.") is facets
