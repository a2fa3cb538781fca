# ruff: noqa: E501  (the sentence pools below read better unwrapped)
"""Build the long file of the sample corpus and check that the corpus covers every level.

    python scripts/make_sample_corpus.py           # (re)write sample_corpus/logbook/harbor-logbook-2025-2026.md
    python scripts/make_sample_corpus.py --check   # verify the committed file is current and levels are covered

Everything else in ``sample_corpus/`` is hand-written. The logbook is the one file above
15,000 tokens (HIERARCHICAL); writing ~400 distinct entries by hand is not worth it, so it
is assembled from templates and varied original sentences with a fixed seed. Same seed,
same bytes: the committed file is what the README runs on, this script only reproduces it.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections import Counter
from datetime import date, timedelta
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO / "sample_corpus"
LOGBOOK = CORPUS / "logbook" / "harbor-logbook-2025-2026.md"
SEED = 20261001
START = date(2025, 3, 2)
END = date(2026, 9, 30)
MAX_BYTES = 1_000_000

PEOPLE = ["Jonas", "Priya", "Maya", "Luis", "Alice"]
FIELD = ["Jonas", "Jonas", "Jonas", "Maya", "Luis"]
WEATHER = [
    "flat calm and bright",
    "light northerly breeze, good visibility",
    "overcast with a low swell from the west",
    "drizzle and a choppy harbor",
    "fog until late morning",
    "strong southwesterly, white caps beyond the breakwater",
    "cold and clear after a night of rain",
    "warm, hazy, almost no wind",
    "gusty, showers passing every half hour",
    "grey and still, the water like glass",
]
SEASON_NOTES = {
    "winter": [
        "Short daylight again; the panels barely reached full output before three in the afternoon.",
        "Hands too cold for the small screws on the housing; we need gloves with a better grip.",
        "Night-time water temperature now sits below eleven degrees at every buoy.",
    ],
    "spring": [
        "The days are noticeably longer and the morning charge readings show it.",
        "Algae film on the turbidity windows is growing faster now that the water warms.",
        "First swimmers of the year at the beach by buoy 7, which makes the dashboard feel real.",
    ],
    "summer": [
        "Harbor busy with visiting yachts; had to wait for a mooring to clear before reaching the buoy.",
        "Water above twenty degrees in the afternoon for the first time this year.",
        "Plenty of sun, batteries full by late morning, no power worries this week.",
    ],
    "autumn": [
        "The first autumn storms are stirring up the river sand again.",
        "Leaves and weed collecting around the mooring chains after every blow.",
        "Mornings dark at seven now; service trips start later than in summer.",
    ],
}

SERVICE = [
    "Routine service on buoy {b}. Swapped the battery (old one at {v} V resting) and wiped the panel, which had a film of salt and gull droppings.",
    "Visited buoy {b} for the monthly check. Housing dry inside, seals good, battery at {pct} percent before the swap.",
    "Buoy {b}: cleaned the turbidity window, which had a thin green film, and replaced the desiccant pack in the housing.",
    "Rowed out to buoy {b} with a fresh battery. The old one read {v} V under load, close to the shutdown threshold.",
    "Service round of buoys {b} and {b2}. Both batteries swapped, both panels cleaned, mooring shackles checked and greased.",
    "Buoy {b} had been reporting a noisy temperature signal; reseated the probe connector and the noise disappeared.",
]
CALIBRATION = [
    "Took the reference probe out to buoy {b}. Temperature agreed within {dt} °C; turbidity read {dn} NTU high, so the offset was updated.",
    "Calibration check on buoy {b}: tide sensor compared with the tide staff at the ferry steps, difference {dc} cm, inside tolerance.",
    "Full calibration of buoy {b} against the reference kit. New turbidity offset entered in the calibration table, effective from {hh}:{mm}.",
    "Spot check of buoy {b} with the handheld thermometer from the boat. {t} °C on the handheld, {t2} °C reported, no change needed.",
]
STORM = [
    "Overnight blow from the southwest. Turbidity at buoy 2 rose from {n1} to {n2} NTU, and the inner buoys followed about {lag} minutes later.",
    "Storm surge of about {surge} cm above the prediction at high water; the measured and predicted tide curves separated for roughly {hours} hours.",
    "Heavy rain upriver. Turbidity rose at buoy 2 without any swell, peaking at {n2} NTU: river flood, not sea state.",
    "Rough night. Buoy {b} dragged its mooring a few meters but stayed inside its circle; will check the chain on the next round.",
    "Strong northwesterly. Very little change in turbidity, as usual for that direction, but the tide ran {surge} cm below prediction.",
]
DATA = [
    "Priya noticed a gap of {gap} minutes in the buoy {b} record; the radio had buffered the readings and delivered them later, all present.",
    "Reviewed last week's data. Coverage {cov} percent across the network; the missing readings are almost all from buoy {b}.",
    "Monthly export checked against the raw database: {rows} rows, no duplicates, no gaps longer than an hour.",
    "Dashboard traffic up again, about {visits} visits this week, most of them on the tide page in the early morning.",
    "Found a timestamp drift of {drift} seconds on buoy {b} before its GPS fix; readings re-ordered by server arrival instead.",
    "Compared water temperature with the weather station's air temperature for the month: the water lags by about {lagdays} days.",
]
SOFTWARE = [
    "Deployed ingest version {ver}. Change: {change}.",
    "Firmware {fw} pushed to buoy {b} over the air. Upload took {sec} seconds; the buoy rebooted cleanly.",
    "Dashboard release {ver}: {change}.",
    "Fixed a bug in the alerting service: {bug}.",
]
CHANGES = [
    "batch inserts for late readings",
    "stricter validation of impossible turbidity values",
    "a health endpoint for the uptime monitor",
    "per-buoy calibration offsets applied at read time",
    "compressed storage for readings older than a year",
    "clearer error messages when a buoy sends a malformed packet",
    "tide chart labels in local time",
    "a printable monthly summary page",
]
BUGS = [
    "alerts for buoy {b} were sent twice when the radio reconnected",
    "the low-battery alert fired on a single noisy voltage reading",
    "daylight saving time shifted the nightly report by an hour",
    "a buoy that had never reported crashed the weekly digest",
]
COMMUNITY = [
    "{who} showed the dashboard to a group of {n} students from the secondary school at the harbor wall.",
    "Rui from the fishing cooperative stopped by and asked whether we could warn them before the southwest swell arrives.",
    "The harbor master asked for a map of buoy positions for the new navigation notice; sent the next day.",
    "Question by email from a kayak club about water temperature in the early morning; pointed them at the tide page.",
    "A university student asked for eighteen months of turbidity data for a thesis on sediment transport; sent it.",
    "The council's environment officer asked for a plain-language note on the summer turbidity numbers.",
]
SUPPLIES = [
    "Ordered {k} spare batteries and a box of stainless shackles.",
    "Picked up {k} new desiccant packs and a roll of self-amalgamating tape.",
    "Bought a second reference thermometer so that calibration trips do not depend on one instrument.",
    "Ordered {k} spare antennas after the last gull incident.",
]
INCIDENT = [
    "Buoy {b} went silent at {hh}:{mm}. Found it afloat with its light on; the radio antenna had snapped at the base. Replaced on site.",
    "A crab had settled between the panel and the housing of buoy {b}, shading half the panel. Evicted, politely.",
    "Buoy {b} tilted after a fishing boat caught its mooring line; righted and re-shackled, no damage to the electronics.",
    "Water found inside the housing of buoy {b}, about a teaspoon. Dried, new seal fitted, electronics unharmed.",
    "Buoy {b} reported a water temperature of {bad} °C for ten minutes, physically impossible; flagged as sensor glitch and excluded.",
]
CLOSINGS = [
    "Back on shore by {hh}:{mm}.",
    "Total time on the water about {mins} minutes.",
    "Nothing else to report.",
    "Next visit planned in about {days} days.",
    "Logged the details in the maintenance sheet.",
    "{who} double-checked the readings from the office afterwards.",
]
KINDS = [
    ("Service", SERVICE, 30),
    ("Calibration", CALIBRATION, 12),
    ("Weather", STORM, 12),
    ("Data", DATA, 16),
    ("Software", SOFTWARE, 10),
    ("Visitors and requests", COMMUNITY, 8),
    ("Supplies", SUPPLIES, 5),
    ("Incident", INCIDENT, 7),
]


def season(day: date) -> str:
    """Meteorological season in the northern hemisphere."""
    return {12: "winter", 1: "winter", 2: "winter", 3: "spring", 4: "spring", 5: "spring"}.get(
        day.month, "summer" if day.month in (6, 7, 8) else "autumn"
    )


def fill(template: str, rng: random.Random) -> str:
    """Fill a template's slots with plausible values."""
    b = rng.randint(1, 9)
    t = rng.uniform(10.5, 22.5)
    values: dict[str, object] = {
        "b": b,
        "b2": (b % 9) + 1,
        "v": f"{rng.uniform(11.5, 12.1):.2f}",
        "pct": rng.randint(31, 68),
        "dt": f"{rng.uniform(0.05, 0.4):.2f}",
        "dn": f"{rng.uniform(0.3, 2.5):.1f}",
        "dc": rng.randint(0, 3),
        "hh": f"{rng.randint(6, 18):02d}",
        "mm": f"{rng.choice([0, 5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 55]):02d}",
        "t": f"{t:.1f}",
        "t2": f"{t + rng.uniform(-0.2, 0.2):.1f}",
        "n1": rng.randint(2, 6),
        "n2": rng.randint(18, 55),
        "lag": rng.choice([60, 75, 90, 105, 120]),
        "surge": rng.randint(12, 48),
        "hours": rng.randint(3, 9),
        "gap": rng.randint(15, 360),
        "cov": f"{rng.uniform(96.0, 99.9):.1f}",
        "rows": f"{rng.randint(70_000, 80_000):,}",
        "visits": rng.randint(280, 900),
        "drift": rng.randint(4, 40),
        "lagdays": rng.randint(9, 17),
        "ver": f"{rng.randint(1, 2)}.{rng.randint(0, 14)}.{rng.randint(0, 9)}",
        "fw": f"fw-{rng.randint(3, 5)}.{rng.randint(0, 9)}",
        "sec": rng.randint(40, 240),
        "change": rng.choice(CHANGES),
        "bug": rng.choice(BUGS).format(b=b),
        "who": rng.choice(PEOPLE),
        "n": rng.randint(12, 28),
        "k": rng.randint(2, 6),
        "bad": rng.choice([-3.2, 41.7, 58.0, -11.5]),
        "mins": rng.randint(40, 150),
        "days": rng.randint(10, 35),
    }
    return template.format(**values)


