"""Offline, rule-based facets of a conversation: decisions, action items, open questions, entities.

With an LLM the final of a conversation carries model-written facets; without one these rules
produce the same shape from cue patterns, so offline users get them too. Everything is marked
``source: "extracted"`` (and rendered under an "extracted" heading): the items are sentences
picked by patterns, not judgements.

* **decisions** - a collective subject's decision cues ("we decided", "we agreed", "we're going with",
  "the plan is"), not a proposal ("let's go with") nor a condition;
* **action items** - commitments ("I'll ...", "we need to ...", "<Name> will ...", "<Name>, can you
  ...", "TODO") with an owner (the speaker for first-person commitments, the named person
  otherwise: a speaker, or the one participant with that first or last name) and the due date when
  one is given, whole ("by Friday March 15", "tomorrow", "the end of the month", an ISO date);
* **unresolved** - questions the text calls open ("the open question is", "TBD", "still unclear");
* **entities** - file paths, code identifiers in backticks, CamelCase names, acronyms and capitalised
  names that recur away from sentence starts and are never written in lower case; **participants** -
  the speakers.

Precise or absent: the text is cleaned of disfluency markers and tokenizer spacing first, an item is a
whole sentence (a capital, a full stop, no markup, not broken off, standing on its own; in a chat the
end of a message ends its sentence), a decision says what was decided, an owner is a speaker of the
source, and each kind keeps at most :data:`MAX_ITEMS` items, the ones sharing most with the
conversation's frequent words; a kind with nothing that passes is left out.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from batchsum.action_rules import OWNER_SEP, ActionItem, action_item, name_parts, short_task
from batchsum.action_rules import owner_among as _owner_among  # written_facets reads it here
from batchsum.backends.noise import is_fragment
from batchsum.backends.phatic import is_phatic
from batchsum.backends.units import STOPWORDS
from batchsum.cleanup import SHORT_WORDS, clean_transcript
from batchsum.compact.extractors import find_paths
from batchsum.due_dates import dated_weekday
from batchsum.entity_rules import not_a_code_name, not_names
from batchsum.facet_labels import DECISION_LABEL as _DECISION_LABEL
from batchsum.facet_labels import HEDGED_DECISION, plain_label
from batchsum.facet_labels import OPEN_LABEL as _OPEN_LABEL
from batchsum.facet_participants import named_participants
from batchsum.message_ends import is_backchannel
from batchsum.readers.chat_marks import addressed, without_codes, without_emoji
from batchsum.readers.screenplay import SCENE
from batchsum.text import conversation_lines, end_message, is_chat, speakers_of, split_sentences

MAX_ITEMS = 5
MAX_ITEM_CHARS = 240
FACETS_SOURCE = "extracted"

# A decision has a collective subject ("we decided", "that's settled"); "I chose the damage" is a narration,
# and "maybe we could go with a square" a proposal.
# "Going with" names a choice ("we're going with option B", "... with Northwind"), not company: not a person
# ("with her", "with them") nor a name someone goes somewhere with ("we're going with Ana to the airport").
_CHOICE = (
    r"(?!\s+(?:me|him|us|them)\b|\s+(?:you|her)\s*(?:$|[.,;!?]|(?:to|and|tomorrow|tonight|today)\b)"
    r"|\s+(?-i:[A-Z][a-z]+(?:(?:,| and) [A-Z][a-z]+)*),?\s+to\b)"
)
_DECISION = re.compile(
    r"\b(?:we|we've|we have|we're|we are|we all|it's|that's|it is|that is|it was|the team|everyone)\s+"
    # not "we will decided together", "we're gonna be going with", "we are agreeing are agreed", "we have not agreed"
    r"(?:(?!(?:will|would|should|could|can|might|may|must|shall|to|be|is|are|was|were|gonna|not|never)\b)\w+\s+){0,2}?"
    rf"(?:decided|agreed|settled|chose|opted|approved|signed off|(?:going|went) with\b{_CHOICE})\b"
    # "the plan is to ...", "the decision was made to ...", "the plan is a three week experiment": what follows
    # says what was chosen; "the fix is verified", "the solution was simple" say a fact of it.
    r"|\b(?:the|our|final) (?:decision|plan|fix|solution|conclusion) (?:is|was)[\s,]*(?:(?:uh|um)\b[\s,]*)*"
    r"(?:(?:made|taken)\s+)?(?:to|that|for|we|they|you|an?|the|this|these|our|\d)\b"
    r"|\b(?:the|our|final) (?:decision|plan) (?:is|was):|\bresolved to\b",
    re.I,
)
# A sentence whose main clause is "let's ..." proposes: "Now that the fix is verified, let's submit our changes."
_PROPOSAL = re.compile(
    r"^(?:(?:now that|now|since|once|as|because|after|before|given that|with|so|ok(?:ay)?|well|then)\b[^,;]*,\s*)?"
    r"let(?:'s|\u2019s| us)\b",
    re.I,
)
# A decision is a clause whose subject decides, not a noun the object of another verb is said of: "I'll
# discuss the buttons we just chose" (a relative clause); "In the end we chose ..." opens with an adverbial,
# as "Last time we agreed ..." does, and in "It's a problem because we decided ..." the subject opens a clause.
_RELATIVE = re.compile(
    r"\b(?P<pre>[\w']+) (?:the|these|those|this|that|a|an|our|your|their|some|any|all|each|every) "
    r"(?P<noun>(?:[\w-]+ ){0,1}[\w-]+) (?:that |which )?$",
    re.I,
)
_ADVERBIAL = frozenset(
    "in at on by of for from after before during with since over until to into through about under and so then but"
    " because when now time day week month year meeting morning afternoon evening night".split()
)


def _not_made(sentence: str) -> bool:
    """Whether a sentence with a decision cue makes no decision: a condition ("if we go with ..."), a
    proposal (:data:`_PROPOSAL`) or a hedge ("We have decided more or less the basic structure.")."""
    return bool(_CONDITIONAL.search(sentence) or _PROPOSAL.match(sentence) or HEDGED_DECISION.search(sentence))


def _relative(before: str) -> bool:
    """Whether a decision cue whose subject follows ``before`` is a relative clause ("the buttons we chose")."""
    m = _RELATIVE.search(before)
    if m is None or m.group("pre").lower() in _ADVERBIAL:
        return False
    noun = m.group("noun").lower().removesuffix(" that").removesuffix(" which").split()  # "the letter that we ..."
    return not any(w in STOPWORDS or w in _ADVERBIAL for w in noun)


_CONDITIONAL = re.compile(r"^(?:if|when|whether|unless|once)\b|\bif we\b", re.I)
_OPEN = re.compile(
    r"\b(?:(?<!wide )open question|unresolved|still (?:unclear|unknown|open)|tbd|to be decided|"
    r"need to figure out|remains to be seen|no answer yet)\b",
    re.I,
)
# "That's the open question", "It remains to be seen": a pronoun points back at what is open, and the item
# would say nothing of it; "It's still unclear whether the buoys can take the update" says it.
_POINTS_BACK = re.compile(r"^(?:that|this|it)(?:'s|’s| is| was| remains| will| still)\b", re.I)
_SAYS_WHAT_IS_OPEN = re.compile(r"\b(?:whether|if|how|what|who|when|which|why|where)\b", re.I)
_BACKTICK = re.compile(r"`([^`\n]{2,80})`")
# A ticket or issue key ("ONB-212", "JIRA-1042") is one identifier with its number.
_CAMEL = re.compile(
    r"\b([A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+|[a-z]+(?:_[a-z0-9]+){1,}|[A-Z]{2,}-\d+|[A-Z]{2,}[a-z]*\d*)\b"
)
_NUMBER_AFTER = re.compile(r" (?:[0-9]|[A-Z]\b|[IVX]+\b)")
# A run of capitalised words, with the particles names carry between them ("Casa do Farol", "Bank of America").
# After a title's stop the run is still inside its sentence: "my guest is Dr. Lena Fischer".
_CAPNAME = re.compile(
    r"(?:(?<=[a-z,;:] )|(?<=\b(?:Dr|Mr|Ms|Mx|St)\. )|(?<=\b(?:Mrs|Sen|Rep|Gen)\. )|(?<=\bProf\. ))"
    r"([A-Z][a-z]{2,}(?: (?:(?:da|de|del|der|di|do|dos|du|la|le|of|van|von) )?[A-Z][a-z]{2,})*)\b"
)
# The capitalised word before a run that opens a sentence: "Fischer" of "Lena Fischer said ..." is the tail of
# a run whose head the sentence start hides, no name of its own.
_HEAD_BEFORE = re.compile(r"\b([A-Z][a-z]{2,}) $")
_WORD = re.compile(r"[A-Za-z][a-z]{3,}")
_STOP = frozenset(
    """
    that this with from have what when where which there their about would could should will just they them
    then than been were your into also some more very only like well here okay yeah sure maybe know think
    going want need does done make made take took said says because while after before over under again
    other each into much many really still even back first last next good great thanks thank please let's
    """.split()
)


# A call's operator is the conference service that runs it, not a party to what is said: no participant.
_SERVICE = re.compile(r"(?:conference )?(?:call )?operator", re.I)


@dataclass
class ExtractedFacets:
    """Facets picked by rules; ``source`` says so wherever they are shown."""

    participants: list[str] = field(default_factory=list)
    decisions: list[str] = field(default_factory=list)
    action_items: list[ActionItem] = field(default_factory=list)
    unresolved: list[str] = field(default_factory=list)
    entities: list[str] = field(default_factory=list)
    topics: list[str] = field(default_factory=list)
    source: str = FACETS_SOURCE
    status: str = ""  # a decision record's status, as written (written_facets)
    # who said each decision, by its text, in a conversation of people: shown as an action item's speaker is
    decided_by: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """Plain data (JSON-ready)."""
        return asdict(self)

    def is_empty(self) -> bool:
        """True when no rule found anything."""
        return not (self.decisions or self.action_items or self.unresolved or self.entities)


@dataclass
class _Sentence:
    speaker: str | None
    text: str
    turn: int


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_ITEM_CHARS else text[: MAX_ITEM_CHARS - 1].rstrip() + "…"


def _content_words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text) if w.lower() not in _STOP}


_CUT = ("}", "-", "–", "—")
# A screenplay's scene heading ("INT. DINER - NIGHT") is layout, no source of names or items: the rule
# text.conversation_lines leaves a plain one out by, here for one in emphasis too ("**INT. DINER - NIGHT**").
_EMPHASIS = re.compile(r"^[*_]+|[*_]+$")


def _without_slugs(body: str) -> str:
    """``body`` without its lines that are screenplay scene headings, plain or in emphasis."""
    lines = body.split("\n")
    kept = [ln for ln in lines if not ((bare := _EMPHASIS.sub("", ln.strip())).isupper() and SCENE.match(bare))]
    return "\n".join(kept) if len(kept) < len(lines) else body


# The readers' kinds of typed chats (batchsum.readers: "WhatsApp export", "Discord or Teams chat", "IRC log",
# a Slack or Telegram export's JSON); not a transcript's ("Otter.ai or Teams transcript", captions), whose
# turns are speech the next speaker may cut.
_TYPED = re.compile(r"\b(?:chat|export|IRC log)\b|^extension \.jsonl?$", re.I)


def typed_chat(type_reason: str) -> bool:
    """Whether a conversation read for ``type_reason`` (its reader's kind) is a typed chat, whose messages are
    sent whole: the end of each ends its sentence, whatever share of them ends with a stop."""
    return _TYPED.search(type_reason) is not None and "transcript" not in type_reason.lower()


def _sentences(turns: Sequence[tuple[str | None, str]], typed: bool = False) -> list[_Sentence]:
    out: list[_Sentence] = []
    # Code blocks and quoted tool output are not conversation; facets come from prose only.
    said = [
        re.sub(r"```.*?```|<command>.*?</command>", " ", _without_slugs(body), flags=re.S).rstrip() for _, body in turns
    ]
    done = [without_emoji(body)[1] for body in said]  # ended in emoji: done, as a chat's message is
    spans = [split_sentences(clean_transcript(without_codes(body))) for body in said]
    # A chat message seldom ends with a stop: there the end of a turn ends its sentence, which gets the stop
    # the summarizer gives a paragraph that has none (a trailing emoji dropped). Not where most turns end with
    # one (a transcript): an unended turn was broken off ("I'll send you the minutes of meet"), as is one that
    # ends on a marker or a dash ("... by {disfmarker}"). A line break inside a turn ends nothing. The same
    # rule as the summarizer's (batchsum.backends.units): text.is_chat over the turns' last sentences. A typed
    # chat (``typed``) is one whatever that share: its messages are sent whole, even where most end with a stop.
    chat = typed or is_chat(turn[-1].text for turn in spans if turn)
    for ti, (speaker, _) in enumerate(turns):
        for k, span in enumerate(spans[ti]):
            # The rules read "I’ll" (Word, Teams, macOS) as "I'll", "@Ana I'll ..." as "Ana, I'll ...".
            text, emoji_end = without_emoji(span.text.strip().replace("’", "'"))
            text = addressed(text)
            if k == len(spans[ti]) - 1 and not emoji_end and (done[ti] or (chat and not said[ti].endswith(_CUT))):
                text = end_message(text)
            if len(text.split()) >= 3:
                out.append(_Sentence(speaker, text, ti))
    return out


# A sentence's lead-in, dropped: an interjection and its comma ("So, ...", "OK, ...", "Great, I will ...",
# "Sounds good, ..."), or one without its comma where what follows is still the same sentence: "And we ...",
# "So we agreed ..." ("We agreed ..."), but never "Now that the fix is verified ..." ("That the fix ...": a
# clause of another sentence), "So far ...", "Well done ...", "Right now ..." or "Like we said ...".
_INTERJECTION = (
    r"(?:so|okay|ok|well|then|and|now|yeah|yes|yep|right|alright|all right|like|anyway|oh|um|uh|hmm|great|good|"
    r"perfect|cool|fine|sure|excellent|awesome|nice|thanks|thank you|sounds good|got it)"
)
# Thanking someone ("Thanks ben,", "Thank you Ana Silva,", "Thanks everyone,") leads in as "Thanks," does.
# After a comma only a capitalised name ("Thanks, Ben,"): "Thanks, we agreed, ..." is a lead-in and a clause.
_THANKS = (
    r"(?:thanks|thank you)(?:,? (?:everyone|everybody|all|team|guys|folks)|,? (?-i:[A-Z][a-z]+(?: [A-Z][a-z]+)?)"
    r"| (?!(?:for|to)\b)[a-z]+(?: [a-z]+)?)"
)
_LEAD_IN = re.compile(
    rf"^(?:(?:{_THANKS}|{_INTERJECTION}),\s+"
    r"|(?:and|then|yeah|yes|yep|okay|ok|alright)\s+"
    r"|so\s+(?!(?:that(?!')|far|much|many|long|few|little)\b)"
    r"|now\s+(?!(?:that(?!')|and|on)\b)"
    r"|(?:well|right)\s+(?=(?:I|I'm|I'll|we|we're|we'll|you|they|let's|it's|that's|so|and|then|okay|ok|yeah|actually)\b)"
    r")+",
    re.I,
)
_LEANS = re.compile(r"^(?:but|or|because|which|as|than|though|although)\b", re.I)
# Markup, tokenizer spacing, a cut word ("belief- "), or two sentences glued ("prescription.And").
_MARKUP = re.compile(r"[{}<>|\\]|\s[,.;:!?]|\b\w+-\s|\s-[\w\s]|#{2,}|[a-z][.!?][A-Z][a-z]")
_RESTART = re.compile(
    r"[a-z] (?:The|This|That|We|It|So|And|But|What|Well|Maybe|Actually|Yeah|Okay|If|In|Let's|You|Is|Are|Do)\b"
    # a subject said again, over a cut word at most: "I've I will", "We'll sta I'll"
    r"|\b(?i:i|we|you)(?:'ve|'m|'ll|'re|'d)? (?:(?!and\b|or\b)\w{1,3} )?(?:I|[Ww]e)(?:'ll|'ve|'m| will| have| am)\b"
    r"|^(?:I|We|You|They)(?:'ll|'ve|'m|'re|'d)? (?:I|we|you|they)\b"  # "We I think we're agreed", "I'll I should"
)
# A speaker going back over their words ("we should we should", "are we gonna are we"), or spoken filler.
_REPEATED = re.compile(
    r"\b(\w+ \w+) (?:\w+ ){0,2}\1\b|\b(\w{4,}) (?:\w+ )?\2\b|, like,|\byes or no\?$"
    r"|\b(\w+'ll|\w+ will|\w+ would) (?:\w+ ){0,3}\3\b",  # "I'll dis I'll disregard", "we will in a minute we will"
    re.I,
)
_NOT_NAMES = frozenset(
    """
    monday tuesday wednesday thursday friday saturday sunday january february march april may june july
    august september october november december ok okay yes yeah no tv am pm id uh um fyi asap eta tbd btw imo lol
    euro euros dollar dollars pound pounds
    ceo cfo coo cto cio vp hr roi kpi kpis eps gaap ebitda yoy faq api apis url urls pdf html usb lcd led dvd vcr gps
    covid utc gmt dns ttl vat ssl tls http https vpn sdk ux qa sla
    todo todos later done now doing waiting canceled cancelled eod eow
    """.split()
)


def _short_whole(text: str) -> bool:
    """Whether ``text`` is whole at three words: a labelled decision ("Decision: postpone the launch.") or a
    short task (:func:`batchsum.action_rules.short_task`); other short sentences are mostly backchannel."""
    label = _DECISION_LABEL.match(text)
    return len(text[label.end() :].split()) >= 2 if label else short_task(text)


def _whole(text: str, least: int = 5) -> str | None:
    """``text`` as a clean, whole, self-standing sentence (lead-ins like "So," dropped) of ``least`` words or
    more (three for :func:`_short_whole`), or None."""
    text = _LEAD_IN.sub("", " ".join(text.split()))
    if not text:
        return None
    text = text[0].upper() + text[1:]
    words = text.split()
    least = min(least, 3) if _short_whole(text) else least
    if not least <= len(words) <= 40 or not text[0].isalnum() or text[-1] not in ".!?" or text.endswith(".."):
        return None
    if _LEANS.match(text) or _MARKUP.search(text) or is_fragment(text) or text.count('"') % 2:
        return None
    # A word in capitals is a label ("option B") or an acronym ("the CI patch"), a lower-case one a cut-off word.
    short = (w.strip(",;:.!?") for w in words if not w.strip(",;:.!?").isupper())
    if (
        _RESTART.search(text)
        or _REPEATED.search(text)
        or any(len(w) <= 2 and w.isalpha() and w.lower() not in SHORT_WORDS for w in short)
    ):
        return None  # a speaker starting over ("This doe This is") or a cut-off word ("We s decide")
    return text


# Words that say nothing about what was decided: "Good, that's settled then.", "Thanks Ben, we all agreed."
_NOT_DECIDED = frozenset("good great fine perfect cool excellent awesome nice thanks thank then everyone guys".split())


# Agreeing to what was said ("Agreed: sounds good to me.", "Agreed: let's do that.") decides nothing of its own.
_APPRAISAL = frozenset("sounds sound works work seems seem looks look okay agree agreed".split())


def _names_a_decision(said: str, names: set[str]) -> bool:
    """Whether what follows a decision label says what was decided: no greeting or backchannel, and a word
    that is no function word, appraisal ("sounds good") or pointer back ("let's do that")."""
    if is_phatic(said) or is_backchannel(said):
        return False
    words = (w.casefold() for w in re.findall(r"[^\W\d_][\w'-]{2,}|\d+", said))
    return any(
        w not in STOPWORDS and w not in _STOP and w not in _NOT_DECIDED | _APPRAISAL and w not in names for w in words
    )


def _says_what(sentence: str, cue: re.Match[str], names: set[str]) -> bool:
    """Whether a decision says what was decided: a word beside its cue that is no function word, no
    acknowledgement and none of ``names`` (the speakers' personal names). "Thanks Ben, that's settled then."
    names nothing."""
    rest = sentence[: cue.start()] + " " + sentence[cue.end() :]
    words = (w.casefold() for w in re.findall(r"[^\W\d_][\w'-]{2,}|\d+", rest))
    return any(w not in STOPWORDS and w not in _STOP and w not in _NOT_DECIDED and w not in names for w in words)


def _topic_score(text: str, topics: dict[str, int]) -> float:
    """How much a sentence shares with the conversation's frequent content words."""
    words = _content_words(text)
    return sum(topics.get(w, 0) for w in words) / (1.0 + len(words)) ** 0.5


def _best(items: list[Any], key: Any, topics: dict[str, int], n: int) -> list[Any]:
    """The ``n`` items that share most with the conversation's topics, in source order."""
    ranked = sorted(range(len(items)), key=lambda i: (-_topic_score(key(items[i]), topics), i))[:n]
    return [items[i] for i in sorted(ranked)]


def turns_from_text(text: str) -> list[tuple[str | None, str]]:
    """The conversation's lines (:func:`~batchsum.text.conversation_lines`) as (speaker, text) turns;
    an unlabelled line continues the previous turn."""
    turns: list[tuple[str | None, list[str]]] = []  # lines joined once at the end: linear in the text
    for speaker, body in conversation_lines(text):
        if speaker is None and turns:
            turns[-1][1].append(body)
        else:
            turns.append((speaker, [body]))
    return [(speaker, "\n".join(lines)) for speaker, lines in turns]


def _entities(
    sentences: Sequence[_Sentence],
    raw: str,
    extra: Sequence[str],
    speakers: set[str],
    max_names: int,
    participants: Sequence[str] = (),
) -> list[str]:
    """Known entities, paths and code identifiers (all of them: a compaction record must keep every file
    it touched), then the ``max_names`` names that occur most often.

    A name is a CamelCase or snake_case identifier, an acronym that is not part of a shouted run, or
    a capitalised word (or run of them) seen at least twice away from a sentence start and never
    written in lower case in the text ("Source", "View" and "Hold" are words, "Porto" is a name).
    Speakers are participants, not entities; ``speakers`` holds their names and name parts, in lower case.
    Nor is a unit, a role title, an interjection or a demonym adjective (:func:`~batchsum.entity_rules.not_names`).
    """
    found: list[str] = []

    def add(item: str) -> None:
        item = item.strip().strip(".,;:")
        if item and item not in found:
            found.append(item)

    for item in extra:
        add(item)
    prose = " ".join(s.text for s in sentences)
    for path in find_paths(prose):
        if "/" in path or re.fullmatch(r"[\w-]{2,}\.[A-Za-z0-9]{1,6}", path):  # not "a.m" or "p.m"
            add(path)
    for m in _BACKTICK.finditer(raw):
        span = m.group(1)
        if span != span.strip() or span[0] in ",;:.)":
            continue  # the prose between two code spans, where a stray backtick put them out of step
        if len(span) >= 3 and not span.startswith("-") and not span.replace(".", "").isdigit():
            add(span)
    lower = set(re.findall(r"\b[a-z][a-z']*\b", prose))
    personal = {w for w in speakers if " " not in w and w not in lower}  # "lena", not "marketing"
    counts: Counter[str] = Counter()
    numbered: set[str] = set()  # "SCENE 1", "ACT II": a label of a part of the text, as "Slide 4" is below
    for m in _CAMEL.finditer(prose):
        word = m.group(1)
        # "COVID-19" is a word with its number, not a ticket's key: its word is the one looked up
        if word.lower().split("-")[0] in _NOT_NAMES or any(word in item for item in found):
            continue  # "TimeDelta" of "TimeDelta._serialize" is already there
        if not_a_code_name(prose, m):
            continue  # "FY24", "JPY3" of "JPY3.6 billion"
        if re.fullmatch(r"[A-Z]{2,}s", word):
            continue  # a plural ("IDs", "PDFs") is a common noun, not a name
        if word.isupper():
            if word.lower() in lower:
                continue  # "NOT", "ISSUE": a word also written in lower case is a word in capitals
            if word.casefold() in personal:
                continue  # "ROSA wipes the counter": a speaker's name in capitals is a participant
            if _NUMBER_AFTER.match(prose, m.end()):
                numbered.add(word)
                continue
            # An all-caps word inside a run of all-caps words is shouting, not a name.
            # A window, not the whole prefix: splitting all of the text before every match was quadratic.
            before = prose[max(0, m.start() - 120) : m.start()].split()[-1:] or [""]
            after = prose[m.end() : m.end() + 120].split()[:1] or [""]
            if len(word) < 3 or any(w.strip(".,:;!?'\"").isupper() and len(w) > 1 for w in before + after):
                continue
            if re.fullmatch(r"[B-HJ-Z]", before[0]):
                continue  # "PEG" of "J PEG": the tail of a word the transcriber split after its first letter
        counts[word] += 2  # an identifier or acronym is a name the first time it is seen
    for word in numbered:
        del counts[word]
    # A capitalised word before a number or a letter labels a part of the text ("Slide 4", "Page 12",
    # "Series G").
    runs = list(_CAPNAME.finditer(prose))
    whole = {m.group(1) for m in runs}
    capitalised = [m for m in runs if not _run_tail(prose, m, whole, speakers)]
    labels = {m.group(1) for m in capitalised if _NUMBER_AFTER.match(prose, m.end())}
    labels |= not_names(prose, capitalised, participants)  # "three Francs", "our Marketing Expert", "Oh my God"
    for name, n in Counter(m.group(1) for m in capitalised).items():
        words = name.lower().split()
        # A word also written in lower case is a word ("Source", "View"); a run of several is a name when
        # one of its words never is ("Live Nation" beside "live"), not when all are ("Prime Minister").
        common = all(w in lower for w in words) or " ".join(words) in prose
        # A function word is never a name, even one a transcript capitalised mid-sentence ("How Shall we"),
        # nor is a run that opens with one ("Capital One" may end with one).
        function_word = any(
            w in _STOP or w in STOPWORDS or w in _NOT_NAMES for w in words[: 1 if len(words) > 1 else None]
        )
        # "Lena Fischer" where Lena speaks is a participant, whole: her name parts leave no "Fischer" behind.
        speaker = name.casefold() in speakers or words[0] in personal or words[-1] in personal
        if n >= 2 and not speaker and name not in labels and not common and not function_word:
            counts[name] += n
    names: list[str] = []
    for name, _ in sorted(counts.items(), key=lambda kv: (-kv[1], prose.find(kv[0]))):
        if not any(name[:5] == other[:5] for other in names):  # "Canadians" after "Canada"
            names.append(name)
    for name in names[:max_names]:
        add(name)
    return found


def _run_tail(prose: str, m: re.Match[str], whole: set[str], speakers: set[str]) -> bool:
    """Whether the capitalised run ``m`` continues one the sentence opens ("Fischer" of "Lena Fischer
    said"): the word before it is capitalised, and the two are one name elsewhere (``whole``, the runs seen
    away from a sentence start: "Dr. Lena Fischer") or that word is a speaker's name part (``speakers``).
    A sentence's first word alone makes no name of it ("Yesterday Angela Merkel met", "In Japan")."""
    head = _HEAD_BEFORE.search(prose, max(0, m.start() - 40), m.start())
    if head is None:
        return False
    word = head.group(1)
    if word.lower() in STOPWORDS or word.lower() in _STOP:
        return False
    return f"{word} {m.group(1)}" in whole or word.lower() in speakers


# An agent session's last turn running its submit or exit command ("submit", "`submit`", SWE-agent's
# "exit_cost"), or saying it does where the command is a function call ("Now that the fix is verified, let's
# submit our changes.", "Will try to submit it now.").
_SESSION_END = re.compile(
    r"(?m)^\s*(?:submit|exit(?:_\w+)?)\b|`(?:submit|exit(?:_\w+)?)\b[^`\n]*`"
    r"|(?i:\b(?:let's|let us|i'll|i will|we'll|we will|will|calling)\s+(?:now\s+|try\s+to\s+|proceed\s+to\s+)?"
    r"(?:submit|exit)\b)"
)


def _ended(turns: Sequence[tuple[str | None, str]]) -> bool:
    """Whether an agent session ended by submitting or exiting: every step its agent narrated was taken
    ("The fix should work and I will now submit."), none is left open."""
    return bool(turns) and _SESSION_END.search(turns[-1][1]) is not None


def _topic_counts(sentences: Sequence[_Sentence]) -> dict[str, int]:
    """Content words said in at least three sentences, with their sentence counts."""
    counts: Counter[str] = Counter()
    for s in sentences:
        counts.update(_content_words(s.text))
    return {w: c for w, c in counts.items() if c >= 3}


def _topics(sentences: Sequence[_Sentence], n: int = 5) -> list[str]:
    """The ``n`` words said in most sentences (at least two), ties in the order they are first said."""
    counts: Counter[str] = Counter()
    first: dict[str, tuple[int, str]] = {}
    for i, s in enumerate(sentences):
        # sorted: a set's order changes from one process to the next, and ties would with it
        for w in sorted(w for w in _content_words(s.text) if len(w) > 4):
            counts[w] += 1
            first.setdefault(w, (i, w))
    ranked = sorted(counts, key=lambda w: (-counts[w], first[w]))
    return [w for w in ranked[:n] if counts[w] >= 2]


def extract_facets(
    turns: Sequence[tuple[str | None, str]] | str,
    *,
    entities: Sequence[str] = (),
    max_items: int = MAX_ITEMS,
    agent: bool = False,
    typed: bool = False,
) -> ExtractedFacets:
    """Rule-based facets of a conversation given as (speaker, text) turns or ``Speaker: text`` lines.

    ``entities`` are known entities (file paths, commands) put first. ``agent``: the conversation
    is an agent session, whose "Let's ...", "I'll ..." lines narrate steps taken as they are said: only
    the last three are kept as still open, and none once the session ends by submitting or exiting
    (:func:`_ended`). ``typed``: the conversation is a typed chat (:func:`typed_chat`), whose every message
    ends its sentence. Deterministic; no network.
    """
    if isinstance(turns, str):
        raw = turns
        turns = turns_from_text(turns)
    else:
        raw = "\n".join(body for _, body in turns)
    sentences = _sentences(turns, typed)
    participants: list[str] = []
    for speaker, _ in turns:
        for name in speakers_of(speaker) if speaker else ():  # "TRAVIS, LAURA" is two participants
            if name not in participants:
                participants.append(name)
    # A first or last name of a speaker ("Ben" of "Ben Okafor") is neither what was decided nor an entity.
    spoken = {w for p in participants for w in (p.casefold(), *name_parts(p))}
    participants = [p for p in participants if not _SERVICE.fullmatch(p)]
    # Of those, the ones that are personal names say nothing about what was decided ("Thanks Ben, that's
    # settled"); a role label's words are words ("Marketing", "User Interface": "we decided on a rubber user
    # interface"). A name is never written in lower case in the text, as entities tell names from words.
    lower = set(re.findall(r"\b[a-z][a-z'’-]*\b", raw))
    personal = {w for w in spoken if " " not in w and w not in lower}
    decisions: list[str] = []
    decided_by: dict[str, str] = {}  # an agent's speakers are roles ("assistant"), no one who decides
    actions: list[ActionItem] = []
    narrated: list[bool] = []  # the speaker's own step ("Let's ...", "I'll ..."), no one else's task
    unresolved: list[str] = []
    for s in sentences:
        whole = _whole(plain_label(s.text))  # "**Decision:** ...", "Decision - ..." are "Decision: ..."
        if whole is None or is_phatic(whole):
            continue  # a greeting or handing the floor on ("I will now hand over to Karen Liu.") says nothing
        label = _DECISION_LABEL.match(whole)
        if label:  # what follows the label, a sentence of its own
            said = _whole(whole[label.end() :], least=3)  # the label says it is one
            made = said is not None and not said.endswith("?") and not HEDGED_DECISION.search(said)
            if made and said and _names_a_decision(said, personal) and _clip(said) not in decisions:
                decisions.append(_clip(said))
                decided_by.update({_clip(said): s.speaker} if s.speaker and not agent else {})
            continue
        cue = _DECISION.search(whole)
        if cue and not _relative(whole[: cue.start()]) and not whole.endswith("?") and not _not_made(whole):
            if _says_what(whole, cue, personal) and _clip(whole) not in decisions:
                decisions.append(_clip(whole))
                decided_by.update({_clip(whole): s.speaker} if s.speaker and not agent else {})
            continue
        item = action_item(whole, s.speaker, participants, agent)
        if item is not None:
            item.task = _clip(item.task)
        # "Dev, can you ..." where Dev Patel speaks; "Or, can you ...": an owner speaks in the source. One who
        # does not ("Kubernetes will be upgraded") makes no task, and the sentence may still be an open question.
        unknown = item is not None and item.owner is not None and not set(speakers_of(item.owner)) <= set(participants)
        if item is not None and item.owner is not None and unknown:
            item.owner = _owner_among(item.owner, participants)
        if item is not None and not (unknown and item.owner is None):
            if item.owner is not None and s.speaker and item.owner not in speakers_of(s.speaker):
                item.said_by = s.speaker  # "Priya, can you ...?" is Maya's question, not Priya's words
            if all(a.task != item.task for a in actions):
                actions.append(item)
                narrated.append(item.owner is None or item.owner == s.speaker)
            continue
        # Only a question the text calls open. A question nobody seems to answer was one too, until
        # hand-labelled meetings showed 4 of 34 such to be open: most are about the room ("Can we go to
        # the next slide?"), rhetorical, or answered in other words.
        cue = _OPEN.search(whole)
        if cue and _POINTS_BACK.match(whole) and not _SAYS_WHAT_IS_OPEN.search(whole, cue.end()):
            continue
        if cue and (label := _OPEN_LABEL.match(whole)):  # "Open question: do we offer ...?" asks what follows
            whole = _whole(whole[label.end() :]) or whole
        if cue and _clip(whole) not in unresolved:
            unresolved.append(_clip(whole))
    if agent:
        steps = [a for a, n in zip(actions, narrated, strict=True) if n]
        open_steps = [] if _ended(turns) else steps[-3:]
        actions = [a for a, n in zip(actions, narrated, strict=True) if not n] + open_steps
    topics = _topic_counts(sentences)
    decisions = _best(decisions, str, topics, max_items)
    return ExtractedFacets(
        participants=named_participants(participants),
        decisions=decisions,
        decided_by={d: decided_by[d] for d in decisions if d in decided_by},
        action_items=_best(actions, lambda a: a.task, topics, max_items),
        unresolved=_best(unresolved, str, topics, max_items),
        entities=_entities(sentences, raw, entities, spoken, max_items, participants),
        topics=_topics(sentences),
    )


def _action_line(a: ActionItem) -> str:
    """An action item as a list item: "Owner: task", the way a speaker's words are shown, when the owner said
    it or no one did; someone else's sentence keeps its speaker, the owner after it ("Maya Chen: Priya, can
    you call the vendor? (owner: Priya Shah, due: Friday)")."""
    if a.said_by:
        several = a.owner is not None and OWNER_SEP.search(a.owner) is not None
        # Several owners are a list of their own: "(owners: Ben Okafor, Priya Raman; due: Friday)".
        notes = [f"owner{'s' if several else ''}: {a.owner}", *([f"due: {a.due}"] if a.due else [])]
        return f"{a.said_by}: {a.task} ({('; ' if several else ', ').join(notes)})"
    return (f"{a.owner}: " if a.owner else "") + a.task + (f" (due: {a.due})" if a.due else "")


def decision_line(decision: str, facets: ExtractedFacets) -> str:
    """A decision as a list item: "Name: decision" when the facets know who said it, as an action item is."""
    who = facets.decided_by.get(decision)
    return f"{who}: {decision}" if who else decision


def date_dues(facets: ExtractedFacets, day: str | None) -> None:
    """Give each weekday an action item is due on its date, the first such day on or after ``day`` (the ISO
    date the whole file was written: its name's, its front matter's): "Thursday 2024-03-14"
    (:func:`~batchsum.due_dates.dated_weekday`). Without ``day`` the dues stay as said."""
    for a in facets.action_items:
        if a.due:
            a.due = dated_weekday(a.due, day)


def render_facets_markdown(facets: ExtractedFacets, heading: str = "## Facets (extracted)") -> str:
    """The facets as a Markdown section; empty lists are left out."""
    lines = [heading, "", f"_Picked by rules from the text ({facets.source}), not written by a model._", ""]

    def section(title: str, items: Sequence[str]) -> None:
        if items:
            lines.append(f"**{title}**")
            lines.append("")
            lines.extend(f"- {item}" for item in items)
            lines.append("")

    section("Decisions", [decision_line(d, facets) for d in facets.decisions])
    if facets.status:  # whether the decisions stand: "Proposed", "Superseded by ADR 9"
        lines += [f"**Status:** {facets.status}", ""]
    section("Action items", [_action_line(a) for a in facets.action_items])
    section("Open questions", facets.unresolved)
    if facets.entities:
        lines.append("**Entities:** " + ", ".join(f"`{e}`" if "/" in e or "." in e else e for e in facets.entities))
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def facets_front_matter(facets: ExtractedFacets) -> dict[str, Any]:
    """Front-matter keys for a summary file (YAML-ready plain data)."""
    out: dict[str, Any] = {"facets_source": facets.source}
    if facets.decisions:  # one someone said as the action items' shape: its text and who said it
        who = facets.decided_by
        out["decisions"] = [{"text": d, "said_by": who[d]} if d in who else d for d in facets.decisions]
    if facets.status:
        out["decision_status"] = facets.status
    if facets.action_items:
        out["action_items"] = [{k: v for k, v in asdict(a).items() if v} for a in facets.action_items]
    if facets.unresolved:
        out["unresolved"] = list(facets.unresolved)
    if facets.entities:
        out["entities"] = list(facets.entities)
    if facets.participants:
        out["participants"] = list(facets.participants)
    return out
