"""A short Markdown conversation of turns only ("**Maya:** [00:00] ...", "Maya: [00:00] ...") kept whole reads as the
same turns in a .txt do: cleaned as speech, its timestamps gone from the final and the digests that quote it. A
Markdown meeting note (a heading, prose between turns) keeps its text as written."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main
from batchsum.tree import node_path, read_node

TURNS = [
    ("Maya", "00:00", "Welcome back to the show."),
    ("Jonas", "00:14", "Thanks, glad to be here."),
    ("Maya", "00:28", "Tell us about the new album."),
    ("Jonas", "00:42", "We recorded it in a lighthouse."),
]
SOURCES = {
    "bold.md": "\n\n".join(f"**{who}:** [{at}] {said}" for who, at, said in TURNS) + "\n",
    "plain.md": "".join(f"{who}: [{at}] {said}\n" for who, at, said in TURNS),
    "plain.txt": "".join(f"{who}: [{at}] {said}\n" for who, at, said in TURNS),
}
MEETING = "## Harbor Talk prep\n\nWe met at the studio.\n\n" + SOURCES["plain.md"]


def _run(tmp_path: Path, sources: dict[str, str]) -> Path:
    corpus, out = tmp_path / "c", tmp_path / "o"
    corpus.mkdir()
    for name, text in sources.items():
        (corpus / name).write_text(text, encoding="utf-8")
    r = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--no-index"])
    assert r.exit_code == 0, r.output
    return out


def _body(out: Path, name: str) -> str:
    _, body = read_node(node_path(out, name, 3, None))
    return body.split("<!--")[0].split("## Facets")[0].strip()


def test_a_markdown_transcript_kept_whole_reads_as_the_txt_one(tmp_path: Path) -> None:
    out = _run(tmp_path, SOURCES)
    txt = _body(out, "plain.txt")
    assert "[00:" not in txt
    assert _body(out, "bold.md") == txt and _body(out, "plain.md") == txt
    digest = (out / "digests" / "top.md").read_text(encoding="utf-8")
    assert "lighthouse" in digest and "[00:" not in digest


def test_a_markdown_meeting_note_kept_whole_stays_as_written(tmp_path: Path) -> None:
    meeting = _body(_run(tmp_path, {"meeting.md": MEETING}), "meeting.md")
    assert meeting.startswith("## Harbor Talk prep") and "[00:42]" in meeting
