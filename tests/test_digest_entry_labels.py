"""Every entry of a month's and a year's digest keeps a label of its own: a week file's dated lines each under
their day in the entry's language ("**6. März**", not "**2024-W10.** ... 2024-03-06: ..."), a file labelled by
its name ("**2024-W11.**") also in the year's digest (its sentences had run on under the day before's), and
month files of the same month in several folders told apart by folder (all had read "**2024-04.**")."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main
from batchsum.tree import read_node

# A German week of three days, enough that its final keeps lines of two of them, each after its day's ISO label.
WEEK = {
    "## Montag, 4. März 2024": [
        "Heute regnete es den ganzen Tag über dem alten Hafen, und die Fischer blieben an Land.",
        "Wir blieben im Haus und lasen die Briefe, die Tante Emma aus Hamburg geschickt hatte.",
        "Am Nachmittag kam der Nachbar mit einem Korb voller Eier und frischer Butter vorbei.",
        "Er erzählte lange von seinem Bruder in Amerika und dessen großer Farm am Mississippi.",
        "Gegen Abend hörte der Regen auf, und wir gingen am Ufer entlang bis zur Mühle.",
        "Der Müller zeigte uns das neue Rad, das er im Winter selbst gebaut hatte.",
        "Die Kinder zählten die Enten auf dem Teich und fütterten sie mit altem Brot.",
        "Nach dem Abendessen schrieb ich einen langen Brief an meine Schwester in Leipzig.",
        "Der Pfarrer kam zum Tee und sprach über die Reparatur des Kirchturms nach dem Blitzschlag.",
        "Meine Mutter strickte einen Schal für den Winter, obwohl der Frühling schon vor der Tür steht.",
        "Im Garten blühten die ersten Krokusse unter dem alten Birnbaum am Zaun.",
        "Der Postbote brachte eine Zeitung aus Berlin mit Nachrichten vom Reichstag.",
    ],
    "## Mittwoch, 6. März 2024": [
        "Der Zug nach München hatte zwei Stunden Verspätung wegen eines Sturms im Gebirge.",
        "Im Speisewagen trafen wir einen Maler aus Wien, der nach Italien unterwegs war.",
        "Er zeigte uns Skizzen von den Bergen am Gardasee und vom Dom in Mailand.",
        "In München regnete es noch immer, und wir nahmen eine Droschke zum Gasthof am Markt.",
        "Der Wirt gab uns ein Zimmer mit Blick auf die Frauenkirche und ihre grünen Hauben.",
        "Am Abend aßen wir Knödel mit Braten und tranken das dunkle Bier der Gegend.",
        "Ein Student am Nebentisch sprach begeistert von den Vorlesungen über Geologie.",
        "Spät in der Nacht kam noch ein Bote mit einem Paket von meinem Verleger.",
        "Ein Bergführer im Gasthof riet uns, den Brenner erst im April zu überqueren.",
        "Wir besuchten die Pinakothek und sahen die großen Gemälde von Rubens.",
        "Meine Frau kaufte Handschuhe aus weichem Leder in einem Laden an der Kaufingerstraße.",
        "Der Maler aus Wien versprach, uns aus Verona einen Brief zu schreiben.",
    ],
    "## Freitag, 8. März 2024": [
        "Am Abend besuchten wir das Theater und sahen ein Stück von Schiller über Wallenstein.",
        "Die Schauspieler waren jung und sehr begabt, besonders die Darstellerin der Thekla.",
        "Nach der Vorstellung tranken wir Wein mit dem Regisseur in einem kleinen Keller.",
        "Er will im Sommer mit seiner ganzen Truppe nach Prag und weiter nach Dresden reisen.",
        "Am Morgen hatte ich die Bibliothek besucht und alte Karten von Tirol studiert.",
        "Der Bibliothekar fand für mich eine Beschreibung der Straße über den Brenner.",
        "Mittags schneite es kurz, doch bald schien die Sonne über den Dächern der Stadt.",
        "Ich kaufte ein neues Notizbuch, denn das alte ist von der Reise ganz voll.",
        "Die Zeitung meldete, dass die Isar nach dem Tauwetter stark angestiegen sei.",
        "Ein alter Freund aus Göttingen schrieb, er habe endlich seine Professur erhalten.",
        "Wir planten die Weiterreise über Innsbruck nach Bozen für die nächste Woche.",
        "Zum Abschluss des Tages las ich noch zwei Kapitel in Goethes Reisetagebuch.",
    ],
}
DAY = {"4": "4. März", "6": "6. März", "8": "8. März"}


def _write(src: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        (src / rel).write_text(text, encoding="utf-8")


def _digest(src: Path, out: Path, page: str, *options: str) -> str:
    result = CliRunner().invoke(main, ["run", str(src), "--type", "journal", "--out", str(out), *options])
    assert result.exit_code == 0, result.output
    return read_node(out / "digests" / page)[1].split("<!-- batchsum:links -->")[0]


def _week() -> str:
    return "\n\n".join(f"{head}\n\n{' '.join(lines)}" for head, lines in WEEK.items())


def _labelled(body: str) -> list[tuple[str, str]]:
    """A digest's text as (label, the words after it up to the next label)."""
    pieces = re.split(r"\*\*([^*\n]+)\*\* ", body)
    return [(pieces[k], pieces[k + 1]) for k in range(1, len(pieces) - 1, 2)]


