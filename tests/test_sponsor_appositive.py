"""A host's sponsor read that names its sponsor in apposition, with no verb ("Our second sponsor tonight, our
fantastic friends at Dwarven Forge."), opens the read as "our sponsor is X" does: it never opens a summary."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from batchsum.backends.adverts import advert_segments, sponsor
from batchsum.cli import main
from batchsum.tree import node_path, read_node

STREAM = "\n".join(
    [
        "MATT: Hello everyone, and welcome to tonight's episode of our game show, where we play Dungeons and Dragons.",
        "MATT: Our second sponsor tonight, our fantastic friends at Dwarven Forge. You may have seen their terrain"
        " on this show. I love them, and they launched another Kickstarter recently for their Caverns Deep set, which"
        " is awesome. It offers 15 different distinct encounter areas, like the Webbed Lair, the Mushroom Grotto,"
        " and a brand new forest terrain system called the Dreadhollow Forest.",
        "LIAM: I backed that!",
        "MATT: Last we left off, the party had fought the cultist Lorenzo in the fortress under the mountain and freed"
        " their captured friend Yasha from the cages.",
        "TRAVIS: We carry Yasha out of the fortress and load her onto the cart.",
        "MATT: You bury Molly at the edge of the road under the trees and set his coat on the grave as a marker.",
        "LAURA: We should head back to the city and tell the Gentleman that the job is done.",
    ]
)


@pytest.mark.parametrize(
    ("sentence", "name"),
    [
        ("Our second sponsor tonight, our fantastic friends at Dwarven Forge.", "Dwarven Forge"),
        ("Our first sponsor today: the folks at Backblaze!", "Backblaze"),
        ("Our first sponsor, Backblaze.", "Backblaze"),
    ],
)
def test_a_sponsor_named_in_apposition_opens_a_read(sentence: str, name: str) -> None:
    assert sponsor(sentence) == name
    assert advert_segments([sentence], [False]) == {0}


@pytest.mark.parametrize(
    "sentence",
    ["Our sponsor tonight, I think, missed the show.", "Our sponsor, however, left early.", "Our sponsors, Acme and"],
)
def test_an_apposition_without_a_name_is_not_a_read(sentence: str) -> None:
    assert sponsor(sentence) is None


def test_a_streams_appositive_sponsor_never_reaches_its_final(tmp_path: Path) -> None:
    corpus, out = tmp_path / "c", tmp_path / "o"
    corpus.mkdir()
    (corpus / "stream.txt").write_text(STREAM + "\n", encoding="utf-8")
    r = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--type", "conversation", "--no-index"])
    assert r.exit_code == 0, r.output
    _, body = read_node(node_path(out, "stream.txt", 3, None))
    summary = body.split("<!--")[0].split("## Facets")[0]
    assert summary.strip(), body
    assert "sponsor" not in summary.lower() and "Dwarven Forge" not in summary, summary
