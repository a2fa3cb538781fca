"""Self-repairs in transcribed speech, read as disfluency annotation reads them: a reparandum (what the
speaker abandons), an interruption point (QMSum's ``{disfmarker}``) and a repair (what they say instead).

* a repair that retraces ("what I'm {disfmarker} what my job is", "the {disfmarker} the true issues"), or
  says its subject again ("We've got {disfmarker} we're planning"), replaces the reparandum from its first
  word on;
* a restart ("So, I guess, um {disfmarker} Is there ...", "but {disfmarker} This is ...", any capitalised
  word that is no name: "now is {disfmarker} Next meeting is ...", or a lower-case subject and verb in one
  word after a hanging word that takes no clause: "controls for {disfmarker} let's make that go away", or a
  command after any but a coordinating conjunction: "This is {disfmarker} let me just skip ahead")
  begins a new sentence: a short false start before it goes, a longer one stays as speech that trailed
  off ("…", never a summary's sentence);
* any other interruption drops the words left hanging before it (an article, a preposition, a
  conjunction: "to a {disfmarker} in XML"); when none hang, the words run on as they were said.

A transcriber capitalises a restart even with no marker ("is It looks like", "because That's"): in a
tokenized transcript a capitalised function word right after a lower-case word is one too.
"""

from __future__ import annotations

import re

__all__ = ["INTERRUPTION", "is_dangling", "mark_restarts", "names", "resolve_interruptions"]

INTERRUPTION = "\ue000"  # a private-use character: where a {disfmarker} stood, until resolved
# Where an abandoned start begins: after a sentence's end, or a label's colon ("Grad E: So {...} Is").
_SENTENCE_END = re.compile(r"[.!?:](?:[\"')\]]*)(?:[ \t]+|$)")
_WORD = re.compile(r"[A-Za-z0-9][\w'’-]*")
_FIRST_WORD = re.compile(r"[A-Za-z][\w'’-]*")
# Words that cannot end a phrase: left before an interruption they belong to the abandoned start.
_DANGLING = frozenset(
    """
    a an the and or but nor so because if than that whether while which who
    of to in on at for with from by about into as
    my your our their his her its
    i we they he she i'm we're we'll we've they're they'll it's that's there's i'll i've i'd he's she's he'd we'd
    is are was were am will would can could should shall might must
    """.split()
)
# Function words a restart opens with (pronouns, determiners, conjunctions, auxiliaries, discourse
# words): closed classes, so a capitalised one inside a sentence is not a name or a title.
_RESTART_WORDS = (
    "It|That|This|These|Those|There|They|We|He|She|You|What|Which|Who|How|Why|When|Where|If|Is|Are|Was|Were|"
    "Do|Does|Did|Can|Could|Would|Should|And|But|So|Or|Because|Then|Now|Well|Yeah|Yes|OK|Okay|Anyway|"
    "Actually|The|Let|Maybe|Oh"
)
_RESTART = re.compile(rf"(?:{_RESTART_WORDS})(?:['’]\w+)?$")
# No marker: a capitalised function word straight after a lower-case word, or its comma ("is It
# looks", "and Yeah", "And then, The processing").
_UNMARKED_RESTART = re.compile(rf"(?<=[a-z])([ \t]*,)?[ \t]+(?=(?:{_RESTART_WORDS})(?:['’]\w+)?(?![\w'’-]))")
_PRONOUN_I = re.compile(r"I(?:['’]\w+)?$")
# A subject and its verb in one word ("let's", "that's", "we're"): a clause of its own, which a hanging
# preposition, article, pronoun or auxiliary cannot take ("sell them for {disfmarker} let's make that go
# away"), though a conjunction can ("because {disfmarker} it's").
_CLAUSE_OPENER = re.compile(r"(?:i|we|you|they|he|she|it|that|this|there|here|what|let)['’](?:s|re|m|ve|ll|d)$")
_CLAUSE_TAKERS = frozenset(
    "and or but nor so because if than that whether while which who is was are were be been am".split()
)
# A command to the listeners ("let me just skip ahead", "let us", "let's"): after any word left hanging
# ("This is {disfmarker} let me", "the main point of the {disfmarker} let me") the start before it was
# abandoned, as no copula, subordinator, preposition or article goes on with a bare verb; a coordinating
# conjunction takes it ("and let's go"), and a "to", a modal or a subject takes "let me" as its verb.
_IMPERATIVE = re.compile(r"let(?:['’]s|[ \t]+(?:me|us))(?![\w'’-])", re.IGNORECASE)
_COORDINATORS = frozenset("and or but nor so".split())
# "let me", "let us" without a clitic is also a bare verb, which the infinitive's "to" and a modal take:
# "I asked him to {disfmarker} let us use the room" goes on as said, "to" and all.
_BARE_COMMAND = re.compile(r"let[ \t]+(?:me|us)(?![\w'’-])", re.IGNORECASE)
_VERB_TAKERS = frozenset("to will would can could should shall might must may".split())
# A subject takes it as its verb too: "Yesterday she {disfmarker} let me borrow the car" is a report.
_SUBJECTS = frozenset("i you he she it we they".split())
# A capitalised word straight after a lower-case one: in a transcript, whose restarts are marked (and its
# function words' capitals read as restarts, _RESTART_WORDS), a name ("ask Jane", "in Excel").
_MID_CAPITAL = re.compile(r"(?<=[a-z,] )[A-Z][\w'’-]*")
_CLITIC = re.compile(r"['’]\w+$")
_LOWER_WORD = re.compile(r"(?<![\w'’-])[a-z][a-z'’-]*")
_CAPITAL_WORD = re.compile(r"(?<![\w'’-])[A-Z][a-z'’-]+")
_RETRACE_REACH = 8  # words back a repair may retrace to: a reparandum is a few words
_FALSE_START = 4  # at most this many words left of an abandoned start: it goes whole


