"""Tokens that end with a period but rarely end a sentence: read by the sentence splitter
(:mod:`batchsum.text`) and by the speaker-label reader (:mod:`batchsum.speaker_labels`)."""

from __future__ import annotations

__all__ = ["ABBREVIATIONS", "SOFT_ABBREVIATIONS"]

# Lower-cased, without the period.
ABBREVIATIONS = frozenset(
    """
    mr mrs ms mx messrs mme mlle dr prof sr jr st mt ft hon rev gen col lt sgt capt cmdr adm gov sen rep pres supt insp
    vs etc e.g i.e cf al approx dept est inc ltd co corp bros no nos vol vols fig figs eq eqs sec ch pp p
    jan feb mar apr jun jul aug sep sept oct nov dec mon tue tues wed thu thur thurs fri sat sun
    a.m p.m u.s u.k u.n ph.d b.a m.a m.d
    cal civ cir ct sup supp dep n.d s.d e.d w.d
    """.split()  # the last line: legal citations' courts and reporters ("Cal. Civ. Code", "(9th Cir. 1999)")
)
# Abbreviations that still end a sentence when the next word is capitalised ("... and so on, etc. The").
SOFT_ABBREVIATIONS = frozenset({"etc", "inc", "ltd", "corp", "bros", "a.m", "p.m"})
