"""Compression statistics from recorded metrics, as one plain data structure.

:func:`build_report` computes everything with DuckDB over the read-only views of
:mod:`batchsum.metrics.reader`; :mod:`batchsum.metrics.render` and :mod:`batchsum.metrics.html`
turn the result into text, Markdown, JSON, CSV or HTML.

"State" rows: for every source file, its row in the latest selected run that mentions it.
A file recorded as ``unchanged`` has no node rows in that run: its node counts (and its token
counts, when it has none) come from the run that last summarized the same content (same
relpath and sha256).
"""

from __future__ import annotations

import datetime
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from batchsum.backends.budget import FINAL_WORDS, final_cap
from batchsum.config import STATE_DIR
from batchsum.digest_state import STATE_NAME, PeriodState, digest_text, load_state
from batchsum.errors import ConfigError, MetricsError
from batchsum.metrics.parquet import sql_literal
from batchsum.metrics.privacy import scrub_optional
from batchsum.metrics.reader import MetricsSource, open_metrics
from batchsum.model import CONTENT_TYPES, TARGET_RATIO, SummaryLevel
from batchsum.periods import (
    PERIOD_KINDS,
    digest_words,  # the one the digests budget with: no second count to drift
)
from batchsum.planning import MIN_TARGET
from batchsum.remembered import load as load_remembered

FALLBACK_BACKEND = "extractive (fallback)"
LEVEL_ORDER: tuple[str, ...] = tuple(level.value for level in SummaryLevel)


def target_labels(final_words: int | None = FINAL_WORDS) -> dict[str, str]:
    """Each level's target as a person reads it; a HIERARCHICAL final's cap is the folder's ``--final-words``
    (None or 0: no cap)."""
    cap = f"≤{final_words} words" if final_words else "no word cap"
    return {"BRIEF": "≈20 %", "STANDARD": "≈12 %", "DETAILED": "≈7 %", "HIERARCHICAL": f"≈4 %, {cap}"}


HIST_BINS = 15  # ratio histogram bins per level; the last one is open-ended
HIST_SPAN = 3.0  # the bins cover 0 .. 3 x the level's target ratio
WORST_FILES = 10


@dataclass
class Report:
    """Everything a report shows; every field is JSON-serializable."""

    generated_at: str
    source: str
    filters: dict[str, Any]
    runs: list[dict[str, Any]]  # the selected runs, oldest first
    totals: dict[str, Any]  # over the state rows
    by_level: list[dict[str, Any]]
    by_type: list[dict[str, Any]]
    by_type_level: list[dict[str, Any]]
    by_language: list[dict[str, Any]]  # compression per source language (shown when there are several)
    histograms: dict[str, dict[str, list[Any]]]  # level -> {"edges": [...], "counts": [...]}
    worst_files: list[dict[str, Any]]
    failures: list[dict[str, Any]]
    skipped: list[dict[str, Any]]  # files a run could not read (binary, unreadable, undecodable), with why
    fallback_reasons: list[dict[str, Any]]
    trend: list[dict[str, Any]]  # every recorded run, oldest first
    cost: dict[str, Any] | None
    evals: list[dict[str, Any]] = field(default_factory=list)
    eval_id: str | None = None
    periods: list[dict[str, Any]] = field(default_factory=list)  # month / year / folder digests vs their budget
    # When ``periods`` are of: "latest run" (the selection ends with it), or "now" (a past run is selected:
    # the digests on disk are today's, not that run's)
    periods_as_of: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """Plain dict (for JSON)."""
        return asdict(self)

    def __repr__(self) -> str:
        # The dataclass repr printed every row, histogram and run of the trend.
        return (
            f"Report(source={self.source!r}, runs={len(self.runs)}, failures={len(self.failures)},"
            f" skipped={len(self.skipped)}, evals={len(self.evals)}, generated_at={self.generated_at!r})"
        )


def _rows(con: Any, sql: str, params: list[Any] | None = None) -> list[dict[str, Any]]:
    cur = con.execute(sql, params or [])
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r, strict=True)) for r in cur.fetchall()]


def _level_key(level: str | None) -> int:
    return LEVEL_ORDER.index(level) if level in LEVEL_ORDER else len(LEVEL_ORDER)


