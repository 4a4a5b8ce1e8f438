"""Peeking at a big case's answer before its material is parsed (issue #24): the string
``json.loads`` would give for a top-level member, or None, for any JSON text."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from citeview.core.files import peek_json_member

TRICKY = st.lists(st.sampled_from(
    ['"', "\\", "a", " ", "\n", "{", "}", "[", "]", ",", ":", "\ue200", "\u00e9", "\U0001f600",
     "answer", '\\"', "\ud800"]), max_size=12).map("".join)
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(), TRICKY,
                    st.floats(allow_nan=False, allow_infinity=False))
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(TRICKY, inner, max_size=4)), max_leaves=12)
KEYS = st.one_of(st.just("answer"), TRICKY)


def expected(text: bytes) -> str | None:
    try:
        value: Any = json.loads(text)
    except ValueError:
        return None
    if not isinstance(value, dict):
        return None
    answer = value.get("answer")
    return answer if isinstance(answer, str) else None


@settings(max_examples=150, deadline=None)
@given(members=st.lists(st.tuples(KEYS, VALUES), max_size=6), ascii_only=st.booleans(),
       indent=st.sampled_from([None, 0, 2]))
def test_the_member_is_what_the_whole_parse_gives(members: list[tuple[str, Any]],
                                                   ascii_only: bool, indent: int | None) -> None:
    # Written member by member: a key may repeat (the last one counts, as json.loads keeps).
    # (A lone surrogate can only be written escaped.)
    def written(ascii_only: bool) -> str:
        sep = ",\n" if indent is not None else ", "
        return "{" + sep.join(f"{json.dumps(k, ensure_ascii=ascii_only)}: "
                              f"{json.dumps(v, ensure_ascii=ascii_only, indent=indent)}"
                              for k, v in members) + "}"
    try:
        text = written(ascii_only).encode("utf-8")
    except UnicodeEncodeError:
        text = written(True).encode("utf-8")
    assert peek_json_member(text, "answer") == expected(text)


@settings(max_examples=100, deadline=None)
@given(cut=st.integers(min_value=0, max_value=200), answer=TRICKY)
def test_a_cut_or_followed_object_gives_nothing(cut: int, answer: str) -> None:
    whole = json.dumps({"id": "c", "answer": answer, "tool_outputs": ["x" * 50]}).encode()
    part = whole[:min(cut, len(whole) - 1)]
    assert peek_json_member(part, "answer") is None  # never an answer of a cut file
    assert peek_json_member(whole + b"\n" + whole, "answer") is None  # JSON lines
    assert peek_json_member(b"[" + whole + b"]", "answer") is None
    assert peek_json_member(b"\xef\xbb\xbf" + whole, "answer") == answer


def test_escaped_keys_and_non_string_answers() -> None:
    assert peek_json_member(b'{"\\u0061nswer": "yes"}', "answer") == "yes"
    assert peek_json_member(b'{"answer": 3}', "answer") is None
    assert peek_json_member(b'{"answer": "a", "answer": null}', "answer") is None
    assert peek_json_member(b'{"x": {"answer": "inner"}}', "answer") is None
    assert peek_json_member(b'{"answer": "\\"quoted\\" \\\\"}', "answer") == '"quoted" \\'
