"""Line breaks (only \\n, \\r\\n, \\r) and the code point <-> UTF-16 conversion Qt needs."""

from __future__ import annotations

import re

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from citeview.core.markers import DELIMITER, START, STOP, scan
from citeview.core.material import parse_tool_output
from citeview.core.resolution import resolve
from citeview.core.text import (
    LineIndex,
    Utf16Map,
    from_utf16,
    iter_lines,
    line_col,
    normalize_breaks,
    split_lines,
    to_utf16,
)


def utf16_len(s: str) -> int:
    return len(s.encode("utf-16-le")) // 2


# --------------------------------------------------------------------------- line breaks


@pytest.mark.parametrize("br", ["\n", "\r\n", "\r"])
def test_each_break_splits_the_same(br: str) -> None:
    text = br.join(["one", "", "three"])
    assert split_lines(text) == ["one", "", "three"]
    assert split_lines(text + br) == ["one", "", "three"]  # a final break adds no line
    assert [e - s for s, e, _ in iter_lines(text)] == [3, 0, 5]
    assert normalize_breaks(text) == "one\n\nthree"


def test_crlf_is_one_break_and_cr_lf_pairs_are_not_merged_across_lines() -> None:
    assert split_lines("a\r\nb") == ["a", "b"]
    assert split_lines("a\r\rb") == ["a", "", "b"]
    assert split_lines("a\r\r\nb") == ["a", "", "b"]
    assert split_lines("a\n\rb") == ["a", "", "b"]
    assert list(iter_lines("a\r\nb")) == [(0, 1, 3), (3, 4, 4)]


@pytest.mark.parametrize("ch", ["\u2028", "\u2029", "\x85", "\x0b", "\x0c", "\x1c", "\x1e"])
def test_other_unicode_separators_are_not_breaks(ch: str) -> None:
    text = f"a{ch}b\nc"
    assert split_lines(text) == [f"a{ch}b", "c"]
    assert text.splitlines() != split_lines(text)  # what str.splitlines would have done
    assert normalize_breaks(text) == text


@given(st.lists(st.text(alphabet=st.sampled_from("ab \u2028\x85\x0c"), max_size=5), min_size=1,
                max_size=6),
       st.lists(st.sampled_from(["\n", "\r\n", "\r"]), min_size=6, max_size=6))
@settings(max_examples=150, deadline=None)
def test_split_lines_inverts_joining_with_any_breaks(lines: list[str], brs: list[str]) -> None:
    used = brs[: len(lines) - 1]
    # "\r" + "" + "\n..." is one CRLF break, not two: that input means something else.
    assume(not any(used[i] == "\r" and lines[i + 1] == "" and used[i + 1].startswith("\n")
                   for i in range(len(used) - 1)))
    text = "".join(line + used[i] for i, line in enumerate(lines[:-1])) + lines[-1]
    expected = lines if lines[-1] else lines[:-1]
    assert split_lines(text) == expected
    assert normalize_breaks(text).split("\n")[: len(expected)] == expected


@pytest.mark.parametrize("br", ["\n", "\r\n", "\r"])
def test_line_col_and_line_index_agree_at_every_offset(br: str) -> None:
    text = br.join(["ab", "", "cde", "f"]) + br
    index = LineIndex(text)
    for off in range(len(text) + 1):
        assert line_col(text, off) == index.line_col(off), off
    third = text.index("cde")
    assert line_col(text, third + 1) == (3, 2)


def test_line_col_inside_crlf_belongs_to_the_line_it_ends() -> None:
    text = "ab\r\ncd"
    assert line_col(text, 3) == (1, 4)  # between \r and \n
    assert line_col(text, 4) == (2, 1)


# --------------------------------------------------------------------------- UTF-16


ASTRAL_PREFIX = "😀 👩\u200d💻 𝄞 𠀋 "  # emoji, a ZWJ sequence, a musical symbol, a CJK ext-B


def test_utf16_offsets_count_astral_characters_twice() -> None:
    text = ASTRAL_PREFIX + "cited words"
    start = text.index("cited")
    m = Utf16Map(text)
    assert m.to_utf16(start) == utf16_len(text[:start]) == start + 5
    assert to_utf16(text, start) == start + 5
    assert m.from_utf16(start + 5) == start
    assert from_utf16(text, start + 5) == start


def test_unit_inside_a_surrogate_pair_maps_to_the_character() -> None:
    text = "a😀b"
    m = Utf16Map(text)
    assert [m.to_utf16(i) for i in range(4)] == [0, 1, 3, 4]
    assert [m.from_utf16(u) for u in range(5)] == [0, 1, 1, 2, 3]


def test_bmp_only_text_maps_to_itself() -> None:
    text = "é’—\u2028\ue200"
    m = Utf16Map(text)
    assert all(m.to_utf16(i) == i and m.from_utf16(i) == i for i in range(len(text) + 1))


@given(st.text(alphabet=st.sampled_from(["a", "é", "😀", "𝄞", "\ue200", "\n"]), max_size=30))
@settings(max_examples=150, deadline=None)
def test_utf16_round_trip_matches_the_encoding(text: str) -> None:
    m = Utf16Map(text)
    for i in range(len(text) + 1):
        u = m.to_utf16(i)
        assert u == utf16_len(text[:i])
        assert m.from_utf16(u) == i


def test_cited_span_after_emoji_converts_for_qt() -> None:
    material = (f"Citation Marker: {START}cite{DELIMITER}f{STOP}\n"
                f"[L1] {ASTRAL_PREFIX}intro\n[L2] 😀 the cited line\n")
    answer = f"Claim.{START}cite{DELIMITER}f{DELIMITER}L2{STOP}"
    m = parse_tool_output(material)
    (res,) = resolve(scan(answer).citations, m)
    (t,) = res.targets
    assert t.source is not None and t.span is not None
    text = t.source.text
    qmap = Utf16Map(text)
    a, b = (qmap.to_utf16(x) for x in t.span)
    units = text.encode("utf-16-le")
    assert units[2 * a : 2 * b].decode("utf-16-le") == "😀 the cited line"
    assert a == utf16_len(text[: t.span[0]]) and a > t.span[0]


def test_no_regex_in_text_module_treats_unicode_separators_as_breaks() -> None:
    # iter_lines is the one definition; it must agree with this explicit pattern.
    text = "x\u2028y\r\nz\rw\n\x85"
    ours = [(s, e) for s, e, _ in iter_lines(text)]
    pos, ref = 0, []
    for m in re.finditer(r"\r\n|\r|\n", text):
        ref.append((pos, m.start()))
        pos = m.end()
    if pos < len(text):
        ref.append((pos, len(text)))
    assert ours == ref
