"""Scoring one summary against one or more references: ROUGE, entity and number recall, budgets.

ROUGE is the ``rouge-score`` package (the reference implementation used in papers) with the
Porter stemmer on. ROUGE-Lsum splits on newlines, so both texts are put one sentence per line
with the offline Punkt splitter first. With several references every figure is the maximum
over references, computed per metric.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nltk.tokenize.punkt import PunktSentenceTokenizer

ROUGE_TYPES = ("rouge1", "rouge2", "rougeLsum")

_WORD_RE = re.compile(r"\S+")
_TOKEN_RE = re.compile(r"[^\W_](?:[^\W_]|['’-])*", re.UNICODE)  # no underscore: '_May_' is emphasis, not 'May_'
_NUMBER_RE = re.compile(r"(?<![\w.])[-+]?\d+(?:[.,:]\d+)*%?")
_POSSESSIVE_RE = re.compile(r"['’]s$")
_MD_PREFIX_RE = re.compile(r"^\s{0,3}(?:#{1,6}\s+|[-*+]\s+|\d+[.)]\s+|>\s*)+")
_MD_EMPHASIS_RE = re.compile(r"(\*\*|__|`)")

# Abbreviations that end in a period but rarely end a sentence (Punkt's own parameters, so no
# NLTK data is ever needed).


def _wordset(text: str) -> frozenset[str]:
    return frozenset(text.split())


ABBREVIATIONS = _wordset(
    "mr mrs ms dr prof st jr sr vs etc e.g i.e inc ltd co corp no nos fig figs vol vols u.s u.k mt gen col lt "
    "sgt capt rev hon gov sen rep dept univ approx est jan feb mar apr jun jul aug sep sept oct nov dec "
    "a.m p.m cf al ed eds p pp"
)

# Capitalized words that are not entities: sentence openers, pronouns, determiners.
STOPWORDS = _wordset(
    """a about above after again against all also am an and any are as at be because been before being below
    between both but by can could did do does doing down during each even ever every few for from further had
    has have having he her here hers herself him himself his how however i if in into is it its itself just let
    me more most my myself no nor not now of off on once only or other our ours ourselves out over own per
    perhaps same she should since so some still such than that the their theirs them themselves then there
    these they this those though through thus to too under until up upon very was we well were what when where
    whether which while who whom whose why will with within without would yes yet you your yours yourself
    yourselves okay ok oh uh um yeah hmm mm so also meanwhile overall finally first second third next later
    today tomorrow yesterday one two three"""
)


@dataclass(frozen=True)
class Scores:
    """All figures of one summary against its reference(s); recalls are None when undefined."""

    rouge1: float
    rouge2: float
    rougeLsum: float  # noqa: N815 - the metric's established name
    entity_recall: float | None
    number_recall: float | None

    def as_dict(self) -> dict[str, float | None]:
        """Plain dict for JSON and the metrics store."""
        return {
            "rouge1": self.rouge1,
            "rouge2": self.rouge2,
            "rougeLsum": self.rougeLsum,
            "entity_recall": self.entity_recall,
            "number_recall": self.number_recall,
        }


ZERO = Scores(0.0, 0.0, 0.0, 0.0, 0.0)


def make_sentence_tokenizer() -> PunktSentenceTokenizer:
    """A Punkt sentence splitter built from our own parameters (never loads NLTK data)."""
    from nltk.tokenize.punkt import PunktParameters, PunktSentenceTokenizer

    params = PunktParameters()
    params.abbrev_types.update(ABBREVIATIONS)
    # Given a PunktParameters object instead of training text, Punkt uses it as is.
    return PunktSentenceTokenizer(params)


@lru_cache(maxsize=1)
def _sentence_tokenizer() -> PunktSentenceTokenizer:
    return make_sentence_tokenizer()


def plain_text(markdown: str) -> str:
    """Strip Markdown structure (heading marks, bullets, emphasis) that is not summary content."""
    lines = []
    for line in markdown.splitlines():
        line = _MD_EMPHASIS_RE.sub("", _MD_PREFIX_RE.sub("", line)).strip()
        if line:
            lines.append(line)
    return "\n".join(lines)


def split_sentences(text: str) -> list[str]:
    """Sentences of ``text``: line breaks inside a paragraph are joined, blank lines separate."""
    tok = _sentence_tokenizer()
    out: list[str] = []
    for para in re.split(r"\n\s*\n", text):
        para = " ".join(para.split())
        if para:
            out.extend(s.strip() for s in tok.tokenize(para) if s.strip())
    return out


def word_count(text: str) -> int:
    """Whitespace-separated words, the unit of every budget."""
    return len(_WORD_RE.findall(text))


def truncate_words(text: str, n: int) -> str:
    """The first ``n`` words of ``text``, keeping its line breaks; unchanged when shorter."""
    if n <= 0:
        return ""
    for i, m in enumerate(_WORD_RE.finditer(text)):
        if i == n - 1:
            return text[: m.end()]
    return text


@lru_cache(maxsize=1)
def _rouge_scorer() -> Any:
    from rouge_score import rouge_scorer, tokenizers

    # The scorer's own default tokenizer, given explicitly: left to pick it, RougeScorer says so through
    # absl.logging, whose first record calls logging.basicConfig() and puts a stderr handler on the root
    # logger of the user's process (every later warning of any library would print).
    tokenizer = tokenizers.DefaultTokenizer(use_stemmer=True)
    return rouge_scorer.RougeScorer(list(ROUGE_TYPES), use_stemmer=True, tokenizer=tokenizer)


def _lsum_form(text: str) -> str:
    # rougeLsum takes "\n" as the sentence separator.
    return "\n".join(split_sentences(text))


def rouge(summary: str, reference: str) -> dict[str, float]:
    """ROUGE-1/2/Lsum F1 of ``summary`` against one reference (stemmed)."""
    scores = _rouge_scorer().score(_lsum_form(reference), _lsum_form(summary))
    return {k: float(scores[k].fmeasure) for k in ROUGE_TYPES}


def _norm_token(tok: str, case_insensitive: bool) -> str:
    tok = _POSSESSIVE_RE.sub("", tok.replace("’", "'")).strip("'-")
    return tok.lower() if case_insensitive else tok


def _section_label(line: str) -> bool:
    words = line.strip().rstrip(":").split()
    return 0 < len(words) <= 4 and all(w.isupper() for w in words)


def _capitalised(tok: str) -> bool:
    return bool(tok) and tok[0].isupper() and tok.lower() not in STOPWORDS and not tok[0].isdigit()


def entities(text: str) -> set[str]:
    """Capitalized word tokens that are not stopwords (a cheap, language-agnostic entity proxy). A line
    of capitals alone ("BACKGROUND", "RESULTS:") labels a section and names nothing. A sentence's first
    word is capitalized by rule ("Lucky", "Earlier"): it counts only when the text capitalizes it inside
    a sentence too, or a capitalized word follows it ("New York")."""
    inner: set[str] = set()
    for line in text.split("\n"):
        if _section_label(line):
            continue
        for sentence in split_sentences(line):
            toks = [t for m in _TOKEN_RE.finditer(sentence) if (t := _norm_token(m.group(0), False))]
            for i, tok in enumerate(toks):
                if not _capitalised(tok):
                    continue
                if i > 0 or (len(toks) > 1 and _capitalised(toks[1])):  # inside, or heading a capitalized run
                    inner.add(tok)
    return inner  # an opener capitalized inside another sentence is in it already


def numbers(text: str) -> set[str]:
    """Numbers written with digits, thousands separators removed ("1,000" == "1000")."""
    out = set()
    for m in _NUMBER_RE.finditer(text):
        val = m.group(0).lstrip("+")
        if re.fullmatch(r"-?\d{1,3}(?:,\d{3})+(?:\.\d+)?%?", val):
            val = val.replace(",", "")
        out.add(val.rstrip(".,:"))
    return out


def _tokens(text: str, case_insensitive: bool) -> set[str]:
    return {_norm_token(m.group(0), case_insensitive) for m in _TOKEN_RE.finditer(text)}


def entity_recall(summary: str, reference: str, *, case_insensitive: bool = False) -> float | None:
    """Share of the reference's entities that occur in the summary; None if it has none."""
    ents = entities(reference)
    if not ents:
        return None
    have = _tokens(summary, case_insensitive)
    wanted = {e.lower() for e in ents} if case_insensitive else ents
    return len(wanted & have) / len(wanted)