def mark_restarts(text: str) -> str:
    """``text`` (a tokenized transcript) with an interruption marked before each capitalised restart."""
    return _UNMARKED_RESTART.sub(rf"\1 {INTERRUPTION} ", text)


def names(text: str) -> frozenset[str]:
    """The names a transcript ``text`` writes: a capitalised word inside a sentence, after a lower-case word
    ("ask Jane"; not "I", nor a function word a restart opens with), and a capitalised word it never writes
    in lower case ("ask {disfmarker} Priyanka about"; "now is {disfmarker} Next meeting" restarts, "next"
    being said elsewhere). No capital straight after an interruption mark is read as a name."""
    found = {m.group(0) for m in _MID_CAPITAL.finditer(text.replace(INTERRUPTION, "."))}
    said = set(_LOWER_WORD.findall(text))
    never_lower = {w for w in _CAPITAL_WORD.findall(text) if w.lower() not in said}
    return frozenset(w for w in found if not _RESTART.match(w) and not _PRONOUN_I.match(w)) | never_lower


def resolve_interruptions(line: str, names: frozenset[str] = frozenset()) -> str:
    """``line`` with every interruption mark resolved into its repair (see the module's docstring);
    ``names``: the transcript's names (:func:`names`), whose capital after a mark is no restart."""
    while INTERRUPTION in line:
        at = line.index(INTERRUPTION)
        line = _repaired(line[:at].rstrip(), line[at + 1 :].lstrip(), names)
    return line


def _opens_sentence(word: str, names: frozenset[str]) -> bool:
    """Whether a capitalised ``word`` after an interruption starts a new sentence: it is no name (one the
    transcript writes so inside a sentence, or an acronym's or a brand's inner capital: "OGI", "FrameNet")."""
    return word[0].isupper() and word not in names and not any(c.isupper() for c in word[1:])


def _stem(word: str) -> str:
    """A word without its clitic ("we've" -> "we"): a repair that repeats the subject retraces it."""
    return _CLITIC.sub("", word.lower())


