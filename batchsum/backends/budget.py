"""Token budgets for LLM calls: output caps, trimming, middle truncation, context-window fitting.

Seeds 003/004: a summary must never re-introduce as many tokens as it replaces, so each call's
output cap is ``min(level target, max(128, input_tokens // 2))``; seed 000 §4.5: when an input is
too large for the context window, keep its head and tail and drop the middle, where key
information is least likely to sit. Nothing here knows about HTTP.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from batchsum.text import cut_before_amount
from batchsum.tokens import Tokenizer

OUTPUT_FLOOR = 128  # seed 004: keeps very small summaries readable
# Our tokenizer (cl100k) is not the server's; budgets keep this share of the window for the prompt
# so a model whose tokenizer needs ~10% more tokens for the same text still fits.
TOKENIZER_MARGIN = 0.9
MESSAGE_OVERHEAD = 4  # role markers and separators per chat message (OpenAI's accounting)
REPLY_PRIMING = 3  # tokens the server adds to prime the assistant's reply
OMISSION_MARK = "\n[... {n} tokens omitted ...]\n"

# A HIERARCHICAL final is read by a person in a minute or two: its length is capped in words, and
# the detail stays in the L2/L1 levels below it. English prose averages ~1.3 cl100k tokens a word.
FINAL_WORDS = 500
TOKENS_PER_WORD = 1.3
# The same in other languages, a Chinese or Japanese word counting two characters (as digests count
# words): cl100k tokens per word of shared/bench/multilingual's prose. A budget in words costs that many
# tokens in the text's own language; at English's rate a Chinese month digest came out at 200 words of 300.
TOKENS_PER_WORD_IN = {"de": 1.9, "fr": 1.7, "es": 1.7, "ru": 3.0, "zh": 2.9, "ja": 2.4}


def tokens_per_word(language: str | None) -> float:
    """cl100k tokens per word of text in ``language`` (ISO 639-1; None: English)."""
    return TOKENS_PER_WORD_IN.get(language or "en", TOKENS_PER_WORD)


# Full-width 。！？ end a sentence with no space after them (Chinese, Japanese).
_SENTENCE_END = re.compile(r"[.!?…][\"')\]]*(?=\s|$)|[。！？][」』”’）》]*|\n\s*\n")


def output_budget(input_tokens: int, target_tokens: int) -> int:
    """Output cap of one call: ``min(target_tokens, max(128, input_tokens // 2))`` (at least 1)."""
    return max(1, min(target_tokens, max(OUTPUT_FLOOR, input_tokens // 2)))


def final_cap(target_tokens: int, final_words: int | None = FINAL_WORDS) -> int:
    """Target of a HIERARCHICAL final: the level's target, at most ``final_words`` words (None or 0: no cap)."""
    if not final_words or final_words <= 0:
        return target_tokens
    return max(1, min(target_tokens, round(final_words * TOKENS_PER_WORD)))


def count_message_tokens(messages: Sequence[dict[str, str]], tokenizer: Tokenizer) -> int:
    """Prompt size of a chat request in our tokenizer, including per-message overhead."""
    return sum(tokenizer.count(m.get("content", "")) + MESSAGE_OVERHEAD for m in messages) + REPLY_PRIMING


def prompt_budget(context_window: int, max_tokens: int) -> int:
    """Tokens (ours) a whole prompt may use so that prompt + ``max_tokens`` fits the window."""
    return max(0, int((context_window - max_tokens) * TOKENIZER_MARGIN))


def _snap_head(text: str) -> str:
    # Cut back to the last whitespace so the kept head never ends mid-word.
    cut = max(text.rfind(" "), text.rfind("\n"))
    return text[:cut].rstrip() if cut > len(text) // 2 else text.rstrip()


def _snap_tail(text: str) -> str:
    # Skip forward past the first whitespace so the kept tail never starts mid-word.
    cut = min((i for i in (text.find(" "), text.find("\n")) if i >= 0), default=-1)
    return text[cut:].lstrip() if 0 <= cut < len(text) // 2 else text.lstrip()


def middle_truncate(text: str, budget_tokens: int, tokenizer: Tokenizer, head_frac: float = 0.5) -> tuple[str, int]:
    """Keep the head and tail of ``text`` within ``budget_tokens``; return (text, tokens removed).

    ``head_frac`` of the kept tokens come from the start, the rest from the end; a marker says how
    many tokens were dropped. Text already within budget comes back unchanged with 0.
    """
    tokens = tokenizer.encode(text)
    if len(tokens) <= budget_tokens:
        return text, 0
    marker_cost = tokenizer.count(OMISSION_MARK.format(n=len(tokens)))
    keep = max(0, budget_tokens - marker_cost)
    if keep == 0:
        return "", len(tokens)
    n_head = int(keep * head_frac)
    n_tail = keep - n_head
    head = _snap_head(tokenizer.decode(tokens[:n_head])) if n_head else ""
    tail = _snap_tail(tokenizer.decode(tokens[len(tokens) - n_tail :])) if n_tail else ""
    removed = len(tokens) - tokenizer.count(head) - tokenizer.count(tail)
    result = f"{head}{OMISSION_MARK.format(n=removed)}{tail}"
    # Decoding at arbitrary token boundaries can re-tokenize a little longer; shave until it fits.
    for _ in range(8):
        over = tokenizer.count(result) - budget_tokens
        if over <= 0:
            break
        shave = over + 2
        if n_tail >= n_head:
            n_tail = max(0, n_tail - shave)
        else:
            n_head = max(0, n_head - shave)
        head = _snap_head(tokenizer.decode(tokens[:n_head])) if n_head else ""
        tail = _snap_tail(tokenizer.decode(tokens[len(tokens) - n_tail :])) if n_tail else ""
        removed = len(tokens) - tokenizer.count(head) - tokenizer.count(tail)
        result = f"{head}{OMISSION_MARK.format(n=removed)}{tail}"
    return result, removed


def fit_parts(parts: Sequence[str], budget_tokens: int, tokenizer: Tokenizer) -> tuple[list[str], int]:
    """Share ``budget_tokens`` across ``parts`` and middle-truncate only the parts over their share.

    Small parts keep everything and hand their slack to the large ones (water-filling), so every
    section of a META/ROLLING input keeps its head and tail instead of losing whole middle sections.
    Returns the fitted parts and the total tokens removed.
    """
    sizes = [tokenizer.count(p) for p in parts]
    if sum(sizes) <= budget_tokens or not parts:
        return list(parts), 0
    order = sorted(range(len(parts)), key=lambda i: sizes[i])
    shares = [0] * len(parts)
    remaining = budget_tokens
    for rank, i in enumerate(order):
        fair = remaining // (len(parts) - rank)
        shares[i] = min(sizes[i], fair)
        remaining -= shares[i]
    fitted: list[str] = []
    removed = 0
    for part, size, share in zip(parts, sizes, shares, strict=True):
        if size <= share:
            fitted.append(part)
            continue
        text, cut = middle_truncate(part, share, tokenizer)
        fitted.append(text)
        removed += cut
    return fitted, removed


def trim_to_sentence_boundary(text: str, max_tokens: int, tokenizer: Tokenizer) -> tuple[str, bool]:
    """Cut ``text`` to at most ``max_tokens`` at the last sentence end; return (text, trimmed?).

    Falls back to the last word boundary (plus an ellipsis) when no sentence ends in the kept
    part, so the result never stops mid-word.
    """
    tokens = tokenizer.encode(text)
    if len(tokens) <= max_tokens:
        return text, False
    # A cut between the tokens of one character decodes to U+FFFD: never keep half a character.
    kept = tokenizer.decode(tokens[:max_tokens]).rstrip("\ufffd")
    for _ in range(8):
        ends = [m.end() for m in _SENTENCE_END.finditer(kept) if not _cut_after(m, kept, text)]
        if ends and ends[-1] >= len(kept) // 4:
            result = kept[: ends[-1]].rstrip()
        else:
            cut = max(kept.rfind(" "), kept.rfind("\n"))
            head = kept[:cut] if cut > 0 else kept
            # kept is a prefix of text: what follows the cut there says whether it parts an amount ("$210 million").
            result = cut_before_amount(head, text[len(head) :]).rstrip(" ,;:-") + "…"
        if tokenizer.count(result) <= max_tokens:
            return result, True
        kept = result[:-1] if result.endswith("…") else result[: max(0, len(result) - 4)]
    return tokenizer.decode(tokens[: max(0, max_tokens - 1)]), True


def _cut_after(stop: re.Match[str], kept: str, text: str) -> bool:
    """Whether ``stop``, a sentence end found in ``kept`` (a prefix of ``text``), is only the place the cut fell:
    a period at its very end that ``text`` goes on from without a space ("added 3." of "added 3.5 points")."""
    end = stop.end()
    return end == len(kept) and stop.group(0)[:1] in ".!?…" and text[end : end + 1].strip() != ""


def trim_at_clause(text: str, cap: int, tokenizer: Tokenizer) -> str:
    """Cut ``text`` at a word (preferably clause) boundary, plus "…", so it fits in ``cap`` tokens ("" when no
    word does); a text with no word to break at (CJK) at a character."""
    if cap <= 0:
        return ""
    if tokenizer.count(text) <= cap:
        return text
    words = text.split()
    lo, hi = 0, len(words)
    while lo < hi:  # largest k with words[:k] + "…" within cap
        mid = (lo + hi + 1) // 2
        if tokenizer.count(" ".join(words[:mid]) + "…") <= cap:
            lo = mid
        else:
            hi = mid - 1
    k = lo
    if k == 0:
        return _trim_chars(text, cap, tokenizer)
    for j in range(k, max(1, int(k * 0.6)) - 1, -1):
        if words[j - 1][-1:] in ",;:" or (j < len(words) and words[j].lower() in {"and", "but", "which", "while"}):
            k = j
            break

    def cut(k: int) -> str:  # never parting an amount from its unit: "at $210…", not "at $210" of "$210 million"
        head = cut_before_amount(" ".join(words[:k]), " ".join(words[k:]))
        return head.rstrip(",;:-–—") + "…" if head else ""

    out = cut(k)
    while k > 0 and tokenizer.count(out) > cap:
        k -= 1
        out = cut(k)
    return out if k > 0 and out else ""


def _trim_chars(text: str, cap: int, tokenizer: Tokenizer) -> str:
    """Cut a text with no word to break at (CJK) at a character, preferably a clause mark, plus "…"."""
    lo, hi = 0, len(text)
    while lo < hi:  # longest prefix that fits with its ellipsis (never half a character)
        mid = (lo + hi + 1) // 2
        if tokenizer.count(text[:mid] + "…") <= cap:
            lo = mid
        else:
            hi = mid - 1
    head = text[:lo]
    clause = max(head.rfind(c) for c in "，、；：,;:")
    if clause >= 0.6 * lo:
        head = head[: clause + 1]
    head = head.rstrip("，、；：,;:-–— ")
    return head + "…" if head else ""
