"""An ad opens only where a sponsor is named beside a show, an offer or an address, and a sentence that points
back ("It ...", "They ...") goes on with it only when it or the next names the sponsor or an offer. The search for
the show beside "supported by X" looks back a clause, not over a whole unpunctuated caption."""

from __future__ import annotations

from batchsum.backends.adverts import advert_segments, sponsor
from batchsum.backends.units import units_from_text

BILL = (
    "The committee met on Tuesday. The bill was sponsored by Senator Warren. It would raise the minimum wage to "
    "$15 by 2027. They expect a vote in March. Critics say small firms will suffer.\n"
)
THANKS = (
    "Thanks to Squarespace for sponsoring this episode. It has been a long year for our team. Their new studio "
    "in Leeds opened in June. We talk to Maya about coral reefs today.\n"
)


def test_a_bill_sponsored_by_a_senator_is_news_and_so_is_what_follows() -> None:
    units = units_from_text(BILL, "document")
    assert len(units) == 5
    assert all(u.candidate for u in units), [u.text for u in units if not u.candidate]


def test_a_show_sentence_after_a_sponsors_thanks_is_the_shows() -> None:
    units = {u.text: u.candidate for u in units_from_text(THANKS, "document")}
    assert not units["Thanks to Squarespace for sponsoring this episode."]
    assert units["It has been a long year for our team."]
    assert units["Their new studio in Leeds opened in June."]


def test_a_run_that_points_back_goes_on_with_the_ad_up_to_its_offer() -> None:
    said = [
        "This show is sponsored by Brightwave.",
        "They last forty hours on a single charge.",
        "They fold flat into a jacket pocket.",
        "Get twenty percent off at brightwave.com/harbor.",
        "It was a cold morning on the harbor when we set out.",
    ]
    assert advert_segments(said, [True] * len(said)) == {0, 1, 2, 3}


def test_a_show_word_far_back_in_an_unpunctuated_caption_opens_no_ad() -> None:
    """The show must stand beside "supported by X": a lazy scan from every show word of a 150 KB caption line
    to the next "supported by" had taken 41 s (checked by hand: 0.2 s now)."""
    filler = "and we talked about how the harbor silted up every winter " * 4000  # about 240 KB, no stop
    far = "in this video " + filler + "the claim is supported by Smith and his data"
    assert sponsor(far) is None
    near = filler + "and this video is supported by Brightwave and its headphones " + filler
    assert sponsor(near) == "Brightwave"
    units = units_from_text("hey everyone " + near + "\n", "document")
    assert units and not any(u.candidate for u in units)
