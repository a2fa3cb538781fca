"""A self-contained HTML report: inline CSS and SVG charts, no scripts, no external files."""

from __future__ import annotations

import html
from typing import Any

from batchsum.metrics.render import Section, fmt_int, fmt_pct, sections
from batchsum.metrics.report import Report

_CSS = """
body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:2rem auto;max-width:1180px;color:#1d2330;
padding:0 1rem;background:#fbfbfd}
h1{font-size:1.6rem;margin-bottom:.2rem}h2{font-size:1.15rem;margin:2rem 0 .5rem;border-bottom:1px solid #dde}
.sub{color:#667}table{border-collapse:collapse;margin:.4rem 0 1rem;font-size:13px}
th,td{padding:.25rem .6rem;border-bottom:1px solid #e6e6ee;vertical-align:top}th{background:#f0f1f6;text-align:left}
td.r,th.r{text-align:right;font-variant-numeric:tabular-nums}td.bar{font-family:monospace;color:#3b6fd8}
.charts{display:flex;flex-wrap:wrap;gap:1rem}.chart{background:#fff;border:1px solid #e3e4ec;border-radius:6px;
padding:.5rem}.note{color:#667;font-size:12px}svg text{font:11px system-ui,sans-serif;fill:#333}
"""

_LATE = ("Run-over-run", "Latest evaluation")  # sections shown after the trend charts
_IN = "#3b6fd8"
_OUT = "#f08c2e"
_BAR = "#5b8def"
_TARGET = "#d33"