def _day_of(sentence_words: str) -> str | None:
    """The day (of ``DAY``) whose lines of the week hold a sentence of ``sentence_words``."""
    for head, lines in WEEK.items():
        if any(line[:40] in sentence_words for line in lines):
            return DAY[re.search(r"(\d)\. März", head).group(1)]  # type: ignore[union-attr]
    return None


def test_a_week_files_lines_are_each_under_their_own_days_label(tmp_path: Path) -> None:
    src = tmp_path / "src"
    _write(src, {"de/2024-W10.md": _week(), "de/2024-03-12.md": "Der Schmied beschlug heute unser Pferd neu."})
    body = _digest(src, tmp_path / "out", "2024/2024-03.md")
    assert not re.search(r"\d{4}-\d{2}-\d{2}", body)  # no ISO label inline
    runs = _labelled(body)
    week_days = {_day_of(words) for _, words in runs} - {None}
    assert len(week_days) >= 2  # the month quotes lines of two of the week's days
    for label, words in runs:
        day = _day_of(words)
        assert day is None or label == day, (label, words)


def test_a_years_digest_keeps_each_entrys_label_of_any_kind(tmp_path: Path) -> None:
    src = tmp_path / "src"
    french = (
        "Nous avons traversé le lac en barque avec le vieux pêcheur du village. "
        "Le soir, la tante Louise nous a lu les lettres de son frère parti en Algérie."
    )
    _write(src, {"de/2024-W10.md": _week(), "fr/2024-W11.md": french})
    # 60 words: the month quotes each of the week's three days as a peer, whose three lines fill 40.
    year = _digest(src, tmp_path / "out", "2024.md", "--year-words", "60")
    runs = _labelled(year)
    assert any("Algérie" in words or "pêcheur" in words for _, words in runs)
    for label, words in runs:
        french_words = "pêcheur" in words or "Algérie" in words
        # The French week's words under its own name, never under a German day's label, nor German under its.
        assert french_words == (label == "2024-W11."), (label, words)
        if not french_words:
            assert _day_of(words) in (None, label), (label, words)


def test_month_files_of_one_month_in_several_folders_are_told_apart(tmp_path: Path) -> None:
    src = tmp_path / "src"
    _write(
        src,
        {
            "de/2024-04.md": "Im April pflanzten wir Kartoffeln im Garten hinter dem Haus.",
            "fr/2024-04.md": "En avril, nous avons repeint la cuisine en jaune clair.",
            "es/2024-04.md": "En abril fuimos a Sevilla para ver la feria con mis primos.",
        },
    )
    body = _digest(src, tmp_path / "out", "2024/2024-04.md")
    labels = [label for label, _ in _labelled(body)]
    assert len(labels) == 3
    assert len(set(labels)) == 3, labels
    assert all(folder in " ".join(labels) for folder in ("de", "fr", "es"))