def _type_key(ctype: str | None) -> int:
    return CONTENT_TYPES.index(ctype) if ctype in CONTENT_TYPES else len(CONTENT_TYPES)  # type: ignore[arg-type]


def select_runs(con: Any, run: str | None, last: int | None) -> list[str]:
    """Run ids chosen by ``--run`` (exact id or unique prefix) or ``--last N`` (default: the latest);
    none when the store holds evaluation results but no run."""
    con.execute(
        "CREATE OR REPLACE TEMP TABLE run_order AS SELECT run_id, started_at, "
        "row_number() OVER (ORDER BY started_at, recorded_at NULLS FIRST, run_id) AS seq FROM runs"
    )
    all_ids = [r[0] for r in con.execute("SELECT run_id FROM run_order ORDER BY seq").fetchall()]
    if not all_ids:
        # `batchsum eval` records its results without a run: they alone still make a report.
        has_evals = con.execute("SELECT count(*) FROM evals").fetchone()[0] > 0
        if run is not None or not has_evals:
            raise MetricsError("the metrics store holds no completed run yet")
        return []
    if run is not None:
        if run in all_ids:
            return [run]
        matches = [r for r in all_ids if r.startswith(run)]
        if len(matches) == 1:
            return matches
        recent = ", ".join(all_ids[-5:])
        if not matches:
            raise ConfigError(f"no run {run!r} in the metrics store (latest runs: {recent})")
        raise ConfigError(f"run id prefix {run!r} is ambiguous: {', '.join(matches[:5])}")
    n = 1 if last is None else last
    if n < 1:
        raise ConfigError(f"--last must be at least 1, got {n}")
    return all_ids[-n:]


def _id_list(ids: list[str]) -> str:
    # Literal lists (not parameters) let DuckDB prune Parquet files by their run_id partition.
    return ", ".join(sql_literal(i) for i in ids) or "NULL"


def _build_state(con: Any, run_ids: list[str], content_type: str | None) -> None:
    ids = _id_list(run_ids)
    con.execute(
        f"CREATE OR REPLACE TEMP TABLE sel AS SELECT run_id, started_at, seq FROM run_order WHERE run_id IN ({ids})"
    )
    con.execute(f"CREATE OR REPLACE TEMP TABLE fsel AS SELECT * FROM files WHERE run_id IN ({ids})")
    con.execute(
        """
        CREATE OR REPLACE TEMP TABLE state AS
        WITH ranked AS (
            SELECT f.*, row_number() OVER (PARTITION BY f.relpath ORDER BY s.seq DESC) AS rn
            FROM fsel f JOIN sel s USING (run_id)
        ),
        latest AS (SELECT * EXCLUDE (rn) FROM ranked WHERE rn = 1),
        last_done AS (
            SELECT * EXCLUDE (rn) FROM (
                SELECT f.*, row_number() OVER (PARTITION BY f.relpath, f.sha256 ORDER BY r.seq DESC) AS rn
                FROM (
                    SELECT run_id, relpath, sha256, input_tokens, output_tokens, compression_ratio, nodes,
                           fallback_nodes, target_tokens
                    FROM files WHERE status = 'done'
                ) f JOIN run_order r USING (run_id)
            ) WHERE rn = 1
        ),
        joined AS (
            SELECT k.*, d.run_id AS d_run_id, d.input_tokens AS d_in, d.output_tokens AS d_out,
                   d.compression_ratio AS d_ratio, d.nodes AS d_nodes, d.fallback_nodes AS d_fb,
                   d.target_tokens AS d_target,
                   (k.status = 'unchanged' AND coalesce(k.output_tokens, 0) = 0 AND d.run_id IS NOT NULL) AS carry
            FROM latest k LEFT JOIN last_done d ON d.relpath = k.relpath AND d.sha256 IS NOT DISTINCT FROM k.sha256
        )
        SELECT relpath, run_id, status, error, sha256,
               coalesce(content_type, '?') AS content_type, coalesce(level, '?') AS level,
               coalesce(language, '?') AS language,
               CASE WHEN inherit THEN d_run_id ELSE run_id END AS src_run_id,
               coalesce(CASE WHEN carry THEN d_in ELSE input_tokens END, 0) AS input_tokens,
               coalesce(CASE WHEN carry THEN d_out ELSE output_tokens END, 0) AS output_tokens,
               CASE WHEN carry THEN d_ratio ELSE compression_ratio END AS compression_ratio,
               coalesce(CASE WHEN inherit THEN d_nodes ELSE nodes END, 0) AS file_nodes,
               coalesce(CASE WHEN inherit THEN d_fb ELSE fallback_nodes END, 0) AS file_fallback_nodes,
               coalesce(target_tokens, CASE WHEN inherit THEN d_target END) AS target_tokens
        FROM (SELECT *, (status = 'unchanged' AND d_run_id IS NOT NULL) AS inherit FROM joined)
        """
    )
    if content_type is not None:
        con.execute("DELETE FROM state WHERE content_type <> ?", [content_type])
    # Node counts: the node rows of the run that produced each file's summary, else that file row's counters.
    src_ids = _id_list([r[0] for r in con.execute("SELECT DISTINCT src_run_id FROM state").fetchall()])
    con.execute(
        f"""
        CREATE OR REPLACE TEMP TABLE state_nodes AS
        SELECT s.relpath,
               coalesce(n.cnt, s.file_nodes) AS nodes,
               coalesce(n.fb, s.file_fallback_nodes) AS fallback_nodes
        FROM state s LEFT JOIN (
            SELECT run_id, relpath, count(*) AS cnt, count(*) FILTER (WHERE backend = '{FALLBACK_BACKEND}') AS fb
            FROM nodes WHERE run_id IN ({src_ids}) GROUP BY run_id, relpath
        ) n ON n.run_id = s.src_run_id AND n.relpath = s.relpath
        """
    )


