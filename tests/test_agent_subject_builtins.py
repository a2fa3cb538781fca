"""A builtin an agent session is about is one of its entities: the task names it as code ("use round()
instead of int()") or the final diff changes it; one only said in passing (`print`, `len`) stays out."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from batchsum.cli import main
from batchsum.tree import node_path, read_node

_SHELL = "(Open file: /repo/totals.py)\n(Current directory: /repo)\nbash-$"
_DIFF = """diff --git a/totals.py b/totals.py
index 1b2c3d4..5e6f7a8 100644
--- a/totals.py
+++ b/totals.py
@@ -3,4 +3,4 @@ def total(rows):
     amounts = [row.amount for row in rows]
-    return int(sum(amounts))
+    return round(sum(amounts))  # int cut the cents
"""


def _session(task: str) -> str:
    turns = [
        f"### user\n\n{task}",
        "### assistant\n\nThe `print` and `len` calls in the traceback are not the cause; "
        "`int` truncates the `sum` of the amounts, `round` does not. Let's edit `totals.py`.\n```\nedit 6:6\n"
        "    return round(sum(amounts))\nend_of_edit\n```",
        f"### user\n\nFile updated.\n{_SHELL}",
        "### assistant\n\nThe totals are right now. Let's submit.\n```\nsubmit\n```",
        f"### user\n\n{_DIFF}\n{_SHELL}",
    ]
    return "\n\n".join(turns)


def _entities(tmp_path: Path, session: str) -> list[str]:
    corpus, out = tmp_path / "corpus", tmp_path / "out"
    corpus.mkdir()
    (corpus / "session.md").write_text(session, encoding="utf-8")
    r = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out), "--no-index", "--no-metrics", "-q"])
    assert r.exit_code == 0, r.output
    meta, _ = read_node(node_path(out, "session.md", 3, None))
    assert meta["agent_session"]
    return list(meta.get("entities", []))


def test_the_task_and_the_diff_keep_their_builtins(tmp_path: Path) -> None:
    entities = _entities(tmp_path, _session("The invoice totals lose cents: use round() instead of int() for them."))
    assert {"round", "int"} <= set(entities)
    assert not {"print", "len"} & set(entities)  # said in passing


def test_the_diff_alone_keeps_what_it_changes(tmp_path: Path) -> None:
    entities = _entities(tmp_path, _session("The invoice totals lose their cents. Please fix the rounding of them."))
    assert "round" in entities and "int" in entities  # the diff replaces one with the other
    assert not {"print", "len", "sum"} & set(entities)  # "sum" is on both sides of the change
