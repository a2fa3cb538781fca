"""Rule-based tool-result extractors: one per tool kind, plus how a result's tool is recognised."""

from __future__ import annotations

from batchsum.compact.extractors import (
    Turn,
    classify_turns,
    command_kind,
    definitions,
    format_summary,
    summarize_tool_result,
)
from batchsum.compact.messages import Message, ToolCall
from batchsum.tokens import get_tokenizer

TOK = get_tokenizer()


def _tool(content: str, name: str | None = None, command: str | None = None, args: dict | None = None) -> Turn:
    return Turn(
        0, Message("tool", content, name=name), "tool_result", command=command, tool_name=name, tool_args=args or {}
    )


def test_read_file_python_definitions() -> None:
    content = (
        "import os\n\nclass Loader:\n    def load(self):\n        pass\n\n"
        "def main():\n    pass\n\nasync def fetch():\n    pass\n"
    )
    s = summarize_tool_result(_tool(content, "read_file", args={"path": "src/loader.py"}), TOK)
    assert s.kind == "read_file" and s.status == "success"
    assert s.key_facts[:3] == ["File: src/loader.py", "Lines: 11", "Type: python"]
    assert "Defines: Loader, main, fetch" in s.key_facts
    assert s.files == ["src/loader.py"]


def test_read_file_typescript_exports_and_viewer_header() -> None:
    content = "[File: /app/src/api.ts (120 lines total)]\n1:export function hello() {}\n2:export const world = 42;\n"
    s = summarize_tool_result(_tool(content, command="open /app/src/api.ts"), TOK)
    assert s.kind == "read_file"
    assert "File: /app/src/api.ts" in s.key_facts and "Lines: 120" in s.key_facts and "Type: typescript" in s.key_facts
    assert "Defines: hello, world" in s.key_facts


def test_definitions_other_languages() -> None:
    assert definitions("pub fn run() {}\nstruct Cfg;\nimpl Cfg {}\n", "rust") == ["run", "Cfg"]
    assert definitions("func Serve(w http.ResponseWriter) {}\ntype Server struct{}\n", "go") == ["Serve", "Server"]
    assert definitions("public class App {\n}\n", "java") == ["App"]


def test_shell_error_exit_status_and_last_lines() -> None:
    content = "npm test\n> jest\nError: Module not found: 'left-pad'\n    at require (x.js:1)\nexit code: 1"
    s = summarize_tool_result(_tool(content, "execute_bash", args={"command": "npm test"}), TOK)
    assert s.kind == "shell" and s.status == "error"
    assert "Command: npm test" in s.key_facts and "Exit: 1" in s.key_facts
    assert any(f.startswith("Error: Error: Module not found") for f in s.key_facts)
    assert s.errors and "Module not found" in s.errors[0]
    ok = summarize_tool_result(_tool("3 passed in 0.2s\nexit code 0", "bash", args={"command": "pytest"}), TOK)
    assert ok.status == "success" and "Exit: 0" in ok.key_facts and any("3 passed" in f for f in ok.key_facts)


def test_traceback_without_exit_code_is_an_error() -> None:
    content = 'Traceback (most recent call last):\n  File "r.py", line 1\nZeroDivisionError: division by zero\n'
    s = summarize_tool_result(_tool(content, command="python r.py"), TOK)
    assert s.status == "error" and not any(f.startswith("Exit") for f in s.key_facts)
    assert s.errors[0] == "ZeroDivisionError: division by zero"  # the error's name, not the traceback's header
    assert s.files == ["r.py"]
    header_only = summarize_tool_result(_tool("Traceback (most recent call last):\n", command="python r.py"), TOK)
    assert header_only.errors == ["Traceback (most recent call last):"]  # all there is to say