# A file whose summary (or kept-whole copy) is in the tree: the files a row's tokens in and out, and so
# its out/in, are over. A failed file's tokens count in neither, as it has no output (the runs table's
# "tokens read" is over the same files).
_HAS_SUMMARY = "s.status IN ('done', 'unchanged')"
# Of those, the ones summarized (kept-whole files aside): the per-file ratios and ×target are over these.
_SUMMARIZED = (
    f"{_HAS_SUMMARY} AND s.level NOT IN ('NONE', '?') AND s.input_tokens > 0 AND s.compression_ratio IS NOT NULL"
)


# A file's own target in tokens, as the planner sets it (``planning.target_for``; a HIERARCHICAL final
# is also capped at a human length, ``budget.final_cap``): "×target" is output / this, per file.
_FINAL_CAP_TOKENS = final_cap(2**31)  # the cap itself: what final_cap leaves of any larger target
# Runs since the cap became a setting (--final-words) record each final's planned length; older
# rows, and files a run did not re-plan, fall back to the default cap.
_TARGET_TOKENS = (
    f"coalesce(s.target_tokens, CASE WHEN s.level = 'HIERARCHICAL' THEN least(greatest({MIN_TARGET}, "
    f"round(t.target * s.input_tokens)), {_FINAL_CAP_TOKENS}) ELSE greatest({MIN_TARGET}, "
    "round(t.target * s.input_tokens)) END)"
)


