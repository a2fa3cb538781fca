"""Render a :class:`~batchsum.metrics.report.Report` as terminal tables, Markdown, JSON or CSV."""

from __future__ import annotations

import csv
import io
import json
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from batchsum.metrics.privacy import scrub_secrets
from batchsum.metrics.report import SPLIT_KEYS, Report

FORMATS = ("table", "md", "json", "csv")
TREND_ROWS = 20  # text formats show the latest runs; JSON/CSV/HTML carry all of them
BAR_WIDTH = 16
_EIGHTHS = " ▏▎▍▌▋▊▉"


# A bar column charting a figure another column holds: its header says so and what a full bar is, or a
# Markdown table would have two columns of one name (a script reading it by header keeps one of them).
BAR_HEADER = "{} (full = the most)"


def bar(fraction: float | None, width: int = BAR_WIDTH) -> str:
    """A left-aligned unicode bar for ``fraction`` of ``width`` cells (clipped to 0..1, ▸ when over)."""
    if fraction is None:
        return ""
    over = fraction > 1.0
    f = min(max(fraction, 0.0), 1.0)
    eighths = round(f * width * 8)
    full, rest = divmod(eighths, 8)
    text = "█" * full + (_EIGHTHS[rest] if rest else "")
    if over:
        text = text[: width - 1] + "▸"
    return text


def fmt_int(value: Any) -> str:
    """``12,345``; blank for None."""
    return "" if value is None else f"{int(value):,}"


def fmt_pct(value: Any, digits: int = 1) -> str:
    """``18.3 %`` from 0.183; blank for None."""
    return "" if value is None else f"{float(value) * 100:.{digits}f} %"


def fmt_times(value: Any) -> str:
    """``1.3×``; blank for None."""
    return "" if value is None else f"{float(value):.2f}×"


def fmt_ms(value: Any) -> str:
    """A duration in milliseconds as ``850 ms``, ``12.4 s`` or ``3 m 05 s``."""
    if value is None:
        return ""
    ms = float(value)
    if ms < 1000:
        return f"{ms:.0f} ms"
    s = ms / 1000
    if s < 60:
        return f"{s:.1f} s"
    m, sec = divmod(round(s), 60)
    if m < 60:
        return f"{m} m {sec:02d} s"
    h, m = divmod(m, 60)
    return f"{h} h {m:02d} m"


def fmt_money(value: Any) -> str:
    """``$1.2345``; blank for None."""
    return "" if value is None else f"${float(value):,.4f}"


def shorten(text: str | None, width: int) -> str:
    """Keep the tail of long paths (the file name is the informative part)."""
    text = (text or "").replace("\n", " ")
    return text if len(text) <= width else "…" + text[-(width - 1) :]


def clip(text: str | None, width: int) -> str:
    """Keep the head of long messages."""
    text = " ".join((text or "").split())
    return text if len(text) <= width else text[: width - 1] + "…"


@dataclass
class Section:
    """One titled table, shared by the table, Markdown and HTML renderers."""

    title: str
    headers: list[str]
    rows: list[list[str]]
    align: str  # one of "l"/"r" per column
    note: str | None = None
    empty: str = "(none)"


def _ratio_row(g: dict[str, Any]) -> list[str]:
    return [fmt_pct(g["ratio_mean"]), fmt_pct(g["ratio_median"]), fmt_pct(g["ratio_p90"])]


