"""The fast JSON used for state and metrics files keeps the stdlib's meaning where orjson differs."""

from __future__ import annotations

import json
import math

import pytest

from batchsum import jsonio


def test_non_finite_numbers_become_null() -> None:
    data = {"ratio": math.nan, "big": math.inf, "ok": 0.25, "rows": [[1, -math.inf]]}
    assert json.loads(jsonio.dumps(data)) == {"ratio": None, "big": None, "ok": 0.25, "rows": [[1, None]]}


def test_lone_surrogates_round_trip_through_the_stdlib_fallback() -> None:
    name = b"caf\xe9.md".decode("utf-8", "surrogateescape")
    data = {"relpath": name, "ratio": math.nan, "n": [1, 2]}
    raw = jsonio.dumps(data, sort_keys=True)
    assert raw.isascii()
    assert jsonio.loads(raw) == {"n": [1, 2], "ratio": None, "relpath": name}


def test_sorted_keys_and_default() -> None:
    class Odd:
        def __str__(self) -> str:
            return "odd"

    assert jsonio.dumps({"b": 1, "a": Odd()}, sort_keys=True, default=str) == b'{"a":"odd","b":1}'


def test_malformed_input_raises_value_error() -> None:
    for raw in (b"{not json", b"", b'{"a": 1'):
        try:
            jsonio.loads(raw)
        except ValueError:
            continue
        raise AssertionError(f"{raw!r} parsed")


def test_deep_nesting_is_a_value_error_not_a_recursion_error() -> None:
    for text in ("[" * 100_000 + "]" * 100_000, '{"a":' * 2000 + "1" + "}" * 2000):
        with pytest.raises(jsonio.TooDeep, match="nested deeper than"):
            jsonio.loads(text)
    value = jsonio.loads("[" * 100 + "]" * 100)
    depth = 0
    while value:
        value, depth = value[0], depth + 1
    assert depth == 99
