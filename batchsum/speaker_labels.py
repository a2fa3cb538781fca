"""Who speaks a line: the label of ``Speaker: text`` (:func:`parse_speaker_line`) and the speakers it
names (:func:`speakers_of`).

A name is one in any script: "Ana Silva", "Ана Иванова", "Νίκος", "प्रिया", "王伟", "佐藤 花子". Chinese
and Japanese write a name without spaces or capitals, and end a label with the full-width colon ``：``,
after which no space follows ("王伟：大家好").
"""

from __future__ import annotations

import re
import unicodedata

from batchsum.abbreviations import is_abbreviation

__all__ = ["is_turn", "parse_speaker_line", "speakers_of"]

# A turn's leading time: "[09:02]", "(00:01:02.5)", "12:30 -", and a 12-hour clock's "[9:02 AM]", "9:02am",
# "9:02 p.m." (Slack's and Teams' copies); the "m" ends a word, so "10:30 Amy: hi" keeps its speaker Amy.
_TIMESTAMP = re.compile(
    r"[ \t]*\[?\(?\d{1,2}:\d{2}(?::\d{2})?(?:[.,]\d+)?(?:[ \t]?[AaPp]\.?[Mm]\b\.?)?\]?\)?[ \t]*[-–—]?[ \t]*"
)
_COLON = re.compile("[:：]")  # an ASCII colon, or a full-width one (Chinese, Japanese)
# A list item's "* key eq: ...", "+ exam: ...": a label of the item, as "- exam: ..." is, not a speaker (its
# "*" had been taken for a bold mark and stripped, so bulleted lecture notes read as a conversation).
_LIST_ITEM = re.compile(r"[ \t]*[*+][ \t]")
# Inside a name besides letters, digits and combining marks (Devanagari's vowel signs): "O'Neil",
# "Jean-Luc", "A. Rota", "R&D", and the middle dots of transcribed foreign names ("阿沛·阿旺晋美",
# "レオナルド・ダ・ヴィンチ").
_NAME_MARKS = frozenset(" .'’-&/_·・")
_LABEL_STOP = frozenset(
    # "Q:" and "A:" are not here: an interview's or a deposition's questioner and answerer speak, as "I:" and
    # "R:" do (a one-letter label is a capital, see parse_speaker_line); "Question:" opens a question in prose.
    {"note", "warning", "tip", "example", "summary", "question", "answer", "re", "subject", "date", "to"}
    # a page of notes names who came and what about: "Attendees: Dana, Marco, Priya" is no one speaking
    | {"attendees", "participants", "present", "absent", "apologies", "regrets", "agenda", "location", "time"}
    # a standup's or a status report's fields under each person's heading ("## Maria" / "Yesterday: ..." /
    # "Blockers: None."): what the heading's person did, not someone called "Today" speaking
    | {"yesterday", "today", "tomorrow", "tonight", "blocker", "blockers", "blocked", "impediments", "done"}
    | {"doing", "todo", "to do", "to-do", "next", "next steps", "plan", "plans", "progress", "in progress"}
    | {"issues", "risks", "notes", "status", "update", "updates", "goals", "wins", "learnings", "action items"}
    # a screenplay's title page (Fountain, https://fountain.io/syntax#title-page): "Title: The Diner", "Credit:
    # Written by", "Author: Nora Vale", "Draft date: ..." above the script are its metadata, not its cast
    | {"title", "credit", "author", "authors", "source", "draft date", "contact", "copyright", "revision"}
    # the same labels in Chinese and Japanese notes ("注意：...", "参加者：...", "日時：...")
    | set("注 注意 备注 備考 提示 例 例如 总结 要約 摘要 问题 問題 问 答 答案 主题 件名".split())
    | set("日期 日付 日時 时间 時間 地点 場所 议程 議題 与会者 参会人员 出席者 参加者".split())
    | set("出席 缺席 欠席 说明 説明 结论 結論".split())
)
# Several speakers at once, as transcripts write them ("SAM, LAURA:", "TRAVIS, MARISHA and SAM:"): two to six
# names of one to three words in capitals. Capitalised words with a comma are as often a hard-wrapped line
# of prose ("Excitement, Enjoyment: delightful sounds truly") or an index entry ("James, Henry: character").
_NAME = re.compile(r"[A-Z\u00C0-\u00DE][A-Z\u00C0-\u00DE.'’\-]*(?: [A-Z\u00C0-\u00DE][A-Z\u00C0-\u00DE.'’\-]*){0,2}")
_NAME_SEP = re.compile(r",[ \t]*(?:and[ \t]+)?|[ \t]+(?:and|&)[ \t]+")
_NOT_NAMES = frozenset({"yes", "no", "well", "okay", "ok", "so", "now", "then", "oh", "hey", "hi", "dear", "but"})


def _names(label: str) -> bool:
    """Whether ``label`` lists two to six speakers ("SAM, LAURA", "TRAVIS, MARISHA and SAM")."""
    parts = _NAME_SEP.split(label)
    return (
        2 <= len(parts) <= 6
        and all(_NAME.fullmatch(p) for p in parts)
        and not any(p.split()[0].lower() in _NOT_NAMES for p in parts)
    )


