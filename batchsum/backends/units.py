"""Candidate units of the extractive summarizer: sentences with their speaker, position and role.

Layout lines are never candidates and never glued to the sentence below them
(:mod:`batchsum.backends.noise`: separators, headings, contents and index entries, page headers,
footnotes, licence boilerplate); a heading names the section below it (introduction, methods,
references) and a dated heading the journal entry. A conversation's ``Speaker: text`` turns are
cleaned of disfluency markers and fillers first; backchannels ("Yeah.", "Mm-hmm."), fragments and
sentences that stop without a full stop are kept as context but are not candidates.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from batchsum.backends.adverts import advert_segments, sponsor
from batchsum.backends.apparatus import (
    is_caption_line,
    is_front_matter_line,
    is_reference,
    is_reference_list,
    is_tex_math,
)
from batchsum.backends.epigraphs import epigraph_lines
from batchsum.backends.leaning import points_away
from batchsum.backends.line_groups import across_page_breaks, item_lines
from batchsum.backends.noise import (
    contents_lines,
    entry_date,
    heading_year,
    in_a_sentence,
    is_boilerplate,
    is_caption,
    is_footnote,
    is_fragment,
    is_heading,
    is_index_block,
    line_kind,
    markdown_as_text,
    needs_context,
    repeated_lines,
    section_role,
)
from batchsum.backends.phatic import is_phatic
from batchsum.caseless import capitalised, split_lowercase
from batchsum.cleanup import (
    balance_quotes,
    clean_transcript,
    fix_spacing,
    is_number_word,
    open_quotation,
    stray_quotation,
)
from batchsum.datelines import DateCarry, cjk_dateline, dateline, is_dateline
from batchsum.doc_dates import named_year
from batchsum.hyphens import dehyphenate
from batchsum.language import CJK_CHARS_PER_WORD, cjk_chars, content_terms, word_count
from batchsum.model import ContentType
from batchsum.readers.note_syntax import TASK_BOXES, code_blocks, fix_outside
from batchsum.text import (
    BULLET,
    DATE_LABEL,
    LIST_ITEM,
    QUOTE_MARKS,
    conversation_lines,
    email_sender,
    ends_apart,
    is_backchannel,
    is_chat,
    parse_speaker_line,
    split_sentences,
    unended,
)

__all__ = ["STOPWORDS", "Unit", "cleaned_turns", "entry_dates_at", "terms", "units_from_text"]

QUOTE_PENALTY = 0.25  # units that are mostly quoted dialogue (stories) say little on their own

STOPWORDS = frozenset(
    """
    a about above after again against all almost also although am among an and another any anybody anyhow anyone
    anything anyway anywhere are aren't around as at be became because become becomes been before being below
    beside besides between beyond both but by can can't cannot could couldn't did didn't do does doesn't doing
    don't done down during each either else enough etc even ever every everybody everyone everything everywhere
    few for from further get gets getting got gotten had hadn't has hasn't have haven't having he he'd he'll he's
    her here here's hers herself him himself his how how's however i i'd i'll i'm i've if in into is isn't it it's
    its itself just least less let let's like likely many may me might mine more most mostly much must mustn't
    my myself neither never nevertheless next no nobody none nor not nothing now nowhere of off often on once one
    ones only onto or other others otherwise ought our ours ourselves out over own per perhaps please quite rather
    really said same say says see seem seemed seems several shall shan't she she'd she'll she's should shouldn't
    since so some somebody somehow someone something sometime sometimes somewhat somewhere still such than that
    that's the their theirs them themselves then there there's thereby therefore these they they'd they'll
    they're they've this those though through throughout thus to together too toward towards under until up upon
    us very via was wasn't we we'd we'll we're we've well were weren't what what's whatever when when's whenever
    where where's whereas wherever whether which while who who's whoever whole whom whose why why's will with
    within without won't would wouldn't yet you you'd you'll you're you've your yours yourself yourselves
    yeah yes yep okay ok oh um uh mm hmm huh ah alright right gonna wanna gotta kinda sorta actually basically
    thing things stuff kind sort lot lots bit guess mean know think go going goes went gone come came
    want wanted maybe probably sure just also again really okay way ways put take took make made
    """.split()
)

_WORD = re.compile(r"[a-z0-9]+(?:['’][a-z]+)?")
_WHOLE = re.compile(r"[.!?…][\"'”’)\]]*$")  # a sentence that ends as a sentence
_QUOTED = re.compile(r"[\"“][^\"“”]*[\"”]")

_stem_cache: dict[str, str] = {}


def _stem(word: str) -> str:
    """A small, deterministic suffix stripper (Porter step 1 plus -ly/-ment/-ness).

    Not the search index's lighter stemmer (:func:`batchsum.index.lexical.stem`): with that one the
    summaries gained on PubMed and QMSum and lost on diaries and SQuALITY (`make eval`, 2026-11-24)."""
    cached = _stem_cache.get(word)
    if cached is not None:
        return cached
    w = word.replace("’", "'")
    if "'" in w:
        w = w.split("'", 1)[0]
    if len(w) > 4:
        if w.endswith("sses"):
            w = w[:-2]
        elif w.endswith("ies"):
            w = w[:-3] + "y"
        elif w.endswith("s") and not w.endswith(("ss", "us", "is")):
            w = w[:-1]
        for suffix in ("ingly", "edly", "ing", "ed", "ly", "ment", "ness"):
            if w.endswith(suffix) and len(w) - len(suffix) >= 3:
                w = w[: -len(suffix)]
                if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "lsz":
                    w = w[:-1]
                break
        if w.endswith("e") and len(w) > 4:
            w = w[:-1]
        if w.endswith("y") and len(w) > 4:
            w = w[:-1] + "i"
    if len(_stem_cache) < 200_000:
        _stem_cache[word] = w
    return w


def terms(text: str, language: str | None = None) -> list[str]:
    """Stemmed content words of ``text`` (numbers excluded: they make near-duplicates look distinct).

    Another language than English gets its own stop words and, for CJK, character bigrams
    (:func:`batchsum.language.content_terms`)."""
    if language is not None and language != "en":
        return content_terms(text, language)
    out = []
    for w in _WORD.findall(text.lower()):
        if len(w) < 3 or w in STOPWORDS or w[0].isdigit():
            continue
        out.append(_stem(w))
    return out


@dataclass
class Unit:
    """One candidate sentence."""

    text: str  # what goes into the summary
    body: str  # text without the speaker label
    speaker: str | None
    pos: float  # relative position in its source, 0..1
    part: int = 0
    prior: bool = False  # from the previous final (rolling)
    words: int = 0
    terms: list[str] = field(default_factory=list)
    candidate: bool = True
    # A whole sentence: no fragment ("... of the value:"), markup or layout line. Only a whole one stands
    # in for the candidates where a text has none (a section the rules skip, a line too short to be one).
    whole: bool = True
    penalty: float = 0.0  # boilerplate, tables, dialogue-only lines
    context: bool = False  # opens by pointing back ("But ...", "Partly, ...")
    date: str | None = None  # journals: the date of the entry the sentence belongs to
    turn: int = -1  # conversations: the source line (turn) the sentence belongs to
    section: int = 0  # prose: the heading-delimited section of its text the sentence is in
    heading: str = ""  # prose list items: the short heading or lead-in line ("Non-goals:") they belong to


def _static_penalty(body: str, content_type: ContentType) -> float:
    """Penalty for units that rarely belong in a summary, whatever their centrality."""
    if not body:
        return 0.0
    pen = 0.0
    # Conversations: a read-out licence or URL. Only a candidate's: no ad's (advert_segments), so no ad.
    if is_boilerplate(body, advert=False):
        pen += 1.0
    if content_type != "conversation" and ('"' in body or "“" in body):
        quoted = sum(len(m.group(0)) for m in _QUOTED.finditer(body))
        pen += QUOTE_PENALTY * (quoted / len(body))
    if sum(map(str.isalpha, body)) < 0.6 * len(body):
        pen += 0.3
    return pen


# A label on a line with nothing said after it ("C:"): no turn. Read as a line of its own it would be glued to
# the turn above as a wrapped line's words ("well C:").
_BARE_LABEL = re.compile(r"^[^\S\n]*[^\s:][^:\n]{0,59}:[^\S\n]*$", re.MULTILINE)


def _unsaid(m: re.Match[str]) -> str:
    """A bare speaker's label gone (its line left blank); any other line ending in a colon kept."""
    return "" if parse_speaker_line(m.group(0).rstrip() + " …")[0] is not None else m.group(0)