def _overview(report: Report, out: list[Section]) -> None:
    """The run (or runs) at a glance: source, status, files, tokens and cost."""
    runs = report.runs
    overview: list[list[str]] = [["source", report.source]]
    if not runs:
        overview.append(["runs", "none yet: the store holds `batchsum eval` results only"])
        out.append(Section("Overview", ["", ""], overview, "ll"))
        return
    if len(runs) == 1:
        r = runs[0]
        overview += [
            ["run", r["run_id"]],
            ["started / finished", f"{r['started_at']} / {r['finished_at'] or '-'}"],
            ["status", str(r["status"])],
            ["backend", f"{r['backend']}" + (f" ({r['model']})" if r.get("model") else "")],
        ]
        if r["command"]:  # a run made through the library (batchsum.run) has no command line
            overview.append(["command", scrub_secrets(r["command"])])
        overview.append(["wall time", fmt_ms(r["wall_ms"])])
    else:
        overview += [
            ["runs", f"{len(runs)}: {runs[0]['run_id']} … {runs[-1]['run_id']}"],
            ["period", f"{runs[0]['started_at']} → {runs[-1]['finished_at'] or runs[-1]['started_at']}"],
        ]
    if report.filters.get("type"):
        overview.append(["content type", str(report.filters["type"])])
    counts = report.totals.get("status_counts", {})
    overview.append(["files", ", ".join(f"{n:,} {s}" for s, n in counts.items()) or "none"])
    t = report.totals
    overview.append(
        [
            "tokens",
            f"{fmt_int(t.get('tokens_in'))} in → {fmt_int(t.get('tokens_out'))} out, out/in "
            f"{fmt_pct(t.get('out_in')) or '-'} (the files with a summary: a failed file counts in neither, "
            f"one kept whole in and out alike; ratio of the summarized files {fmt_pct(t.get('ratio_overall')) or '-'})",
        ]
    )
    overview += _llm_spend(runs)
    if report.cost is not None:
        c = report.cost
        overview.append(
            [
                "estimated cost",
                f"{fmt_money(c['selected_runs'])} for {fmt_int(c['tokens_spent'])} LLM tokens at "
                f"{c['price']} (all runs: {fmt_money(c['all_runs'])})",
            ]
        )
    out.append(Section("Overview", ["", ""], overview, "ll"))


def _llm_spend(runs: list[dict[str, Any]]) -> list[list[str]]:
    """The selected runs' LLM requests and tokens, the files' share and the digests' apart, so the run's
    figures reconcile with the files table's (none when no request was sent)."""
    total = {key: sum(r.get(key) or 0 for r in runs) for key in ("llm_calls", "prompt_tokens", "completion_tokens",
                                                                  *SPLIT_KEYS)}  # fmt: skip
    if not total["llm_calls"]:
        return []
    # An interrupted run's requests of files it had not finished have no files row either (see LLM_SPEND).
    rest = "digests" if all(r.get("status") != "interrupted" for r in runs) else "digests and unfinished files"
    return [
        [
            "LLM calls",
            f"{fmt_int(total['llm_calls'])} ({fmt_int(total['files_llm_calls'])} for files, "
            f"{fmt_int(total['digests_llm_calls'])} for {rest})",
        ],
        [
            "LLM tokens",
            f"{fmt_int(total['prompt_tokens'])} prompt + {fmt_int(total['completion_tokens'])} completion "
            f"({fmt_int(total['files_prompt_tokens'])} + {fmt_int(total['files_completion_tokens'])} for files, "
            f"{fmt_int(total['digests_prompt_tokens'])} + {fmt_int(total['digests_completion_tokens'])} for {rest})",
        ],
    ]


def _level(report: Report, out: list[Section]) -> None:
    """Compression per level against the seed targets."""
    rows = []
    for g in report.by_level:
        rows.append(
            [
                g["level"],
                fmt_int(g["files"]),
                fmt_int(g["tokens_in"]),
                fmt_int(g["tokens_out"]),
                *_ratio_row(g),
                g["target_label"],
                fmt_times(g["vs_target"]),
                bar(g["vs_target"] / 2 if g["vs_target"] is not None else None),
                fmt_pct(g["fallback_share"]),
                fmt_int(g["failed"]),
            ]
        )
    out.append(
        Section(
            "Compression by level",
            [
                "level",
                "files",
                "tokens in",
                "tokens out",
                "mean",
                "median",
                "p90",
                "target",
                "×target",
                "mean vs target (full = 2×)",
                "fallback",
                "failed",
            ],
            rows,
            "lrrrrrrrrlrr",
            note="ratio = output tokens / input tokens per file; NONE files are kept whole; tokens are over the "
            "files with a summary (a failed file's count in neither).",
        )
    )