def entry(day: date, rng: random.Random) -> str:
    """One dated logbook entry of two to five paragraphs' worth of sentences."""
    kinds = rng.choices(KINDS, weights=[w for _, _, w in KINDS], k=rng.randint(1, 3))
    seen: set[str] = set()
    lines = [f"## {day.isoformat()} ({day.strftime('%A')})", ""]
    who = rng.choice(FIELD)
    lines.append(f"Logged by {who}. Weather: {rng.choice(WEATHER)}.")
    for title, pool, _ in kinds:
        if title in seen:
            continue
        seen.add(title)
        sentences = [fill(t, rng) for t in rng.sample(pool, k=min(len(pool), rng.randint(1, 2)))]
        lines.append("")
        lines.append(f"**{title}.** " + " ".join(sentences))
    if rng.random() < 0.35:
        lines.append("")
        lines.append(rng.choice(SEASON_NOTES[season(day)]))
    lines.append("")
    lines.append(fill(rng.choice(CLOSINGS), rng))
    return "\n".join(lines)


def build_logbook() -> str:
    """The whole logbook text, deterministic for a given seed."""
    rng = random.Random(SEED)
    parts = [
        "# Tidewater harbor network logbook, March 2025 to September 2026",
        "",
        "Field and office log of the nine harbor buoys: service visits, calibrations, weather events, "
        "data checks, software releases, visitors and incidents. One entry per working visit or notable day.",
    ]
    day = START
    while day <= END:
        parts.append("")
        parts.append(entry(day, rng))
        day += timedelta(days=rng.choice([1, 2, 2, 3, 3, 4]))
    return "\n".join(parts) + "\n"