def _e(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _nice_max(value: float) -> float:
    """Round an axis maximum up to 1, 2 or 5 times a power of ten."""
    if value <= 0:
        return 1.0
    exp = 1.0
    while exp * 10 <= value:
        exp *= 10
    while exp > value:
        exp /= 10
    for m in (1, 2, 5, 10):
        if m * exp >= value:
            return m * exp
    return 10 * exp


def histogram_svg(level: str, edges: list[float], counts: list[float], target: float | None) -> str:
    """Compression-ratio histogram of one level, with its target marked."""
    w, h, left, bottom, top = 320, 170, 34, 28, 22
    plot_w, plot_h = w - left - 8, h - bottom - top
    n = len(counts)
    ymax = _nice_max(max(counts, default=0) or 1)
    bw = plot_w / n
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" role="img" aria-label="{_e(level)}">']
    parts.append(f'<text x="{left}" y="14" font-weight="bold">{_e(level)} - files per ratio bin</text>')
    for i, c in enumerate(counts):
        bh = plot_h * c / ymax
        x = left + i * bw
        hi = f"{edges[i + 1] * 100:.1f} %" if i < n - 1 else "∞"
        parts.append(
            f'<rect x="{x + 1:.1f}" y="{top + plot_h - bh:.1f}" width="{bw - 2:.1f}" height="{bh:.1f}" fill="{_BAR}">'
            f"<title>{edges[i] * 100:.1f} %–{hi}: {int(c)} files</title></rect>"
        )
    parts.append(f'<line x1="{left}" y1="{top + plot_h}" x2="{left + plot_w}" y2="{top + plot_h}" stroke="#888"/>')
    for i in range(0, n + 1, 5):  # with 15 bins over 3x target: ticks at 0, 1x, 2x and 3x the target
        x = left + i * bw
        parts.append(f'<text x="{x:.1f}" y="{top + plot_h + 14}" text-anchor="middle">{edges[i] * 100:.3g}%</text>')
    parts.append(f'<text x="{left - 4}" y="{top + 4}" text-anchor="end">{int(ymax)}</text>')
    parts.append(f'<text x="{left - 4}" y="{top + plot_h}" text-anchor="end">0</text>')
    if target is not None:
        x = left + min(target / (edges[-1] or 1), 1.0) * plot_w
        parts.append(
            f'<line x1="{x:.1f}" y1="{top - 4}" x2="{x:.1f}" y2="{top + plot_h}" stroke="{_TARGET}" '
            f'stroke-dasharray="4 3"><title>target {target * 100:.0f} %</title></line>'
        )
        parts.append(f'<text x="{x + 3:.1f}" y="{top + 6}" fill="{_TARGET}">target</text>')
    parts.append("</svg>")
    return "".join(parts)


def tokens_by_type_svg(by_type: list[dict[str, Any]]) -> str:
    """Horizontal bars: tokens in and out per content type."""
    row_h, left, w = 34, 110, 560
    h = 30 + row_h * max(len(by_type), 1)
    xmax = _nice_max(max((g["tokens_in"] for g in by_type), default=0) or 1)
    plot_w = w - left - 90
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" role="img" aria-label="tokens">']
    parts.append(
        f'<text x="{left}" y="14" font-weight="bold">Tokens per content type</text>'
        f'<rect x="{w - 150}" y="5" width="10" height="10" fill="{_IN}"/><text x="{w - 136}" y="14">in</text>'
        f'<rect x="{w - 110}" y="5" width="10" height="10" fill="{_OUT}"/><text x="{w - 96}" y="14">out</text>'
    )
    for i, g in enumerate(by_type):
        y = 26 + i * row_h
        parts.append(f'<text x="{left - 6}" y="{y + 15}" text-anchor="end">{_e(g["content_type"])}</text>')
        for j, (key, color) in enumerate((("tokens_in", _IN), ("tokens_out", _OUT))):
            bw = plot_w * g[key] / xmax
            yy = y + j * 13
            parts.append(
                f'<rect x="{left}" y="{yy}" width="{bw:.1f}" height="11" fill="{color}">'
                f"<title>{_e(g['content_type'])} {key.replace('_', ' ')}: {g[key]:,}</title></rect>"
                f'<text x="{left + bw + 4:.1f}" y="{yy + 10}">{fmt_int(g[key])}</text>'
            )
    parts.append("</svg>")
    return "".join(parts)


def trend_svg(trend: list[dict[str, Any]], key: str, title: str, color: str) -> str:
    """One series over runs: bars with the run id in a tooltip."""
    w, h, left, bottom, top = 560, 170, 56, 24, 22
    plot_w, plot_h = w - left - 10, h - bottom - top
    values = [float(r[key] or 0) for r in trend]
    ymax = _nice_max(max(values, default=0) or 1)
    n = max(len(values), 1)
    bw = plot_w / n
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" role="img" aria-label="{_e(title)}">']
    parts.append(f'<text x="{left}" y="14" font-weight="bold">{_e(title)}</text>')
    points = []
    for i, v in enumerate(values):
        bh = plot_h * v / ymax
        x = left + i * bw
        points.append(f"{x + bw / 2:.1f},{top + plot_h - bh:.1f}")
        parts.append(
            f'<rect x="{x + bw * 0.15:.1f}" y="{top + plot_h - bh:.1f}" width="{bw * 0.7:.1f}" height="{bh:.1f}" '
            f'fill="{color}" opacity="0.55"><title>{_e(trend[i]["run_id"])}: {v:,.0f}</title></rect>'
        )
    if len(points) > 1:
        parts.append(f'<polyline points="{" ".join(points)}" fill="none" stroke="{color}" stroke-width="1.5"/>')
    parts.append(f'<line x1="{left}" y1="{top + plot_h}" x2="{left + plot_w}" y2="{top + plot_h}" stroke="#888"/>')
    parts.append(f'<text x="{left - 4}" y="{top + 4}" text-anchor="end">{fmt_int(ymax)}</text>')
    parts.append(f'<text x="{left - 4}" y="{top + plot_h}" text-anchor="end">0</text>')
    if trend:
        parts.append(f'<text x="{left}" y="{h - 6}">{_e((trend[0]["started_at"] or "")[:10])}</text>')
        parts.append(
            f'<text x="{left + plot_w}" y="{h - 6}" text-anchor="end">{_e((trend[-1]["started_at"] or "")[:10])}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def _section_html(s: Section) -> str:
    out = [f"<h2>{_e(s.title)}</h2>"]
    if not s.rows:
        return out[0] + f'<p class="note">{_e(s.empty)}</p>'
    out.append("<table>")
    if any(s.headers):
        out.append(
            "<tr>"
            + "".join(
                f'<th class="{"r" if a == "r" else ""}">{_e(h)}</th>' for h, a in zip(s.headers, s.align, strict=True)
            )
            + "</tr>"
        )
    for row in s.rows:
        cells = []
        for c, a in zip(row, s.align, strict=True):
            cls = "r" if a == "r" else ("bar" if c and set(c) <= set("█▏▎▍▌▋▊▉▸ ") else "")
            cells.append(f'<td class="{cls}">{_e(c)}</td>')
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</table>")
    if s.note:
        out.append(f'<p class="note">{_e(s.note)}</p>')
    return "".join(out)


def render_html(report: Report) -> str:
    """One HTML file that opens offline: tables plus ratio histograms, tokens per type and trend charts."""
    secs = sections(report, trend_rows=None, path_width=90)
    if not report.runs:  # evaluation results only: no run to chart
        return _page(["<h1>batchsum report</h1>", f'<p class="sub">{_e(report.source)}</p>', *map(_section_html, secs)])
    charts = []
    for level, hist in report.histograms.items():
        target = next((g["target"] for g in report.by_level if g["level"] == level), None)
        charts.append(f'<div class="chart">{histogram_svg(level, hist["edges"], hist["counts"], target)}</div>')
    if not charts:
        charts.append('<p class="note">No summarized files in the selection: no ratio histogram.</p>')
    spent = any(r["tokens_spent"] for r in report.trend)
    trend_charts = [
        trend_svg(report.trend, "files_changed", "Files changed per run", _BAR),
        trend_svg(report.trend, "input_tokens", "Input tokens read per run (the files summarized)", _IN),
    ]
    if spent:
        trend_charts.append(trend_svg(report.trend, "tokens_spent", "LLM tokens spent per run", _OUT))
    if any(r["calls_saved"] for r in report.trend):
        trend_charts.append(trend_svg(report.trend, "calls_saved", "LLM calls saved by the cache", "#2a9d8f"))
    if any(r["nodes_reused"] for r in report.trend):
        trend_charts.append(trend_svg(report.trend, "nodes_reused", "Nodes reused from earlier runs", "#7b61c9"))
    total = report.totals
    subtitle = (
        f"{_e(report.source)} · generated {_e(report.generated_at)} · "
        f"{fmt_int(total.get('files'))} files · ratio of the summarized files "
        f"{_e(fmt_pct(total.get('ratio_overall')) or '-')}"
    )
    body = [
        "<h1>batchsum report</h1>",
        f'<p class="sub">{subtitle}</p>',
        _section_html(secs[0]),
        "<h2>Compression ratio per level</h2>",
        '<div class="charts">' + "".join(charts) + "</div>",
        '<div class="charts"><div class="chart">' + tokens_by_type_svg(report.by_type) + "</div></div>",
        *(_section_html(s) for s in secs[1:] if not s.title.startswith(_LATE)),
        "<h2>Trend over runs</h2>",
        '<div class="charts">' + "".join(f'<div class="chart">{c}</div>' for c in trend_charts) + "</div>",
        *(_section_html(s) for s in secs[1:] if s.title.startswith(_LATE)),
    ]
    return _page(body)


def _page(body: list[str]) -> str:
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>batchsum report</title><style>{_CSS}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n"
    )