def cleaned_turns(text: str, *, cues_only: bool = False) -> list[tuple[str | None, str]]:
    """A conversation's turns as the summarizer reads them, (speaker or None, body), the bodies after one
    clean_transcript pass over all of them (``cues_only``: see it); a body may be left empty. A tool record
    is the program's output, not speech: the cleaner's rules ("[*]" as a cue, "1475 1475" as a stutter,
    "{...}" as markup) would mangle it, so it is left out of the pass."""
    lines = conversation_lines(_BARE_LABEL.sub(_unsaid, _without_layout(text)))
    if not lines:  # "".split("\n") is one empty line, not none
        return []
    bodies = [said for _, said in lines]
    records = {i: body for i, body in enumerate(bodies) if _TOOL_RECORD.match(body)}
    joined = "\n".join("" if i in records else b for i, b in enumerate(bodies))
    cleaned = clean_transcript(joined, cues_only=cues_only).split("\n")
    for i, record in records.items():
        cleaned[i] = record
    return [(who, said) for (who, _), said in zip(lines, cleaned, strict=True)]


def _conversation_units(text: str, min_words: int, part: int, language: str | None) -> list[Unit]:
    """A conversation's units: its turns cleaned as speech, each sentence with its speaker and turn."""
    units: list[Unit] = []
    turns = cleaned_turns(text)
    speakers, cleaned = [who for who, _ in turns], [said for _, said in turns]
    n = max(1, len(cleaned))
    sentences = [
        (li, piece)
        for li, body in enumerate(cleaned)
        if body
        for piece in ([body] if _TOOL_RECORD.match(body) else [sp.text for sp in split_sentences(body, language)])
    ]
    # A sentence that stops without a full stop was broken off, unless the transcript has no punctuation
    # or is a chat, where a message ends where it ends: most turns end without a stop there (Slack 0.86),
    # a minority in speech cut short by interruptions (QMSum at most 0.38 a meeting, DialogSum 0.14).
    punctuated = sum(1 for _, t in sentences if _WHOLE.search(t)) >= 0.3 * len(sentences)
    turn_final = {i for i, (li, _) in enumerate(sentences) if i + 1 == len(sentences) or sentences[i + 1][0] != li}
    chat = is_chat(sentences[i][1] for i in turn_final)  # the rule facets.extract_facets reads a chat by
    # A sponsor's read runs over its speaker's turn and next lines; a cue line between ("[Music]") ends it.
    ads = advert_segments(
        [said for _, said in sentences],
        [
            bool(i) and speakers[li] == speakers[sentences[i - 1][0]] and li - sentences[i - 1][0] <= 1
            for i, (li, _) in enumerate(sentences)
        ],
        [sponsor(said) for _, said in sentences],
    )
    quoted = ""  # the quotation open where a sentence starts: within its turn, as a paragraph's in prose
    for i, (li, said) in enumerate(sentences):
        opened = quoted if i and sentences[i - 1][0] == li else ""
        quoted = open_quotation(said, opened)
        speaker, sent = speakers[li], balance_quotes(said, opened)
        words = word_count(sent)
        whole = not (is_fragment(sent) or _MARKUP.search(sent) or _apparatus(sent)) and i not in ads
        ok = (
            whole
            and not _TOOL_RECORD.match(sent)  # a program's output, listed in the session's own section
            and _long_enough(sent, words, min_words)
            and not is_backchannel(sent)
            and not is_phatic(sent)  # greetings, thanks, a call's logistics
            and not points_away(sent)  # "You can have a look at it.": at a slide no summary shows
            and not only_numbers(sent)
            and (not punctuated or bool(_WHOLE.search(sent)) or (chat and i in turn_final))
        )
        units.append(
            Unit(
                f"{speaker}: {sent}" if speaker else sent,
                sent,
                speaker,
                li / n,
                part,
                words=words,
                candidate=ok,
                whole=whole,
                penalty=_static_penalty(sent, "conversation") if ok else 0.0,
                turn=li,
            )
        )
    return units