def _group_stats(con: Any) -> list[dict[str, Any]]:
    return _rows(
        con,
        f"""
        SELECT CASE WHEN grouping(s.content_type) = 1 THEN NULL ELSE s.content_type END AS content_type,
               CASE WHEN grouping(s.level) = 1 THEN NULL ELSE s.level END AS level,
               CASE WHEN grouping(s.language) = 1 THEN NULL ELSE s.language END AS language,
               count(*) FILTER (WHERE s.status NOT IN ('deleted', 'skipped')) AS files,
               count(*) FILTER (WHERE {_SUMMARIZED}) AS summarized,
               count(*) FILTER (WHERE s.status = 'failed') AS failed,
               count(*) FILTER (WHERE s.status = 'skipped') AS skipped,
               coalesce(sum(s.input_tokens) FILTER (WHERE {_HAS_SUMMARY}), 0) AS tokens_in,
               coalesce(sum(s.output_tokens) FILTER (WHERE {_HAS_SUMMARY}), 0) AS tokens_out,
               sum(s.output_tokens) FILTER (WHERE {_HAS_SUMMARY})
                   / nullif(sum(s.input_tokens) FILTER (WHERE {_HAS_SUMMARY}), 0) AS out_in,
               avg(s.compression_ratio) FILTER (WHERE {_SUMMARIZED}) AS ratio_mean,
               median(s.compression_ratio) FILTER (WHERE {_SUMMARIZED}) AS ratio_median,
               quantile_cont(s.compression_ratio, 0.9) FILTER (WHERE {_SUMMARIZED}) AS ratio_p90,
               sum(s.output_tokens) FILTER (WHERE {_SUMMARIZED})
                   / nullif(sum(s.input_tokens) FILTER (WHERE {_SUMMARIZED}), 0) AS ratio_overall,
               coalesce(sum(n.nodes) FILTER (WHERE s.status <> 'deleted'), 0) AS nodes,
               coalesce(sum(n.fallback_nodes) FILTER (WHERE s.status <> 'deleted'), 0) AS fallback_nodes,
               avg(s.output_tokens / {_TARGET_TOKENS}) FILTER (WHERE {_SUMMARIZED}) AS vs_target
        FROM state s JOIN state_nodes n USING (relpath)
             LEFT JOIN (VALUES {_targets_sql()}) t(level, target) ON t.level = s.level
        WHERE s.status <> 'deleted'
        GROUP BY GROUPING SETS ((s.content_type, s.level), (s.level), (s.content_type), (s.language), ())
        """,
    )


def _decorate(row: dict[str, Any], labels: dict[str, str]) -> dict[str, Any]:
    level = row.get("level")
    target = next((ratio for lvl, ratio in TARGET_RATIO.items() if lvl.value == level), None)
    row["target"] = target
    row["target_label"] = labels.get(level or "", "")
    nodes = row.get("nodes") or 0
    row["fallback_share"] = (row["fallback_nodes"] / nodes) if nodes else 0.0
    for key in ("files", "summarized", "failed", "skipped", "tokens_in", "tokens_out", "nodes", "fallback_nodes"):
        row[key] = int(row.get(key) or 0)
    return row


def _targets_sql() -> str:
    return ", ".join(f"('{lvl.value}', CAST({ratio} AS DOUBLE))" for lvl, ratio in TARGET_RATIO.items())


def _histograms(con: Any) -> dict[str, dict[str, list[Any]]]:
    # Per-level bins spanning 0 .. HIST_SPAN x target, so each level's target sits at the same
    # place and has resolution around it; the last bin is open-ended.
    rows = con.execute(
        f"""
        SELECT s.level, any_value(t.target) AS target,
               least(CAST(floor(s.compression_ratio / (t.target * {HIST_SPAN} / {HIST_BINS})) AS BIGINT),
                     {HIST_BINS - 1}) AS b,
               count(*) AS n
        FROM state s JOIN (VALUES {_targets_sql()}) t(level, target) USING (level)
        WHERE {_SUMMARIZED} GROUP BY s.level, b
        """
    ).fetchall()
    out: dict[str, dict[str, list[Any]]] = {}
    for level, target, b, n in rows:
        step = target * HIST_SPAN / HIST_BINS
        h = out.setdefault(
            level, {"edges": [round(i * step, 6) for i in range(HIST_BINS + 1)], "counts": [0] * HIST_BINS}
        )
        h["counts"][max(0, int(b))] += int(n)  # file counts: integers in the JSON, not 2.0
    return dict(sorted(out.items(), key=lambda kv: _level_key(kv[0])))


def _worst_files(con: Any, labels: dict[str, str]) -> list[dict[str, Any]]:
    rows = _rows(
        con,
        f"""
        SELECT s.relpath, s.content_type, s.level, s.input_tokens, s.output_tokens, s.compression_ratio,
               t.target, s.output_tokens / {_TARGET_TOKENS} AS vs_target, s.src_run_id AS run_id
        FROM state s JOIN (VALUES {_targets_sql()}) t(level, target) USING (level)
        WHERE {_SUMMARIZED}
        ORDER BY vs_target DESC, s.relpath LIMIT {WORST_FILES}
        """,
    )
    for r in rows:
        r["target_label"] = labels.get(r["level"], "")
    return rows