def _periods(report: Report, out: list[Section]) -> None:
    """Period digests against their word budgets (none when the run made none)."""
    rows = [
        [
            p["period"],
            fmt_int(p["digests"]),
            fmt_int(p["files"]),
            fmt_int(p["tokens_in"]),
            fmt_int(p["tokens_out"]),
            f"{p['words_mean']:.0f} ({p['words_min']}-{p['words_max']})",
            f"≈{p['budget_words']} words",
            fmt_times(p["vs_budget"]),
        ]
        for p in report.periods
    ]
    if rows:
        now = report.periods_as_of == "now"  # a past run is selected: the digests are the folder's today
        out.append(
            Section(
                "Period digests (now, as of this report: not the selected run's)" if now else "Period digests",
                ["period", "digests", "files", "tokens in", "tokens out", "words (min-max)", "budget", "×budget"],
                rows,
                "lrrrrrlr",
                note="month and folder digests are made from their files' finals, year digests from their months'.",
            )
        )


def _type(report: Report, out: list[Section]) -> None:
    """Compression per content type."""
    max_in = max((g["tokens_in"] for g in report.by_type), default=0) or 1
    rows = [
        [
            g["content_type"],
            fmt_int(g["files"]),
            fmt_int(g["tokens_in"]),
            fmt_int(g["tokens_out"]),
            fmt_pct(g["out_in"]),
            *_ratio_row(g),
            fmt_pct(g["fallback_share"]),
            fmt_int(g["failed"]),
            bar(g["tokens_in"] / max_in),
        ]
        for g in report.by_type
    ]
    out.append(
        Section(
            "Compression by content type",
            [
                "type",
                "files",
                "tokens in",
                "tokens out",
                "out/in",
                "mean",
                "median",
                "p90",
                "fallback",
                "failed",
                BAR_HEADER.format("tokens in"),
            ],
            rows,
            "lrrrrrrrrrl",
            note="tokens and out/in: the files with a summary (a failed file's count in neither); mean, median "
            "and p90: per summarized file (kept whole aside).",
        )
    )


def _type_level(report: Report, out: list[Section]) -> None:
    """Compression per content type and level."""
    rows = [
        [
            g["content_type"],
            g["level"],
            fmt_int(g["files"]),
            fmt_int(g["tokens_in"]),
            fmt_int(g["tokens_out"]),
            *_ratio_row(g),
            g["target_label"],
            fmt_pct(g["fallback_share"]),
            fmt_int(g["failed"]),
        ]
        for g in report.by_type_level
    ]
    out.append(
        Section(
            "By content type and level",
            [
                "type",
                "level",
                "files",
                "tokens in",
                "tokens out",
                "mean",
                "median",
                "p90",
                "target",
                "fallback",
                "failed",
            ],
            rows,
            "llrrrrrrrrr",
        )
    )


def _languages(report: Report, out: list[Section]) -> None:
    """Compression per source language, when the files are in several: a journal kept in two languages
    shows whether one is summarized as closely as the other (a Chinese word costs more tokens)."""
    if len(report.by_language) < 2:
        return
    rows = [
        [g["language"], fmt_int(g["files"]), fmt_int(g["tokens_in"]), fmt_int(g["tokens_out"]),
         fmt_pct(g["out_in"]), *_ratio_row(g), fmt_int(g["failed"])]
        for g in report.by_language
    ]  # fmt: skip
    head = ["language", "files", "tokens in", "tokens out", "out/in", "mean", "median", "p90", "failed"]
    out.append(Section("Compression by language", head, rows, "lrrrrrrrr"))