def _without_layout(text: str) -> str:
    """A conversation's text as its rendered Markdown reads (:func:`markdown_as_text`, words wrapped at a
    hyphen made whole), its layout blank: a table row, a separator, a contents or index entry, a running page
    header standing alone, a caption, a reference list, a Markdown heading, and in a text with such headings a
    short line standing alone as one (a page's "Zheng and Lapata, ACL 2019 — page 1"). Forced to read as a transcript,
    a paper's notes keep the clean-up a document gets; no other line with a speaker's label is layout."""
    lines = dehyphenate(markdown_as_text(text)).split("\n")
    repeated = repeated_lines(lines) if len(lines) >= 30 else frozenset()
    kinds = [line_kind(line, repeated) for line in lines]
    headed = any(k == "heading" and line.lstrip().startswith("#") for k, line in zip(kinds, lines, strict=True))
    start = 0  # the first line of the paragraph under way
    for i, (line, kind) in enumerate(zip(lines, kinds, strict=True)):
        if not line.strip():
            if is_reference_list(lines[start:i]):
                lines[start:i] = [""] * (i - start)
            start = i + 1
            continue
        prev = lines[i - 1] if i and lines[i - 1].strip() else None
        nxt = lines[i + 1] if i + 1 < len(lines) and lines[i + 1].strip() else None
        if is_caption_line(line) or (
            kind is not None
            and parse_speaker_line(line)[0] is None
            and (
                (kind in _NOISE_KINDS and kind != "header")
                or (kind == "heading" and line.lstrip().startswith("#"))
                # A wrapped turn repeats as often as it is said: a page header or a heading stands alone.
                or (
                    prev is None
                    and nxt is None
                    and (kind == "header" or (headed and kind == "short" and is_heading(line, None, None)))
                )
            )
        ):
            lines[i] = ""
    if is_reference_list(lines[start:]):
        lines[start:] = [""] * (len(lines) - start)
    return "\n".join(lines)