def _repaired(before: str, after: str, names: frozenset[str]) -> str:
    """The text around one interruption point once the repair replaces what it repairs."""
    ends = list(_SENTENCE_END.finditer(before))
    start = ends[-1].end() if ends else 0
    head, clause = before[:start], before[start:]
    nxt = _FIRST_WORD.match(after)
    if not clause or nxt is None:  # nothing abandoned, or nothing said after
        return f"{before} {after}".strip() if after[:1].isalnum() or not after else before + after
    kept = _without_dangling(clause)
    if _RESTART.match(nxt.group(0)):  # a capital marks a restart: what it abandons is the clause so far
        return _restarted(head, kept, after)
    onset = _stem(nxt.group(0))
    for w in reversed(list(_WORD.finditer(clause))[-_RETRACE_REACH:]):
        # The repair retraces the reparandum from this word, or from its subject said again ("We've got
        # {disfmarker} we're planning").
        if _stem(w.group(0)) == onset:
            first = clause[w.start()]
            repair = (first.upper() if first.isupper() else first.lower()) + after[1:]
            return head + clause[: w.start()] + repair
    # "I" has a capital anyway: a restart unless it retraces ("I {...} I"); so does any other capitalised
    # word that is no name ("now is {disfmarker} Next meeting is in half an hour").
    if _PRONOUN_I.match(nxt.group(0)) or _opens_sentence(nxt.group(0), names):
        return _restarted(head, kept, after)
    if _BARE_COMMAND.match(after) and _last_word(clause) in _VERB_TAKERS | _SUBJECTS:
        return f"{before} {after}"  # "to {disfmarker} let us use": the repair is the phrase's verb
    if kept != clause.rstrip(" \t,;:") and _takes_no_clause(clause, after):
        # A new sentence, as a capitalised restart is: an abandoned start that trails off ends its own.
        return _restarted(head, kept, after[0].upper() + after[1:])
    if kept != clause.rstrip(" \t,;:"):  # the words left hanging went; the repair continues the phrase
        return f"{head}{kept}{_kept_mark(clause, kept)} {after}".replace("  ", " ").strip()
    return f"{before} {after}"  # nothing to tell what it repairs: the words run on, as said


def is_dangling(word: str) -> bool:
    """Whether ``word`` cannot end a phrase (an article, a preposition, a conjunction, a modal, a subject)."""
    return word.lower().replace("’", "'") in _DANGLING


def _restarted(head: str, kept: str, after: str) -> str:
    """A restart after the abandoned ``kept``: a short false start goes, a longer one trails off."""
    if len(_WORD.findall(kept)) <= _FALSE_START:
        return head + after
    return f"{head}{kept}… {after}"  # the cleaner's own mark: no transcript's punctuation (CRD3's "...")


def _takes_no_clause(clause: str, after: str) -> bool:
    """Whether ``after`` opens a clause the last word of ``clause``, one left hanging, cannot take."""
    last = _last_word(clause)
    if _IMPERATIVE.match(after):  # "to"/a modal before "let me" never gets here: it takes it as its verb
        return last not in _COORDINATORS
    onset = _FIRST_WORD.match(after)
    return onset is not None and bool(_CLAUSE_OPENER.match(onset.group(0))) and last not in _CLAUSE_TAKERS


def _last_word(clause: str) -> str:
    """The last word of ``clause``, lower case ("" if it has none)."""
    words = _WORD.findall(clause)
    return words[-1].lower() if words else ""


def _kept_mark(clause: str, kept: str) -> str:
    """The comma or semicolon that followed ``kept`` in ``clause``, if any (it still separates)."""
    rest = clause[len(kept) :].lstrip(" \t")
    return rest[0] if rest[:1] in (",", ";") else ""


def _without_dangling(clause: str) -> str:
    """``clause`` without the words at its end that cannot end a phrase, nor the marks after them."""
    kept = clause.rstrip(" \t,;:")
    while True:
        words = list(_WORD.finditer(kept))
        if not words or not is_dangling(words[-1].group(0)):
            return kept
        kept = kept[: words[-1].start()].rstrip(" \t,;:")