def level_report() -> tuple[Counter[str], list[str]]:
    """Count corpus files per summary level (raw text; .jsonl/.vtt are rendered shorter by the walker)."""
    sys.path.insert(0, str(REPO))
    from batchsum.model import Thresholds
    from batchsum.tokens import count_tokens

    thresholds = Thresholds()
    levels: Counter[str] = Counter()
    rows = []
    for path in sorted(CORPUS.rglob("*")):
        rel = path.relative_to(CORPUS).as_posix()
        if not path.is_file() or rel.startswith(".") or rel.startswith("drafts/"):
            continue
        tokens = count_tokens(path.read_text(encoding="utf-8"))
        level = thresholds.level_for(tokens).name
        levels[level] += 1
        rows.append(f"{tokens:>7}  {level:<12}  {rel}")
    return levels, rows


def main(argv: list[str] | None = None) -> int:
    """Write or check the generated file; print the level of every corpus file."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="verify instead of writing")
    args = parser.parse_args(argv)
    text = build_logbook()
    if args.check:
        if not LOGBOOK.is_file() or LOGBOOK.read_text(encoding="utf-8") != text:
            print(f"{LOGBOOK.relative_to(REPO)} is missing or out of date; run {Path(__file__).name}", file=sys.stderr)
            return 1
    else:
        LOGBOOK.parent.mkdir(parents=True, exist_ok=True)
        LOGBOOK.write_text(text, encoding="utf-8")
    levels, rows = level_report()
    print("\n".join(rows))
    size = sum(p.stat().st_size for p in CORPUS.rglob("*") if p.is_file())
    print(f"levels: {dict(sorted(levels.items()))}; corpus size {size:,} bytes")
    missing = {"NONE", "BRIEF", "STANDARD", "DETAILED", "HIERARCHICAL"} - set(levels)
    if missing or size > MAX_BYTES:
        print(f"missing levels: {sorted(missing)}; size limit {MAX_BYTES:,}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