def number_recall(summary: str, reference: str) -> float | None:
    """Share of the reference's numbers that occur in the summary; None if it has none."""
    nums = numbers(reference)
    if not nums:
        return None
    return len(nums & numbers(summary)) / len(nums)


def _max_opt(values: list[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return max(present) if present else None


def score(
    summary: str,
    references: list[str],
    *,
    budget_words: list[int | None] | None = None,
    case_insensitive: bool = False,
) -> Scores:
    """Score ``summary`` against every reference and keep the best value of each metric.

    ``budget_words[i]`` (when given and not None) truncates the summary to that many words
    before comparing with reference ``i``, so each comparison is at that reference's length.
    """
    if not references:
        raise ValueError("no reference to score against")
    per_ref: list[tuple[dict[str, float], float | None, float | None]] = []
    for i, ref in enumerate(references):
        limit = budget_words[i] if budget_words is not None else None
        text = truncate_words(summary, limit) if limit is not None else summary
        per_ref.append(
            (rouge(text, ref), entity_recall(text, ref, case_insensitive=case_insensitive), number_recall(text, ref))
        )
    return Scores(
        rouge1=max(r[0]["rouge1"] for r in per_ref),
        rouge2=max(r[0]["rouge2"] for r in per_ref),
        rougeLsum=max(r[0]["rougeLsum"] for r in per_ref),
        entity_recall=_max_opt([r[1] for r in per_ref]),
        number_recall=_max_opt([r[2] for r in per_ref]),
    )
