"""Offline rule-based facets: decisions, action items with owners and dates, open questions, entities."""

from __future__ import annotations

import os
from pathlib import Path

import yaml

from batchsum.facets import extract_facets, facets_front_matter, render_facets_markdown

REPO = Path(__file__).resolve().parent.parent

MEETING = """\
Maya: Okay, let's start. The venue question first.
Luis: The Lisbon venue doubled its price, so I want to propose Porto instead.
Maya: Then that's decided: the offsite moves to Porto in November.
Luis: I'll confirm the booking today and pay the deposit by Friday.
Maya: Priya, can you write the design note for the sync endpoint?
Priya: Sure. What format should the export use for the school?
Jonas: Jonas to check the buoy antennas next week.
Alice: Should we also invite the cooperative to the offsite meeting?
Maya: We need to finish the grant report before the offsite.
Alice: The open question is still whether the dashboard works on old phones.
"""


def test_decisions_actions_questions() -> None:
    f = extract_facets(MEETING)
    assert f.source == "extracted"
    assert f.participants == ["Maya", "Luis", "Priya", "Jonas", "Alice"]
    assert any("decided" in d and "Porto" in d for d in f.decisions)
    owners = {a.owner: a for a in f.action_items}
    assert owners["Luis"].task.startswith("I'll confirm the booking") and owners["Luis"].due == "Friday"
    assert "Priya" in owners and "design note" in owners["Priya"].task
    assert "Jonas" in owners and owners["Jonas"].due == "next week"
    assert any(a.owner is None and "grant report" in a.task for a in f.action_items)
    assert any("open question" in q for q in f.unresolved)
    # A question nobody answers is not taken for an open one: in meetings most such are about the room.
    assert not any("invite the cooperative" in q for q in f.unresolved)


def test_a_suggestion_a_negated_future_or_talk_about_the_room_is_no_action_item() -> None:
    f = extract_facets(
        "Ana: We should put zap buttons on the remote control.\n"
        "Ben: We have to finish the grant report by Friday.\n"
        "Ana: Well, I'll never have to buy any batteries again with that one.\n"
        "Ben: I'll figure out the average of the ratings here.\n"
        "Ana: I've I will also take notes during this meeting.\n"
        "Ben: I'll send the minutes to everyone tomorrow.\n"
    )
    tasks = [a.task for a in f.action_items]
    assert any("grant report" in t for t in tasks), "an obligation with a deadline is a task"
    assert any("send the minutes" in t for t in tasks)
    assert not any(w in t for t in tasks for w in ("zap buttons", "batteries", "average", "take notes")), tasks


def test_a_name_keeps_its_particles() -> None:
    text = (
        "Luis: The offsite moves from Lisbon to Casa do Farol in Porto.\n"
        "Maya: Then we book Casa do Farol for two nights, and the train from Lisbon.\n"
    )
    names = extract_facets(text).entities
    assert "Casa do Farol" in names and "Casa" not in names and "Farol" not in names


def test_answered_question_is_not_unresolved() -> None:
    f = extract_facets("Ana: Should the card turn red automatically?\nBen: It will, above 25 NTU at two buoys.\n")
    assert f.unresolved == []


def test_entities_paths_identifiers_and_names() -> None:
    text = (
        "Ana: The bug is in src/app/fields.py, in `TimeDelta._serialize`, not in utils.py.\n"
        "Ben: YOU MUST READ THIS. The JSON export from DuckDB is fine, Porto said so and Porto agreed.\n"
    )
    f = extract_facets(text, entities=["pytest -k fields"])
    assert f.entities[0] == "pytest -k fields"
    assert f.entities[1:4] == ["src/app/fields.py", "utils.py", "TimeDelta._serialize"]
    assert set(f.entities[4:]) == {"DuckDB", "JSON", "Porto"}  # paths and identifiers, then at most five names
    names = extract_facets(text).entities
    assert {"DuckDB", "JSON"} <= set(names)
    assert "YOU" not in names and "MUST" not in names and "TimeDelta" not in names


