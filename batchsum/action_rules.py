"""When a sentence of a conversation is an action item (the action-item rules of :mod:`batchsum.facets`).

An action item is a commitment with an owner: "I'll ...", "we will ...", "<Name> will ...", "<Name>, can
you ...", "TODO: ...", an offer or a participant's task with a deadline. It is none when it is talk about the
talk (presenting, handing the floor on, the meeting's agenda), a step taken in the room, a need, a hedged or
negated future, a suggestion or proposal without a deadline, or arranging the next meeting
(docs/extractive.md).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from batchsum.due_dates import due_date

__all__ = ["OWNER_SEP", "ActionItem", "action_item", "name_parts", "owner_among", "short_task"]

_COMMIT = re.compile(
    r"^(?:ok(?:ay)?,?\s+|so,?\s+|then,?\s+|and\s+)?(?:"
    r"(?P<ought>we(?:'ll| will| are going to|'re going to)? (?:need to|should|must|have to|have got to)|we've got to)\b"
    # "We are going to the product evaluation" is where the meeting goes next, not a future.
    # "We'll need only few buttons" is a need, as "I'll need ..." is (_SELF).
    r"|(?P<we>(?:we(?:'ll| will)|we(?: are|'re) going to(?! (?:the|a|an|our|this)\b))\b(?! (?:\w+ly )?need\b))"
    r"|(?P<lets>let's|let us)\b"
    # "Action item for Lena: ..." names its owner in the label
    r"|(?P<todo>todo|action item|action|follow[- ]up)"
    r"(?: for (?P<for>@[\w.-]+|(?-i:[A-Z][a-z]+(?: [A-Z][a-z]+)?)))?\s*[:\-]"
    r")",
    re.I,
)
# When a commitment is to be kept may come before it: "Today I'll send the purchase order."
_TIME_LEAD = (
    r"(?i:today|tomorrow(?: morning)?|tonight|later(?: today| on)?|this (?:morning|afternoon|evening|week)|"
    r"next week|after (?:lunch|the (?:call|meeting)))\s*,?\s+"
)
_TIME_LEAD_RE = re.compile(rf"^{_TIME_LEAD}")
# First-person commitments opening a sentence or a clause ("..., I'll book on Friday"), after a time at most;
# "I'm calling X this week" counts when a time is given.
_SELF = re.compile(
    rf"(?:^(?:{_TIME_LEAD})?|[;:,]\s+|\b(?:so|and|then)\s+)(?:I'll|I will|I am going to|I'm going to)\b"
    # "I'm going to try to find that out": an attempt promises no result
    r"(?!(?: \w+ly)? (?:not|never|won't)\b| probably\b| maybe\b| likely\b| possibly\b| perhaps\b| be\b| get to\b| say\b"
    r"|(?: \w+ly)? (?:try|attempt) to\b"
    r"| need\b)"
    r"|\bI'm \w+ing\b(?=.*\b(?:today|tomorrow|tonight|this week|next week|on (?:mon|tues|wednes|thurs|fri)day)\b)"
    # "I can have the wireframes by September 10": an offer with a deadline is a promise.
    r"|^I can (?:have|get|send|share|finish|deliver|write|do)\b(?=.*\b(?:by|before) (?!the way\b|far\b|now\b))"
)
# A participant told of what they do by a date: "Tom writes the brief by December 12."
_NAMED_DOES = re.compile(r"(?P<name>[A-Z][a-z]+(?: [A-Z][a-z]+)?) (?:also |then )?(?!is\b|was\b|has\b)[a-z]{3,}s\b")
# Several named ("Ben and Priya will ...", "Ana, Ben and Priya will ...") are all owners: the whole list is
# the subject, as one name is.
_ONE_NAME = r"[A-Z][a-z]+(?: [A-Z][a-z]+)?"
_NAMED = re.compile(
    r"(?<!whether )(?<!if )"  # "whether Legal will sign off" asks, commits no one
    rf"\b(?P<name>{_ONE_NAME}(?:(?:, {_ONE_NAME})*,? and {_ONE_NAME})?)"
    r"(?:,? (?:will|are going to|is going to)\b|, (?:can|could|would) you\b|, please\b"
    r"|, you(?:'ll|\u2019ll| will| are going to|'re going to)\b)"  # "Lena, you will handle the press release"
)
# The speaker and others named before them: "Lena and I will test the failover."
_NAMED_AND_I = re.compile(rf"^(?P<name>{_ONE_NAME}(?:, {_ONE_NAME})*),? and I(?:'ll| will| am going to|'m going to)\b")
# Between the names of several owners, as a sentence lists them and as an item's owner writes them.
OWNER_SEP = re.compile(r",? and |, ")
# Talk about the talk ("let's see", "we'll see", "let's say", "we'll first of all have reports", "we need to
# decide ...": the meeting's own agenda), a supposition ("let's assume") or a wish ("let's hope") is not
# something to do after the meeting; nor is "let's not", "we're going to have three presentations", or showing
# what was just named ("The requirements, I'll just show them."). A sentence that opens with "I'll just ..." is
# the meeting's mechanics ("I'll just load up your slides"); in a later clause it may be a promise ("..., then
# I'll just email it to you").
_TALK_SUBJECT = (
    r"(?:let's|let us|we'll|we will|(?:i'm|i am|we're|we are) going to|we need to|we have to|we should|i'll|i will|"
    r"we've got to|we must)\s+(?:first of all\s+|first\s+|now\s+|then\s+|just\s+|also\s+|\w+ly\s+)*"
)
# The verbs of presenting: what the speaker says next is the act itself, done by saying it ("I'll now
# summarize our third quarter results", "I'm going to touch briefly on ...", "I will give more color on ...",
# "We will refer to Net Service Revenue ...", "I'll also provide an update on ...").
_PRESENTING = (
    r"summari[sz]e|recap|outline|highlight|describe|discuss|cover|address|present|explain|elaborate|expand on|"
    r"comment on|touch (?:\w+ly )?(?:up)?on|refer to|talk|tell you|read out|mention|point out|repeat|"
    r"go (?:through|over)|(?:walk|take) (?:(?:you|us|them|everyone|everybody) )?through|show you|"
    r"take (?:you|us|them|everyone|everybody) over|"
    r"(?:give|provide|offer) (?:(?:you|us|everyone) )?(?:(?:a|an|some|more|a bit|a little|bit|of|further|"
    r"additional|brief|quick|short|few|the) )*(?:colou?r|details?|update|overview|summary|recap|rundown|context|"
    r"highlights|remarks|perspective)"
)
# Handing the floor on ("turning the call over to Bob", "I'll now turn over the call to Bob", "I'll now pass
# on to Max", "I will hand it back to the operator"): what is handed is the talk, never a thing ("I'll pass
# the feedback on to the designer" is a task).
_FLOOR = (
    r"(?:things|the (?:call|floor|line|lines|conference|discussion|meeting|mic|microphone|presentation|session"
    r"|time))"
)
# Whom a chair gives the floor to by office: "the honourable member", "the minister", "the leader".
_OFFICE = (
    r"(?:right )?honou?rable|hon\b|minister|member|chair|speaker|leader|secretary|senator|deputy|parliamentary"
    r"|president|witness|mr|mrs|ms|dr"
)
_HANDING_ON = (
    rf"(?:turn|hand|pass)(?: {_FLOOR}(?: (?:over|on|back))*| it(?: (?:over|on|back))+|(?: (?:over|on|back))+"
    rf"(?: {_FLOOR}| it)?)(?= to\b)|hand (?:it )?over|give the floor|open (?:up )?the (?:lines|floor|call)|open it up"
    # "We'll go to the honourable member for Vancouver", "I'll now turn to Ms. Ruiz": the next to speak
    rf"|turn to|go (?:over )?to (?:the )?(?:{_OFFICE})\b"
)
# Asked by name to speak in the meeting, not to do something after it.
_ROOM_REQUEST = re.compile(
    r"\s+(?:(?:like|want) to (?:\S+ ){0,5}?|just |please |perhaps |briefly |quickly |now )*"
    r"(?:answer|respond|reply|explain|describe|tell (?:us|me|the)|give (?:us|me)|talk|say|comment|speak|come in|"
    r"elaborate|expand|clarify|summari[sz]e|introduce|share|add|start|begin|go (?:ahead|first|on)|take us|walk us|"
    rf"update us|repeat|read|outline|remind us|hear|show us|mute|unmute|{_HANDING_ON})\b",
    re.I,
)
_TALK_VERB = (
    rf"(?:{_PRESENTING}|{_HANDING_ON}|"
    r"see|say|look|start|begin|go back|move on|"
    r"go (?:on )?to the (?:next|last|final) (?:question|slide|item|topic|point)|"
    r"do this|get to|have(?! to)|close|end|wrap up|(?P<ask>ask)|pause|suspend|adjourn|recess|"
    # back to the speaker's own business, not back to someone with an answer ("I'll get back to you by Friday")
    r"get back to(?! (?:you|him|her|them|us|me|everyone|everybody|(?-i:[A-Z])))|"
    r"show (?:them|it|this|these|those)(?= ?(?:now|here)?[.!]?$)|"
    r"assume|suppose|imagine|hope|"
    r"not|come (?:up|back) to|hold off|carry on|continue|decide|try to decide|evaluate|"
    r"conclude|be able to|flesh out|think|admit|confess|spoil|guess|bet|understand|remember|realise|realize)\b"
)
# A hedged future is a forecast, not a commitment: "We'll probably get lots of errors from the cross-talk";
# a negated one promises nothing: "I'll never have to buy batteries again", "We'll definitely not ...". Nor
# does a future of being somewhere or something ("We're going to be here at eight") or of what is done to
# the speakers ("We'll get panned on the next one"): no one is given a task.
_HEDGED = re.compile(
    r"^(?:ok(?:ay)?,?\s+|so,?\s+|then,?\s+|and\s+)?(?:we|i)(?:'ll| will| would|(?:'re|'m| are| am) going to)\s+"
    r"(?:\w+ly\s+)?(?:probably|likely|maybe|possibly|perhaps|never|not|won't|try to|attempt to"
    r"|be\b(?!,| (?:\w+ly )?\w+ing\b)|get \w+(?:ed|en)\b)\b",
    re.I,
)
# Done in the meeting, not after it: "I will delete this one now", "I'll figure out the average here."
_IN_THE_ROOM = re.compile(
    r"^(?:i|we)(?:'ll| will) (?!now\b)[^,;.]*(?<!from )\bnow\b(?! on\b| that\b)"
    r"|^(?:i|we)(?:'ll| will) [^,;]*\bhere[.!]$"
    # the whiteboard: "I'll rub off the other two", "I'll write that on the board", "I'll erase the board";
    # "the board" is the directors only as someone told or sent to ("I'll send the deck to the board",
    # "we will brief the board") or as theirs ("the board meeting", "the board's approval").
    r"|^(?:i|we)(?:'ll| will) (?:\w+ly )?(?:rub|wipe)\b"
    r"|^(?:i|we)(?:'ll| will) [^,;]*\b(?:white ?board|flip ?chart)\b"
    r"|^(?:i|we)(?:'ll| will) [^,;]*\b(?!(?:to|for|with|from|brief|update|ask|tell|e-?mail|mail|send|ping|call|remind|"
    r"inform|notify|convince|persuade|lobby|petition|meet)\b)[\w-]+ the board\b"
    r"(?!'s|’s| of\b| (?:meeting|members?|approval|vote|chair|deck|pack|papers)\b)",
    re.I,
)
# Arranging the next meeting ("Let's meet again tomorrow at nine.") sets no task; its time is no deadline.
_NEXT_MEETING = re.compile(
    r"^(?:let's|let us|we'll|we will|we(?:'re| are) going to|we (?:can|could|should))\s+(?:\w+ly\s+)?"
    r"(?:meet|reconvene|regroup|get together|sync up|catch up|talk|speak)\b(?! (?:with|to)\b)",
    re.I,
)
_META_TALK = re.compile(rf"^(?:{_TALK_SUBJECT}{_TALK_VERB}|(?:i'll|i will|we'll|let's) just\b)", re.I)
_META_CLAUSE = re.compile(rf"^{_TALK_SUBJECT}{_TALK_VERB}", re.I)
# "I'll ask a question", "I'll ask you all to ...", "I'll shortly ask for the presentations" run the meeting;
# "I'll ask Northwind for a cheaper quote by Wednesday" asks someone else for something by a date: a task.
_ASKS_THE_ROOM = re.compile(
    r"\s+(?:you|ya|y'all|everyone|everybody|all|us|a|an|for|about|if|whether|to|questions?|that|this|these|"
    r"what|how|why|who|which|when|where|around|again|now|quickly|briefly)\b",
    re.I,
)
_MENTION = re.compile(r"@([A-Za-z][\w.-]+)")

_FIRST_PERSON = frozenset({"i", "we", "you", "it", "this", "that", "there", "the", "a", "an", "so", "ok", "okay"})


@dataclass
class ActionItem:
    """One commitment: who, what, by when (owner and due only when the text says so); ``said_by`` is who said
    the sentence when it is not its owner ("Maya: Priya, can you call the vendor?"), so that it is shown as
    that speaker's words, never as the owner's."""

    task: str
    owner: str | None = None
    due: str | None = None
    said_by: str | None = None


# What is summarized or outlined and then sent or filed is a deliverable, no longer talk: "I will summarise the
# things we discussed and put it in the project folder."
_DELIVERED = re.compile(
    r"\b(?:and|then)(?: then)? (?:put|send|email|e-mail|mail|post|upload|circulate|share|forward|file|save)\b", re.I
)
_CLAUSE_LEAD = re.compile(r"^[;:,\s]*(?:(?:so|and|then)\s+)?")
# "Have" and "get" say what the speakers will do only when what they have or get is a piece of work: a
# particular one ("I'll have the test plan by ...", "We'll get it to you"), or one brought to a state or to
# someone ("We'll have the draft ready", "I'll get a quote from Northwind", "I'll have Maya call you").
# What merely comes to them ("We'll have a gale before midnight", "We'll have time to ...") is a forecast.
_HAVE_GET = re.compile(r"\s+(?:\w+ly\s+)?(?:have|get)\s+(?!to\b|got\b)", re.I)
_PARTICULAR = re.compile(
    r"(?:the|my|our|your|his|her|their|its|this|that|these|those|it|them|him|us|me|you|all|both|each|every)\b"
    r"|(?-i:[A-Z])",
    re.I,
)
_RESULT = re.compile(
    r"\b(?:ready|done|finished|complete|sorted|fixed|signed|approved|written|sent|made|built|set up|back|out|over"
    r"|inside|up|across|through|\w{3,}ed)\b"
    r"|\b(?:to|for|from|with) (?:you|him|her|them|us|me|everyone|everybody|(?-i:[A-Z]))",
    re.I,
)
_CLAUSE_END = re.compile(r"[,;:.!?]|\b(?:by|before|until|till|no later than|when|if|so|and|but)\b", re.I)


def _comes_to(text: str, pos: int) -> bool:
    """Whether the future at ``pos`` in ``text`` (after its "we'll", "I will") has or gets what merely comes
    to the speakers, no piece of work: "We'll have a gale before midnight" (see :data:`_HAVE_GET`)."""
    verb = _HAVE_GET.match(text, pos)
    if verb is None or _PARTICULAR.match(text, verb.end()):
        return False
    end = _CLAUSE_END.search(text, verb.end())
    return _RESULT.search(text[verb.end() : end.start() if end else len(text)]) is None


# A commitment says what is to be done (Searle's commissive has a propositional content): its object is no
# pronoun leaning on an earlier sentence ("I will do so after every meeting", "I'll put it back in a minute",
# "I will write that one in a Word document", "I'm going to remind you of them again"), nor a bare indefinite
# thing ("I'm going to work for a company."), as a short task's is not (:func:`short_task`). Read where the
# commitment opens the sentence and gives no date to keep it by.
_ADVERBS = r"(?:\s+(?:\w+ly|just|also|then|now|first|still|quickly))*"
_VERB = r"\s+[a-z]+(?:\s+(?:back|out|up|over|down|off|on))?"
_POINTER = re.compile(
    rf"{_ADVERBS}{_VERB}(?:\s+(?:you|him|her|us|me|everyone|everybody))?(?:\s+(?:of|about|on|with|to|for|in|into|at|from))?"
    r"\s+(?:(?:that|this) one|it|that|this|them|so|those|these|one)"
    r"(?=\s*[.!?,;]|\s+(?:back|out|up|over|down|off|again|then|later|too|soon|now|first|in|on|at|after|before|by|to"
    r"|for|with|from|into|when|once|as|until|till|tomorrow|today|tonight|this|next)\b)",
    re.I,
)
_INDEFINITE = re.compile(
    rf"{_ADVERBS}{_VERB}(?:\s+(?:for|with|on|at|in|to|about))?\s+(?:a|an|some)\s+[a-z]+[.!]$", re.I
)


# "Do it", "do that", "do so" stand for a whole task said before: no date gives them one.
_PRO_VERB = re.compile(rf"{_ADVERBS}\s+do\s+(?:it|that|this|so|the same)\b", re.I)


def _no_content(text: str, pos: int, dated: bool = False) -> bool:
    """Whether the commitment whose verb follows ``pos`` in ``text`` leaves what is to be done to context: its
    object a pronoun or a bare indefinite thing (see :data:`_POINTER`), unless ``dated`` (a date to keep it by
    makes a promise of "I will review it this afternoon"); "do that" whatever its date."""
    if _PRO_VERB.match(text, pos):
        return True
    return not dated and bool(_POINTER.match(text, pos) or _INDEFINITE.match(text, pos))


_DEADLINE = re.compile(r"\b(?:by|before)\b(?! (?:the way|far|now)\b)", re.I)


def _talk(pattern: re.Pattern[str], text: str) -> bool:
    """Whether ``text`` opens with talk about the talk (``pattern``: :data:`_META_TALK` or :data:`_META_CLAUSE`)."""
    m = pattern.match(text)
    if m is None:
        return False
    asks_out = m.group("ask") is not None and not _ASKS_THE_ROOM.match(text, m.end()) and due_date(text) is not None
    return not asks_out and not _DELIVERED.search(text, m.end())


# Titles around a name: "The Honourable ...", "Kirsty Williams AM".
_TITLES = frozenset("the hon honourable honorable right mr mrs ms miss mx dr prof sir dame lord lady am mp msp".split())


def name_parts(label: str) -> set[str]:
    """A speaker's first and last name, in lower case: "Ben" and "Okafor" of "Ben Okafor", "Pablo" and
    "Rodriguez" of "The Honourable Pablo Rodriguez (Leader of the Government in the House of Commons)"."""
    words = [w.strip(".,").casefold() for w in re.sub(r"\(.*?\)", " ", label).split()]
    words = [w for w in words if w and w not in _TITLES]
    return {words[0], words[-1]} if words else set()


def owner_among(name: str, participants: Sequence[str]) -> str | None:
    """The participant ``name`` stands for: one of them, or the only one whose first or last name it is
    ("Dev" is "Dev Patel" when no other participant is a Dev; "Matt" is "MATT"), else None. Several names
    ("Ben, Priya", "Ben and Priya") are the participants each stands for, as "Ben Okafor, Priya Raman", when
    every one is one."""
    name = name.removeprefix("@")  # "@omar" is Omar
    if name in participants:
        return name
    same = [p for p in participants if p.casefold() == name.casefold()]
    if same:
        return same[0]
    several = OWNER_SEP.split(name)
    if len(several) > 1:
        found = [owner_among(one, participants) for one in several]
        return ", ".join(dict.fromkeys(f for f in found if f)) if all(found) else None
    if " " in name.strip():
        return None
    hits = [p for p in participants if name.casefold() in name_parts(p)]
    return hits[0] if len(hits) == 1 else None


# A first-person commitment with a verb and a work object ("I'll email legal today.") or a task given by name
# ("Julia, you'll handle that.") is a task at three words; the meeting's own mechanics are not ("I'll go
# first.", "We'll take a break.").
_SHORT_COMMIT = re.compile(
    r"^(?:I'll|I will|we'll|we will) (?!\w+ly\b)[a-z]+ "
    r"(?!(?:it|that|this|them|you|so|too|then|now|later|there|here|again|soon)\b)\w",
    re.I,
)
# What makes three words a task for later: a time to do it by, or a named object ("I'll call Priya.",
# "I'll send the deck."), not an indefinite one ("a coffee", "a break") or none ("first", "myself").
_BY_WHEN = re.compile(r"\b(?:by|before|until)\b", re.I)
_NAMED_OBJECT = re.compile(r" (?-i:[A-Z])\w*| (?:the|our|my|your|their|his|her|its) \w", re.I)
_NAMED_TASK = re.compile(r"^(?-i:[A-Z][a-z]+), you(?:'ll| will) (?!\w+ly\b)[a-z]+ \w", re.I)


def short_task(text: str) -> bool:
    """Whether ``text``, a short sentence, is still a task: a commitment with a time or a named object, or a
    task given by name (see :data:`_SHORT_COMMIT`)."""
    commit = _SHORT_COMMIT.match(text)
    if commit:
        rest = text[commit.end() - 1 :]
        return due_date(text) is not None or bool(_BY_WHEN.search(rest) or _NAMED_OBJECT.search(" " + rest))
    return _NAMED_TASK.match(text) is not None


def _named_first(text: str, participants: Sequence[str]) -> str | None:
    """The participant a sentence opening "<Name> to ..." gives its task to ("Maya to send the report")."""
    first, _, rest = text.partition(" ")
    return owner_among(first, participants) if rest.startswith("to ") else None


def action_item(
    text: str, speaker: str | None, participants: Sequence[str] = (), agent: bool = False
) -> ActionItem | None:
    """The action item ``text`` (a whole sentence ``speaker`` said) states, or None; ``participants`` are the
    speakers an owner is one of, ``agent`` reads an agent's "Let's ..." as its next step."""
    text = text.strip()
    core = _TIME_LEAD_RE.sub("", text)  # "Today I'll just ..." is the meeting's mechanics too
    # A date to keep makes "I'll have the test plan by September 12" a promise, not the meeting's agenda.
    due = due_date(text)
    dated = due is not None and re.search(rf"\b(?:by|before) (?:the )?{re.escape(due)}", text, re.I) is not None
    if (
        (_talk(_META_TALK, core) and not dated)
        or _HEDGED.match(_CLAUSE_LEAD.sub("", core))
        or _IN_THE_ROOM.search(core)
        or _NEXT_MEETING.match(_CLAUSE_LEAD.sub("", core))
    ):
        return None
    named_first = _named_first(text, participants)
    if named_first:  # "Maya to send the report by Friday."
        return ActionItem(text, named_first, due)
    with_me = _NAMED_AND_I.match(text)
    others = owner_among(with_me.group("name"), participants) if with_me else None
    if others and speaker:  # "Lena and I will ...": every one named is an owner, the speaker too
        return ActionItem(text, ", ".join(dict.fromkeys([*OWNER_SEP.split(others), speaker])), due)
    does = _NAMED_DOES.match(text)
    owner = owner_among(does.group("name"), participants) if does and dated else None
    if owner:  # "Marcus sends me the cost breakdown by Friday."
        return ActionItem(text, owner, due)
    if text.endswith("?") and not _NAMED.search(text):
        return None
    own = _SELF.search(text)
    if own and not dated and _talk(_META_CLAUSE, _CLAUSE_LEAD.sub("", _TIME_LEAD_RE.sub("", text[own.start() :]))):
        return None  # "..., I'll show you", "Before I do that, I will go through ..."
    # a later clause may lean on its own sentence ("if you put it on yours, then I'll email it to you")
    if own and (_comes_to(text, own.end()) or (own.start() == 0 and _no_content(text, own.end(), due is not None))):
        return None
    if own and len(text.split()) >= 3:
        return ActionItem(text, speaker, due)
    m = _COMMIT.match(text)
    # "We should put zap buttons on it" is a suggestion and "Let's give it a two" a proposal for the room
    # (3 of 13 hand-labelled "let's" items were tasks for later), unless a deadline makes either a task.
    # An agent's "Let's ..." is its next step, kept (see ``extract_facets``).
    suggestion = m is not None and (m.group("ought") or (m.group("lets") and not agent))
    # "Today" says when, not by when: "Let's work out on arms today." stays a proposal.
    deadline = due is not None and not due.startswith(("today", "this morning", "this afternoon", "this evening"))
    if suggestion and not (deadline or _DEADLINE.search(text)):
        return None
    if m and m.group("we") and (_comes_to(text, m.end()) or _no_content(text, m.end(), due is not None)):
        return None
    if m:
        # A "we will" is the speaker's promise for the group: they answer for it, as for an "I will". A need
        # ("we need to"), a proposal ("let's") was promised by no one.
        owner = speaker if m.group("todo") or m.group("we") else None
        task = text[m.end() :].strip(" ,:-").removeprefix("@") if m.group("todo") else text
        task = task[:1].upper() + task[1:]  # "Action item for Priya: update ..." is "Update ..."
        if len(task.split()) < 3:
            return None
        if m.group("todo") and m.group("for"):
            # a labelled task for someone named is theirs, when they speak; else no one's, never the speaker's
            owner = owner_among(m.group("for"), participants)
        elif m.group("todo"):
            # "TODO: Maya to send ..." is Maya's; "TODO: Talk to legal ..." opens with a verb, not a
            # participant, so it stays the speaker's
            owner = _named_first(task, participants) or owner
        return ActionItem(task, owner, due)
    named = _NAMED.search(text)
    if named and _ROOM_REQUEST.match(text, named.end()):
        return None  # "Albert, can you answer that?", "Steve will explain later": a turn to speak
    if named and named.group("name").split()[0].lower() not in _FIRST_PERSON:
        return ActionItem(text, ", ".join(OWNER_SEP.split(named.group("name"))), due)
    mention = _MENTION.search(text)
    if mention and re.search(r"\b(?:please|can you|could you|will|to)\b", text, re.I):
        return ActionItem(text, mention.group(1), due)
    return None
