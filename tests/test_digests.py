"""Digests above the files: a month and a year digest for dated entries, a folder digest for undated
ones, redone only when their files change; the root index a person reads; search, report and plan."""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import unquote

import pytest
from click.testing import CliRunner

from batchsum.cli import main
from batchsum.digest_state import load_state
from batchsum.navigation import summary_only
from batchsum.periods import FileFacts, Period, digest_folder, group, one_line, years_of
from batchsum.tree import parse_markdown

PLACES = ["Bergen", "Oslo", "Tromsø", "Stavanger", "Ålesund", "Bodø"]
PEOPLE = ["Ingrid", "Magnus", "Sigrid", "Leif", "Astrid", "Olav", "Kari", "Nils", "Ragna"]
SPOTS = ["station", "museum", "market", "library", "quay", "town hall", "bakery", "chapel", "bridge"]
VESSELS = ["boats", "trawlers", "ferries", "dinghies", "barges", "tugs", "sloops", "kayaks", "yachts"]
WORK = ["repairs", "paint", "engines", "inspection", "sails", "welding", "caulking", "masts", "hulls"]
WEATHER = ["cold", "wet", "stormy", "foggy", "mild", "icy", "windy", "grey", "bright"]
WINDS = ["north", "east", "west", "south", "fjord", "sea", "mountains", "islands", "glacier"]


def entry(day: str, i: int) -> str:
    """One day of a journal. Days differ in several words of every sentence, as real days do: sentences
    that differ in a word or two are near-duplicates, which the summarizer keeps once."""
    place, person, spot = PLACES[i % len(PLACES)], PEOPLE[i % 9], SPOTS[i % 9]
    vessel, work, weather, wind = VESSELS[i % 9], WORK[i % 9], WEATHER[i % 9], WINDS[i % 9]
    return (
        f"# {day}\n\nI took the early train to {place} and met {person} at the {spot}. "
        f"We talked about the harbour survey and the {i + 3} {vessel} that still need {work} before winter. "
        f"In the afternoon I wrote my report on the {place} pier and sent it to {PEOPLE[(i + 4) % 9]} "
        f"with a note on the {vessel}. "
        f"The weather turned {weather} and the wind from the {wind} kept the ferries in port for {i % 4 + 2} hours. "
        "I read in the evening and went to bed early, tired but content with the day's work.\n"
    )


DAYS = ["2025-11-03", "2025-11-17", "2025-12-01", "2025-12-24", "2026-01-05", "2026-01-20"]


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    src = tmp_path / "journal"
    (src / "notes").mkdir(parents=True)
    for i, day in enumerate(DAYS):
        (src / f"{day}.md").write_text(entry(day, i), encoding="utf-8")
    for name in ("boats", "pier"):  # undated: grouped by their folder
        text = entry("notes", 7).replace("# notes", f"# About the {name}").replace("I took", "We took")
        (src / "notes" / f"{name}.md").write_text(text, encoding="utf-8")
    return src


def run(src: Path, out: Path, *extra: str) -> list[dict[str, object]]:
    """One run; its JSON log events."""
    log = out.parent / f"log-{len(list(out.parent.glob('log-*')))}.jsonl"
    args = ["run", str(src), "--out", str(out), "--no-index", "--quiet", "--log-format", "json", "--log-file"]
    res = CliRunner().invoke(main, [*args, str(log), *extra], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]


def redone(events: list[dict[str, object]]) -> tuple[list[str], list[object]]:
    """(periods the run's digests redid, files it summarized)."""
    done = [e for e in events if e["event"] == "digests_updated"]
    files = [e["relpath"] for e in events if e["event"] == "file_done"]
    return (list(done[0]["redone"]) if done else []), files  # type: ignore[call-overload]