def test_words_in_capitals_file_names_and_stray_backticks_are_not_names() -> None:
    text = (
        "User: Read the ISSUE below, then fix it. Do not touch the CI config.\n"
        "User: The issue: the JSON export drops rows. Note: this is not a drill, and the CI is green.\n"
        "Tool: AUTHORS.rst\npyproject.toml\nazure-pipelines.yml\n"
        "Assistant: I'll run `pytest -x`, then edit the ` and ` bits of `fields.py` before we ship it.\n"
    )
    entities = extract_facets(text).entities
    assert {"pyproject.toml", "azure-pipelines.yml", "pytest -x", "fields.py", "JSON"} <= set(entities)
    # "ISSUE" is "issue" in capitals; a file name opening a line keeps its case; " and " lies between two spans.
    assert not {"ISSUE", "Pyproject.toml", "Azure-pipelines.yml", "and"} & set(entities)


def test_sample_chat_has_owners() -> None:
    text = (REPO / "sample_corpus" / "chats" / "team-channel-2026-10-17.txt").read_text()
    f = extract_facets(text)
    owners = {a.owner for a in f.action_items}
    assert {"Jonas", "Alice"} <= owners  # "Luis: I'll order three." is too short to stand on its own
    assert any(a.due == "Monday" for a in f.action_items)


def test_agent_mode_keeps_only_latest_plans() -> None:
    turns = [("Assistant", f"Let's run step number {i} of the plan now.") for i in range(8)]
    assert extract_facets(turns).action_items == []  # in a meeting "let's" proposes what to do in the room
    due = [("AB"[i % 2], f"Let's run step number {i} of the plan by Friday.") for i in range(8)]
    assert len(extract_facets(due).action_items) == 5  # with a deadline it is a task; at most five per kind
    kept = extract_facets(turns, agent=True).action_items
    assert [a.task for a in kept] == [f"Let's run step number {i} of the plan now." for i in (5, 6, 7)]


def test_rendering_is_marked_extracted() -> None:
    f = extract_facets(MEETING)
    md = render_facets_markdown(f)
    assert md.startswith("## Facets (extracted)")
    assert "not written by a model" in md
    assert "- Luis: I'll confirm the booking today and pay the deposit by Friday. (due: Friday)" in md
    fm = facets_front_matter(f)
    assert fm["facets_source"] == "extracted"
    assert yaml.safe_load(yaml.safe_dump(fm)) == fm
    assert {"task", "owner", "due"} >= set(fm["action_items"][0])


def test_empty_and_code_only_input() -> None:
    assert extract_facets("").is_empty()
    f = extract_facets([("Assistant", "```\nwe will decide later\n```")])
    assert f.decisions == [] and f.action_items == []


NOISY_MEETING = """\
Grad A: Okay , so we 're recording {disfmarker} um , is that good ?
Professor C: Yeah . So I 'm already up there ?
Grad B: The Source - Path - Goal schema is what the belief - net needs for the Tango mode decision .
Grad B: So we decided to {disfmarker} to use the JavaBayes package for the belief - net , because it is free .
Professor C: And we decided that the JavaBayes package will run on the Linux server in Berkeley .
Grad A: I will write the list of factors for the belief - net by Monday .
Professor C: Can you , uh , Or , can you send the transcripts to the Berkeley group ?
Grad B: What exactly does the belief - net compute from the transcripts of the Berkeley data ?
Grad A: The belief - net in Berkeley uses the JavaBayes package and the SmartKom data .
"""


def test_facets_of_a_noisy_meeting_are_clean_whole_sentences_with_speaker_owners() -> None:
    f = extract_facets(NOISY_MEETING)
    items = f.decisions + f.unresolved + [a.task for a in f.action_items]
    assert items, f
    for item in items:
        assert "{" not in item and " ," not in item and " ?" not in item and " 're" not in item, item
        assert item[0].isupper() and item[-1] in ".!?" and len(item.split()) >= 5, item
    assert all(a.owner in {"Grad A", "Grad B", "Professor C"} for a in f.action_items if a.owner), f.action_items
    assert not any(q.startswith(("Is that good", "So I", "I'm already")) for q in f.unresolved)
    for kind in (f.decisions, f.action_items, f.unresolved, f.entities):
        assert len(kind) <= 5
    assert "JavaBayes" in f.entities and "Berkeley" in f.entities
    assert not {"The", "Yes", "Or", "So", "Source", "Okay"} & set(f.entities)