def _paragraph_rest(lines: Sequence[str], li: int, cap: int = 40) -> list[str]:
    """The lines after ``lines[li]`` up to the next blank line (``cap`` at most: enough to see a paragraph's width)."""
    rest: list[str] = []
    for line in lines[li + 1 : li + 1 + cap]:
        if not line.strip():
            break
        rest.append(line)
    return rest


def _apparatus(sentence: str) -> bool:
    """A caption, a reference-list entry or a sentence of raw TeX math (:mod:`~batchsum.backends.apparatus`)."""
    return is_caption_line(sentence) or is_tex_math(sentence) or is_reference(sentence)


def _prose_ads(spans: Sequence[_Span], text: str) -> frozenset[int]:
    """The sentences of ``spans`` (raw sentence, role, date, section, title, block) that are a sponsor's read
    (:func:`~batchsum.backends.adverts.advert_segments`): an ad goes on over its paragraph and the next, within
    its section. Each is asked as it reads, its lines joined ("Use the promo\ncode HARBOR"), its words whole."""
    read = [" ".join((dehyphenate(raw, text) if "-\n" in raw or "- \n" in raw else raw).split()) for raw, *_ in spans]
    goes_on = [
        bool(i) and spans[i - 1][3] == section and bi - spans[i - 1][5] <= 1
        for i, (*_, section, _, bi) in enumerate(spans)
    ]
    return advert_segments(read, goes_on, [sponsor(sentence) for sentence in read])


def _whole_prose(sent: str) -> bool:
    """Whether a prose sentence is a whole one: no heading, table row, markup, layout line, boilerplate, phatic
    line, bare pointer, fragment, bracketed aside, caption, reference or dateline ("Lisbonne, le 11 mai 2024.")."""
    return (
        not sent.startswith(("#", "|", "```"))
        and not _MARKUP.search(sent)
        and line_kind(sent) not in _NOISE_KINDS
        and not is_boilerplate(sent, advert=False)  # asked of no ad's sentence (advert_segments)
        and not is_phatic(sent)
        and not points_away(sent)
        and not is_fragment(sent)
        and not _BRACKETED.match(sent)
        and not _CUT_OPENING.match(sent)
        and not (_apparatus(sent) or is_dateline(sent))
    )


def _long_enough(sentence: str, words: int, min_words: int) -> bool:
    """Whether a sentence of ``words`` words (:func:`~batchsum.language.word_count`, which counts a Chinese or
    Japanese character as one) can stand as a summary's line. Here a Chinese or Japanese word is two
    characters, as digests count them: "一同で見物する。" ("we all watched it") is three words, too few to say
    what was watched."""
    if words < min_words:
        return False
    cjk = cjk_chars(sentence)
    return not cjk or words - cjk + cjk // CJK_CHARS_PER_WORD >= min_words


