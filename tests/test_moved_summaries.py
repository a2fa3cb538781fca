"""Summaries whose paths in the output change while their sources stay the same files (the paths given name
them otherwise) are named as moved by ``plan`` and ``run``, not only listed as new and deleted."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from batchsum.cli import main

NOTES = {
    "journal/2026-03-02.md": "Repotted the ferns and fixed the garden gate hinge before the rain came in.",
    "calls/planning.txt": "Ana: We move the launch to May.\nBen: Fine, I will tell the printers today.\nAna: Thanks.",
}


def _cli(*args: str) -> Any:
    res = CliRunner().invoke(main, [*args, "--no-index", "--no-digests"])
    assert res.exit_code == 0, res.output
    return res


def test_summaries_named_otherwise_are_said_to_move(tmp_path: Path) -> None:
    notes, other, out = tmp_path / "notes", tmp_path / "other", tmp_path / "out"
    for rel, text in NOTES.items():
        (notes / rel).parent.mkdir(parents=True, exist_ok=True)
        (notes / rel).write_text((text + "\n") * 8, encoding="utf-8")
    other.mkdir()
    (other / "list.md").write_text("Buy seed potatoes, twine and a new watering can for the allotment.\n" * 4)
    _cli("run", str(notes), "--out", str(out))  # one folder: its files named from inside it

    both = [str(notes), str(other), "--out", str(out)]  # two: each named by its folder now
    plan = json.loads(_cli("plan", *both, "--json").stdout)
    assert plan["moved"] == {f"notes/{rel}": rel for rel in NOTES}
    assert sum("moved" in line for line in plan["change_notes"]) == 1
    text = _cli("plan", *both).stdout.splitlines()
    assert "  + notes/calls/planning.txt (moved from calls/planning.txt)" in text
    assert "  + other/list.md" in text, "a file new to the folder is no move"

    run = json.loads(_cli("run", *both, "--json").stdout)
    said = [w for w in run["warnings"] if "moved" in w]
    assert len(said) == 1 and said[0].startswith("2 summaries moved"), run["warnings"]
    assert run["run"]["files_deleted"] == 2


def test_a_new_file_of_a_deleted_ones_name_is_no_move(tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    (src / "2023").mkdir(parents=True)
    (src / "2023/todo.md").write_text("Old project notes: migrate the wiki and archive the tickets.\n" * 6)
    (src / "garden.md").write_text("Garden plan: beans by the fence, squash in the corner bed.\n" * 6)
    (src / "notes.md").write_text("Notes on the reading group: chapter four of the lighthouse book.\n" * 6)
    _cli("run", str(src), "--out", str(out))
    (src / "2023/todo.md").unlink()
    (src / "todo.md").write_text("Groceries: milk, eggs, bread and a bag of onions for the soup.\n" * 6)
    (src / "notes.md").write_text("Notes on the reading group: we finished the book and chose the next.\n" * 6)

    where = [str(src), "--out", str(out)]
    plan = json.loads(_cli("plan", *where, "--json").stdout)
    assert plan["new"] == ["todo.md"] and plan["deleted"] == ["2023/todo.md"]
    assert plan["moved"] == {}, "another file of the same name higher up is not the deleted one"
    assert not any("moved" in line for line in plan["change_notes"])
    run = json.loads(_cli("run", *where, "--json").stdout)
    assert not [w for w in run["warnings"] if "moved" in w], run["warnings"]


def test_an_edited_file_is_no_move_target(tmp_path: Path) -> None:
    # A folder named as its root: a walk of several roots would name root/x.md notes/x.md too.
    src, out = tmp_path / "notes", tmp_path / "out"
    (src / "notes").mkdir(parents=True)
    (src / "notes/reading.md").write_text("Journal notes: the boiler man came and fixed the pilot light.\n" * 6)
    (src / "reading.md").write_text("Notes on the reading group: chapter four of the lighthouse book.\n" * 6)
    _cli("run", str(src), "--out", str(out))
    (src / "notes/reading.md").unlink()
    (src / "reading.md").write_text("Notes on the reading group: we finished the book and chose the next.\n" * 6)

    where = [str(src), "--out", str(out)]
    plan = json.loads(_cli("plan", *where, "--json").stdout)
    assert plan["changed"] == ["reading.md"] and plan["moved"] == {}, "a file summarized before took no other's place"
    run = json.loads(_cli("run", *where, "--json").stdout)
    assert not [w for w in run["warnings"] if "moved" in w], run["warnings"]


def test_a_folder_named_by_its_parents_among_several_is_found_alone(tmp_path: Path) -> None:
    work, home, out = tmp_path / "work/notes", tmp_path / "home/notes", tmp_path / "out"
    for folder, text in ((work, "Standup: the release slips a week."), (home, "Fix the gate; buy seed potatoes.")):
        folder.mkdir(parents=True)
        (folder / "week.md").write_text((text + "\n") * 8, encoding="utf-8")
    _cli("run", str(work), str(home), "--out", str(out))  # two "notes": named work-notes and home-notes

    plan = json.loads(_cli("plan", str(work), "--out", str(out), "--json").stdout)
    assert plan["moved"] == {"week.md": "work-notes/week.md"}


def test_a_root_walked_alone_puts_no_name_first_so_its_same_named_subfolder_is_no_root(tmp_path: Path) -> None:
    """notes/todo.md of the root notes, walked alone, was notes/notes/todo.md: when that subfolder goes, a new
    notes/todo.md is another file, not the deleted one moved (review s8 cr2)."""
    src, out = tmp_path / "notes", tmp_path / "out"
    (src / "notes").mkdir(parents=True)
    (src / "notes/todo.md").write_text("Old project notes: migrate the wiki and archive the tickets.\n" * 6)
    (src / "garden.md").write_text("Garden plan: beans by the fence, squash in the corner bed.\n" * 6)
    _cli("run", str(src), "--out", str(out))
    (src / "notes/todo.md").unlink()
    (src / "notes").rmdir()
    (src / "todo.md").write_text("Groceries: milk, eggs, bread and a bag of onions for the soup.\n" * 6)

    where = [str(src), "--out", str(out)]
    plan = json.loads(_cli("plan", *where, "--json").stdout)
    assert plan["new"] == ["todo.md"] and plan["deleted"] == ["notes/todo.md"]
    assert plan["moved"] == {}, "a file under the root is not one of its deleted subfolder of the root's name"
    run = json.loads(_cli("run", *where, "--json").stdout)
    assert not [w for w in run["warnings"] if "moved" in w], run["warnings"]
