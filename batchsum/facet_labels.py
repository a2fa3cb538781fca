"""Labels a line gives its facet ("Decision:", "**Open question:**", "Action -") and hedges that leave a
decision undecided (the label rules of :mod:`batchsum.facets` and :mod:`batchsum.written_facets`).

A label is read the same whatever its emphasis or separator: ``**Decision:**``, ``*Decision:*``,
``**Decision**:`` and ``Decision -`` are all ``Decision:`` (a Slack export writes ``*Decision:*``, a chat
``Decision -``), so the rules read them once their marks are gone (:func:`plain_label`).
"""

from __future__ import annotations

import re

__all__ = ["DECISION_LABEL", "HEDGED_DECISION", "OPEN_LABEL", "TASK_LABEL", "plain_label"]

# A decision the meeting labels as one: "Decision: the cutover is on Saturday, October 18."
DECISION_LABEL = re.compile(r"^(?:decision|decided|agreed|resolution|resolved|outcome)\s*[:–—-]\s+", re.I)
# An open question the text labels as one: what follows the label is the question ("Open question: do we ...?").
OPEN_LABEL = re.compile(r"^(?:open questions?|unresolved|tbd|question)\s*[:–—-]\s+", re.I)
# A task the text labels as one: "Action: @omar to fix ...", "TODO: Jonas to book ...".
TASK_LABEL = re.compile(r"^(?:todo|action items?|action|follow[- ]up)(?: for [^:]{1,40})?\s*:\s+", re.I)
_LABEL_WORDS = (
    r"decision|decided|agreed|resolution|resolved|outcome|open questions?|unresolved|tbd|question"
    r"|todo|action items?|action|follow[- ]up"
)
# The label in emphasis, its separator inside or after it, or a dash for a colon: the marks are layout.
_MARKED_LABEL = re.compile(
    rf"^(?P<em>\*\*|\*|__|_)?(?P<label>(?i:{_LABEL_WORDS})(?: for [^:*_]{{1,40}})?)"
    r"(?:\s*[:–—-]\s*(?P=em)|(?P=em)\s*[:–—-]|\s+[–—-])(?=\s)"
)
# A decision said with a hedge was not quite made: "We have decided more or less the basic structure."
HEDGED_DECISION = re.compile(r"\b(?:more or less|sort of|kind of|probably|maybe|perhaps|roughly|somewhat)\b", re.I)


def plain_label(text: str) -> str:
    """``text`` with a facet label that opens it written plainly, "Label: ...": its emphasis gone and a dash
    read as a colon ("**Decision:** freeze deploys" is "Decision: freeze deploys"); other text as it is."""
    m = _MARKED_LABEL.match(text)
    if m is None or (m.group("em") is None and ":" in m.group(0)):
        return text
    return f"{m.group('label')}:{text[m.end() :]}"