def units_from_text(
    text: str, content_type: ContentType, min_words: int = 5, part: int = 0, language: str | None = None
) -> list[Unit]:
    """Split one text into candidate units, cleaning transcripts and parsing speakers.

    Units shorter than ``min_words`` words are kept (as context) but are not candidates."""
    if content_type == "conversation":
        return _conversation_units(text, min_words, part, language)
    units: list[Unit] = []
    blocks, readings = _prose_blocks(markdown_as_text(text))
    cased = capitalised(text)  # a text without case (scraped papers) is cut at its periods (caseless.py)
    spans = _numbered(
        [
            (sent, role, date, section, title, bi)
            for bi, (block, role, date, section, title) in enumerate(blocks)
            for sp in split_sentences(block, language, readings)
            for sent in (split_lowercase(sp.text, cased) if language in (None, "en") else [sp.text])
        ]
    )
    n = max(1, len(spans))
    stray = {bi for bi, block in enumerate(blocks) if stray_quotation(block[0])}  # no quotation carried there
    cast = _cast(raw for raw, *_ in spans)
    ads = _prose_ads(spans, text)
    turn: tuple[int, str, int] | None = None  # (section, speaker, first sentence) of the play's turn under way
    carried: str | None = None  # the date of a dated line in a child summary runs on to the next date
    lead_in: tuple[int, str] | None = None  # (block, text) of a line that introduces a list ("Non-goals:")
    task_block = -1  # the block of the task item under way, -1 when none is
    quoted, quoted_block = "", -1  # the quotation open where a sentence starts (its mark), in its block

    def prose(text: str) -> str:  # not inline code nor a tool's record (_CODE)
        return fix_spacing(_FOOTNOTE_MARK.sub("", text), language)

    for i, (raw, role, date, section, title, bi) in enumerate(spans):
        # A Markdown blockquote reads as its text; the reader of a summary has no footnotes.
        flat = QUOTE_MARKS.sub("", raw)
        # A quotation runs on over its sentences to its paragraph's end at most (the next paragraph of a
        # speech opens with a mark of its own), whether or not its first sentence is a candidate.
        opened = quoted if quoted_block == bi and bi not in stray else ""
        quoted, quoted_block = open_quotation(_CODE.sub("", flat) if "`" in flat else flat, opened), bi
        if "-\n" in flat or "- \n" in flat:
            flat = dehyphenate(flat, text)  # the whole text is the evidence: "sum-\nmarization", "high-\nbacked"
        sent = " ".join(flat.split())
        # The label before the spacing is fixed: "1915-01-20: ... The man" is cut at its "...", which then
        # closes up to its label ("1915-01-20:..."), and the sentences after it had kept the date before.
        if m := DATE_LABEL.match(sent):
            carried, sent = m.group(1), sent[m.end() :]
        elif date is not None:
            carried = date
        sent = fix_outside(sent, _CODE, prose) if "`" in sent or "[" in sent else prose(sent)
        who, said = parse_speaker_line(sent) if cast else (None, sent)
        if who in cast:
            turn = (section, str(who), i)
        elif turn is not None and turn[0] != section:
            turn = None  # a turn runs on (over the hard-wrapped lines of its paragraph) to the next heading
        words = word_count(sent)
        item = LIST_ITEM.match(sent) is not None
        if not item:
            lead_in = (bi, sent[:-1]) if sent.endswith(":") and words <= _LABEL_WORDS else None
        whole = i not in ads and _whole_prose(sent)
        if item or bi != task_block:
            # A task's item is bookkeeping to its end: its further sentences too ("- ☐ Call the bank. Ask ...").
            task_block = bi if item and _TASK.match(sent) else -1
        # Not whole either: a short task had been the line a one-line summary falls back on ("Tasks: ☐ call
        # the bank.") when the day's one sentence was too long for it.
        whole = whole and task_block < 0
        ok = whole and _long_enough(sent, words, min_words) and role != "skip"
        shown = balance_quotes(sent, opened)
        if ok and not item and unended(shown):
            # A paragraph that ends without a stop ("... reported in additional file 6") ran into the next
            # pick in a summary ("additional file 6 thus, to test ..."), and the level above read them as one.
            shown += "."
        speaker = turn[1] if turn is not None else None
        if turn is not None and turn[2] != i:
            shown = f"{speaker}: {shown}"  # a sentence from inside a play's turn still names its speaker
        units.append(
            Unit(
                shown,  # the scoring reads the words as they stand
                said if turn is not None and turn[2] == i else sent,
                speaker,
                i / n,
                part,
                words=words,
                candidate=ok,
                whole=whole,
                penalty=_static_penalty(sent, content_type) if ok else 0.0,
                date=carried if content_type == "journal" else None,
                context=needs_context(sent),
                section=section,
                turn=turn[2] if turn is not None else -1,
                # A lead-in is the list's when it is in the list's paragraph or the one just before it
                # ("This can lead to problems, such as:", a blank line, then the list).
                heading=_label(lead_in[1] if lead_in and bi - lead_in[0] <= 1 else title) if item else "",
            )
        )
    return units


