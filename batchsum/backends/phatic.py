"""Talk that keeps a conversation going but says nothing of its matter: greetings, thanks, farewells and a
host's introductions ("Welcome back to Harbor Talk, I am your host Maya.", "Thanks for having me, Lena."),
a call's logistics ("All lines are in listen-only mode.", "Our next question comes from Tom Lee with
Citi. Please go ahead.") and a recorded meeting's: the talk that manages the recording itself, its microphones,
its screen and the digits read for its corpus ("Is my mic on?", "You're muted.", "We're recording now.", "Okay,
we should read our digits.", "Transcript L dash two one five."), and its start ("I think everyone's here.").

Malinowski (1923, "The Problem of Meaning in Primitive Languages") called the first *phatic communion*,
speech whose purpose is the contact itself (Laver 1975, "Communicative functions of phatic communion"); an
operator handing the floor on is its working form. A summary reports what was said, not that someone was
greeted or given the floor. A sentence is phatic when, its formulae, names and the words of the occasion
taken away, no word is left: "Welcome back to the show, today we talk about sediment." is not.
"""

from __future__ import annotations

import re

from batchsum.text import BACKCHANNELS

__all__ = ["is_phatic"]

# The kit a meeting is recorded with and heard through.
_KIT = r"(?:wireless |close[- ]talking |lapel )?(?:mic|mike|microphone|headset|camera|video)s?"
# How a speaker proposes an act of the meeting's own ("let's", "we should", "I'll go ahead and").
_PROPOSED = (
    r"(?:(?:(?:i|we|you)(?: all| guys)? (?:should|need to|have to|can|could|will|wanna|want to|gonna) |let's |let us "
    r"|let me |(?:i|we|you)'ll |(?:we|you)'re (?:gonna|going to) )?(?:(?:just )?go ahead and )?)"
)
_ON_KIT = (
    rf"(?:is|are) (?:my|your|the|this|our) {_KIT} (?:on|off|working)"
    rf"|(?:turn|switch|put|clip|plug|leave)(?:ed|ing|s)? (?:on |off |in )?(?:my|your|the|this|that|our|their|his|her) "
    rf"{_KIT}(?: (?:on|off|in|back on))?"
)
_RECORDING = (
    # A bare "on" only ends the sentence ("Is it on?"): "Is this on Windows?" asks about something else.
    r"(?:we're|we are|are we|is it|it's|it is|is this) (?:now |still |already )?(?:recording|being recorded|on(?=\W*$))"
    r"|(?:start|stop|pause|begin)(?:ed|ing|s)? (?:the |our )?recording"
)
_SCREEN = r"(?:share|sharing|stop sharing) (?:my|your|the) screen"
_DIGITS = (
    r"(?:read|reading|do|doing|start with|starting with)(?: the| our| your| some| my)? digits?(?: strings?| forms?)?"
)
_HEARD = r"can (?:you|everyone|everybody|people)(?: all)? (?:hear|see) (?:me|us|my screen|the screen)"
# A sound check: counting into the kit ("Channel B, one two three four five.", "Testing, one, two, three.").
_SOUND_CHECK = r"(?:testing,? )?one,? two,? three(?:,? four)?(?:,? five)?"
_MUTED = (
    r"(?:i'm|i am|you're|you are|we're|we are|he's|she's|they're) (?:still )?(?:on mute|muted)|(?:un)?mute yourself"
)
# The number of the sheet a speaker reads digits from, read out before them ("Transcript L dash two one five.").
_TRANSCRIPT_ID = (
    r"transcript(?: number)?(?: (?:[a-z]|dash|\d+|zero|oh|one|two|three|four|five|six|seven|eight|nine))+(?=\W*$)"
)
_FORMULAE = re.compile(
    r"\b(?:"
    # greetings, welcomes and farewells
    r"good (?:morning|afternoon|evening|day|night)|hello|hi|hey|welcome(?: back)?(?: to)?|greetings"
    r"|(?:good)?bye|see you(?: (?:next time|next week|soon|then|all))?|talk (?:to you )?soon|take care(?! of)"
    r"|have a (?:good|great|nice|wonderful) (?:one|day|evening|weekend|week)|until next time|cheers"
    # thanks and the host's courtesies
    r"|thank(?:s| you)(?: (?:so|very) much)?(?: (?:for|to) (?:having|joining|coming|listening|watching|being"
    r"|taking|making|calling|reaching|contacting|waiting|holding|talking|meeting|sitting|your|the|all|everyone"
    r"|everybody)\w*)?|(?:it's |it is )?(?:my )?pleasure|my name is|(?:how|what) (?:can|may) i (?:help|do for)"
    r"|(?:(?:it's|it is|i'm|i am|we're|we are) )?(?:so |really |very )?(?:great|good|nice|glad|happy|"
    r"excited|thrilled|lovely) to (?:be (?:here|back|with you)|have you(?: here| on| back)?|see you|talk)"
    r"|(?:i'm|i am) your host|(?:joining|with) (?:me|us) (?:today|now|here)"
    r"|how are you(?: doing)?(?: today)?|i'm (?:good|fine|well|great)(?! (?:at|with|for|to|on|about|in)\b)"
    # a call's logistics
    r"|ladies and gentlemen|(?:our|the|your) (?:next|first|last|final) question (?:comes|is) from"
    r"|please go ahead|(?:your|the) line is (?:now )?open|(?:we have )?no (?:further|more) questions"
    r"|(?:all )?(?:participants|lines|callers) (?:are|have been) (?:placed )?(?:in|on)(?: a)? listen[- ]only mode"
    r"|(?:this|today's|the) (?:call|conference|event|webcast) is being recorded|operator instructions"
    r"|(?:i would|i'd|i will|i'll) (?:now )?(?:like to )?(?:turn|hand|pass) (?:the (?:call|conference|floor|line)"
    r"|it|things)(?: back)? (?:over )?to|(?:this|that) concludes (?:our|the|today's|this) [\w-]+(?: [\w-]+)?"
    r"|you may (?:now )?disconnect|for standing by|at this time"
    # a meeting's start: who is there, the clock, the order of speaking ("Okay, it's two minutes past, I think
    # everyone's here.", "Luis, you asked to go first.")
    r"|(?:i think |looks like |it looks like )?(?:everyone|everybody|we)(?:'s| is|'re| are) (?:all )?(?:here|in|set)"
    r"|it's (?:(?:a|one|two|three|four|five|ten|\d+) )?(?:minutes? )?(?:past|after)(?: the hour)?"
    r"|(?:let's|let us|shall we) (?:get )?(?:started|start|begin)|(?:asked|wanted|want|like) to go first"
    # a recorded meeting's logistics: the act of talking into the kit and of recording, not what is said
    rf"|{_PROPOSED}(?:{_ON_KIT}|{_RECORDING}|{_SCREEN}|{_DIGITS})|{_HEARD}|{_MUTED}|{_TRANSCRIPT_ID}|{_SOUND_CHECK}"
    r")\b",
    re.IGNORECASE,
)
# The words of the occasion: what a greeting or a call's logistics is said about, not what was said.
_OCCASION = frozenset(
    """
    a an the and or to of for with on in at this that our my your me us we i you it its it's is are be
    again back here today now all everyone everybody folks guys again also once very so much really
    show episode podcast program programme call conference webcast meeting session line question questions
    earnings quarter quarterly first second third fourth fiscal year results time out support service
    desk team help center centre customer you today
    mic mike mics mikes microphone microphones headset camera video screen digits digit transcript recording
    channel testing test ok okay yeah yes
    """.split()
)
_WORD = re.compile(r"[^\W\d_][\w'’.-]*")
# "next" is the occasion's only in "our next question": "next meeting is Tuesday" says something.
_NEXT_QUESTION = re.compile(r"\bnext\s+(?=questions?\b)", re.IGNORECASE)
# The small words a headline's Title Case leaves in lower case.
_SMALL = frozenset("a an the and or nor but of to in on at for with by from as vs via per".split())
_INITIALS = re.compile(r"^(?:[A-Z]\.)+[A-Z]?\.?$")