def _failures(con: Any, content_type: str | None, status: str = "failed") -> list[dict[str, Any]]:
    rows = _rows(
        con,
        """
        SELECT f.run_id, s.started_at, f.relpath, f.content_type, f.level, f.error
        FROM fsel f JOIN sel s USING (run_id)
        WHERE f.status = ? AND (? IS NULL OR f.content_type = ?)
        ORDER BY s.seq, f.relpath
        """,
        [status, content_type, content_type],
    )
    for r in rows:
        r["error"] = scrub_optional(r["error"]) or "(no reason recorded)"
    return rows


def _fallback_reasons(con: Any, run_ids: list[str], content_type: str | None) -> list[dict[str, Any]]:
    rows = _rows(
        con,
        f"""
        SELECT n.error AS reason, count(*) AS nodes, count(DISTINCT n.relpath) AS files, min(n.relpath) AS example
        FROM (SELECT run_id, relpath, error FROM nodes WHERE run_id IN ({_id_list(run_ids)})) n
        LEFT JOIN fsel f ON f.run_id = n.run_id AND f.relpath = n.relpath
        WHERE n.error IS NOT NULL AND (? IS NULL OR f.content_type = ?)
        GROUP BY n.error ORDER BY nodes DESC, reason LIMIT 20
        """,
        [content_type, content_type],
    )
    for r in rows:
        r["reason"] = scrub_optional(r["reason"])
    return rows


@dataclass(frozen=True)
class Price:
    """What an LLM token costs, prompt and completion apart, and how the report names the price."""

    prompt: float
    completion: float
    label: str

    def of(self, prompt_tokens: int, completion_tokens: int) -> float:
        """The cost of these tokens."""
        return prompt_tokens * self.prompt + completion_tokens * self.completion


def price_of(price: tuple[float, float | None] | None, price_per_1k: float | None) -> Price | None:
    """The report's price: ``price`` per million prompt (and completion) tokens, as ``plan --price``
    takes it, or one ``price_per_1k`` per thousand tokens of either kind; ConfigError for both or a
    negative one."""
    if price is not None and price_per_1k is not None:
        raise ConfigError("--price and --price-per-1k cannot be combined: give one")
    if price_per_1k is not None:
        if price_per_1k < 0:
            raise ConfigError(f"--price-per-1k must not be negative, got {price_per_1k}")
        return Price(price_per_1k / 1000, price_per_1k / 1000, f"${price_per_1k:g}/1k tokens")
    if price is None:
        return None
    prompt, completion = price[0], price[0] if price[1] is None else price[1]
    if prompt < 0 or completion < 0:
        raise ConfigError(f"--price must not be negative, got {price}")
    return Price(prompt / 1e6, completion / 1e6, f"${prompt:g}/M prompt and ${completion:g}/M completion tokens")


# A run recorded as interrupted was recorded by the next run from its usage journal: its wall time was never
# measured (stored as 0), so it is unknown (null, shown blank), not 0 ms.
_WALL_MS = "CASE WHEN r.status = 'interrupted' THEN NULL ELSE coalesce(r.wall_ms, 0) END"


# A run's LLM spend, its files' share and the rest. The month, year and folder digests have no files (or
# nodes) rows: the run row adds their requests to its files', so theirs is the run's beyond its files'
# (an interrupted run's also holds the requests of files it had not finished, which have no row either).
LLM_SPEND = ("llm_calls", "prompt_tokens", "completion_tokens")
_FILE_SUMS = ", ".join(f"sum(coalesce({c}, 0)) AS {c}" for c in LLM_SPEND)  # over files rows, as fs
_SPLIT_SQL = ", ".join(
    [f"coalesce(fs.{c}, 0) AS files_{c}" for c in LLM_SPEND]
    + [f"coalesce(r.{c}, 0) - coalesce(fs.{c}, 0) AS digests_{c}" for c in LLM_SPEND]
)
SPLIT_KEYS = tuple(f"{share}_{c}" for share in ("files", "digests") for c in LLM_SPEND)