def entry_dates_at(text: str, starts: Sequence[int]) -> list[str]:
    """For each of the ascending ``starts``, the heading lines (:meth:`DateCarry.headings`) that date
    ``text[start:]`` as the text before it does: a journal cut into chunks opens each chunk with them. One
    pass over the text, each stretch between two starts read once. A stretch never ends inside a fenced code
    block: read apart, the block's rest had been prose (a shell comment "# 2019-05-01" a dated heading)."""
    carry, out, done = DateCarry(), [], 0
    blocks = iter(code_blocks(text, indented=False) if "```" in text or "~~~" in text else ())
    block = next(blocks, None)
    for start in starts:
        while block is not None and block[1] <= start:
            block = next(blocks, None)
        cut = block[0] if block is not None and block[0] < start else start  # code dates nothing: read it later
        if cut > done:
            _prose_blocks(markdown_as_text(text[done:cut]), carry)
            done = cut
        out.append(carry.headings())
    return out


_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)


def only_numbers(sentence: str) -> bool:
    """Whether a sentence is nothing but a number read out ("Four two zero zero one seven.": a meeting's
    digits task, a phone number): it says nothing alone."""
    words = _TOKEN.findall(sentence)
    return bool(words) and all(map(is_number_word, words))


def _cast(sentences: Iterable[str]) -> frozenset[str]:
    """The speakers of a play or dialogue set as prose (Plato's "LACHES: I have but one feeling, ..."): the names
    in capitals that open a sentence, when there are two or more (a section's label is no name)."""
    opened: set[str] = set()
    for sent in sentences:
        who, _ = parse_speaker_line(sent) if ":" in sent[:62] else (None, sent)
        if who and who.isupper() and sum(map(str.isalpha, who)) >= 2 and who.lower() not in _SECTION_LABELS:
            opened.add(who)
    return frozenset(opened) if len(opened) >= 2 else frozenset()


# A structured abstract's labels ("BACKGROUND: ... RESULTS: ...") name its sections, not speakers.
_SECTION_LABELS = frozenset(
    """abstract background introduction objective objectives aim aims purpose context methods method design
    setting participants interventions measurements materials results findings discussion conclusion conclusions
    significance limitations note notes warning summary""".split()
)

_LABEL_WORDS = 8  # a heading or lead-in line this short names its list; a longer one is a sentence


# A heading that gives a year ("# Понедельник, 25 марта 2024", "## 2025-03-02") is a journal entry's date.
_DATED = re.compile(r"(?<!\d)(?:1[5-9]|20)\d\d(?!\d)")


def _label(title: str) -> str:
    """A list's heading as a label for its items in a summary ("Non-goals"), or "" for a long one or a
    date: an entry's date says nothing its file's date does not, and a line of dialogue opening with a
    dash under it ("- Что, сударь, ...") is no item of a list the date names."""
    # A heading inside a blockquote ("> ##### Integer Overflow") reads as its text, as the quote's lines do.
    title = QUOTE_MARKS.sub("", title).lstrip("# ")
    title = title.strip().rstrip("#").strip().strip("*_").rstrip(":").strip()  # "## Goals ##", "**Goals:**"
    return title if title and word_count(title) <= _LABEL_WORDS and not _DATED.search(title) else ""


# "pages[131]", and the placeholder of a citation in scraped papers ("nerves <cit>."): the reader of a summary
# has no footnotes or bibliography.
_FOOTNOTE_MARK = re.compile(r"(?<=\S)\[\d{1,4}\]|[ \t]*<cit>")