def test_every_month_year_and_folder_gets_a_digest_with_text_and_links(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    periods, _ = redone(run(corpus, out))
    assert sorted(periods) == [
        "folder:notes",
        "month:2025-11",
        "month:2025-12",
        "month:2026-01",
        "year:2025",
        "year:2026",
    ]
    month = out / "digests" / "2025" / "2025-11.md"
    meta, body = parse_markdown(month.read_text(encoding="utf-8"))
    assert meta["period"] == "2025-11" and meta["period_kind"] == "month" and meta["files"] == 2
    assert meta["output_tokens"] > 0 and meta["level"] == 4
    # Its two entries' one-line finals fit its budget: both are quoted, each under its day.
    assert body.startswith("# November 2025\n\n") and "Ingrid" in body and "Magnus" in body
    for link in meta["finals"]:
        assert (month.parent / link).resolve().is_file(), link
    year_meta, year_body = parse_markdown((out / "digests" / "2025.md").read_text(encoding="utf-8"))
    assert year_meta["files"] == 4 and year_meta["months"] == ["2025/2025-11.md", "2025/2025-12.md"]
    assert year_body.startswith("# 2025\n\n") and len(year_body.split("<!--")[0].split()) > 8
    folder_meta, _ = parse_markdown((out / "digests" / "folders" / "notes.md").read_text(encoding="utf-8"))
    assert folder_meta["files"] == 2 and folder_meta["period_kind"] == "folder"
    # The root index: each month opens with its digest's summary, each file has its one-line summary.
    index = (out / "index.md").read_text(encoding="utf-8")
    assert "### November 2025 (2 files)" in index and "## Undated, by folder" in index
    month_text = body.split("\n\n", 1)[1].split("<!--")[0].strip()
    assert month_text.splitlines()[0] in index
    lines = [line for line in index.splitlines() if line.startswith("- ")]
    assert len(lines) == len(DAYS) + 2
    assert all(" — " in line for line in lines)
    assert any(line.startswith("- 2025-11-03 · [2025-11-03](<") and "early train to Bergen" in line for line in lines)


def test_appending_to_one_entry_redoes_that_entry_its_month_and_its_year_only(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    run(corpus, out)
    before = {p: p.stat().st_mtime_ns for p in (out / "digests").rglob("*.md")}
    with (corpus / "2025-12-01.md").open("a", encoding="utf-8") as fh:
        fh.write("Late in the evening a letter came from Ingrid about the new lighthouse keeper in Oslo.\n")
    periods, files = redone(run(corpus, out))
    assert files == ["2025-12-01.md"]
    assert sorted(periods) == ["month:2025-12", "year:2025"]
    changed = sorted(p.relative_to(out).as_posix() for p in before if p.stat().st_mtime_ns != before[p])
    assert changed == ["digests/2025.md", "digests/2025/2025-12.md"]
    # An unchanged night redoes nothing.
    periods, files = redone(run(corpus, out))
    assert periods == [] and files == []


def test_the_closing_line_says_how_many_digests_a_night_updated(corpus: Path, tmp_path: Path) -> None:
    # A nightly log of the closing line alone tells the nights that rewrote month and year pages: it had named
    # the files only, and a night that redid March and its year read like one that redid nothing.
    out = tmp_path / "out"

    def night() -> tuple[str, dict[str, object]]:
        base = ["run", str(corpus), "--out", str(out), "--no-index"]
        line = CliRunner().invoke(main, base, catch_exceptions=False).stdout.strip().splitlines()[-1]
        data = json.loads(CliRunner().invoke(main, [*base, "--json"], catch_exceptions=False).stdout)
        return line, data

    line, data = night()  # the first night makes every digest; the --json run after it, none
    assert re.search(r", 0 unchanged; \d+ digests updated; tokens ", line), line
    assert data["digests"] == 0
    with (corpus / "2025-12-01.md").open("a", encoding="utf-8") as fh:
        fh.write("Late in the evening a letter came from Ingrid about the new lighthouse keeper in Oslo.\n")
    line, _ = night()
    assert "; 2 digests updated; " in line, line  # its month and its year
    line, data = night()
    assert "digest" not in line and data["digests"] == 0, line  # an unchanged night updates none


MEETING = """\
Maya: Okay, let's start. The venue question first, then the harbour survey and the boats.
Luis: The Lisbon venue doubled its price, so I want to propose Porto instead for the offsite.
Maya: Then that's decided: the offsite moves to Porto in November, after the survey.
Luis: I'll confirm the booking today and pay the deposit by Friday.
Maya: Priya, can you write the design note for the sync endpoint before the offsite?
Priya: Sure. What format should the export use for the harbour council?
Maya: We need to finish the grant report before the offsite, and the survey of the pier too.
"""


def _without_created_at(path: Path) -> str:
    lines = path.read_text(encoding="utf-8").splitlines(True)
    return "".join(line for line in lines if not line.startswith(("created_at:", "generated_at:")))


def _same_digests_and_index(one: Path, other: Path) -> None:
    digests = sorted(p.relative_to(one) for p in (one / "digests").rglob("*.md"))
    assert digests == sorted(p.relative_to(other) for p in (other / "digests").rglob("*.md")) and len(digests) == 6
    for rel in [*digests, Path("index.md")]:
        assert _without_created_at(one / rel) == _without_created_at(other / rel), rel
    state = Path(".batchsum") / "digests.json"
    assert (one / state).read_bytes() == (other / state).read_bytes()


def test_digests_and_index_made_from_what_a_run_wrote_equal_those_made_from_the_files(
    corpus: Path, tmp_path: Path
) -> None:
    # A final with extracted sections, which its digest leaves out.
    (corpus / "notes" / "standup.md").write_text(MEETING, encoding="utf-8")
    fresh, later = tmp_path / "fresh", tmp_path / "later"
    periods, _ = redone(run(corpus, fresh))  # the digests take the finals the run has just written
    run(corpus, later, "--no-digests")
    # No file changed: the finals are read from their files (--digests: the folder remembers --no-digests).
    again, files = redone(run(corpus, later, "--digests"))
    assert files == [] and sorted(again) == sorted(periods) and "folder:notes" in periods
    final = (fresh / "notes" / "standup.md" / "summaries" / "L3" / "final.md").read_text(encoding="utf-8")
    assert "\n## Facets (extracted)" in final
    _same_digests_and_index(fresh, later)
    # One entry changed: its month's summary on the index page is the one just written, the others' are
    # read back from their digests.
    with (corpus / "2025-12-01.md").open("a", encoding="utf-8") as fh:
        fh.write("Late in the evening a letter came from Ingrid about the new lighthouse keeper in Oslo.\n")
    assert redone(run(corpus, later))[0] == ["month:2025-12", "year:2025"]
    refreshed = tmp_path / "refreshed"
    run(corpus, refreshed)
    _same_digests_and_index(refreshed, later)


def test_a_deleted_entry_redoes_its_periods_and_leaves_the_index(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    run(corpus, out)
    (corpus / "2025-11-17.md").unlink()
    periods, _ = redone(run(corpus, out))
    assert sorted(periods) == ["month:2025-11", "year:2025"]
    index = (out / "index.md").read_text(encoding="utf-8")
    assert "2025-11-17" not in index and f"files: {len(DAYS) + 1}" in index
    # A month whose last entry is deleted loses its digest; its year is redone without it.
    for day in ("2026-01-05", "2026-01-20"):
        (corpus / f"{day}.md").unlink()
    periods, _ = redone(run(corpus, out))
    assert periods == []
    assert not (out / "digests" / "2026" / "2026-01.md").exists() and not (out / "digests" / "2026.md").exists()
    assert not (out / "digests" / "2026").exists()  # no empty folder left of the year
    assert (out / "digests" / "2025").is_dir()
    assert "month:2026-01" not in load_state(out / ".batchsum" / "digests.json").periods
    assert "2026" not in (out / "index.md").read_text(encoding="utf-8").split("---", 2)[2]


def test_word_budgets_and_no_digests(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    run(corpus, out, "--month-words", "25")
    _, body = parse_markdown((out / "digests" / "2025" / "2025-11.md").read_text(encoding="utf-8"))
    assert 5 < len(body.split("<!--")[0].split()) <= 25 + 3  # the title's words besides the budget
    bare = tmp_path / "bare"
    run(corpus, bare, "--no-digests")
    assert not (bare / "digests").exists()
    assert "## Journal" in (bare / "index.md").read_text(encoding="utf-8")


def test_report_counts_digests_as_their_own_level_and_plan_shows_their_work(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    run(corpus, out)
    res = CliRunner().invoke(main, ["report", "--out", str(out), "--format", "json"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    periods = {p["period"]: p for p in json.loads(res.output)["periods"]}
    assert periods["month"]["digests"] == 3 and periods["month"]["budget_words"] == 300
    assert periods["year"]["digests"] == 2 and periods["year"]["budget_words"] == 600
    assert periods["folder"]["files"] == 2 and periods["month"]["words_min"] > 0
    (corpus / "2026-01-20.md").write_text(entry("2026-01-20", 9) + "One more line.\n", encoding="utf-8")
    res = CliRunner().invoke(main, ["plan", str(corpus), "--out", str(out), "--json"], catch_exceptions=False)
    plan = json.loads(res.output)["periods"]
    assert plan["periods"] == ["month:2026-01", "year:2026"] and plan["llm_calls"] == 0
    assert plan["input_tokens"] > 0 and plan["est_output_tokens"] > 0


def test_llm_digests_are_made_by_the_server_and_counted_in_the_plan(
    corpus: Path, tmp_path: Path, fake_llm: object
) -> None:
    out = tmp_path / "out"
    url = fake_llm.base_url  # type: ignore[attr-defined]
    llm = ["--base-url", url, "--model", "fake-model", "--api-key", "k"]
    res = CliRunner().invoke(main, ["plan", str(corpus), "--out", str(out), "--json", *llm], catch_exceptions=False)
    plan = json.loads(res.output)
    assert plan["periods"]["llm_calls"] == 6  # three months, two years, one folder
    events = run(corpus, out, *llm)
    assert len(redone(events)[0]) == 6
    meta, body = parse_markdown((out / "digests" / "2025.md").read_text(encoding="utf-8"))
    assert meta["backend"] == "llm" and meta["model"] == "fake-model" and body.strip()


def test_an_offline_run_records_no_llm_tokens(corpus: Path, tmp_path: Path) -> None:
    res = CliRunner().invoke(main, ["run", str(corpus), "--out", str(tmp_path / "out"), "--no-index", "--json"])
    run_ = json.loads(res.stdout)["run"]
    assert res.exit_code == 0 and run_["llm_calls"] == 0
    assert run_["prompt_tokens"] == 0 and run_["completion_tokens"] == 0  # the digests' own text is no spend


def test_digests_the_fallback_made_make_a_degraded_run(corpus: Path, tmp_path: Path, fake_llm: object) -> None:
    fake_llm.configure(rules=[{"match": "Synthesize", "status": 500}])  # type: ignore[attr-defined]
    llm = ["--base-url", fake_llm.base_url, "--model", "fake-model", "--max-attempts", "1"]  # type: ignore[attr-defined]
    args = ["run", str(corpus), "--out", str(tmp_path / "out"), "--no-index", "--json", *llm]
    res = CliRunner().invoke(main, args, catch_exceptions=False)
    data = json.loads(res.stdout)
    assert res.exit_code == 4 and data["run"]["status"] == "degraded"
    assert not any(f["fallback_nodes"] for f in data["files"])  # every file's summary came from the server
    assert data["run"]["fallback_nodes"] == 6  # three months, two years, one folder


def test_a_digest_is_written_in_its_files_language(tmp_path: Path, fake_llm: object) -> None:
    """German notes: every file prompt asks for German, and so does their folder's digest."""
    src = tmp_path / "notizen"
    src.mkdir()
    for name, ort in (("hafen", "Hafen"), ("markt", "Markt"), ("kirche", "Kirche")):
        text = (
            f"Heute bin ich früh zum {ort} gegangen und habe dort lange mit meiner Schwester gesprochen. "
            "Wir haben über die Reise nach Norwegen und über das Wetter im Winter geredet, das sehr kalt war. "
            "Am Abend habe ich ein Buch gelesen und bin danach müde, aber zufrieden ins Bett gegangen. "
        ) * 3
        (src / f"{name}.md").write_text(text, encoding="utf-8")
    llm = ["--base-url", fake_llm.base_url, "--model", "fake-model", "--api-key", "k"]  # type: ignore[attr-defined]
    run(src, tmp_path / "out", *llm)
    log = fake_llm.log  # type: ignore[attr-defined]
    digest = [e for e in log if "Synthesize" in str(e.messages)]
    assert digest and "Write the summary in German" in str(digest[-1].messages[-1]["content"])


def test_names_that_would_break_a_page_are_escaped(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    nasty = "a]b\nc\x1bd <!-- e.md"
    (src / nasty).write_text(entry("x", 1), encoding="utf-8")
    (src / "plain.md").write_text(entry("y", 2), encoding="utf-8")
    out = tmp_path / "out"
    run(src, out)
    for page in [out / "index.md", *(out / "digests").rglob("*.md")]:
        text = page.read_text(encoding="utf-8")
        assert "\x1b" not in text and "<!--" not in text.replace("<!-- batchsum:links -->", ""), page
        for target in re.findall(r"\]\(<([^>]+)>\)", text):
            assert "\n" not in target
            assert (page.parent / unquote(target)).resolve().is_file(), (page, target)
    lines = [line for line in (out / "index.md").read_text(encoding="utf-8").splitlines() if line.startswith("- ")]
    assert len(lines) == 2 and any("a\\]b\\nc\\x1bd <\\!-- e" in line for line in lines)


def test_an_index_line_cut_inside_a_quotation_closes_it() -> None:
    """index.md's line of an entry is its first sentences; one that ends inside a quotation had left it open
    ('She texted at 17:10: "Went well, I think.')."""
    entry = (
        'Greta\'s interview day. She texted at 17:10: "Went well, I think. They want me back." Then we had '
        "dinner and talked about the move to Tübingen for a long time that night."
    )
    line = one_line(entry)
    assert line.endswith('"Went well, I think."') and line.count('"') == 2
    cut = one_line('She said: "' + " ".join(["and then we walked on"] * 12) + ' to the harbour."')
    assert cut.endswith('…"') and cut.count('"') == 2, cut


def test_periods_one_line_and_grouping() -> None:
    # A Japanese one-liner is cut at a clause mark, never inside a word ("なったか…" had cut から in two).
    head = "骨相学の起源は知らないが、とにかく頭の形を見て人の性質を判断すると"
    ja = head + "云うむずかしい話がいつまでも長く続いてとうとう夜になったから、私は帰った。"
    assert one_line(ja) == head + "云うむずかしい話がいつまでも長く続いてとうとう夜になったから…"
    files = [
        FileFacts("j/2026-03-02.md", "k1", "2026-03-02", "", 10),
        FileFacts("j/2026-03-01.md", "k2", "2026-03-01", "", 10),
        FileFacts("j/2025-12-31.md", "k3", "2025-12-31", "", 10),
        FileFacts("notes/a.md", "k4", None, "", 10),
        FileFacts("top.md", "k5", None, "", 10),
    ]
    groups = group(files)
    assert [f.relpath for f in groups[Period("month", "2026-03")]] == ["j/2026-03-01.md", "j/2026-03-02.md"]
    assert set(groups) == {
        Period("month", "2026-03"),
        Period("month", "2025-12"),
        Period("folder", "notes"),
        Period("folder", ""),
    }
    assert years_of(groups) == {Period("year", "2025"): [Period("month", "2025-12")],
                                Period("year", "2026"): [Period("month", "2026-03")]}  # fmt: skip
    assert Period("month", "2026-03").path() == "digests/2026/2026-03.md"
    assert Period("folder", "").path() == "digests/top.md" and Period("year", "2026").path() == "digests/2026.md"
    assert Period("month", "2026-03").title == "March 2026"
    assert one_line("May 3. We sailed at dawn with the\nwhole crew aboard. Later rain.") == (
        "May 3. We sailed at dawn with the whole crew aboard."
    )
    assert one_line(" ".join(["word"] * 50)).endswith("…")


def test_digests_are_indexed_and_found_by_a_search_for_their_month(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    res = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--quiet"], catch_exceptions=False)
    assert res.exit_code == 0, res.output

    def search(*args: str) -> list[dict[str, object]]:
        got = CliRunner().invoke(main, ["search", *args, "--out", str(out), "--json"], catch_exceptions=False)
        assert got.exit_code == 0, got.output
        return list(json.loads(got.output))

    hits = search("December 2025 harbour survey", "--level", "period")
    assert hits and {h["level"] for h in hits} == {4}
    assert hits[0]["doc_id"] == "digests/2025/2025-12.md"
    top3 = [h["doc_id"] for h in search("what happened in December 2025")[:3]]
    assert "digests/2025/2025-12.md" in top3
    check = CliRunner().invoke(main, ["index", str(out), "--check"], catch_exceptions=False)
    assert check.exit_code == 0, check.output  # the digests' records match their files
    # A month whose last entry is deleted leaves the index with its digest.
    for day in ("2026-01-05", "2026-01-20"):
        (corpus / f"{day}.md").unlink()
    res = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--quiet"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert not [h for h in search("January 2026", "--level", "period") if "2026" in str(h["doc_id"])]


def test_pipeline_file_sets_the_digest_budgets(tmp_path: Path) -> None:
    from batchsum.config import RunConfig
    from batchsum.pipeline_file import apply_pipeline, load_pipeline

    path = tmp_path / "p.yaml"
    (tmp_path / "j").mkdir()
    yaml = f"version: 1\ncorpora:\n  - path: {tmp_path / 'j'}\n"
    yaml += "digests:\n  enabled: false\n  month_words: 120\n  year_words: 400\n"
    path.write_text(yaml, encoding="utf-8")
    cfg = apply_pipeline(load_pipeline(path), RunConfig(paths=[]), set())
    assert (cfg.digests, cfg.digest_month_words, cfg.digest_year_words) == (False, 120, 400)


def test_an_extractive_year_reads_month_by_month_in_the_months_own_words(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    for day, i in (("2025-12-08", 3), ("2025-12-15", 4), ("2025-12-30", 5)):  # December outweighs November
        (corpus / f"{day}.md").write_text(entry(day, i), encoding="utf-8")
    run(corpus, out, "--year-words", "100")

    def text(path: Path) -> str:
        body = parse_markdown(path.read_text(encoding="utf-8"))[1]
        return body.split("\n\n", 1)[1].split("<!--")[0].strip()

    year = text(out / "digests" / "2025.md")
    paragraphs = year.split("\n\n")
    # A month's words go under their day, as in the month's digest; the first day names the month, so no
    # "**November.**" stands before "**3 November.**".
    opening = [re.match(r"\*\*\d{1,2} (\w+)\.\*\* ", p) for p in paragraphs]
    assert [m.group(1) if m else p[:30] for m, p in zip(opening, paragraphs, strict=True)] == ["November", "December"]
    for paragraph, month in zip(paragraphs, ("2025-11", "2025-12"), strict=True):
        source = " ".join(text(out / "digests" / "2025" / f"{month}.md").split())
        body = paragraph
        sentences = [s.strip() + "." for s in body.split(". ") if s.strip(" .")]
        invented = [s for s in sentences if s.rstrip(".") not in source]
        assert sentences and not invented, (invented, source)
    # Each month's share follows the length of its digest: the longer December gets more words.
    assert len(paragraphs[1].split()) > len(paragraphs[0].split())
    assert len(year.split()) <= 100 * 1.3 + 4


def test_a_query_naming_a_month_finds_its_digest_before_entries_that_mention_the_date(tmp_path: Path) -> None:
    src = tmp_path / "journal"
    src.mkdir()
    for i, day in enumerate(["2025-11-10", "2025-12-02", "2025-12-09", "2025-12-16", "2025-12-23", "2026-01-05"]):
        # Each December entry mentions the month and year, as letters and footnotes do ("23d May 1826").
        text = entry(day, i).replace("I read in the evening", "I dated my letter 9 December 2025 and read")
        if day == "2025-12-16":
            text += "Old Halvorsen, the lighthouse keeper at Svolvær, retired after forty years.\n"
        if day == "2026-01-05":  # January's one entry, long enough that its month's digest nearly copies it
            text += "".join(
                entry(day, j).split("\n\n", 1)[1].replace("I took", f"On trip {j} I took") for j in range(8)
            )
        (src / f"{day}.md").write_text(text, encoding="utf-8")
    out = tmp_path / "out"
    res = CliRunner().invoke(main, ["run", str(src), "--out", str(out), "--quiet"], catch_exceptions=False)
    assert res.exit_code == 0, res.output

    def search(query: str) -> list[str]:
        got = CliRunner().invoke(main, ["search", query, "--out", str(out), "--json"])
        assert got.exit_code == 0, got.output
        return [h["doc_id"] for h in json.loads(got.output)]

    ids = search("what happened in December 2025?")
    assert ids[0] == "digests/2025/2025-12.md", ids  # the month itself answers, before any of its entries
    # The month's events: its digest leads, then the entry that holds them.
    ids = search("December 2025: Halvorsen, lighthouse keeper, Svolvær")
    assert ids[:2] == ["digests/2025/2025-12.md", "2025-12-16.md"], ids
    assert search("Halvorsen, lighthouse keeper, Svolvær")[0] == "2025-12-16.md"  # no month asked for
    # A month of a single entry: its digest nearly copies the entry, and still answers for the month.
    assert search("what happened in January 2026?")[0] == "digests/2026/2026-01.md"
    # A month named by its number, as a Chinese or Japanese journal keeper writes it, or as an ISO month.
    for query in ("2025-12", "2025年12月", "2025年12月发生了什么", "2025年12月の出来事"):
        assert search(query)[0] == "digests/2025/2025-12.md", (query, search(query))
    # A month's digest shows its month as its date.
    got = CliRunner().invoke(main, ["search", "2025-12", "--out", str(out), "--json"])
    first = json.loads(got.output)[0]
    assert first["doc_date"] == "2025-12"
    assert first["relevance"] == 1.0  # the query is nothing but the month's name: its digest is the answer


def test_new_budgets_redo_every_digest_and_the_index_page_with_no_file_changed(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    path = out / "digests" / "2025" / "2025-11.md"

    def month_text() -> str:
        body = parse_markdown(path.read_text(encoding="utf-8"))[1]
        return " ".join(body.split("\n\n", 1)[1].split("<!--")[0].split())

    for day, i in (("2025-11-05", 2), ("2025-11-08", 3), ("2025-11-21", 4), ("2025-11-26", 5)):
        (corpus / f"{day}.md").write_text(entry(day, i), encoding="utf-8")  # a month worth a longer digest
    run(corpus, out, "--month-words", "20")
    short = month_text()
    periods, files = redone(run(corpus, out, "--month-words", "300"))  # left out, 20 would be remembered
    assert files == [] and len(periods) == 6  # three months, a folder, two years
    assert len(month_text().split()) > len(short.split())
    index = (out / "index.md").read_text(encoding="utf-8")
    section = index.split("### November 2025", 1)[1].split("Digest:", 1)[0]
    assert " ".join(section.split()[2:]) == month_text()  # the page shows the new summary
    assert redone(run(corpus, out)) == ([], [])  # the same budgets again: an unchanged night


def test_a_month_digest_names_the_day_of_each_paragraph_unless_it_does_already() -> None:
    from batchsum.digest_pages import digest_body

    parts = ["We left Oslo at dawn. The sea was calm.", "_May_ 9.--Ingrid wrote from Bergen. She is well."]
    owners = [
        FileFacts("j/2026-05-03.md", "k1", "2026-05-03", "", 9),
        FileFacts("j/2026-05-09.md", "k2", "2026-05-09", "", 9),
    ]
    text = "We left Oslo at dawn. _May_ 9.--Ingrid wrote from Bergen."
    assert digest_body(Period("month", "2026-05"), text, parts, owners) == (
        "**3 May.** We left Oslo at dawn.\n\n**9 May.** Ingrid wrote from Bergen."
    )  # the entry's own heading ("_May_ 9.--") becomes the label the other days have
    # A paragraph per run of sentences from one entry, in the order picked: back to an entry, its day again.
    back = "We left Oslo at dawn. Ingrid wrote from Bergen. She is well. The sea was calm."
    assert digest_body(Period("month", "2026-05"), back, parts, owners) == (
        "**3 May.** We left Oslo at dawn.\n\n**9 May.** Ingrid wrote from Bergen. She is well.\n\n"
        "**3 May.** The sea was calm."
    )
    # A file that holds two days: the paragraph that gives its own day gets no label of the file's.
    two = ["_May_ 3.--We left Oslo.", "[_Bergen_,] _May_ 4.--Ingrid wrote from Bergen."]
    days = [
        FileFacts("j/2026-05-03.md", "k1", "2026-05-03", "", 9),
        FileFacts("j/2026-05-03b.md", "k2", "2026-05-03", "", 9),
    ]
    assert digest_body(
        Period("month", "2026-05"), "_May_ 3.--We left Oslo. [_Bergen_,] _May_ 4.--Ingrid wrote from Bergen.", two, days
    ) == ("**3 May.** We left Oslo.\n\n**4 May.** Ingrid wrote from Bergen.")
    undated = [FileFacts("notes/stand*up.md", "k3", None, "", 9), FileFacts("notes/b.md", "k4", None, "", 9)]
    assert digest_body(Period("folder", "notes"), text, parts, undated).startswith("**stand\\*up.** We left")
    written = "In short, a calm voyage and good news from Bergen."  # an LLM's words: kept as written
    assert digest_body(Period("month", "2026-05"), written, parts, owners) == written
    assert digest_body(Period("year", "2026"), text, parts, owners) == text  # a year names its months itself


def test_a_day_heading_after_a_place_becomes_the_same_label_as_the_other_days() -> None:
    from batchsum.digest_pages import digest_body

    parts = [
        "_May_ 15.--We walked to the river. The water was high.",
        "[_Abbotsford_,] _May_ 16.--We dined with the Fergusons. It rained.",
        "[_Abbotsford, Saturday_,] _May_ 17.--Left for town. The roads were bad.",
        "[_Edinburgh_],[265] _May_ 18.--Court all day. Home late.",  # the editor's note mark after the place
    ]
    owners = [FileFacts(f"j/2026-05-{d}.md", f"k{d}", f"2026-05-{d}", "", 9) for d in (15, 16, 17, 18)]
    text = " ".join(parts)
    paragraphs = digest_body(Period("month", "2026-05"), text, parts, owners).split("\n\n")
    labels = [p.split("** ", 1)[0] + "**" for p in paragraphs]
    assert labels == ["**15 May.**", "**16 May.**", "**17 May.**", "**18 May.**"]
    for paragraph in paragraphs:
        assert "_" not in paragraph and "[" not in paragraph and ".--" not in paragraph, paragraph
    assert paragraphs[1].endswith("We dined with the Fergusons. It rained.")


def test_a_digest_paragraph_reads_a_list_item_on_after_its_label_without_its_bullet() -> None:
    from batchsum.digest_pages import digest_body

    parts = ["A new sync endpoint.\n\nGoals:\n- Every reading exactly once.\n- The full history.", "Ship in May."]
    owners = [FileFacts("docs/design.md", "k1", None, "", 9), FileFacts("docs/plan.md", "k2", None, "", 9)]
    body = digest_body(Period("folder", "docs"), "Goals:\n- Every reading exactly once.\n\nShip in May.", parts, owners)
    assert body == "**design.** Goals: Every reading exactly once.\n\n**plan.** Ship in May."


def test_a_folder_digest_ranks_below_a_file_of_its_folder_that_holds_as_much_of_the_query() -> None:
    import numpy as np

    from batchsum.index.asked_periods import digests_after_their_entries

    metadata = [
        {"level": 4, "source_path": "digests/folders/meetings.md"},
        {"level": 3, "source_path": "meetings/2026-10-09-review.txt"},
        {"level": 4, "source_path": "digests/top.md"},
        {"level": 3, "source_path": "notes.md"},
        {"level": 3, "source_path": "journal/2026-10-09.md"},
    ]
    matrix = np.eye(5, dtype=np.float32)  # no two nodes alike: only the folder decides
    ranked = np.array([0.9, 0.8, 0.85, 0.7, 0.95], dtype=np.float32)
    coverage = np.ones(5, dtype=np.float32)
    out = digests_after_their_entries(ranked, matrix, metadata, coverage, "when will the dashboard ship?")
    assert out[1] > out[0] > out[3]  # the meeting where the words were written, then its folder's digest
    assert out[3] > out[2]  # the top level's digest after the top level's own file
    assert out[4] == ranked[4]  # an entry is never moved
    fewer = digests_after_their_entries(ranked, matrix, metadata, np.array([1, 0.5, 1, 1, 1], np.float32), "q")
    assert fewer[0] == ranked[0]  # a file holding less of the query than the digest does not outrank it
    for key in ("", "meetings", "notes/2026"):  # the folder is read back from where its digest is written
        assert digest_folder(Period("folder", key).path()) == key
    assert digest_folder(Period("month", "2026-10").path()) is None
    assert digest_folder(Period("year", "2026").path()) is None


def test_a_month_of_dated_entries_and_a_meeting_reads_day_by_day_under_each_files_own_day(tmp_path: Path) -> None:
    # Entries under a dated heading are summarized with "2025-11-03: " line labels, and a meeting's turns are
    # undated; the month's digest still gives each paragraph the day of the file it quotes.
    src = tmp_path / "corpus"
    (src / "journal").mkdir(parents=True)
    (src / "meetings").mkdir()
    for i, day in enumerate(DAYS[:2]):
        (src / "journal" / f"{day}.md").write_text(entry(day, i) * 6, encoding="utf-8")  # STANDARD: dated lines
    meeting = "\n".join(
        f"{who}: {line}"
        for who, line in [
            ("Luis", "The quote for the venue is six thousand two hundred euros with lunches and one dinner."),
            ("Maya", "That is within the budget if we drop the second boat trip from the plan."),
            ("Luis", "Then I will sign the contract with the lighthouse on Friday morning."),
            ("Maya", "Good, and please ask them about the rooms for the four of us."),
        ]
        * 3
    )
    (src / "meetings" / "2025-11-10-planning.txt").write_text(meeting + "\n", encoding="utf-8")
    out = tmp_path / "out"
    run(src, out)
    finals = {
        day: " ".join(parse_markdown((out / name / "summaries/L3/final.md").read_text("utf-8"))[1].split())
        for day, name in [("3", "journal/2025-11-03.md"), ("17", "journal/2025-11-17.md"),
                          ("10", "meetings/2025-11-10-planning.txt")]
    }  # fmt: skip
    _, body = parse_markdown((out / "digests" / "2025" / "2025-11.md").read_text(encoding="utf-8"))
    paragraphs = body.split("<!--")[0].strip().split("\n\n")[1:]
    assert len(paragraphs) >= 2, body
    for paragraph in paragraphs:
        m = re.match(r"\*\*(\d+) November\.\*\* (.+)", paragraph, re.S)
        assert m is not None, body
        assert not re.search(r"\d{4}-\d{2}-\d{2}: ", m.group(2)), body
        for sentence in re.split(r"(?<=\.) ", " ".join(m.group(2).split())):  # each one of its day's final
            assert sentence in finals[m.group(1)], (m.group(1), body)
    index = (out / "index.md").read_text(encoding="utf-8")
    assert any(line.startswith("- 2025-11-03 · ") and "I took the early train" in line for line in index.splitlines())
    assert "2025-11-03: " not in index and " — # " not in index  # no date label, no heading in a one-line summary


def test_one_line_leaves_out_a_list_bullet() -> None:
    glossary = (
        "- **NTU**: nephelometric turbidity units, how cloudy the water is.\n- **Cursor**: where a client resumes."
    )
    assert one_line(glossary).startswith("**NTU**: nephelometric turbidity units")
    assert one_line("We bought 3 things - apples, pears and plums - at the market stall today.").startswith(
        "We bought 3"
    )


def test_one_line_is_not_cut_at_a_title_or_an_initial() -> None:
    for text in (
        "I was kept at the Court till two, and soon after Mr. Gibson came to dinner with the news. Then rain.",
        "I heard it reported that Lord B. had gone to London for the season and would not return. So be it.",
    ):
        assert one_line(text) == text.rsplit(". ", 1)[0] + ".", one_line(text)


def test_one_line_leaves_out_a_heading_and_a_date_label() -> None:
    assert one_line("# 2026-10-03 — Saturday\n\nRain all day. Did not open the laptop at all.") == (
        "Rain all day. Did not open the laptop at all."
    )
    assert one_line("2026-10-12: The review with our program officer went badly.") == (
        "The review with our program officer went badly."
    )


def test_one_line_runs_chinese_lines_on_without_a_space() -> None:
    """A final's dated lines joined as the summarizer joins sentences: no space between Chinese ones."""
    line = one_line("2024-03-12: 你知道么。\n2024-03-15: 然而究竟很怕人。", language="zh")
    assert line == "你知道么。然而究竟很怕人。"
    assert one_line("2024-03-12: Rain all day.\n2024-03-15: The ferry ran late.") == "Rain all day. The ferry ran late."


def test_a_years_words_for_a_month_go_under_their_day() -> None:
    from batchsum.digest_pages import day_labelled

    days = ["**3 May.** We left Oslo at dawn. The sea was calm.", "_May_ 9.--Ingrid wrote from Bergen. She is well."]
    assert (
        day_labelled("The sea was calm. She is well.", days) == "**3 May.** The sea was calm. **9 May.** She is well."
    )
    assert day_labelled("_May_ 9.--Ingrid wrote from Bergen.", days) == "_May_ 9.--Ingrid wrote from Bergen."
    assert day_labelled("In short, a calm voyage.", days) == "In short, a calm voyage."  # an LLM's words


def test_a_sentence_two_days_wrote_goes_under_the_day_it_was_picked_from(tmp_path: Path) -> None:
    # A diary repeats itself ("Slept badly."): the month's digest picks in source order, so the one after
    # the 9th is the 12th's, not the 3rd's again ("**3 May.** Slept badly." between the 9th and the 12th).
    src = tmp_path / "journal"
    src.mkdir()
    days = {
        "2026-05-03": "Slept badly. We left Oslo at dawn and the sea was calm all morning.",
        "2026-05-09": "Ingrid wrote from Bergen; she is well and the baby is walking.",
        "2026-05-12": "Slept badly. The ferry to Stavanger was four hours late.",
    }
    for day, text in days.items():
        (src / f"{day}.md").write_text(text + "\n", encoding="utf-8")
    out = tmp_path / "out"
    run(src, out)
    _, month = parse_markdown((out / "digests" / "2026" / "2026-05.md").read_text(encoding="utf-8"))
    paragraphs = month.split("<!--")[0].strip().split("\n\n")[1:]
    assert paragraphs == [f"**{int(day[8:])} May.** {text}" for day, text in days.items()], paragraphs
    _, year = parse_markdown((out / "digests" / "2026.md").read_text(encoding="utf-8"))
    labels = re.findall(r"\*\*(\d+) May\.\*\*", year)
    assert labels == ["3", "9", "12"], year


def test_a_month_whose_entries_fit_its_budget_quotes_their_finals_whole(tmp_path: Path) -> None:
    src = tmp_path / "journal"
    src.mkdir()
    # A short entry in January, one in March: the finals of each month fit its budget.
    (src / "2026-01-11.md").write_text(
        "I got proof-sheets today in which I have repeated a whole passage of history told before. "
        "James is in an awful stew about it, and I cannot blame him. " * 2,
        encoding="utf-8",
    )
    (src / "2026-03-02.md").write_text("Rain all day. The boat stayed in the harbor and so did I.\n", encoding="utf-8")
    out = tmp_path / "out"
    run(src, out)
    for name, month in [("2026-01-11.md", "2026-01"), ("2026-03-02.md", "2026-03")]:
        final = " ".join(
            summary_only(parse_markdown((out / name / "summaries/L3/final.md").read_text("utf-8"))[1])
            .split("<!--")[0]
            .split()
        )
        _, body = parse_markdown((out / "digests" / "2026" / f"{month}.md").read_text(encoding="utf-8"))
        paragraph = body.split("<!--")[0].strip().split("\n\n")[1]
        assert "…" not in paragraph and " ".join(paragraph.split()).endswith(final), (final, paragraph)


def test_an_entry_kept_whole_reaches_its_digest_and_index_without_its_front_matter(tmp_path: Path) -> None:
    src = tmp_path / "journal"
    src.mkdir()
    (src / "1826-05-16.md").write_text(
        "---\ntitle: A sad day\ntags: [family]\n---\n\n_May_ 16.--She died at nine in the morning, easy at last.\n",
        encoding="utf-8",
    )
    out = tmp_path / "out"
    run(src, out)
    _, month = parse_markdown((out / "digests" / "1826" / "1826-05.md").read_text(encoding="utf-8"))
    index = (out / "index.md").read_text(encoding="utf-8")
    for text in (month.split("<!--")[0], index.split("\n---\n", 1)[1]):
        assert "She died at nine" in text and "title:" not in text and "tags:" not in text, text


def test_a_note_kept_whole_gives_its_digest_no_code_and_no_tasks(tmp_path: Path) -> None:
    # A daily note's Dataview query and its task list are bookkeeping; its prose is what the month reads.
    src = tmp_path / "daily"
    src.mkdir()
    (src / "2024-03-21.md").write_text(
        "# Thursday 21 March 2024\n\nA quiet day at the desk with the proofs by the fire.\n\n"
        "- [ ] Pay the smith 📅 2024-03-22\n- [x] Wrote to Lockhart\n\n"
        '```dataview\nTASK FROM "Daily" WHERE !completed\n```\n',
        encoding="utf-8",
    )
    out = tmp_path / "out"
    run(src, out)
    _, month = parse_markdown((out / "digests" / "2024" / "2024-03.md").read_text(encoding="utf-8"))
    index = (out / "index.md").read_text(encoding="utf-8")
    for text in (month.split("<!--")[0], index.split("\n---\n", 1)[1]):
        assert "the proofs by the fire" in text, text
        assert "dataview" not in text and "TASK FROM" not in text and "smith" not in text and "Lockhart" not in text


def test_chinese_and_japanese_lines_are_cut_at_a_full_stop_and_run_on_without_spaces() -> None:
    from batchsum.digest_pages import digest_body

    # Lu Xun, 藤野先生 (public domain): one line is the first sentence, not the whole final.
    text = "其时进来的是一个黑瘦的先生，八字须，戴着眼镜，挟着一迭大大小小的书。一将书放在讲台上，便用了缓慢的声调。"
    assert one_line(text) == "其时进来的是一个黑瘦的先生，八字须，戴着眼镜，挟着一迭大大小小的书。"
    long = "长" * 200 + "。"
    assert one_line(long).endswith("…") and len(one_line(long)) <= 61
    parts = ["今天晚上，很好的月光。我不见他，已是三十多年。", "后面有几个人笑起来了。"]
    owners = [
        FileFacts("j/2026-05-03.md", "k1", "2026-05-03", "", 9),
        FileFacts("j/2026-05-09.md", "k2", "2026-05-09", "", 9),
    ]
    body = digest_body(Period("month", "2026-05"), "今天晚上，很好的月光。我不见他，已是三十多年。", parts, owners)
    assert body == "**3 May.** 今天晚上，很好的月光。我不见他，已是三十多年。", body


def test_a_digest_finds_each_sentence_in_its_file_as_the_summarizer_shows_it() -> None:
    from batchsum.digest_pages import digest_body

    # The summarizer adds a stop to a paragraph that ended without one and completes a quotation cut in two.
    parts = ["We fixed the parser in the end", 'She said "the ferry leaves at noon, so we must hurry.']
    owners = [FileFacts("notes/a.md", "k1", None, "", 9), FileFacts("notes/b.md", "k2", None, "", 9)]
    text = 'We fixed the parser in the end. She said "the ferry leaves at noon, so we must hurry."'
    assert digest_body(Period("folder", "notes"), text, parts, owners) == (
        '**a.** We fixed the parser in the end.\n\n**b.** She said "the ferry leaves at noon, so we must hurry."'
    )


def test_a_folder_of_lower_cased_papers_reads_paper_by_paper() -> None:
    from batchsum.digest_pages import digest_body

    parts = ["patients develop resistance to therapy. accumulating evidence suggests a cause.", "the gel was fixed."]
    owners = [FileFacts("pubmed/a.txt", "k1", None, "", 9), FileFacts("pubmed/b.txt", "k2", None, "", 9)]
    # The splitter keeps "therapy. accumulating" and "cause. the gel" together: lower case follows the stop.
    text = "patients develop resistance to therapy. accumulating evidence suggests a cause. the gel was fixed."
    assert digest_body(Period("folder", "pubmed"), text, parts, owners) == (
        "**a.** patients develop resistance to therapy. accumulating evidence suggests a cause.\n\n"
        "**b.** the gel was fixed."
    )


SCOTT = Path(__file__).resolve().parent.parent.parent / "shared" / "bench" / "journals" / "scott_daily"
if not SCOTT.is_dir():  # a worktree beside the main checkout
    SCOTT = Path("/work/shared/bench/journals/scott_daily")


@pytest.mark.skipif(not SCOTT.is_dir(), reason="shared/bench/journals/scott_daily not on this machine")
def test_a_months_digest_draws_on_the_whole_month_not_its_first_days(tmp_path: Path) -> None:
    # Walter Scott's December 1826: a month is no text whose opening says what it is about (an opening
    # prior had filled the digest with 2 to 12 December and missed Lord Hastings' death on the 22nd).
    src = tmp_path / "journal"
    src.mkdir()
    for path in sorted(SCOTT.glob("scott_1826-12-*.md")):
        (src / path.name).write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    out = tmp_path / "out"
    run(src, out)
    _, month = parse_markdown((out / "digests" / "1826" / "1826-12.md").read_text(encoding="utf-8"))
    text = month.split("<!--")[0]
    days = sorted(int(d) for d in re.findall(r"(?:\*\*(\d+) December\.\*\*|_December_ (\d+)\.)", text) for d in d if d)
    assert days and days[len(days) // 2] >= 12, days


def test_a_run_over_batchsum_own_files_redoes_only_its_digests(corpus: Path, tmp_path: Path) -> None:
    """serve's conversation summaries run in the folder with the chat model (remember=False, another backend
    identity): they redo the digests of their own files only, and the next nightly run redoes none."""
    import dataclasses

    from batchsum import run as run_library
    from batchsum.config import RunConfig
    from batchsum.serve.conversations import transcripts_root

    out = tmp_path / "out"
    run(corpus, out)
    before = {p: p.read_bytes() for p in (out / "digests").rglob("*.md")}
    chats = transcripts_root(out) / "c1"
    chats.mkdir(parents=True)
    talk = "\n".join(f"{'User' if i % 2 else 'Assistant'}: {entry('x', i).splitlines()[2]}" for i in range(8))
    (chats / "transcript.md").write_text(talk + "\n", encoding="utf-8")
    base = RunConfig(paths=[chats.parent], out=out, index=False, metrics=False, quiet=True, progress=False)
    guest = dataclasses.replace(
        base, remember=False, final_words=300, type_overrides={str(chats.parent): "conversation"}
    )
    run_library(guest)
    after = {p: p.read_bytes() for p in (out / "digests").rglob("*.md")}
    assert {p for p in before if after.get(p) != before[p]} == set(), "the journal's digests were redone"
    assert len(after) > len(before)  # the conversations' own digest
    events = run(corpus, out)
    assert redone(events) == ([], [])


BENCH = SCOTT.parent.parent


@pytest.mark.skipif(not (BENCH / "pubmed").is_dir(), reason="shared/bench not on this machine")
def test_a_folder_digest_quotes_each_of_its_files_before_more_of_one(tmp_path: Path) -> None:
    """Two papers and two chapters of the Rust book: the papers' long sentences are the more central, but a
    digest says what each file is about before it says more of one (it had quoted the two papers only)."""
    src = tmp_path / "reports"
    src.mkdir()
    for path in (
        BENCH / "pubmed" / "docs" / "pm_1017.txt",
        BENCH / "pubmed" / "docs" / "pm_13258.txt",
        BENCH / "markdown_rustbook" / "docs" / "appendix-02-operators.md",
        BENCH / "markdown_rustbook" / "docs" / "ch04-01-what-is-ownership.md",
    ):
        (src / path.name).write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    out = tmp_path / "out"
    run(src, out)
    body = parse_markdown(next((out / "digests").rglob("*.md")).read_text(encoding="utf-8"))[1]
    quoted = re.findall(r"^\*\*([\w.-]+)\.\*\*", body.split("<!--")[0], re.M)
    assert sorted(quoted) == ["appendix-02-operators", "ch04-01-what-is-ownership", "pm_1017", "pm_13258"], body


def test_a_year_quotes_a_month_of_one_long_sentence_beside_long_months(tmp_path: Path) -> None:
    """A month's share of its year is at least its shortest sentence: a short month beside six long ones had
    a share below its one sentence, and its paragraph read "**July.** **2 July.**…"."""
    src = tmp_path / "journal"
    src.mkdir()
    for m in range(1, 7):
        for d in range(1, 9):
            (src / f"2026-{m:02d}-{d * 3:02d}.md").write_text(entry(f"2026-{m:02d}-{d * 3:02d}", m * 9 + d), "utf-8")
    (src / "2026-07-02.md").write_text(
        "We sailed the old ketch from Bergen to the Lofoten islands, through three days of rain and one bright "
        "evening, with Ingrid at the helm and the dog asleep on the coiled ropes.\n",
        encoding="utf-8",
    )
    out = tmp_path / "out"
    run(src, out)
    _, year = parse_markdown((out / "digests" / "2026.md").read_text(encoding="utf-8"))
    july = next(p for p in year.split("<!--")[0].split("\n\n") if "July" in p)
    assert "Lofoten" in july and not july.rstrip().endswith("…"), july


PLACES_ZH = ["杭州", "苏州", "南京", "绍兴", "宁波", "扬州", "无锡", "嘉兴", "湖州", "温州", "台州", "金华", "常州"]
PEOPLE_ZH = ["李明", "张华", "王芳", "刘洋", "陈静", "杨帆", "赵磊", "黄丽", "周强", "吴敏", "郑军", "孙悦", "马超"]
THINGS_ZH = ["茶叶", "旧书", "瓷器", "丝绸", "木雕", "字画", "豆腐", "青菜", "桂花糕", "毛笔", "砚台", "纸伞", "竹篮"]
DOINGS_ZH = ["修理自行车", "整理书架", "写一封长信", "学做红烧肉", "种两盆兰花", "练习书法", "打扫阁楼", "复习英语"]


def zh_entry(d: int) -> str:
    """A Chinese journal day whose sentences differ from every other day's in several words."""
    p = [PLACES_ZH[(d + k) % 13] for k in range(4)]
    who = [PEOPLE_ZH[(d * 5 + k) % 13] for k in range(4)]
    thing = [THINGS_ZH[(d * 7 + k) % 13] for k in range(4)]
    return (
        f"早上{who[0]}打电话来，说他在{p[0]}买到了很好的{thing[0]}，价钱是{d + 20}块。"
        f"上午我去{p[1]}的老街走了一圈，看见{d + 3}家卖{thing[1]}的小店，和店主聊了很久。"
        f"中午和{who[1]}在{p[2]}吃面，他说下个月要{DOINGS_ZH[d % 8]}，问我愿不愿意帮忙。"
        f"下午在家{DOINGS_ZH[(d + 3) % 8]}，一直做到天黑，觉得很累但是很满足。"
        f"傍晚{who[2]}送来一包{thing[2]}，说是从{p[3]}带回来的，我留她喝了一杯茶。"
        f"晚上给{who[3]}写信，讲了今天在{p[1]}看到的{thing[3]}，还有{d % 5 + 2}件想买的东西。\n"
    )


def test_a_chinese_month_digest_fills_its_budget_in_words(tmp_path: Path) -> None:
    """A digest's budget is in words of its own language: at English's rate of tokens a word, a Chinese
    month of 300 words came out at about 200 (two characters a word, about three tokens)."""
    from batchsum.periods import digest_words

    src = tmp_path / "journal"
    src.mkdir()
    for d in range(1, 29):
        (src / f"2024-03-{d:02d}.md").write_text(zh_entry(d), "utf-8")
    out = tmp_path / "out"
    run(src, out)
    _, body = parse_markdown((out / "digests" / "2024" / "2024-03.md").read_text(encoding="utf-8"))
    words = digest_words(body.split("<!--")[0])
    assert 0.75 * 300 <= words <= 1.1 * 300, words
    # Its days are labelled as a Chinese journal writes them ("**3月5日** "), not "**5 March.**".
    assert re.search(r"^\*\*3月\d{1,2}日\*\* ", body, re.M) and "March.**" not in body, body[:300]


ORTE = ["Weimar", "Jena", "Erfurt", "Gotha", "Eisenach", "Leipzig", "Dresden", "Halle", "Naumburg"]
LEUTE = ["Herder", "Wieland", "Schiller", "Knebel", "Meyer", "Riemer", "Eckermann", "Zelter", "Voigt"]


def de_entry(d: int) -> str:
    """A German journal day whose sentences differ from every other day's in several words."""
    ort, wer, ziel = ORTE[d % 9], LEUTE[(d * 4) % 9], ORTE[(d + 4) % 9]
    return (
        f"Heute früh fuhr ich mit {wer} nach {ort}, wo wir den alten Garten und die {d + 3} Linden besahen. "
        f"Wir sprachen lange über die Farbenlehre und über den Brief, den {wer} aus {ziel} erhalten hatte. "
        f"Am Nachmittag schrieb ich an dem zweiten Teil und las abends in den Briefen aus {ziel}. "
        f"Das Wetter war kalt, und der Wind kam aus Osten, so dass wir erst spät nach Hause kamen.\n"
    )


def test_a_german_journal_reads_its_days_in_german_and_a_month_named_in_german_finds_its_digest(
    tmp_path: Path,
) -> None:
    src = tmp_path / "tagebuch"
    src.mkdir()
    for d in range(1, 21):
        (src / f"2024-03-{d:02d}.md").write_text(de_entry(d), "utf-8")
    (src / "2024-04-02.md").write_text(de_entry(30), "utf-8")
    out = tmp_path / "out"
    run(src, out, "--type", "journal")
    _, body = parse_markdown((out / "digests" / "2024" / "2024-03.md").read_text(encoding="utf-8"))
    assert re.search(r"^\*\*\d{1,2}\. März\*\* ", body, re.M) and "March.**" not in body, body[:300]
    # The month's title too, on its page and in the root index.
    assert body.lstrip().startswith("# März 2024"), body[:80]
    assert "März 2024" in (out / "index.md").read_text(encoding="utf-8")
    res = CliRunner().invoke(main, ["index", str(out)])
    assert res.exit_code == 0, res.output
    for query in ("März 2024", "was geschah im März 2024?", "mars 2024", "в марте 2024"):
        got = CliRunner().invoke(main, ["search", query, "--out", str(out), "--json"])
        assert json.loads(got.output)[0]["doc_id"] == "digests/2024/2024-03.md", (query, got.output[:400])


MULTILINGUAL = Path(__file__).resolve().parent.parent.parent / "shared" / "bench" / "multilingual"
if not MULTILINGUAL.is_dir():
    MULTILINGUAL = Path("/work/shared/bench/multilingual")


def _days(text: str, n: int) -> list[str]:
    """``n`` journal days of about 150 words cut from a book at paragraph ends."""
    days, cur = [], ""
    for paragraph in (p.strip() for p in text.split("\n\n")):
        cur = f"{cur}\n\n{paragraph}" if cur else paragraph
        if len(cur.split()) >= 150:
            days.append(cur)
            cur = ""
        if len(days) == n:
            break
    return days


@pytest.mark.skipif(not MULTILINGUAL.is_dir(), reason="shared/bench/multilingual not on this machine")
def test_a_month_of_three_languages_quotes_the_journal_of_each(tmp_path: Path) -> None:
    """Sentences of different languages share no words, so centrality is comparable only within one:
    Goethe's Italian journey beside Daudet's Petit Chose (whose sentences repeat its few names) and
    Tolstoy had left the month's digest with one German day, read with German stop words throughout."""
    src = tmp_path / "journal"
    books = {"de": "italienische_reise_01.txt", "fr": "petit_chose_ch01.txt", "ru": "tolstoy_zapiski_markera.txt"}
    for lang, book in books.items():
        (src / lang).mkdir(parents=True)
        text = (MULTILINGUAL / lang / "docs" / book).read_text(encoding="utf-8")
        for d, day in enumerate(_days(text, 14), start=1):
            (src / lang / f"2024-03-{d:02d}.md").write_text(day + "\n", "utf-8")
    out = tmp_path / "out"
    run(src, out, "--type", "journal")
    _, body = parse_markdown((out / "digests" / "2024" / "2024-03.md").read_text(encoding="utf-8"))
    paragraphs = [p for p in body.split("<!--")[0].split("\n\n") if p.startswith("**")]
    german = [p for p in paragraphs if re.match(r"\*\*\d+\. März\*\*", p)]
    french = [p for p in paragraphs if re.match(r"\*\*\d+ mars\*\*", p)]
    assert len(german) >= 3 and len(french) >= 3, paragraphs


def test_the_periods_a_query_names() -> None:
    from batchsum.periods import only_a_period, periods_named

    assert periods_named("what happened in May 1826?") == ["1826-05"]
    assert periods_named("что случилось в марте 2024?") == ["2024-03"] == periods_named("2024年3月发生了什么")
    assert periods_named("in 1826") == ["1826"] == periods_named("1826年")
    assert periods_named("what happened on 1826-05-15?") == []  # a day: its entry answers, not a period
    # A year joined to a week, a quarter or a season's span names no period: it is part of a name.
    assert periods_named("Weekly Review 2024-W11") == periods_named("Q1-2024 plan") == periods_named("2024/25") == []
    assert only_a_period("März 2024") and only_a_period("2024-03") and not only_a_period("May 1826 budget")


def test_a_chat_in_a_month_keeps_one_turn_a_line(tmp_path: Path) -> None:
    """A conversation's final is a turn a line with its speaker; its day in the month's digest is too,
    not everyone's words in one run, and its one line ends a message at its end ("at 12s. Jun: ...")."""
    src = tmp_path / "chats"
    src.mkdir()
    turns = [
        "Marco: Hey all. Checkout is timing out for everyone on the payments page",
        "Aisha: Looking. The p99 latency on the payments service is at twelve seconds",
        "Jun: Oh no. I shipped the new fraud-check client behind a flag at five percent",
        "Aisha: Hm. The flag dashboard says the flag is on for all traffic right now",
        "Jun: That was me. I'll roll the fraud-check flag back right now",
        "Marco: Thanks. Let's require two approvals for flag changes on payments",
        "Jun: Done. The flag is back to zero and checkout works again for everyone",
    ]
    (src / "2024-11-14.txt").write_text("\n".join(turns) + "\n", encoding="utf-8")
    (src / "2024-11-18.txt").write_text("\n".join(reversed(turns)) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    run(src, out, "--type", "conversation")
    _, body = parse_markdown((out / "digests" / "2024" / "2024-11.md").read_text(encoding="utf-8"))
    day = next(p for p in body.split("\n\n") if p.startswith("**14 November.**"))
    lines = day.split("\n")
    assert len(lines) >= 2 and all(re.match(r"(\*\*14 November\.\*\* )?(Marco|Aisha|Jun): ", ln) for ln in lines), day
    assert re.search(r"[a-z] (Marco|Aisha|Jun): ", one_line("\n".join(turns))) is None


LABELLED_DAYS = {  # a day of each language's journal, as a month's digest labels it (periods.day_label)
    "de": "Heute habe ich Schach gespielt und dreimal verloren. Die Beerdigung ist am Samstag, dem 19. April.",
    "en": "Went to the dentist, Dr. Albers, because of the pain. It is a cracked molar.",
    "fr": "J'ai présenté mon exposé devant soixante personnes ; les questions étaient difficiles. Quelle nuit !",
    "es": "Carmen me llamó desde Madrid. Está embarazada y el bebé nacerá en febrero.",
    "ru": "Вечером я вышел из гостиницы. Музыкант пел под окнами.",
    "ja": "京都に着いた。夕方、鴨川の河原で友達とビールを飲んだ。",
}


def test_a_years_day_labels_are_never_cut_or_written_twice_whatever_the_splitter_picks() -> None:
    """A year's words for a month are the sentences a summarizer picked from the month's days: a splitter that
    ends a sentence at German's "9." had picked "März** Heute ...", labelled again "**9. März** März** Heute".
    Whatever pieces of a month's paragraphs are picked, labels and all, each day's label stands once, whole,
    before its own words, and no piece of a label is left."""
    import random

    from batchsum.digest_pages import day_labelled
    from batchsum.periods import day_label

    rng = random.Random(5)
    for trial in range(300):
        langs = rng.sample(sorted(LABELLED_DAYS), rng.randint(1, 4))
        month = rng.randint(1, 12)
        days = sorted(rng.sample(range(1, 29), len(langs)))
        labels = [f"**{day_label(d, month, lang)}**" for d, lang in zip(days, langs, strict=True)]
        paragraphs = [f"{label} {LABELLED_DAYS[lang]}" for label, lang in zip(labels, langs, strict=True)]
        # The pieces a splitter may cut the month into: at any full stop followed by a space, in a label too.
        pieces = [p for paragraph in paragraphs for p in re.split(r"(?<=[.!?。])\s*", paragraph) if p]
        picked = [p for p in pieces if rng.random() < 0.6] or pieces[:1]
        out = day_labelled(" ".join(picked), paragraphs)
        bold = re.findall(r"\*\*[^*]*\*\*", out)
        assert all(b in labels for b in bold) and len(bold) == len(set(bold)), (trial, picked, out)
        assert out.count("**") == 2 * len(bold), (trial, picked, out)  # no piece of a label left
        for label, lang in zip(labels, langs, strict=True):
            if label in out:  # its own day's words follow it, not a piece of a label
                after = out.split(label, 1)[1].split("**", 1)[0]
                assert all(w in LABELLED_DAYS[lang] for w in re.split(r"\s+|(?<=。)", after) if w), (trial, out)
        words = [w for p in picked for w in p.replace("**", " ").split()]
        kept = out.replace("**", " ").split()
        label_words = {w for label in labels for w in label.strip("*").split()}
        # Nothing but the labels changed: the words picked, in order (Chinese and Japanese run on without spaces).
        left = [w for w in kept if w not in label_words]
        assert "".join(w for w in words if w not in label_words) == "".join(left), (trial, out)


@pytest.mark.parametrize("year_words", [40, 90, 200])
def test_a_year_of_journals_in_several_languages_writes_each_day_label_once_and_whole(
    tmp_path: Path, year_words: int
) -> None:
    """A German and a French month cut to their share of the year: the German days' labels had been written
    twice ("**9. März** März** Heute ...")."""
    src = tmp_path / "journal"
    src.mkdir()
    for d in range(1, 13):
        (src / f"2024-03-{d * 2:02d}.md").write_text(de_entry(d), "utf-8")
    for d in range(1, 6):
        (src / f"2024-04-{d * 3:02d}.md").write_text(LABELLED_DAYS["fr"] + f" Nous étions {d + 2} à table.\n", "utf-8")
    (src / "2024-04-20.md").write_text(LABELLED_DAYS["en"] + "\n", "utf-8")
    out = tmp_path / "out"
    run(src, out, "--type", "journal", "--year-words", str(year_words))
    months = {}
    for month in ("2024-03", "2024-04"):
        _, body = parse_markdown((out / "digests" / "2024" / f"{month}.md").read_text(encoding="utf-8"))
        months[month] = set(re.findall(r"^(\*\*[^*\n]+\*\*) ", body, re.M))
    assert any("März" in label for label in months["2024-03"]), months
    _, year = parse_markdown((out / "digests" / "2024.md").read_text(encoding="utf-8"))
    text = year.split("<!--")[0]
    bold = re.findall(r"\*\*[^*\n]*\*\*", text)
    labels = [b for b in bold if b not in ("**March.**", "**März**", "**April.**")]
    assert labels and all(b in months["2024-03"] | months["2024-04"] for b in labels), text
    assert len(labels) == len(set(labels)) and text.count("**") == 2 * len(bold), text
    assert not re.search(r"\*\* (?:März|avril|April)\b", text), text  # no label's month again after it
    # A day of another language in a month is read by its own rules: "Dr. Albers" is one sentence.
    assert "** Albers" not in text, text


def test_a_notes_task_list_reaches_its_month_as_the_note_wrote_it_not_as_the_runs_facets(tmp_path: Path) -> None:
    """A short journal page with a to-do list is kept whole, its tasks listed once (the run's facets repeat no
    item the page lists); the month reads the page, not a facets list (its digest had said "... Saskia
    again. Action items:")."""
    src = tmp_path / "journal"
    src.mkdir()
    days = {
        "2026-04-16": "Five interviews with the team in Amsterdam, the last one with Saskia again.",
        "2026-04-17": "Train home through the flat country; read half of the novel Hannah lent me.",
        "2026-04-18": "Home. The fig tree looks better already.\n\n- [ ] write thank-you email to Saskia\n"
        "- [ ] reimburse train tickets\n",
    }
    for day, text in days.items():
        (src / f"{day}.md").write_text(text, encoding="utf-8")
    out = tmp_path / "out"
    res = CliRunner().invoke(main, ["run", str(src), "--out", str(out), "--type", "journal", "--no-index"])
    assert res.exit_code == 0, res.output
    final = (out / "2026-04-18.md" / "summaries" / "L3" / "final.md").read_text()
    # As the page shows it (a kept note is read as its reader sees it), and listed once.
    assert "- ☐ reimburse train tickets" in final and "**Action items**" not in final
    month = summary_only(parse_markdown((out / "digests" / "2026" / "2026-04.md").read_text())[1])
    assert "Action items" not in month and "Picked by rules" not in month, month
    assert "Saskia" in month and "fig tree" in month
