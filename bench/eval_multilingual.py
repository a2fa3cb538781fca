"""Journals beyond English: every document of ``<shared>/bench/multilingual`` through a real run and search.

Per language (de, fr, es, ru, zh, ja; Goethe, Daudet, Valera, Tolstoy, Lu Xun, Sōseki, ...):

* **run** - the document has a final (one ``batchsum run`` over all of them, extractive default);
* **whole sentences** - every line of the final ends a sentence (``. ! ? …`` or full-width ``。！？``,
  closing quotes allowed) and holds no broken character (U+FFFD);
* **language** - the final's front matter names the document's language (the folder it came from);
* **search** - a phrase from the middle of the document (the first two adjacent words there that are
  not stop words; four characters in Chinese and Japanese) finds the document among the top 3 hits
  of the search behind ``batchsum search``. The same is also counted, for information, with the phrases
  found the same way a quarter and three quarters into the document, and with the first two adjacent
  words at each of the three places whatever they are (stop words too).

    python -m bench.eval_multilingual [--shared ../shared] [--langs de,zh] [--workdir .bench-out/multilingual]

Prints a table and one final's first lines per language; exit 1 when a run fails or a check misses,
0 with a clear skip when the data is absent.
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import shutil
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
LANGS = ("de", "fr", "es", "ru", "zh", "ja")
CJK = frozenset({"zh", "ja"})
# A line ends a sentence on terminal punctuation, optionally followed by closing quotes or brackets.
_SENTENCE_END = re.compile(r"[.!?…。！？][\s\"'”’»)\]」』）》〉】]*$")  # French sets » apart: "lui. »"
_CJK_CHARS = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff]{4}")
_WORD = re.compile(r"[^\W\d_]{3,}")


@dataclass
class LangResult:
    """Counts of one language."""

    docs: int = 0
    finals: int = 0
    whole: int = 0
    language_ok: int = 0
    found: int = 0
    found_elsewhere: int = 0  # of the phrases a quarter and three quarters in (two per document)
    found_with_stops: int = 0  # of the phrases that may be stop words, at 1/4, 1/2 and 3/4 (three per document)
    misses: list[str] = field(default_factory=list)
    sample: str = ""


def middle_phrase(text: str, lang: str, at: float = 0.5, stops: bool = False) -> str:
    """Two consecutive words (four CJK characters) from the middle of ``text`` (``at``: elsewhere, as a share
    of its length); with ``stops`` the first two whatever they are, stop words included."""
    mid = int(len(text) * at)
    if lang in CJK:
        m = _CJK_CHARS.search(text, mid) or _CJK_CHARS.search(text)
        return m.group(0) if m else ""
    from batchsum.language import stop_words

    skip = frozenset() if stops else stop_words(lang)
    space = text.find(" ", mid)  # start at a word, not inside one
    words = list(_WORD.finditer(text, space + 1 if space >= 0 else mid))
    for a, b in itertools.pairwise(words):
        # Adjacent in one clause (not across punctuation), and not two function words ("die ich").
        if text[a.end() : b.start()] == " " and not {a.group(0).lower(), b.group(0).lower()} & skip:
            return f"{a.group(0)} {b.group(0)}"
    return ""


def final_body(path: Path) -> tuple[dict[str, str], list[str]]:
    """Front matter (flat keys) and the summary's text lines (without the links block)."""
    text = path.read_text(encoding="utf-8")
    meta: dict[str, str] = {}
    body = text
    if text.startswith("---\n"):
        end = text.index("\n---\n", 4)
        for line in text[4:end].splitlines():
            key, sep, value = line.partition(":")
            if sep and not line.startswith(" "):
                meta[key.strip()] = value.strip().strip("'\"")
        body = text[end + 5 :]
    body = body.split("<!-- batchsum:links -->", 1)[0]
    return meta, [ln.strip() for ln in body.splitlines() if ln.strip()]