def test_search_results() -> None:
    content = (
        'Found 4 matches for "TimeDelta" in /repo/src:\n/repo/src/fields.py (3 matches)\n'
        "/repo/src/utils.py (1 matches)\nEnd of matches"
    )
    s = summarize_tool_result(_tool(content, command='search_dir "TimeDelta" src'), TOK)
    assert s.kind == "search"
    assert 'Pattern: "TimeDelta"' in s.key_facts and "Matches: 4" in s.key_facts and "Files: 2" in s.key_facts
    grep = summarize_tool_result(_tool("a.py:3:x = 1\nb/c.py:9:x = 2\n", "grep", args={"pattern": "x ="}), TOK)
    assert grep.key_facts[:3] == ['Pattern: "x ="', "Matches: 2", "Files: 2"]
    none = summarize_tool_result(_tool('No matches found for "zzz" in /repo', command="search_dir zzz"), TOK)
    assert none.status == "partial" and "Matches: 0" in none.key_facts


def test_file_create_and_edit() -> None:
    created = summarize_tool_result(
        _tool("File created.", "create_file", args={"path": "notes.md", "content": "a\nb\nc"}), TOK
    )
    assert created.kind == "create_file" and "File: notes.md" in created.key_facts
    assert "Change: +3/-0 lines" in created.key_facts
    edit_cmd = "edit 10:12\n    return round(x)\n    # fixed\nend_of_edit"
    edited = summarize_tool_result(
        _tool("File updated.\n[File: /r/f.py (99 lines total)]\n10:    return round(x)", command=edit_cmd), TOK
    )
    assert edited.kind == "edit_file" and edited.status == "success"
    assert "Change: 2 lines written at 10:12" in edited.key_facts and "Now: 99 lines" in edited.key_facts
    failed = summarize_tool_result(
        _tool(
            "Your proposed edit has introduced new syntax error(s).\nERRORS:\n"
            "- E999 IndentationError: unexpected indent\n"
            "This is how your edit would have looked if applied\n"
            "[File: /r/f.py (99 lines total)]\n1:except ValueError as error:",
            command=edit_cmd,
        ),
        TOK,
    )
    assert failed.status == "error" and failed.errors[0] == "E999 IndentationError: unexpected indent"


def test_unknown_tool_keeps_head_and_tail() -> None:
    content = "BEGIN " + " ".join(f"w{i}" for i in range(2000)) + " END"
    s = summarize_tool_result(_tool(content, "fetch_url"), TOK)
    assert s.kind == "other"
    excerpt = next(f for f in s.key_facts if f.startswith("Excerpt: "))
    assert excerpt.startswith("Excerpt: BEGIN") and excerpt.endswith("END") and "omitted" in excerpt
    assert TOK.count(excerpt) < 80


def test_format_summary() -> None:
    s = summarize_tool_result(_tool("x\n", "read_file", args={"path": "/app.ts"}), TOK)
    assert format_summary(s) == "[✓ read_file: File: /app.ts | Lines: 1 | Type: typescript]"


def test_command_kinds() -> None:
    assert command_kind("open src/x.py 40") == "read_file"
    assert command_kind("search_file foo") == "search"
    assert command_kind("edit 3:4\nx\nend_of_edit") == "edit_file"
    assert command_kind("sed -i 's/a/b/' f.py") == "edit_file"
    assert command_kind("create new.py") == "create_file"
    assert command_kind("python -m pytest") == "shell"


def test_classify_turns_pairs_calls_with_results() -> None:
    msgs = [
        Message("system", "You are an agent."),
        Message("user", "Please list files."),
        Message("assistant", "", tool_calls=(ToolCall("c1", "execute_bash", '{"command": "ls -la"}'),)),
        Message("tool", "a.py\nb.py", tool_call_id="c1"),
        Message("assistant", "Two files. Anything else?"),
        Message("user", "No, thanks."),
    ]
    turns = classify_turns(msgs)
    assert [t.kind for t in turns] == ["system", "task", "assistant", "tool_result", "assistant", "user"]
    assert turns[3].tool_name == "execute_bash" and turns[3].command == "ls -la"
