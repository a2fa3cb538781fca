"""Bytes to text: BOM sniffing, strict UTF-8, BOM-less UTF-16, a detected legacy encoding, control characters."""

from __future__ import annotations

import codecs
import re
import unicodedata

__all__ = ["DETECT_SAMPLE", "READ_BLOCK", "decode_bytes", "plain_letters", "strip_control"]


DETECT_SAMPLE = 1 << 18  # bytes given to the encoding detector: enough to tell, bounded for huge files
READ_BLOCK = 1 << 22


def _utf16_without_bom(raw: bytes | bytearray) -> str | None:
    """The UTF-16 codec a BOM-less file is written in, or None: judged by where its NUL bytes sit (text of
    ASCII-range letters), else by which byte order reads as text (:func:`_utf16_reading`)."""
    sample = raw[: min(len(raw), 8192) & ~1]
    if len(sample) < 4:
        return None
    even = sample[0::2].count(0)
    odd = sample[1::2].count(0)
    pairs = len(sample) // 2
    # ASCII-range text in UTF-16 has a NUL in one half of most code units and almost none in the other.
    if odd >= pairs * 0.3 and even <= pairs * 0.02:
        return "utf-16-le"
    if even >= pairs * 0.3 and odd <= pairs * 0.02:
        return "utf-16-be"
    if _text_with_stray_nuls(sample):
        return None  # UTF-8 with a NUL or two: a tighter test than the one below, which its bytes might pass
    # Cyrillic, CJK or Greek text has NULs only at its ASCII characters (spaces, newlines, digits): its
    # byte order is the one that decodes to a text's few scripts; the other scatters its characters over
    # unrelated ones (Cyrillic "д" U+0434 read backwards is CJK U+3404), unassigned code points and controls.
    texts = {codec: bytes(sample).decode(codec, errors="replace") for codec in _UTF16}
    readings = {codec: _utf16_reading(text) for codec, text in texts.items()}
    (best, (noisy, scripts)), (_, other) = sorted(readings.items(), key=lambda kv: kv[1])
    if not noisy and scripts <= _TEXT_SCRIPTS and (noisy, scripts) < other and _one_script_text(texts[best]):
        return best
    return None


_UTF16 = ("utf-16-le", "utf-16-be")
_TEXT_SCRIPTS = 12  # a text's scripts and kinds of character: Japanese has 9 (kana, kanji, Latin, punctuation...)
# Characters a BOM-less UTF-16 guess by script needs: a few bytes of binary (8 control bytes, "abc\0\1\2binary")
# decode to 4-6 characters of plausible-looking CJK or Latin Extended, too few to tell from text.
_MIN_GUESS_CHARS = 16
# Scripts one language writes together, counted as one: Japanese mixes kanji and kana, Korean hangul and hanja.
_SCRIPT_FAMILY = {"HIRAGANA": "CJK", "KATAKANA": "CJK", "HANGUL": "CJK", "IDEOGRAPHIC": "CJK", "HALFWIDTH": "CJK"}


def _one_script_text(text: str, least: int = _MIN_GUESS_CHARS) -> bool:
    """Whether a BOM-less UTF-16 reading without ASCII-range letters is text: long enough to tell, mostly
    letters (not symbols, digits or punctuation), and most of its non-ASCII letters of one script (or one
    language's family of them: :data:`_SCRIPT_FAMILY`), as Russian, Greek or Chinese prose is."""
    chars = [c for c in text if not c.isspace()]
    if len(chars) < least:
        return _letters_of_one_script(chars)
    letters = [c for c in chars if unicodedata.category(c)[0] in "LM"]
    if len(letters) < 0.6 * len(chars):
        return False
    scripts: dict[str, int] = {}
    for c in letters:
        if c >= "\x80":
            word = unicodedata.name(c, "?").split(" ", 1)[0]
            family = _SCRIPT_FAMILY.get(word, word)
            scripts[family] = scripts.get(family, 0) + 1
    return not scripts or max(scripts.values()) >= 0.8 * sum(scripts.values())