# A level's target is a band ("≈20 %"): a short file's summary is at least one sentence and a BRIEF line
# may run 10 % over, so only a file this far above its level's target is worth a reader's look.
FAR_ABOVE_TARGET = 1.5


def _worst(report: Report, out: list[Section], path_width: int) -> None:
    """The files far above their level's target (:data:`FAR_ABOVE_TARGET`), furthest first."""
    far = [w for w in report.worst_files if (w["vs_target"] or 0) >= FAR_ABOVE_TARGET]
    top = report.worst_files[0] if report.worst_files else None
    empty = "(none)"
    if top is not None and not far:
        empty = (
            f"(none: the furthest, {shorten(top['relpath'], path_width)}, is at "
            f"{fmt_times(top['vs_target'])} its level's target)"
        )
    rows = [
        [
            shorten(w["relpath"], path_width),
            w["content_type"],
            w["level"],
            fmt_int(w["input_tokens"]),
            fmt_int(w["output_tokens"]),
            fmt_pct(w["compression_ratio"]),
            w["target_label"],
            fmt_times(w["vs_target"]),
            bar(w["vs_target"] / 4 if w["vs_target"] is not None else None, 12),
        ]
        for w in far
    ]
    out.append(
        Section(
            f"Files {FAR_ABOVE_TARGET:g}× or more above their level's target",
            ["file", "type", "level", "in", "out", "ratio", "target", "×target", "(full = 4×)"],
            rows,
            "lllrrrrrl",
            empty=empty,
        )
    )


def _failures(report: Report, out: list[Section], path_width: int) -> None:
    """Files that failed, with their reasons."""
    rows = [[f["run_id"], shorten(f["relpath"], path_width), clip(f["error"], 160)] for f in report.failures]
    out.append(Section(f"Failures ({_file_count(report.failures)})", ["run", "file", "reason"], rows, "lll"))
    if report.skipped:  # binary, unreadable or undecodable files: not summarized, and the reader should know why
        rows = [[f["run_id"], shorten(f["relpath"], path_width), clip(f["error"], 160)] for f in report.skipped]
        out.append(Section(f"Skipped files ({_file_count(report.skipped)})", ["run", "file", "reason"], rows, "lll"))


def _file_count(rows: list[dict[str, Any]]) -> str:
    """How many files a list of (run, file) rows names: "3" when each is another file, "1 file, in 3 runs"
    when runs repeat one (a binary file every night skips): the Overview counts files, and a heading that
    counted rows would not add up with it."""
    files = len({r["relpath"] for r in rows})
    if files == len(rows):
        return str(files)
    runs = len({r["run_id"] for r in rows})
    return f"{files} file{'s' if files != 1 else ''}, in {runs} runs"


def _fallbacks(report: Report, out: list[Section]) -> None:
    """Why nodes fell back or failed, grouped by reason."""
    if report.fallback_reasons:
        rows = [
            [clip(r["reason"], 100), fmt_int(r["nodes"]), fmt_int(r["files"]), shorten(r["example"], 40)]
            for r in report.fallback_reasons
        ]
        out.append(Section("Fallback and error reasons of nodes", ["reason", "nodes", "files", "e.g."], rows, "lrrl"))


