"""A note's private marks stay on the machine and out of what a reader is shown: an LLM is sent a note as its
reader sees it (no front matter, hidden "%% ... %%" comments, properties, drawers, link, embed, block
reference or macro syntax), ``batchsum facts`` sends its entries so, and a short note kept whole is written so."""

from __future__ import annotations

import re
from pathlib import Path

import batchsum
from tests.fakeserver import FakeLLMServer
from tests.test_facts import extraction_requests, facts_cli, facts_json

SECRET = "4471"
MARKS = f"""%% private: the code to the safe is {SECRET} %%
Worked on the [[Garden Shed|shed]] roof with Marta all morning.
![[roof.png]]
- [ ] buy screws
- [x] order felt
mood:: calm
:LOGBOOK:
CLOCK: [2024-03-05 Tue 10:00]--[2024-03-05 Tue 11:00] =>  01:00
:END:
See ((6612a3b4-1c2d-4e5f-8a9b-0c1d2e3f4a5b)) and {{{{embed [[Other page]]}}}}.
"""
# Under a hundred tokens: kept whole.
SHORT_MARKS = f"""%% private: the code to the safe is {SECRET} %%
Worked on the [[Garden Shed|shed]] roof with Marta.
![[roof.png]]
- [ ] buy screws
- [x] order felt
mood:: calm
"""
FRONT = "---\ntitle: Private thoughts\nsecret_key: hidden-value\n---\n"
PROSE = (
    "The felt should last ten years if we seal the edges properly. Marta measured the rafters twice and "
    "found that the north side sags by almost two centimetres. We agreed to add a second purlin before "
    "the winter, and to order the timber from the yard in Leiria next week. "
)
# What no model may be sent and no reader shown: the marks' syntax and what hides behind it.
LEAKS = re.compile(rf"%%|\[\[|\]\]|::|\(\(|\{{\{{|:LOGBOOK:|{SECRET}|hidden-value|secret_key|- \[[ x]\]")


def _finals(out: Path) -> dict[str, str]:
    return {str(p.relative_to(out)): p.read_text(encoding="utf-8") for p in out.glob("**/summaries/*/final.md")}


def test_a_model_is_sent_a_note_as_its_reader_sees_it(tmp_path: Path, fake_llm: FakeLLMServer) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    (src / "shed.md").write_text(FRONT + "# Shed day\n\n" + MARKS + PROSE * 6, encoding="utf-8")
    # Long enough to be cut into chunks: every chunk is sent as read, not only the whole text.
    (src / "long.md").write_text(FRONT + "\n\n".join(MARKS + PROSE * 8 for _ in range(12)), encoding="utf-8")
    batchsum.run(str(src), out=str(out), base_url=fake_llm.base_url, model="fake", no_index=True, chunk_size=500)

    sent = [e.prompt_text for e in fake_llm.log]
    assert len(sent) > 3 and sum("Marta measured the rafters" in s for s in sent) > 2  # the prose is sent
    assert [LEAKS.findall(s) for s in sent if LEAKS.search(s)] == []
    assert any("shed roof" in s and "☐ buy screws" in s for s in sent)  # a link is its text, a task its box


def test_facts_are_extracted_from_entries_as_read(tmp_path: Path, fake_llm: FakeLLMServer) -> None:
    journal = tmp_path / "src" / "journal"
    journal.mkdir(parents=True)
    (journal / "2024-03-05.md").write_text(FRONT + "## 2024-03-05\n" + MARKS + PROSE, encoding="utf-8")
    fake_llm.configure(rules=[{"match": "The journal entry:", "content": facts_json("The user repairs a shed.")}])
    result = facts_cli(tmp_path / "src", "--out", tmp_path / "out", "--json", base_url=fake_llm.base_url)
    assert result.exit_code == 0, result.output
    sent = extraction_requests(fake_llm)
    assert len(sent) == 1 and "Marta measured the rafters" in sent[0] and "## 2024-03-05" in sent[0]
    assert LEAKS.findall(sent[0]) == []


def test_a_short_note_kept_whole_is_written_as_its_reader_sees_it(tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    (src / "shed.md").write_text(FRONT + "# Shed day\n\n" + SHORT_MARKS, encoding="utf-8")
    batchsum.run(str(src), out=str(out), no_index=True, no_metrics=True)
    (final,) = _finals(out).values()
    _, head, body = final.split("---\n", 2)
    assert "kept_whole: true" in head
    body = body.split("<!-- batchsum:links -->")[0].split("## Facets")[0]
    assert LEAKS.findall(body) == [] and "![" not in body
    assert "shed roof with Marta" in body and "☐ buy screws" in body and "☑ order felt" in body
    assert "\n\n\n" not in body  # the lines a removed mark leaves are one blank line