def _trend(con: Any, price: Price | None) -> list[dict[str, Any]]:
    # Spent tokens and cache savings come from node rows: only nodes that really sent requests
    # count (the extractive summarizer reports its output as completion tokens, and cached or
    # reused nodes cost nothing), and reused nodes are kept apart from LLM cache hits. The month,
    # year and folder digests have no node rows: what they spent is the run's tokens beyond its
    # computed nodes' (the run row adds theirs to its nodes' sums). What a run read is its done files'
    # tokens (the files it summarized); the run row's tokens are every file it kept, done or unchanged:
    # the corpus, nearly the same each night whatever changed.
    rows = _rows(
        con,
        f"""
        WITH f AS (
            SELECT run_id, sum(coalesce(input_tokens, 0)) AS read_in, sum(coalesce(output_tokens, 0)) AS read_out
            FROM files WHERE status = 'done' GROUP BY run_id
        ),
        fs AS (SELECT run_id, {_FILE_SUMS} FROM files GROUP BY run_id),
        n AS (
            SELECT run_id,
                   sum(coalesce(prompt_tokens, 0)) FILTER (WHERE coalesce(llm_calls, 0) > 0) AS spent_prompt,
                   sum(coalesce(completion_tokens, 0)) FILTER (WHERE coalesce(llm_calls, 0) > 0) AS spent_completion,
                   sum(coalesce(prompt_tokens, 0)) FILTER (WHERE NOT coalesce(reused, false)) AS computed_prompt,
                   sum(coalesce(completion_tokens, 0))
                       FILTER (WHERE NOT coalesce(reused, false)) AS computed_completion,
                   count(*) FILTER (WHERE cache_hit AND NOT coalesce(reused, false)) AS saved,
                   count(*) FILTER (WHERE coalesce(reused, false)) AS reused
            FROM nodes GROUP BY run_id
        )
        SELECT r.run_id, r.started_at, r.finished_at, r.status, r.backend, r.model,
               coalesce(r.files_total, 0) AS files_total,
               coalesce(r.files_done, 0) + coalesce(r.files_failed, 0) + coalesce(r.files_deleted, 0) AS files_changed,
               coalesce(r.files_done, 0) AS files_done, coalesce(r.files_unchanged, 0) AS files_unchanged,
               coalesce(r.files_failed, 0) AS files_failed, coalesce(r.files_deleted, 0) AS files_deleted,
               coalesce(f.read_in, 0) AS input_tokens, coalesce(f.read_out, 0) AS output_tokens,
               coalesce(r.input_tokens, 0) AS corpus_input_tokens, coalesce(r.output_tokens, 0) AS corpus_output_tokens,
               coalesce(n.spent_prompt, 0) + CASE WHEN coalesce(r.llm_calls, 0) > 0 THEN greatest(0,
                   coalesce(r.prompt_tokens, 0) - coalesce(n.computed_prompt, 0)) ELSE 0 END AS prompt_spent,
               coalesce(n.spent_completion, 0) + CASE WHEN coalesce(r.llm_calls, 0) > 0 THEN greatest(0,
                   coalesce(r.completion_tokens, 0) - coalesce(n.computed_completion, 0)) ELSE 0
               END AS completion_spent,
               coalesce(r.llm_calls, 0) AS llm_calls, coalesce(n.saved, 0) AS calls_saved,
               coalesce(r.nodes_computed, 0) AS nodes_computed, coalesce(n.reused, r.nodes_reused, 0) AS nodes_reused,
               {_WALL_MS} AS wall_ms, {_SPLIT_SQL}
        FROM runs r JOIN run_order o USING (run_id) LEFT JOIN n USING (run_id) LEFT JOIN f USING (run_id)
             LEFT JOIN fs USING (run_id)
        ORDER BY o.seq
        """,
    )
    for r in rows:
        for key in ("prompt_spent", "completion_spent", "calls_saved", "nodes_reused", "files_changed",
                    "input_tokens", "output_tokens", *SPLIT_KEYS):  # fmt: skip
            r[key] = int(r[key])
        prompt, completion = r.pop("prompt_spent"), r.pop("completion_spent")
        r["tokens_spent"] = prompt + completion
        r["cost"] = price.of(prompt, completion) if price is not None else None
    return rows