# Scripts filling tens of thousands of 16-bit code units: two random bytes read as one of their letters a
# third of the time, so a few such letters say nothing (short CJK or Hangul notes still need a BOM).
_CROWDED_SCRIPTS = frozenset({"CJK", "HANGUL", "YI"})


def _letters_of_one_script(chars: list[str]) -> bool:
    """Whether a reading too short to judge by proportions is text all the same: only letters (with their
    marks) of one script and punctuation, three letters at least, the script not a crowded one. A few binary
    bytes read as a mix of scripts or as combining marks and symbols ("\\0\\1\\2..." is Latin, a combining
    accent, Cyrillic...)."""
    families: set[str] = set()
    letters = 0
    for c in chars:
        category = unicodedata.category(c)[0]
        if category == "P":
            continue
        if category not in "LM":
            return False
        letters += category == "L"
        families.add(unicodedata.name(c, "?").split(" ", 1)[0])
    return letters >= 3 and len(families) == 1 and not families & _CROWDED_SCRIPTS


def _utf16_reading(text: str) -> tuple[int, int]:
    """How ``text`` (a UTF-16 decode) reads: (0 when at most 1 % of its characters are no text (unpaired
    surrogates, unassigned code points, controls), else 1; how many scripts and kinds of
    character it holds: a letter's script is the first word of its Unicode name, ASCII is one kind and
    other characters count by their general category (punctuation, symbols, digits, spaces))."""
    kinds: set[str] = set()
    bad = 0
    for c in text:
        if c < "\x80":
            kinds.add("ASCII")
            bad += c < " " and c not in "\t\n\r\x0c"
            continue
        category = unicodedata.category(c)
        if category in ("Cc", "Cs", "Cn") or c == "\ufffd":
            bad += 1
        elif category[0] in "LM":
            kinds.add(unicodedata.name(c, "?").split(" ", 1)[0])
        else:
            kinds.add(category[0])
    return (0 if bad <= len(text) // 100 else 1), len(kinds)


def _mostly_printable(sample: str) -> bool:
    if not sample:
        return True
    bad = sum(1 for c in sample if not (c.isprintable() or c in "\n\r\t"))
    return bad <= len(sample) // 50


def _legacy_encoding(raw: bytes) -> str | None:
    """The most plausible non-UTF-8 encoding of ``raw`` (charset-normalizer), or None.

    charset-normalizer ranks several single-byte codecs equal on Western text and often names a
    Central European or Mac one; cp1252 is preferred when it reads as cleanly as the detector's best
    guess. A byte cp1252 leaves undefined (0x81, 0x8D, 0x8F, 0x90, 0x9D) is a letter of another
    codepage when the detector's pick reads it as one within a word (Slovak "ť" in cp1250): cp1252 is
    then out. Any other is damage, one more suspicious character in cp1252's reading
    (:func:`_western_chaos`): else one stray byte hands a French file to whichever codepage maps every
    byte (cp775 "Cafķ", cp1256 "پ").
    """
    from charset_normalizer import from_bytes

    sample = raw[:DETECT_SAMPLE]
    best = from_bytes(sample).best()
    if best is not None and any(_letter_in_word(sample, m.start(), best.encoding) for m in _UNDEFINED.finditer(sample)):
        return best.encoding
    chaos, unmapped = _western_chaos(sample)
    if best is None:
        # No codepage reads as text: cp1252 stands in for a file it maps whole (as it always has), not
        # for one it must also damage (bytes 0x80-0xFF: binary, however it is read).
        return "cp1252" if unmapped == 0 or chaos <= _DETECTOR_THRESHOLD else None
    return "cp1252" if chaos <= best.chaos + 0.1 else best.encoding


_DETECTOR_THRESHOLD = 0.2  # the mess ratio above which charset-normalizer rejects a reading (its default)


_UNDEFINED = re.compile(rb"[\x81\x8d\x8f\x90\x9d]")  # the bytes cp1252 maps to no character


def _letter_in_word(sample: bytes, at: int, encoding: str) -> bool:
    """Whether the byte at ``at`` reads in ``encoding`` as a letter beside a letter of its script, one
    that cp1252 reads as a letter too: a word's letter, not a stray byte (between spaces or other
    damage, or a Persian "پ" inside Latin letters)."""
    start = max(0, at - 1)
    window = sample[start : at + 2]
    chars = window.decode(encoding, errors="replace")
    if len(chars) != len(window):
        return True  # a multi-byte encoding: its reading of one byte cannot be told, so trust its pick
    western = window.decode("cp1252", errors="replace")
    mid = at - start
    if not chars[mid].isalpha():
        return False
    script = unicodedata.name(chars[mid], "?").split(" ", 1)[0]
    return any(
        i != mid and c.isalpha() and western[i].isalpha() and unicodedata.name(c, "?").split(" ", 1)[0] == script
        for i, c in enumerate(chars)
    )


def _western_chaos(sample: bytes) -> tuple[float, int]:
    """How implausible ``sample`` reads as cp1252: charset-normalizer's mess ratio of that reading, plus
    the share of its characters that are bytes cp1252 cannot map (each weighs as one more suspicious
    character does in the ratio); and how many those are. Text of another script reads as a jumble of
    Latin-1 letters and symbols there, which the mess ratio scores far above the margin cp1252 is given."""
    from charset_normalizer.md import mess_ratio

    western = sample.decode("cp1252", errors="replace")
    unmapped = western.count("\ufffd")
    return mess_ratio(western, 1.0) + unmapped / max(1, len(western)), unmapped


# The Latin ligatures of Unicode's Alphabetic Presentation Forms (U+FB00-FB06), which PDF text extraction
# leaves in ("identiﬁed"): as their letters, so a summary reads, and a search finds, "identified". Only
# these: full NFKC would also turn full-width CJK punctuation into ASCII.
_LIGATURES = str.maketrans({"ﬀ": "ff", "ﬁ": "fi", "ﬂ": "fl", "ﬃ": "ffi", "ﬄ": "ffl", "ﬅ": "st", "ﬆ": "st"})
_LIGATURE = re.compile("[\ufb00-\ufb06]")


def plain_letters(text: str) -> str:
    """``text`` with its Latin ligatures (ﬁ, ﬂ, ﬀ, ﬃ, ﬄ, ﬅ, ﬆ) as the letters they join."""
    return text.translate(_LIGATURES) if _LIGATURE.search(text) else text


def decode_bytes(raw: bytes | bytearray) -> tuple[str, str | None]:
    """Decode with BOM sniffing, strict UTF-8, BOM-less UTF-16, UTF-8 with a few bad bytes, then a detected
    legacy encoding; Latin ligatures become their letters (:func:`plain_letters`).

    Returns (text, note); note is None for a clean UTF-8 decode and starts with "lossy" when
    characters had to be replaced.
    """
    try:
        text, note = _decode(raw)
    except ValueError as exc:
        kind = _binary_kind(raw)
        if kind is None or not str(exc).startswith("binary"):
            raise
        raise ValueError(str(exc).replace("(", f"({kind}; ", 1)) from exc
    return plain_letters(text), note


# The binary files most often found under a text file's name (a PDF saved as .txt, a .docx renamed .md): the
# reason names what the file is, where "binary file (contains NUL bytes)" left the user to guess.
_SIGNATURES = (
    (b"%PDF-", "a PDF document"),
    (b"PK\x03\x04", "a zip archive, such as a Word or OpenDocument file"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "a legacy Office file (.doc, .xls, .ppt)"),
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"),
    (b"\x1f\x8b", "a gzip archive"),
    (b"SQLite format 3\x00", "an SQLite database"),
    (b"\x7fELF", "a program (ELF executable)"),
)


def _binary_kind(raw: bytes | bytearray) -> str | None:
    """What a binary file is by its first bytes (:data:`_SIGNATURES`), or None when they name nothing known."""
    head = bytes(raw[:16])
    return next((kind for magic, kind in _SIGNATURES if head.startswith(magic)), None)


def _text_with_stray_nuls(sample: bytes | bytearray) -> bool:
    """Whether a sample with NUL bytes (not UTF-16) is text all the same: a NUL or two left by a crashed
    editor in UTF-8 prose (at most 1 % of the bytes, the rest clean UTF-8). The NULs are then removed with
    the other control characters (:func:`strip_control`), as they are further into a file."""
    nuls = sample.count(0)
    text = bytes(sample).replace(b"\x00", b"").decode("utf-8", errors="replace")
    # A multi-byte character cut at the sample's end is one replacement at most.
    return nuls <= len(sample) // 100 and text.count("\ufffd") <= 1 and _mostly_printable(text[:4096])


def _cp1252_bytes(err: UnicodeError) -> tuple[str, int]:
    """Error handler: a byte UTF-8 could not decode, read as Windows-1252 where it reads as text there (a
    letter beside a letter, "Ren\\xe9e"; typographic punctuation, "\\x93quoted\\x94", "\\x80400"); else U+FFFD
    (a stray "\\xff" is damage, not "ÿ")."""
    if not isinstance(err, UnicodeDecodeError):
        raise err
    raw, at = err.object, err.start
    char = raw[at : at + 1].decode("cp1252", errors="replace")
    beside = raw[at - 1 : at].decode("latin-1") + raw[at + 1 : at + 2].decode("latin-1")
    if char in _TYPOGRAPHIC or (char.isalpha() and any(c.isalpha() for c in beside)):
        return char, at + 1
    return "\ufffd", at + 1


_TYPOGRAPHIC = "€‚„…†‡‰‹›‘’“”•–—™"
_CP1252_FALLBACK = "batchsum-cp1252"
codecs.register_error(_CP1252_FALLBACK, _cp1252_bytes)


# UTF-32's BOMs first: UTF-32-LE's (ff fe 00 00) begins with UTF-16-LE's.
_WIDE_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


def _decode_wide(raw: bytes | bytearray, codec: str) -> tuple[str, str | None]:
    """A file opening with ``codec``'s BOM, decoded, when what follows reads as text (:func:`_wide_text`);
    else ValueError. Bytes that are no character (a file cut to an odd length) are replaced: a lossy note."""
    try:
        return _wide_text(raw.decode(codec), codec, 0), f"{codec} (BOM)"
    except UnicodeDecodeError:
        text = raw.decode(codec, errors="replace")
    bad = text.count("\ufffd")
    return _wide_text(text, codec, bad), f"lossy {codec} decode: {bad} invalid byte sequence(s) replaced"


def _wide_text(text: str, codec: str, bad: int) -> str:
    """``text`` if it reads as text, judged as a BOM-less UTF-16 guess is: mostly printable, at most 1 % no
    text (replacements, unassigned code points, controls) and, without ASCII-range text (as binary bytes
    decode), few scripts, mostly letters of one (:func:`_one_script_text`). Else ValueError."""
    # A character cut at the file's end is damage, not a sign of binary; anything else counts.
    sample = text[:4096]
    judged = sample[:-1] if bad and len(text) <= 4096 and sample.endswith("\ufffd") else sample
    if not judged.strip():
        if bad:
            raise ValueError(f"binary or undecodable file ({codec} BOM, then {bad} invalid byte sequence(s), no text)")
        return text  # a BOM and whitespace: a file with no text, skipped as that
    noisy, scripts = _utf16_reading(judged)
    ascii_text = len(judged) - len(judged.encode("ascii", errors="ignore")) <= 0.7 * len(judged)
    # A BOM says what the bytes are: a short note ("今日は雨。") needs no length to tell it from a guess.
    script_text = scripts <= _TEXT_SCRIPTS and _one_script_text(judged, least=1)
    if noisy or not _mostly_printable(judged) or not (ascii_text or script_text):
        raise ValueError(f"binary file (starts with a {codec} BOM, but does not read as {codec} text)")
    return text


def _decode(raw: bytes | bytearray) -> tuple[str, str | None]:
    """:func:`decode_bytes` before the ligatures are spelled out."""
    if raw.startswith(codecs.BOM_UTF8):
        # A BOM is three bytes binary data may begin with too: what follows is judged as a file without one.
        rest, note = _decode(bytes(raw[len(codecs.BOM_UTF8) :]))
        return rest, (f"{note} (after a utf-8 BOM)" if note else "utf-8 with BOM")
    for bom, wide in _WIDE_BOMS:
        if raw.startswith(bom):
            return _decode_wide(raw, wide)
    if b"\x00" in raw[:8192]:
        codec = _utf16_without_bom(raw)
        if codec is not None:
            try:
                text = raw.decode(codec)
            except UnicodeDecodeError:
                text = None
            # Binary data can put its NULs in one half too; text decodes to printable characters.
            if text is not None and _mostly_printable(text[:4096]):
                return text, f"{codec} (no BOM)"
        if not _text_with_stray_nuls(raw[:8192]):
            raise ValueError("binary file (contains NUL bytes)")
    try:
        return raw.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        utf8_error = exc
    lossy = raw.decode("utf-8", errors="replace")
    bad = lossy.count("\ufffd")
    # UTF-8 but for a few bad bytes (a pasted Latin-1 character, a cut copy) holds more valid multi-byte
    # characters than invalid sequences; a legacy encoding's accented bytes almost never form one. Read
    # as cp1252, such a file had become "RenÃ©e ... â‚¬400" throughout, without a word.
    if len(lossy) - len(lossy.encode("ascii", errors="ignore")) - bad > bad:
        # A byte that is no UTF-8 in such a file is most likely a Windows-1252 character pasted into it
        # (a paragraph from an old mail: "Renée", "€400"): read as that, only what still fails is lost.
        mixed = raw.decode("utf-8", errors=_CP1252_FALLBACK)
        left = mixed.count("\ufffd")
        if left == 0:
            return mixed, f"utf-8 with {bad} byte sequence(s) read as cp1252"
        if left < bad:
            return mixed, f"lossy utf-8 decode: {left} invalid byte(s) replaced, the others read as cp1252"
        return lossy, f"lossy utf-8 decode: {bad} invalid byte sequence(s) replaced"
    encoding = _legacy_encoding(bytes(raw[:DETECT_SAMPLE]))
    if encoding is not None:
        text = raw.decode(encoding, errors="replace")
        bad = text.count("\ufffd")
        if bad == 0:
            return text, f"decoded as {encoding} (not UTF-8)"
        if bad <= max(16, len(text) // 10):
            return text, f"lossy {encoding} decode: {bad} invalid byte sequence(s) replaced"
    if bad > max(16, len(lossy) // 10):
        raise ValueError(f"binary or undecodable file ({bad} invalid UTF-8 sequences)") from utf8_error
    return lossy, f"lossy utf-8 decode: {bad} invalid byte sequence(s) replaced"


# C0 controls but tab/newline/CR, DEL, C1 controls, and whole ANSI escape sequences: a BEL in a
# journal must not ring the terminal of whoever reads the summary.
_CONTROL_CHARS = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[@-_]|[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f]")


def strip_control(text: str) -> tuple[str, int]:
    """``text`` without control characters (form feeds become newlines), and how many went."""
    if "\x0c" in text:
        text = text.replace("\x0c", "\n")
    if _CONTROL_CHARS.search(text) is None:
        return text, 0
    n = 0

    def drop(_m: re.Match[str]) -> str:
        nonlocal n
        n += 1
        return ""

    return _CONTROL_CHARS.sub(drop, text), n