def main(argv: list[str] | None = None) -> int:
    """Run, check and print the per-language figures."""
    ap = argparse.ArgumentParser(prog="python -m bench.eval_multilingual", description=__doc__.splitlines()[0])
    ap.add_argument("--shared", type=Path, default=REPO.parent / "shared")
    ap.add_argument("--langs", default=",".join(LANGS))
    ap.add_argument("--workdir", type=Path, default=REPO / ".bench-out" / "multilingual")
    ap.add_argument("--json", type=Path, default=None, help="also write the figures to this JSON file")
    args = ap.parse_args(argv)
    data = args.shared / "bench" / "multilingual"
    if not data.is_dir():
        print(f"eval_multilingual: SKIPPED - {data} not found (the shared evaluation data is not on this machine)")
        return 0
    langs = [x.strip() for x in args.langs.split(",") if x.strip()]
    corpus = args.workdir / "corpus"
    out = args.workdir / "out"
    shutil.rmtree(args.workdir, ignore_errors=True)
    sources: dict[str, Path] = {}
    for lang in langs:
        (corpus / lang).mkdir(parents=True)
        for src in sorted((data / lang / "docs").glob("*.txt")):
            shutil.copyfile(src, corpus / lang / src.name)
            sources[f"{lang}/{src.name}"] = src

    import batchsum
    from batchsum.config import IndexConfig, RunConfig
    from batchsum.index.search import search

    t0 = time.perf_counter()
    result = batchsum.run(RunConfig(paths=[corpus], out=out, quiet=True, processes=0))
    run_s = time.perf_counter() - t0
    failed = {f["relpath"]: f.get("error") for f in result.as_json().get("files", []) if f.get("status") == "failed"}
    cfg = IndexConfig(out=out)
    figures: dict[str, LangResult] = {lang: LangResult() for lang in langs}
    for relpath, src in sorted(sources.items()):
        lang = relpath.split("/", 1)[0]
        r = figures[lang]
        r.docs += 1
        final = out / relpath / "summaries" / "L3" / "final.md"
        if relpath in failed or not final.is_file():
            r.misses.append(f"{relpath}: no final ({failed.get(relpath) or 'missing'})")
            continue
        r.finals += 1
        meta, lines = final_body(final)
        broken = [ln for ln in lines if "\ufffd" in ln or not _SENTENCE_END.search(ln)]
        if lines and not broken:
            r.whole += 1
        else:
            r.misses.append(f"{relpath}: line ends mid-sentence: ...{broken[0][-40:] if broken else '(empty)'}")
        if meta.get("language") == lang:
            r.language_ok += 1
        else:
            r.misses.append(f"{relpath}: front matter language {meta.get('language')!r}, expected {lang}")
        if not r.sample:
            r.sample = "\n".join(lines)[:300]
        text = src.read_text(encoding="utf-8")
        for at in (0.5, 0.25, 0.75):
            phrase = middle_phrase(text, lang, at)
            hits = search(cfg, phrase, k=3, warn=False) if phrase else []
            if any(h.source_path == relpath for h in hits[:3]):
                r.found += at == 0.5
                r.found_elsewhere += at != 0.5
            else:
                top = [h.source_path for h in hits[:3]]
                where = "" if at == 0.5 else f" ({at:.0%} in, information only)"
                r.misses.append(f"{relpath}: search {phrase!r}{where} top 3 = {top}")
            if lang not in CJK:  # four characters have no stop words: the same phrases as above
                phrase = middle_phrase(text, lang, at, stops=True)
                hits = search(cfg, phrase, k=3, warn=False) if phrase else []
            r.found_with_stops += any(h.source_path == relpath for h in hits[:3])

    print(f"multilingual: {len(sources)} documents, one run in {run_s:.1f} s (extractive, this machine's load)")
    print(f"{'lang':<5} {'docs':>5} {'finals':>7} {'whole sentences':>16} {'language':>9} {'search top 3':>13}"
          f" {'at 1/4 and 3/4':>15} {'stop words too':>15}")  # fmt: skip
    ok = True
    for lang, r in figures.items():
        print(
            f"{lang:<5} {r.docs:>5} {r.finals:>7} {f'{r.whole}/{r.finals}':>16} "
            f"{f'{r.language_ok}/{r.finals}':>9} {f'{r.found}/{r.docs}':>13} {f'{r.found_elsewhere}/{2 * r.docs}':>15}"
            f" {f'{r.found_with_stops}/{3 * r.docs}':>15}"
        )
        ok = ok and r.finals == r.docs and r.whole == r.finals and r.language_ok == r.finals and r.found == r.docs
    for lang, r in figures.items():
        print(f"\n[{lang}] sample final, first lines:\n{r.sample}")
        for miss in r.misses:
            print(f"  miss: {miss}")
    if args.json is not None:
        args.json.write_text(json.dumps({k: v.__dict__ for k, v in figures.items()}, ensure_ascii=False, indent=2))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