def _trend(report: Report, out: list[Section], trend_rows: int | None) -> None:
    """Run over run: files changed, tokens, calls and wall time."""
    trend = report.trend if trend_rows is None else report.trend[-trend_rows:]
    max_spent = max((r["tokens_spent"] for r in trend), default=0)
    max_changed = max((r["files_changed"] for r in trend), default=0) or 1
    with_cost = report.cost is not None
    selected = set(report.filters.get("run_ids") or [])
    rows = []
    for r in trend:
        row = [
            ("▶ " if r["run_id"] in selected else "  ") + r["run_id"],
            (r["started_at"] or "")[:19],
            r["status"] or "",
            fmt_int(r["files_total"]),
            fmt_int(r["files_changed"]),
            fmt_int(r["input_tokens"]),
            fmt_int(r["corpus_input_tokens"]),
            fmt_int(r["tokens_spent"]),
            fmt_int(r["llm_calls"]),
            fmt_int(r["calls_saved"]),
            fmt_int(r["nodes_reused"]),
            fmt_ms(r["wall_ms"]),
        ]
        if with_cost:
            row.append(fmt_money(r["cost"]))
        # Bars show LLM tokens when any run used an LLM, else the files changed.
        row.append(bar(r["tokens_spent"] / max_spent) if max_spent else bar(r["files_changed"] / max_changed))
        rows.append(row)
    # "tokens read": the files this run summarized; "corpus tokens": every file it kept, read or unchanged.
    headers = ["run", "started", "status", "files", "changed", "tokens read", "corpus tokens", "LLM tokens",
               "LLM calls", "saved by cache", "nodes reused", "wall"]  # fmt: skip
    if with_cost:
        headers.append("cost")
    headers.append(BAR_HEADER.format("LLM tokens" if max_spent else "changed"))
    note = None
    if trend_rows is not None and len(report.trend) > trend_rows:
        note = f"latest {trend_rows} of {len(report.trend)} runs (use --format json or csv for all)"
    out.append(
        Section("Run-over-run trend", headers, rows, "lllrrrrrrrrr" + ("r" if with_cost else "") + "l", note=note)
    )


def _eval_docs(e: dict[str, Any]) -> str:
    """The documents of an eval row; those not scored (no reference, failed) count 0 in its means."""
    docs, scored = e["docs"], e.get("scored_docs")
    return fmt_int(docs) if scored is None or scored == docs else f"{fmt_int(docs)} ({fmt_int(scored)} scored)"


def _evals(report: Report, out: list[Section]) -> None:
    """The latest evaluation's scores per dataset and method."""
    if report.evals:
        rows = [
            [
                e["dataset"] or "",
                e["method"] or "",
                e["budget"] or "",
                _eval_docs(e),
                *(f"{e[k]:.3f}" if e[k] is not None else "" for k in ("rouge1", "rouge2", "rougeLsum")),
                fmt_pct(e["entity_recall"]),
                fmt_pct(e["compression_ratio"]),
            ]
            for e in report.evals
        ]
        out.append(
            Section(
                f"Latest evaluation ({report.eval_id})",
                ["dataset", "method", "budget", "docs", "ROUGE-1", "ROUGE-2", "ROUGE-Lsum", "entity recall", "ratio"],
                rows,
                "lllrrrrrr",
            )
        )


def sections(report: Report, *, trend_rows: int | None = TREND_ROWS, path_width: int = 60) -> list[Section]:
    """The report's tables, in display order."""
    out: list[Section] = []
    _overview(report, out)
    if not report.runs:  # evaluation results only: no run's tables to show
        _evals(report, out)
        return out
    _level(report, out)
    _periods(report, out)
    _type(report, out)
    _type_level(report, out)
    _languages(report, out)
    _worst(report, out, path_width)
    _failures(report, out, path_width)
    _fallbacks(report, out)
    _trend(report, out, trend_rows)
    _evals(report, out)
    return out