def _cased(words: list[str]) -> bool:
    """Whether a sentence's case says nothing of names: all caps, or a headline's Title Case."""
    if all(not w.islower() and w.upper() == w for w in words):
        return True
    return len(words) >= 3 and all(w[0].isupper() for w in words if w.lower() not in _SMALL)


def _name_like(word: str) -> bool:
    """Whether a word reads as a name in a sentence in ordinary case: capitalised, not all caps but initials."""
    if not word[0].isupper() or word.lower() in _OCCASION:
        return False
    return word.upper() != word or len(word) == 1 or _INITIALS.match(word) is not None


def is_phatic(sentence: str) -> bool:
    """Whether ``sentence`` is phatic talk only: formulae of greeting, thanks, farewell or a call's
    logistics, with names and the words of the occasion, and nothing else. A capitalised word is a name
    unless the sentence is all caps or Title Case ("Hello, Tesla Recalls Two Million Cars") or the word is
    all caps and no initials ("J.P." is)."""
    if not _FORMULAE.search(sentence):
        return False
    rest = _NEXT_QUESTION.sub(" ", _FORMULAE.sub(" ", sentence))
    named = not _cased(_WORD.findall(sentence))
    for word in _WORD.findall(rest):
        if named and _name_like(word):
            continue  # a name: of the show, the guest, the firm
        low = word.lower().rstrip(".")
        if low not in _OCCASION and low not in BACKCHANNELS:
            return False
    return True
