"""The table ``batchsum eval`` prints."""

from __future__ import annotations

from typing import TYPE_CHECKING

from batchsum.model import Thresholds

if TYPE_CHECKING:
    from batchsum.evaluate.runner import EvalReport


def _fmt(v: float | None, digits: int = 3) -> str:
    return "-" if v is None else f"{v:.{digits}f}"


def render_table(report: EvalReport) -> str:
    """One table: method x ROUGE-1/2/Lsum, entity and number recall, ratio, s/doc; then batchsum's rank."""
    head = (
        f"{report.dataset}: {report.n_documents} documents, {report.n_with_reference} with a reference; "
        f"budget {report.budget}"
    )
    if report.budget == "ref":
        head += " (every method cut to the reference's word count, or to batchsum's length if shorter)"
    elif report.budget != "none":
        head += " words"
    elif any(m.budget == "match" for m in report.methods):
        head += " (batchsum as produced; each baseline cut to batchsum's length, document by document)"
    cols = f"{'method':<18} {'R-1':>6} {'R-2':>6} {'R-Lsum':>6} {'ent.rec':>7} {'num.rec':>7} {'ratio':>6} {'s/doc':>8}"
    lines = [head, cols, "-" * len(cols)]
    for m in report.methods:
        secs = "-" if m.seconds_per_doc is None else f"{m.seconds_per_doc:.3f}"
        lines.append(
            f"{m.method:<18} {_fmt(m.rouge1):>6} {_fmt(m.rouge2):>6} {_fmt(m.rougeLsum):>6} "
            f"{_fmt(m.entity_recall):>7} {_fmt(m.number_recall):>7} {_fmt(m.compression_ratio):>6} {secs:>8}"
        )
    if report.kept_whole:
        lines.append(
            f"({report.kept_whole} document(s) under {Thresholds().none} tokens get no summary (level NONE): "
            "batchsum's figures score their own text, as a reader sees it)"
        )
    zero = max((m.n_zero for m in report.methods), default=0)
    if zero:
        lines.append(f"({zero} document(s) without a usable reference or summary counted as 0)")
    if report.ranks and report.n_ranked > 1:
        names = {"rouge1": "ROUGE-1", "rouge2": "ROUGE-2", "rougeLsum": "ROUGE-Lsum", "entity_recall": "entity recall"}
        ranks = ", ".join(f"{names[k]} {v}/{report.n_ranked}" for k, v in report.ranks.items())
        lines.append(f"batchsum rank: {ranks}")
    return "\n".join(lines)
