"""Reference extractive baselines: lead-k and sumy's LexRank, TextRank, LSA and Luhn.

Every baseline fills the same word budget: sentences are taken best-ranked first until the
budget is reached, then put back in document order (one per line). sumy normally needs NLTK's
downloadable ``punkt`` data; :class:`OfflineTokenizer` replaces it with a Punkt splitter built
from our own parameters and NLTK's regex word tokenizer, so nothing is ever downloaded.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from batchsum.evaluate.scoring import make_sentence_tokenizer, split_sentences, word_count

BASELINES: tuple[str, ...] = ("lead", "lexrank", "textrank", "lsa", "luhn")
SUMY_METHODS: dict[str, str] = {
    "lexrank": "sumy.summarizers.lex_rank:LexRankSummarizer",
    "textrank": "sumy.summarizers.text_rank:TextRankSummarizer",
    "lsa": "sumy.summarizers.lsa:LsaSummarizer",
    "luhn": "sumy.summarizers.luhn:LuhnSummarizer",
}

_SPEAKER_LINE = re.compile(r"^\s*[^\s:][^:]{0,40}:\s+\S")


@dataclass
class BaselineOutput:
    """A baseline summary and the seconds it took (parsing included)."""

    text: str
    seconds: float


def offline_tokenizer_class() -> type:
    """sumy's ``Tokenizer`` subclassed to use no NLTK data (imported lazily: sumy is heavy)."""
    return _offline_tokenizer_class()


@lru_cache(maxsize=1)
def _offline_tokenizer_class() -> type:
    from nltk.tokenize import NLTKWordTokenizer
    from sumy.nlp.tokenizers import Tokenizer

    class OfflineTokenizer(Tokenizer):  # type: ignore[misc]
        """English tokenizer for sumy: our Punkt parameters, regex word splitting, no downloads."""

        def _get_sentence_tokenizer(self, language: str) -> Any:
            return make_sentence_tokenizer()

        def _get_word_tokenizer(self, language: str) -> Any:
            return NLTKWordTokenizer()

    return OfflineTokenizer


@lru_cache(maxsize=1)
def _tokenizer() -> Any:
    return offline_tokenizer_class()("english")


def paragraphs(text: str) -> list[str]:
    """Paragraphs for sumy: one per line for transcripts (a turn is a unit), else blank-line blocks."""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if lines and sum(1 for ln in lines if _SPEAKER_LINE.match(ln)) >= 0.5 * len(lines):
        return [ln.strip() for ln in lines]
    return [" ".join(p.split()) for p in re.split(r"\n\s*\n", text) if p.strip()]


def _until_budget(budget_words: int) -> Callable[[Sequence[Any]], list[Any]]:
    """A sumy ``count`` callable: best-rated sentences until ``budget_words`` words are covered."""

    def take(infos: Sequence[Any]) -> list[Any]:
        chosen: list[Any] = []
        words = 0
        for info in infos:
            if words >= budget_words:
                break
            chosen.append(info)
            words += word_count(str(info.sentence))
        return chosen

    return take


def lead(text: str, budget_words: int) -> str:
    """The document's first sentences until the budget is covered (lead-k with k set by budget)."""
    out: list[str] = []
    words = 0
    for para in paragraphs(text):
        for sent in split_sentences(para):
            if words >= budget_words:
                return "\n".join(out)
            out.append(sent)
            words += word_count(sent)
    return "\n".join(out)


@lru_cache(maxsize=8)
def _summarizer(method: str) -> Any:
    import importlib

    from sumy.nlp.stemmers import Stemmer
    from sumy.utils import get_stop_words

    module_name, cls_name = SUMY_METHODS[method].split(":")
    cls = getattr(importlib.import_module(module_name), cls_name)
    summarizer = cls(Stemmer("english"))
    summarizer.stop_words = get_stop_words("english")
    return summarizer


def summarize(method: str, text: str, budget_words: int) -> BaselineOutput:
    """Summarize ``text`` with baseline ``method`` to about ``budget_words`` words (before truncation)."""
    if method not in BASELINES:
        raise ValueError(f"unknown baseline {method!r} (choose from {', '.join(BASELINES)})")
    t0 = time.perf_counter()
    if budget_words <= 0 or not text.strip():
        return BaselineOutput("", time.perf_counter() - t0)
    if method == "lead":
        return BaselineOutput(lead(text, budget_words), time.perf_counter() - t0)
    import warnings

    from sumy.parsers.plaintext import PlaintextParser

    document = PlaintextParser.from_string("\n\n".join(paragraphs(text)), _tokenizer()).document
    with warnings.catch_warnings():
        # LSA warns when a document has fewer distinct words than sentences; harmless here.
        warnings.simplefilter("ignore")
        sentences = _summarizer(method)(document, _until_budget(budget_words))
    return BaselineOutput("\n".join(str(s) for s in sentences), time.perf_counter() - t0)


def summarize_sentences(method: str, text: str, sentences: int) -> list[str]:
    """sumy ``method`` with a fixed sentence count (the classic API; used for speed comparisons)."""
    if method not in SUMY_METHODS:
        raise ValueError(f"unknown sumy method {method!r} (choose from {', '.join(SUMY_METHODS)})")
    import warnings

    from sumy.parsers.plaintext import PlaintextParser

    document = PlaintextParser.from_string("\n\n".join(paragraphs(text)), _tokenizer()).document
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return [str(s) for s in _summarizer(method)(document, max(1, sentences))]


def warm_up(methods: Sequence[str] = BASELINES) -> None:
    """Import sumy/NLTK and build tokenizers and summarizers now, so per-document timings exclude them."""
    split_sentences("Warm up. Done.")
    if any(m in SUMY_METHODS for m in methods):
        _tokenizer()
        for m in methods:
            if m in SUMY_METHODS:
                _summarizer(m)