def speakers_of(label: str) -> list[str]:
    """The speakers a turn's label names: one, or each of several at once ("TRAVIS, LAURA": TRAVIS and LAURA)."""
    several = ("," in label or " and " in label or "&" in label) and _names(label)
    return _NAME_SEP.split(label) if several else [label]


def _name_like(label: str) -> bool:
    """Whether ``label`` starts with a letter and holds only a name's characters, in any script."""
    return label[:1].isalpha() and all(
        c.isalnum() or c in _NAME_MARKS or unicodedata.category(c).startswith("M") for c in label
    )


def _wide(c: str) -> bool:
    """Whether ``c`` is a wide (Chinese, Japanese, Korean) character."""
    return unicodedata.east_asian_width(c) in "WF"


def _between_wide(line: str, i: int) -> bool:
    """Whether ``line[i]`` stands between two wide characters ("王伟:好"): no space is written there."""
    return 0 < i < len(line) - 1 and _wide(line[i - 1]) and _wide(line[i + 1])


def _label_words(label: str) -> int:
    """The words of a label. Chinese and Japanese put no space between words: a run of their (wide)
    characters counts a word per two characters, a name being two to four ("王伟", "佐藤花子")."""
    words = 0
    for token in label.split():
        wide = sum(map(_wide, token))
        words += max(1, (wide + 1) // 2)
    return words


_DOTTED = re.compile(r"(\S+)\.\s")  # a word and the period after it, inside a label


def _ends_sentence(token: str) -> bool:
    """Whether a period after ``token`` ends a sentence: not after initials or a title ("Hon. Mary Ng",
    "J.P. Morgan")."""
    return not is_abbreviation(token)


def parse_speaker_line(line: str) -> tuple[str | None, str]:
    """Split ``"Speaker: text"`` into ``(speaker, text)``; ``(None, line)`` when there is no label.

    A label is at most six words (:func:`_label_words`) and 60 characters (plus an optional
    parenthetical), starts with a letter of any script, holds only a name's characters, and is not a
    common prose lead-in such as ``Note:``; bold markers and a leading timestamp are removed. A space
    follows an ASCII colon ("12:30" is no label), except between Chinese or Japanese characters; none
    need follow a full-width one.
    """
    colon_at = _COLON.search(line, 0, 160)
    if colon_at is None or colon_at.start() == 0 or _LIST_ITEM.match(line):
        return None, line.strip()
    start = 0
    ts = _TIMESTAMP.match(line)
    if ts and ts.end() > 0 and any(c.isdigit() for c in line[: ts.end()]):
        start = ts.end()
        colon_at = _COLON.search(line, start, start + 160)
        if colon_at is None or colon_at.start() == 0:
            return None, line.strip()
    colon = colon_at.start()
    rest = line[colon + 1 :]
    if rest.startswith(("**", "__")):
        rest = rest[2:]
    if (line[colon] == ":" and not rest[:1].isspace() and not _between_wide(line, colon)) or not rest.strip():
        return None, line.strip()
    # A parenthetical ("The Chair (Hon. A. Rota (Nipissing, Lib.))") may hold anything but newlines.
    label = line[start:colon].strip().strip("*_").strip()
    if len(label) > 2 and label[0] == "#" and label[-1] == "#":
        label = label[1:-1]  # DialogSum's "#Person1#:" (a heading would have no closing mark)
    paren = label.find("(")
    bare = (label[:paren] if paren >= 0 else label).strip()
    if paren >= 0 and (label.count("(") != label.count(")") or not label.endswith(")")):
        return None, line.strip()
    if "," in bare and _names(bare):
        return label, rest.strip()
    if ". " in bare and any(_ends_sentence(tok) for tok in _DOTTED.findall(bare)):
        return None, line.strip()  # "Listing 4-6. Spoiler alert: ..." is two sentences, not a speaker
    words = bare.split()
    if not _name_like(bare) or not words or _label_words(bare) > 6 or len(bare) > 60 or bare.lower() in _LABEL_STOP:
        return None, line.strip()
    if len(bare) == 1 and bare.islower():
        return None, line.strip()  # "a: ...", "x: 3": a list's letter or a variable, not a name ("a" the article)
    if len(words) > 3 and any(w.lower() in {"the", "a", "an"} for w in words[1:]):
        return None, line.strip()
    return label, rest.strip()


def is_turn(line: str) -> bool:
    """Whether ``line`` is a speaker's turn as :func:`parse_speaker_line` reads one ("Ана: ...", "王伟：...",
    not "Note: ..." nor Day One's "Date: ..."), and not a story's reported speech, whose colon opens a
    quotation ("母亲对我说：“...”", 'Mother said: "..."'): what makes a file a conversation."""
    label, said = parse_speaker_line(line)
    return label is not None and not said.startswith(('"', "“", "„", "«", "「", "『"))