def test_topics_are_the_same_in_every_process() -> None:
    # A set's order follows the string hash seed, which differs from one process to the next.
    import subprocess
    import sys

    code = (
        "from batchsum.facets import extract_facets\n"
        "turns = ['Ana: The budget for the harbour sensors is late again.',"
        " 'Ben: The harbour sensors need a budget line and a supplier.',"
        " 'Ana: Our supplier quoted the sensors twice, the budget once.',"
        " 'Ben: Then the supplier and the harbour team meet on Friday.']\n"
        "print(extract_facets('\\n'.join(turns)).topics)\n"
    )
    outs = {
        subprocess.run(
            [sys.executable, "-c", code], env={**os.environ, "PYTHONHASHSEED": seed}, capture_output=True, text=True
        ).stdout
        for seed in ("1", "2", "3", "4")
    }
    assert len(outs) == 1 and "harbour" in next(iter(outs)), outs


def test_the_meetings_own_agenda_a_supposition_and_a_restart_are_no_action_items() -> None:
    text = (
        "Project Manager: I'll shortly ask for three presentations about the remote control design.\n"
        "Project Manager: Before I do that, however, I will go through the new project requirements today.\n"
        "Marketing: Let's assume those are the posterior probabilities of the whole network.\n"
        "Industrial Designer: We need to decide what is going to make our remote control different.\n"
        "Professor: I'll dis I'll disregard these numbers from the last experiment.\n"
        "Marketing: Yes, I'll just get this slide up on the screen for everybody.\n"
        "User Interface: It's probably easier if you put it on yours and then I'll just email it to you.\n"
        "Project Manager: We'll skip next week, and we'll meet two weeks from now in the big room.\n"
    )
    tasks = [a.task for a in extract_facets(text).action_items]
    assert tasks == [
        "It's probably easier if you put it on yours and then I'll just email it to you.",
        "We'll skip next week, and we'll meet two weeks from now in the big room.",
    ], tasks


def test_a_forecast_an_admission_and_a_step_taken_in_the_room_are_no_action_items() -> None:
    # Nor is a call's hand-over ("I'll now turn the discussion over to ...").
    text = (
        "Marketing: I will admit I don't know what the abbreviation on the slide stands for.\n"
        "Grad A: The other thing that's real funny, I'll spoil it for you before the demo.\n"
        "PhD C: We'll probably get lots of errors because of the cross-talk and the noises.\n"
        "Hon. Patty Hajdu: We need to understand that this is a complex issue for the provinces.\n"
        "Project Manager: I will delete this one now because we don't use it yet.\n"
        "Craig Lindner: I'll now turn the discussion over to Craig for the quarterly results.\n"
        "Operator: We'll now open the lines for the questions from the analysts on the call.\n"
        "Rich Fairbank: Turning to Slide 4, I will cover the changes in our allowance in greater detail.\n"
        "Bill McDermott: With that, I'll open it up for Q&A and the questions of the analysts.\n"
        "Industrial Designer: I will send the drawings of the new case to the factory on Friday.\n"
    )
    assert [(a.owner, a.task) for a in extract_facets(text).action_items] == [
        ("Industrial Designer", "I will send the drawings of the new case to the factory on Friday.")
    ]


def test_a_function_word_capitalised_mid_sentence_is_no_name() -> None:
    text = (
        "Ana: We open an office in Porto. How Shall we do the logo for it, in black or not?\n"
        "Ben: I asked the people in Porto. How Shall we pay for the printing of the logo?\n"
    )
    names = extract_facets(text).entities
    assert "Porto" in names and "Shall" not in names


def test_a_turn_of_several_speakers_makes_each_of_them_a_participant() -> None:
    text = (
        "MATT: You reach the gates of the city as the sun goes down behind the hills.\n"
        "TRAVIS, LAURA: We'll get the horses inside before the guards close the gates.\n"
        "SAM: I'll pay the toll for the cart and the horses tomorrow morning at the market.\n"
    )
    facets = extract_facets(text)
    assert facets.participants == ["MATT", "TRAVIS", "LAURA", "SAM"]


def test_a_slide_label_and_an_accounting_acronym_are_no_names_a_company_is() -> None:
    text = (
        "Joe: On Slide 4 you see that GAAP earnings rose, and Live Nation sold more tickets than in the spring.\n"
        "Ann: As Slide 5 shows, GAAP margins held, and Live Nation plans live shows in the summer again.\n"
        "Joe: Our Page 7 table repeats the GAAP figures that Live Nation reported to the market.\n"
    )
    names = extract_facets(text).entities
    assert "Live Nation" in names
    assert not {"Slide", "Page", "GAAP"} & set(names), names