def _selected_runs(con: Any) -> list[dict[str, Any]]:
    query = (
        f"WITH fs AS (SELECT run_id, {_FILE_SUMS} FROM fsel GROUP BY run_id) "
        f"SELECT r.* REPLACE ({_WALL_MS} AS wall_ms), {_SPLIT_SQL} "
        "FROM runs r JOIN sel USING (run_id) LEFT JOIN fs USING (run_id) ORDER BY sel.seq"
    )
    rows = _rows(con, query)
    for r in rows:
        r["command"] = scrub_optional(r["command"])
        for key in SPLIT_KEYS:  # integers in the JSON, as the run's own figures are
            r[key] = int(r[key])
    return rows


def _evals(con: Any) -> tuple[str | None, list[dict[str, Any]]]:
    latest = con.execute("SELECT eval_id FROM evals ORDER BY created_at DESC, eval_id DESC LIMIT 1").fetchone()
    if latest is None:
        return None, []
    rows = _rows(
        con,
        """
        WITH e AS (SELECT *, coalesce(status, 'ok') = 'ok' AS scored FROM evals WHERE eval_id = ?)
        SELECT dataset, method, budget, count(*) AS docs, count(*) FILTER (WHERE scored) AS scored_docs,
               avg(coalesce(rouge1, 0)) AS rouge1, avg(coalesce(rouge2, 0)) AS rouge2,
               avg(coalesce(rougeLsum, 0)) AS rougeLsum,
               CASE WHEN bool_or(scored AND entity_recall IS NOT NULL)
                    THEN avg(CASE WHEN scored THEN entity_recall ELSE 0 END) END AS entity_recall,
               CASE WHEN bool_or(scored AND number_recall IS NOT NULL)
                    THEN avg(CASE WHEN scored THEN number_recall ELSE 0 END) END AS number_recall,
               avg(compression_ratio) AS compression_ratio, sum(seconds) AS seconds
        FROM e GROUP BY ALL ORDER BY dataset, method, budget
        """,
        [latest[0]],
    )
    return latest[0], rows


def _period_words(out: Path, period: PeriodState) -> int:
    """A digest's length in words as its budget counts them (a Chinese or Japanese word is two
    characters); the digest state's own count splits at whitespace, so it is read from the digest."""
    path = out / period.path
    if not path.is_file():  # removed since the run: the state's count is all there is
        return period.words
    return digest_words(digest_text(path))


def _period_stats(out: Path) -> list[dict[str, Any]]:
    """Per kind of period (month, year, folder): how many digests, their files, tokens and words against
    their word budget (``vs_budget``: mean words / budget), from the output's digest state."""
    state = load_state(out / STATE_DIR / STATE_NAME)
    rows: list[dict[str, Any]] = []
    for kind in PERIOD_KINDS:
        ps = [p for pid, p in state.periods.items() if pid.startswith(kind + ":")]
        if not ps:
            continue
        words = sorted(_period_words(out, p) for p in ps)
        budget = max(p.target_words for p in ps)
        tokens_in = sum(p.input_tokens for p in ps)
        tokens_out = sum(p.output_tokens for p in ps)
        mean = sum(words) / len(words)
        rows.append(
            {
                "period": kind,
                "digests": len(ps),
                "files": sum(p.files for p in ps),
                "tokens_in": tokens_in,
                "tokens_out": tokens_out,
                "ratio_overall": tokens_out / tokens_in if tokens_in else None,
                "words_mean": round(mean, 1),
                "words_min": words[0],
                "words_max": words[-1],
                "budget_words": budget,
                "vs_budget": round(mean / budget, 3) if budget else None,
                "empty": sum(1 for w in words if w == 0),
            }
        )
    return rows


