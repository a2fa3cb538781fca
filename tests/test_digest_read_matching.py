"""A month digest's sentence is placed under the day whose final holds it also when the summarizer's reading
took something out of it: a footnote mark ("Sheriff-substitute[319]"), a link's address ("[lake](https://...)").
Matched against the finals as written, such a sentence had been found in none and stayed under the previous
day's label, and its own day had no label."""

from __future__ import annotations

import re
from pathlib import Path

import batchsum

DAYS = {
    "2023-10-24": "Rose early, and wrote hard till two, when I went with Anne to Minto. The roads were bad and "
    "the horses tired after the long climb over the hill. We dined late and talked of the old days at the "
    "college with great pleasure.",
    "2023-10-29": "I was up as usual, and wrote about two leaves; but found my Sheriff-substitute[319] here on my "
    "return, which took up the evening. We read the [harbour report](https://example.org/report) by the fire. "
    "But I shall finish the volume on Sunday.",
    "2023-10-30": "Walked to the [lake](https://example.org/lake) with the dogs in the rain. "
    "The water was high and brown after the storms, "
    "and the boat was half full of rain-\nwater from the night.",
}
# Words of one day only: each of its sentences names one of them.
OWN = {
    "2023-10-24": ("Minto", "horses", "college"),
    "2023-10-29": ("Sheriff-substitute", "harbour", "volume"),
    "2023-10-30": ("lake", "storms", "night"),
}


def test_each_day_keeps_its_sentences_when_the_summarizer_took_marks_out_of_them(tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    for day, text in DAYS.items():
        (src / f"{day}.md").write_text(text + "\n", encoding="utf-8")
    batchsum.run([src], out=out, content_type="journal", metrics=False)
    body = (out / "digests" / "2023" / "2023-10.md").read_text(encoding="utf-8").split("<!--")[0]
    paragraphs = {
        f"2023-10-{int(m.group(1)):02d}": m.group(2)
        for m in re.finditer(r"^\*\*(\d{1,2}) October\.\*\* (.*)$", body, re.M)
    }
    assert sorted(paragraphs) == sorted(DAYS), body
    for day, paragraph in paragraphs.items():
        for sentence in re.split(r"(?<=[.!?])\s+", paragraph):
            assert any(w in sentence for w in OWN[day]), (day, sentence)
    assert "[319]" not in body and "example.org" not in body