# A task ("- ☐ call the plumber", "- ☑ pay the bill": note_syntax renders the boxes) is the note's
# bookkeeping, listed in the facets when open: the day's prose says what happened.
_TASK = re.compile(r"^\s*(?:[-*+]|\d{1,3}[.)])\s+[" + "".join(TASK_BOXES) + "]")

# A list's number the sentence splitter cut off its item ("2." | "Smith J, Doe A, ..."): no unit of its own.
_BARE_NUMBER = re.compile(r"^\s*(?:\d{1,3}[.)]|\(\d{1,3}\)|\[\d{1,3}\])\s*$")

_BULLETED = re.compile(r"[ \t]*" + BULLET + r"[ \t]+\S")  # a bulleted item's line (a numbered one may be a heading)

_Span = tuple[str, str | None, str | None, int, str, int]


def _numbered(spans: list[_Span]) -> list[_Span]:
    """Spans with each bare list number joined to the sentence after it in its block ("2. We found ..."), or
    left out when none follows: a number alone says nothing, and a run of them ("2. 3. 4.") had filled a
    summary where a reference list's entries were passed over."""
    out: list[_Span] = []
    number: _Span | None = None
    for span in spans:
        if _BARE_NUMBER.match(span[0]):
            number = span  # a number after a number: the first had no item
            continue
        if number is not None and number[5] == span[5]:
            span = (f"{number[0].strip()} {span[0]}", *span[1:])
        number = None
        out.append(span)
    return out


# Inline code (`&"hi"[0]`, `pip install -e .[dev]`) and a tool's record ("[✓ shell: Command: ...]")
# say what they say: no footnote mark or tokenizer spacing is taken out of them.
_CODE = re.compile(r"(`+)[^`]+?\1|\[[✓✗] [^\n]*\]$")


# Markup and agent-session chrome are never summary sentences: a flattened heading or code fence, an
# HTML tag, a shell prompt, the status lines of an agent's tool ("(Open file: n/a)").
_MARKUP = re.compile(
    r"(?:^|\s)#{2,6}\s|```|</?[a-zA-Z][\w-]*(?:\s[^<>]*)?/?>|\bbash-\$|\((?:Open file|Current directory):|"
    r"\[File: |^\s*\$ \w|\s>\s*>"
)
# An agent session's tool result as its one-line record ("[✓ shell: Command: make | Output: 3 lines]",
# compact.extractors.format_summary): one unit, never cleaned as speech nor cut into "sentences" at the
# periods inside it.
_TOOL_RECORD = re.compile(r"^\[[✓✗] [^\n]*\]$")  # brackets inside are the output's ("[*] Closed")
_NOISE_KINDS = frozenset({"separator", "toc", "index", "header", "table", "boilerplate"})
# A line wholly in brackets is an aside or a note, "（昭和十年十月）", "(Applause.)": never a summary by itself.
_BRACKETED = re.compile(r"^[(\[（【〔][^()\[\]（）【】〔〕]*[)\]）】〕][.。]?$")
# A piece opening with a comma, a semicolon, a colon or a stop (not a word's: ".NET") is a cut sentence's rest.
_CUT_OPENING = re.compile(r"[,;:]|\.(?!\w)")