def build_report_from(
    source: MetricsSource,
    *,
    run: str | None = None,
    last: int | None = None,
    content_type: str | None = None,
    price_per_1k: float | None = None,
    price: tuple[float, float | None] | None = None,
    final_words: int | None = FINAL_WORDS,
) -> Report:
    """Compute a report over an open metrics source; ``price``: per million prompt (and completion)
    tokens, or ``price_per_1k`` per thousand tokens of either kind; ``final_words``: the folder's cap on a
    HIERARCHICAL final, for its target's label."""
    if run is not None and last is not None:
        raise ConfigError("--run and --last cannot be combined")
    cost_of = price_of(price, price_per_1k)
    if content_type is not None and content_type not in CONTENT_TYPES:  # the library's: the command's is a choice
        raise ConfigError(f"--type {content_type}: use one of {', '.join(CONTENT_TYPES)}")
    con = source.con
    labels = target_labels(final_words)
    run_ids = select_runs(con, run, last)
    _build_state(con, run_ids, content_type)
    # Groups holding only skipped or deleted files have nothing to show.
    stats = [_decorate(g, labels) for g in _group_stats(con)]
    by_language = sorted((g for g in stats if g["language"] is not None and g["files"]), key=lambda g: -g["files"])
    groups = [
        g
        for g in stats
        if g["language"] is None and (g["files"] or g["failed"] or (g["level"] is None and g["content_type"] is None))
    ]
    total = next((g for g in groups if g["content_type"] is None and g["level"] is None), None)
    by_level = sorted(
        (g for g in groups if g["content_type"] is None and g["level"] is not None),
        key=lambda g: _level_key(g["level"]),
    )
    by_type = sorted(
        (g for g in groups if g["level"] is None and g["content_type"] is not None),
        key=lambda g: _type_key(g["content_type"]),
    )
    by_type_level = sorted(
        (g for g in groups if g["level"] is not None and g["content_type"] is not None),
        key=lambda g: (_type_key(g["content_type"]), _level_key(g["level"])),
    )
    status_counts = dict(con.execute("SELECT status, count(*) FROM state GROUP BY status").fetchall())
    totals = dict(total or _decorate({"files": 0, "ratio_mean": None, "nodes": 0, "fallback_nodes": 0}, labels))
    totals["status_counts"] = {k: int(v) for k, v in sorted(status_counts.items())}
    trend = _trend(con, cost_of)
    selected = set(run_ids)
    cost = None
    if cost_of is not None:
        cost = {
            "price": cost_of.label,
            "price_per_1k": price_per_1k,
            "tokens_spent": sum(t["tokens_spent"] for t in trend if t["run_id"] in selected),
            "selected_runs": sum(t["cost"] for t in trend if t["run_id"] in selected),
            "all_runs": sum(t["cost"] or 0.0 for t in trend),
        }
    eval_id, evals = _evals(con)
    return Report(
        generated_at=datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        source=source.describe(),
        filters={"run": run, "last": last, "type": content_type, "run_ids": run_ids},
        runs=_selected_runs(con),
        totals=totals,
        by_level=by_level,
        by_type=by_type,
        by_type_level=by_type_level,
        by_language=by_language,
        histograms=_histograms(con),
        worst_files=_worst_files(con, labels),
        failures=_failures(con, content_type),
        skipped=_failures(con, content_type, "skipped"),
        fallback_reasons=_fallback_reasons(con, run_ids, content_type),
        trend=trend,
        cost=cost,
        evals=evals,
        eval_id=eval_id,
    )


def _final_words(out: Path) -> int | None:
    """The cap on a HIERARCHICAL final the folder was built with (``--final-words``; 0 or None: no cap)."""
    words = (load_remembered(out) or {}).get("final_words", FINAL_WORDS)
    return words if words is None or isinstance(words, int) else FINAL_WORDS


def build_report(
    out: Path,
    *,
    metrics_db: Path | None = None,
    run: str | None = None,
    last: int | None = None,
    content_type: str | None = None,
    price_per_1k: float | None = None,
    price: tuple[float, float | None] | None = None,
) -> Report:
    """Open the metrics of ``out`` read-only and compute the report."""
    with open_metrics(out, metrics_db) as source:
        report = build_report_from(
            source, run=run, last=last, content_type=content_type, price_per_1k=price_per_1k, price=price,
            final_words=_final_words(out),
        )  # fmt: skip
    # A digest covers a month's or a folder's files whatever their type, so --type leaves the table out;
    # an eval's own digests are not the folder's, so with no run there is none either.
    if report.runs and content_type is None:
        report.periods = _period_stats(out)
        # Only digests.json as it is now exists: a past run's digests were not kept.
        latest = report.trend[-1]["run_id"] if report.trend else None
        report.periods_as_of = "latest run" if report.filters["run_ids"][-1:] == [latest] else "now"
    return report