def display_width(text: str) -> int:
    """Terminal cell width (wide East Asian characters take two cells)."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _pad(text: str, width: int, align: str) -> str:
    gap = " " * max(0, width - display_width(text))
    return gap + text if align == "r" else text + gap


def text_table(section: Section) -> list[str]:
    """Aligned columns with a rule under the header."""
    lines = [section.title, "═" * display_width(section.title)]
    if not section.rows:
        return [*lines, section.empty]
    header_row = section.headers if any(section.headers) else None
    cells = [header_row, *section.rows] if header_row else list(section.rows)
    widths = [max(display_width(row[i]) for row in cells) for i in range(len(section.headers))]

    def fmt(row: list[str]) -> str:
        return "  ".join(_pad(c, w, a) for c, w, a in zip(row, widths, section.align, strict=True)).rstrip()

    if header_row:
        lines.append(fmt(header_row))
        lines.append("  ".join("─" * w for w in widths))
    lines += [fmt(r) for r in section.rows]
    if section.note:
        lines.append(section.note)
    return lines


def render_table(report: Report) -> str:
    """Terminal output: aligned tables with unicode bars."""
    blocks = ["\n".join(text_table(s)) for s in sections(report)]
    return "\n\n".join(blocks) + "\n"


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|") or " "


def render_md(report: Report) -> str:
    """GitHub-flavoured Markdown."""
    parts = ["# batchsum report", ""]
    for s in sections(report, path_width=80):
        parts += [f"## {s.title}", ""]
        if not s.rows:
            parts += [s.empty, ""]
            continue
        headers = [h or " " for h in s.headers]
        parts.append("| " + " | ".join(_md_cell(h) for h in headers) + " |")
        parts.append("| " + " | ".join("---:" if a == "r" else "---" for a in s.align) + " |")
        parts += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in s.rows]
        if s.note:
            parts += ["", f"_{s.note}_"]
        parts.append("")
    return "\n".join(parts)


def render_json(report: Report) -> str:
    """The full report as JSON (every run of the trend included)."""
    return json.dumps(report.to_dict(), indent=2, ensure_ascii=False, default=str) + "\n"


def _csv_key(section: str, row: dict[str, Any]) -> str:
    keys = {
        "runs": ("run_id",),
        "by_level": ("level",),
        "by_type": ("content_type",),
        "by_type_level": ("content_type", "level"),
        "by_language": ("language",),
        "worst_files": ("relpath",),
        "failures": ("run_id", "relpath"),
        "skipped": ("run_id", "relpath"),
        "fallback_reasons": ("reason",),
        "trend": ("run_id",),
        "evals": ("dataset", "method", "budget"),
        "periods": ("period",),
    }[section]
    return "/".join(str(row.get(k) or "") for k in keys)


def render_csv(report: Report) -> str:
    """Long ("tidy") CSV: ``section,key,metric,value`` - one value per line, every section."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["section", "key", "metric", "value"])
    scrub: Callable[[Any], Any] = lambda v: scrub_secrets(v) if isinstance(v, str) else v  # noqa: E731
    for metric, value in report.filters.items():
        w.writerow(["filters", "", metric, json.dumps(value) if isinstance(value, list) else value])
    for metric, value in report.totals.items():
        if isinstance(value, dict):
            for k, v in value.items():
                w.writerow(["totals", "all", f"{metric}.{k}", v])
        else:
            w.writerow(["totals", "all", metric, value])
    for section in ("runs", "by_level", "by_type", "by_type_level", "by_language", "worst_files", "failures", "skipped",
                    "fallback_reasons", "trend", "evals", "periods"):  # fmt: skip
        for row in getattr(report, section):
            key = _csv_key(section, row)
            for metric, value in row.items():
                w.writerow([section, key, metric, scrub(value)])
    for level, hist in report.histograms.items():
        edges = hist["edges"]
        for i, count in enumerate(hist["counts"]):
            label = (
                f"ratio {edges[i]:.3f}-{edges[i + 1]:.3f}" if i < len(hist["counts"]) - 1 else f"ratio >={edges[i]:.3f}"
            )
            w.writerow(["histogram", level, label, int(count)])
    if report.cost is not None:
        for metric, value in report.cost.items():
            w.writerow(["cost", "", metric, value])
    return buf.getvalue()


def render(report: Report, fmt: str) -> str:
    """Dispatch on ``fmt`` (one of :data:`FORMATS`)."""
    renderers: dict[str, Callable[[Report], str]] = {
        "table": render_table,
        "md": render_md,
        "json": render_json,
        "csv": render_csv,
    }
    return renderers[fmt](report)