def _prose_blocks(
    text: str, carry: DateCarry | None = None
) -> tuple[list[tuple[str, str | None, str | None, int, str]], dict[str, bool]]:
    """The prose of ``text`` as blocks (paragraphs, or the runs between layout lines) with their section role,
    section number (headings delimit sections) and the section's heading; and the readings of its paragraphs
    that :func:`~batchsum.backends.line_groups.item_lines` made, which the splitter reuses for a block that is one.

    Layout lines (separators, headings, contents and index entries, repeated page headers) are
    dropped and end the block before them, so a heading is never glued to the sentence under it;
    a heading sets the role (``lead``, ``close``, ``detail``, ``skip``) of the prose below it, and
    a dated heading (a journal entry) the date of the prose below it. ``carry``: the dates in effect where
    ``text`` starts, left as they are where it ends.
    """
    lines = text.split("\n")
    repeated = repeated_lines(lines) if len(lines) >= 30 else frozenset()
    contents = contents_lines(lines)  # a list of titles ("3.  How Dorothy Saved the Scarecrow", ...)
    epigraph = epigraph_lines(lines)  # someone else's words over a chapter: no more its text than its title
    items, readings = item_lines(lines)  # a survey's answers one per line: sentences without stops, not headings
    cased = capitalised(text)  # a lower-cased text's next line opens in lower case whatever it is
    blocks: list[tuple[str, str | None, str | None, int, str]] = []
    current: list[str] = []
    role: str | None = None
    carry = carry or DateCarry()  # the entry's date; the year ("1903" over days alone) and month a day leaves out
    section = 0
    title = ""

    def flush() -> None:
        # A back-of-book index spread over a chunk of its own has no INDEX heading above it; an e-mail's
        # header block is no prose either.
        if (
            current
            and not is_footnote(current[0])
            and not is_caption(current)
            and not is_caption_line(current[0])  # a figure's or table's caption, all its sentences
            # a paper's affiliations, its authors' e-mails: above its first paragraph only (a journal's is prose)
            and not (not blocks and all(map(is_front_matter_line, current)))
            and not is_reference_list(current)
            and not is_index_block(current)
            and email_sender(current) is None
        ):
            blocks.append(("\n".join(current), role, carry.date, section, title))
        current.clear()

    prev: str | None = None
    opened = False  # a line of text came before this one
    for li, line in enumerate(lines):
        if not line.strip() or li in epigraph:
            flush()
            prev = None
            continue
        kind = "toc" if li in contents else line_kind(line, repeated)
        alone = prev is None and len(line) < 40 and (li + 1 == len(lines) or not lines[li + 1].strip())
        # An entry dated in-line ("June 18th.--A walk ...") or by a dateline of its own ("Trient, den 10.
        # September, abends."): a Chinese or Japanese one stands on its line between lines of prose.
        entry = dateline(line) if prev is None else cjk_dateline(line) if "日" in line else None
        if entry is not None:
            flush()  # the lines above are the last entry's, under its date
            carry.date = carry.iso(entry) or carry.date
        if entry is not None and entry.alone:
            kind = "heading"  # a label of the entry below it, never one of its sentences
        elif alone and (heading_year(line) or entry_date(line.strip(), carry.year)):
            kind = "heading"  # a year or a day alone on its line opens entries ("_August_ 25." under "1903")
        elif kind == "short" and (li in items or _BULLETED.match(line)):
            kind = None  # a list's item, however short, is no heading (a slide's item under its title had been)
        elif kind == "short":
            nxt = lines[li + 1] if li + 1 < len(lines) else None
            # A bulleted item below is no wrapped rest of this line: the line stands alone, over its list (a
            # slide's title, "The Stack and the Heap", had read as a sentence and the list went on unlabelled).
            nxt = None if nxt is not None and _BULLETED.match(nxt) else nxt
            rest = None if opened else _paragraph_rest(lines, li)  # the text's first line may be its title
            kind = "heading" if is_heading(line, prev, nxt, cased, rest) else None
        elif kind is None and not cased and prev is None and li not in items and not LIST_ITEM.match(line):
            kind = "heading" if ends_apart(line, _paragraph_rest(lines, li)) else None  # a lower-cased sub-heading
        elif kind == "heading" and in_a_sentence(line, prev, lines[li + 1] if li + 1 < len(lines) else None, cased):
            kind = None  # a wrapped line of prose that opens with "volume", "Book" or "PART": no heading
        prev = line if kind is None else None
        opened = True
        if kind is None:
            if current and is_footnote(line) and not is_reference(current[-1]):
                # A footnote under prose (its block goes) is never the end of its sentence; under a citation,
                # "[4] Wolfson AR, ..." is the list's next entry.
                flush()
            current.append(line)
            continue
        flush()
        if kind == "heading":
            section += 1
            title = line.strip().lstrip("# ")
            carry.year = named_year(title) or carry.year  # "# Week of 3 July 2023" over "## Monday 3 July"
            if dated := entry_date(title, carry.year):
                carry.enter(dated)
            new_role = section_role(title)
            # A named part sets the role; a top-level heading (capitals, '#') or any heading after
            # a skipped part ends it; a plain sub-heading keeps its parent's role.
            if new_role is not None or role == "skip" or title.isupper() or line.lstrip().startswith("# "):
                role = new_role
    flush()
    return (across_page_breaks(blocks) if cased else blocks), readings
