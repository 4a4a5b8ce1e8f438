"""Reading citable material: every shape of the guide, odd labels, metadata, line breaks."""

from __future__ import annotations

import pickle
import re
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citeview.core import material as material_module
from citeview.core.cases import Case
from citeview.core.markers import DELIMITER, START, STOP
from citeview.core.material import (
    Material,
    MaterialDiagnostic,
    Source,
    SourceKind,
    SourceLine,
    case_material,
    file_source,
    parse_context,
    parse_tool_output,
)


def marker(sid: str) -> str:
    return f"{START}cite{DELIMITER}{sid}{STOP}"


def lines_of(src: Source) -> list[tuple[int, str]]:
    return [(line.label, src.text[line.start : line.end]) for line in src.lines]


def codes(material: Material) -> list[str]:
    return [d.code for d in material.diagnostics]


@contextmanager
def pieces_of(n: int) -> Iterator[None]:
    """Labelled text read in pieces of ``n`` characters (the reader's pieces are 1 MiB)."""
    mp = pytest.MonkeyPatch()
    mp.setattr(material_module, "_PIECE", n)
    try:
        yield
    finally:
        mp.undo()


HANDBOOK = (
    f"Citation Marker: {marker('file0')}\n"
    "Title: Employee Handbook\n"
    "URL: https://company.example/handbook\n"
    "Updated: 2026-03-01\n"
    "\n"
    "[L1] Employees may work remotely up to three days per week.\n"
    "[L2] Additional remote days require manager approval.\n"
    "[L3] Exceptions may apply for approved accommodations.\n"
)


def test_line_level_source_has_metadata_and_lines_without_prefixes() -> None:
    m = parse_tool_output(HANDBOOK)
    assert codes(m) == []
    (src,) = m.sources
    assert src.id == "file0"
    assert src.kind is SourceKind.LINE
    assert src.title == "Employee Handbook"
    assert src.url == "https://company.example/handbook"
    assert src.updated == "2026-03-01"
    assert src.metadata == [("Title", "Employee Handbook"),
                            ("URL", "https://company.example/handbook"),
                            ("Updated", "2026-03-01")]
    assert lines_of(src) == [
        (1, "Employees may work remotely up to three days per week."),
        (2, "Additional remote days require manager approval."),
        (3, "Exceptions may apply for approved accommodations."),
    ]
    assert "[L" not in src.text
    assert src.origin == "tool_outputs[0]"
    s, e = src.origin_span
    assert HANDBOOK[s:e].startswith("Citation Marker:")
    assert HANDBOOK[s:e].endswith("accommodations.")


def test_metadata_keeps_every_key_in_order() -> None:
    text = (f"Citation Marker: {marker('a')}\nPublisher: City\nTitle: T\nLanguage: en\n"
            "URL: u\n\n[L1] x\n")
    (src,) = parse_tool_output(text).sources
    assert [k for k, _ in src.metadata] == ["Publisher", "Title", "Language", "URL"]
    assert src.meta("language") == "en"


def test_several_sources_in_one_output_each_with_its_own_lines() -> None:
    text = HANDBOOK + "\n" + f"Citation Marker: {marker('file1')}\n[L1] other\n[L2] more"
    m = parse_tool_output(text, origin="tool_outputs[3]")
    assert [s.id for s in m.sources] == ["file0", "file1"]
    assert lines_of(m.sources[1]) == [(1, "other"), (2, "more")]
    assert all(s.origin == "tool_outputs[3]" for s in m.sources)
    assert m.ids() == ["file0", "file1"]


def test_labels_start_anywhere_skip_and_repeat_and_repeats_are_reported() -> None:
    text = (f"Citation Marker: {marker('x')}\n[L7] seven\n[L9] nine\n[L9] nine again\n"
            "[L40] forty")
    m = parse_tool_output(text)
    (src,) = m.sources
    assert [line.label for line in src.lines] == [7, 9, 9, 40]
    assert codes(m) == ["CV501"]
    d = m.diagnostics[0]
    assert text[d.start : d.end] == "[L9] nine again"
    assert "L9" in d.message


def test_unlabelled_text_between_lines_is_kept_but_not_citable() -> None:
    text = f"Citation Marker: {marker('x')}\n[L1] one\n(page break)\n[L2] two"
    (src,) = parse_tool_output(text).sources
    assert src.text == "one\n(page break)\ntwo"
    assert lines_of(src) == [(1, "one"), (2, "two")]


def test_block_level_source_is_cited_whole_and_shows_its_label() -> None:
    text = (f"Citation Marker: {marker('turn0file0')}\n[Block1]\nFirst sentence.\n"
            f"Second sentence.\n\nCitation Marker: {marker('turn0file1')}\n[Block2]\nOther.")
    m = parse_tool_output(text)
    a, b = m.sources
    assert (a.kind, a.label, a.text, a.lines) == (SourceKind.BLOCK, "Block1",
                                                   "First sentence.\nSecond sentence.", [])
    assert (b.kind, b.label, b.text) == (SourceKind.BLOCK, "Block2", "Other.")


def test_document_level_source_has_metadata_and_no_lines() -> None:
    text = (f"Citation Marker: {marker('doc')}\nTitle: Memo\n\nThe whole memo.\nSecond line.\n")
    (src,) = parse_tool_output(text).sources
    assert src.kind is SourceKind.DOCUMENT
    assert src.title == "Memo"
    assert src.text == "The whole memo.\nSecond line."
    assert src.lines == []


def test_bracket_header_is_accepted() -> None:
    text = ("Citation Marker: 【turn0file0】\n[L1] a\n\n"
            "Citation Marker: 【turn1search2†Title†url】\n[L1] b")
    m = parse_tool_output(text)
    assert [s.id for s in m.sources] == ["turn0file0", "turn1search2"]
    assert codes(m) == []


def test_literal_escape_header_is_decoded_with_a_diagnostic() -> None:
    text = "Citation Marker: \\ue200cite\\ue202turn0file0\\ue201\n[L1] a"
    m = parse_tool_output(text)
    assert [s.id for s in m.sources] == ["turn0file0"]
    assert codes(m) == ["CV503"]
    d = m.diagnostics[0]
    assert isinstance(d, MaterialDiagnostic)
    assert d.origin == "tool_outputs[0]"
    assert text[d.start : d.end] == text.split("\n")[0]


def test_header_without_an_id_is_reported_and_its_lines_are_not_citable() -> None:
    text = "Citation Marker: (none)\n[L1] orphan\n\nCitation Marker: " + marker("b") + "\n[L1] b"
    m = parse_tool_output(text)
    assert [s.id for s in m.sources] == ["b"]
    assert codes(m) == ["CV502"]


def test_labelled_lines_before_any_header_are_reported_once() -> None:
    m = parse_tool_output("[L1] a\n[L2] b\n")
    assert m.sources == []
    assert codes(m) == ["CV502"]


def test_text_without_headers_is_not_citable_and_not_an_error() -> None:
    m = parse_tool_output("Searched 3 files; nothing relevant found.")
    assert (m.sources, m.diagnostics) == ([], [])


def test_duplicate_id_in_one_output_is_reported_not_merged() -> None:
    text = f"Citation Marker: {marker('a')}\n[L1] one\n\nCitation Marker: {marker('a')}\n[L1] two"
    m = parse_tool_output(text)
    assert len(m.sources) == 2
    assert codes(m) == ["CV206"]
    assert [len(v) for v in m.by_id().values()] == [2]
    assert m.get("a") is m.sources[0]


@pytest.mark.parametrize("br", ["\n", "\r\n", "\r"])
def test_each_line_break_reads_the_same(br: str) -> None:
    text = HANDBOOK.replace("\n", br)
    (src,) = parse_tool_output(text).sources
    (ref,) = parse_tool_output(HANDBOOK).sources
    assert (src.text, src.lines, src.metadata) == (ref.text, ref.lines, ref.metadata)


def test_unicode_line_separators_are_not_line_breaks() -> None:
    text = f"Citation Marker: {marker('a')}\n[L1] one\u2028still one\x85and\x0cone\n[L2] two"
    (src,) = parse_tool_output(text).sources
    assert lines_of(src) == [(1, "one\u2028still one\x85and\x0cone"), (2, "two")]


# --------------------------------------------------------------------------- context


OPINION = (
    '<block id="block4" title="Opinion, Part I">\nServed in Nevada.\nJurisdiction.\n</block>\n'
    "Text between units is not citable.\n"
    "<passage id='p-1' title=\"Syllabus\" page=3>\nHeld: reversed.\n</passage>"
)


def test_context_units_with_any_tag_name() -> None:
    m = parse_context(OPINION)
    assert codes(m) == []
    a, b = m.sources
    assert (a.id, a.kind, a.title, a.text) == ("block4", SourceKind.CONTEXT, "Opinion, Part I",
                                               "Served in Nevada.\nJurisdiction.")
    assert (b.id, b.tag, b.title, b.label) == ("p-1", "passage", "Syllabus", "p-1")
    assert b.metadata == [("title", "Syllabus"), ("page", "3")]
    assert "between" not in a.text + b.text
    assert OPINION[slice(*b.origin_span)].startswith("<passage")


def test_context_unit_with_labelled_lines_has_citable_lines() -> None:
    (src,) = parse_context('<doc id="d">\n[L1] one\n[L2] two\n</doc>').sources
    assert lines_of(src) == [(1, "one"), (2, "two")]


def test_nested_tags_inside_a_unit_are_text() -> None:
    (src,) = parse_context('<div id="a">x <div>inner</div> <b>y</b></div>').sources
    assert src.text == "x <div>inner</div> <b>y</b>"


@pytest.mark.parametrize(
    "context",
    [
        '<block id="a">never closed',
        '<block id="a">one\n<block id="b">two</block>',
        '<block id="a" title="x>oops</block>',
        '<block id="a">x</block></block>',
        '<block id="a\n<block id="b">ok</block>',
        '<block id="">empty id</block>',
        "<<<>>> </ <block id=a/>",
    ],
)
def test_malformed_tags_give_a_diagnostic_never_an_exception(context: str) -> None:
    m = parse_context(context)
    assert "CV502" in codes(m) or context.endswith("/>")
    for d in m.diagnostics:
        assert 0 <= d.start <= d.end <= len(context)


def test_unclosed_unit_still_gives_its_text() -> None:
    m = parse_context('<block id="a">one\n<block id="b">two</block>')
    assert [(s.id, s.text) for s in m.sources] == [("a", "one"), ("b", "two")]


def test_context_in_tool_output_shape_is_read_as_such() -> None:
    (src,) = parse_context(HANDBOOK).sources
    assert src.kind is SourceKind.LINE and src.origin == "context"


# --------------------------------------------------------------------------- files and cases


@pytest.mark.parametrize("br", ["\n", "\r\n", "\r"])
def test_file_source_physical_lines(br: str) -> None:
    text = br.join(["# Notes", "", "second para", "last"]) + br
    src = file_source("notes", text)
    assert src.kind is SourceKind.FILE
    assert src.title == "Notes"
    assert lines_of(src) == [(1, "# Notes"), (2, ""), (3, "second para"), (4, "last")]


def test_case_material_order_and_cross_origin_duplicates() -> None:
    case = Case(
        id="c", answer="",
        tool_outputs=[f"Citation Marker: {marker('a')}\n[L1] x",
                      f"Citation Marker: {marker('b')}\n[L1] y"],
        context='<block id="a">again</block>',
        documents={"notes": "n1\nn2"},
    )
    m = case_material(case)
    assert [(s.id, s.origin) for s in m.sources] == [
        ("a", "tool_outputs[0]"), ("b", "tool_outputs[1]"), ("a", "context"),
        ("notes", "documents[notes]"),
    ]
    assert codes(m) == ["CV206"]
    d = m.diagnostics[0]
    assert isinstance(d, MaterialDiagnostic) and d.origin == "context"
    assert "tool_outputs[0]" in d.message
    assert case.context is not None and case.context[d.start : d.end].startswith("<block")


# --------------------------------------------------------------------------- odd headers


@pytest.mark.parametrize(
    ("header", "sid", "code", "words"),
    [
        (f"{START}cite{DELIMITER}a{DELIMITER}b{STOP}", "a", "CV502", "more than one"),
        (f"{START}cite{DELIMITER}a{DELIMITER}L3{STOP}", "a", "CV502", "locator"),
        ("turn0file7", "turn0file7", "CV502", "bare id"),
        ("citeturn0file7", "turn0file7", "CV502", "degraded"),
        (f"{START}cite{DELIMITER}turn0file7", "turn0file7", "CV502", "unterminated"),
        ("\\\\ue200cite\\\\ue202x1\\\\ue201", "x1", "CV503", "escapes"),
    ],
)
def test_odd_headers_are_read_and_reported(header: str, sid: str, code: str,
                                           words: str) -> None:
    text = f"Citation Marker: {header}\n[L1] line"
    m = parse_tool_output(text)
    assert [s.id for s in m.sources] == [sid]
    assert codes(m) == [code]
    assert words in m.diagnostics[0].message
    assert m.sources[0].lines and m.sources[0].text == "line"


def test_header_is_case_and_space_tolerant() -> None:
    (src,) = parse_tool_output(f"  citation marker :{marker('a')}\n[L1] x").sources
    assert src.id == "a"


def test_block_label_with_text_on_its_line_and_block_metadata() -> None:
    text = (f"Citation Marker: {marker('b')}\nTitle: Clause\n\n"
            "[Block 3] Text on the label line.\nMore.")
    (src,) = parse_tool_output(text).sources
    assert (src.kind, src.label, src.title) == (SourceKind.BLOCK, "Block3", "Clause")
    assert src.text == "Text on the label line.\nMore."


def test_repeated_label_span_is_exact_with_crlf() -> None:
    text = f"Citation Marker: {marker('a')}\r\n[L1] one\r\n[L2] two\r\n[L2] dup\r\n[L3] three"
    m = parse_tool_output(text)
    (d,) = m.diagnostics
    assert text[d.start : d.end] == "[L2] dup"


def test_text_outside_sources_is_kept_for_display() -> None:
    text = (f"Search results:\n\nCitation Marker: {marker('a')}\n[L1] x\n\n"
            "Citation Marker: ???\nno id here\n")
    m = parse_tool_output(text)
    spans = [text[s:e] for _, s, e in m.outside]
    assert spans == ["Search results:", "no id here"]
    ctx = '<block id="a">x</block>\nbetween\n<block id="b">y</block>'
    assert [ctx[s:e] for _, s, e in parse_context(ctx).outside] == ["between"]


def test_metadata_stops_at_a_line_that_is_not_key_value() -> None:
    text = f"Citation Marker: {marker('d')}\nTitle: T\nThe document starts here.\nNote: body"
    (src,) = parse_tool_output(text).sources
    assert src.metadata == [("Title", "T")]
    assert src.text == "The document starts here.\nNote: body"
    assert src.kind is SourceKind.DOCUMENT


def test_context_tag_over_several_lines_with_odd_attributes() -> None:
    ctx = "<chunk\n  data-rank=2\n  ID='c1'\n  title=\"A &amp; B\">\nbody\n</chunk>"
    (src,) = parse_context(ctx).sources
    assert (src.id, src.tag, src.text) == ("c1", "chunk", "body")
    assert src.metadata == [("data-rank", "2"), ("title", "A &amp; B")]


def test_empty_material_strings() -> None:
    assert parse_tool_output("").sources == []
    assert parse_context("").sources == []
    src = file_source("empty", "")
    assert (src.text, src.lines) == ("", [])


def test_material_diagnostics_keep_their_origin_through_pickling() -> None:
    # lint --jobs sends diagnostics between processes.
    import pickle

    m = parse_tool_output("[L1] orphan", origin="tool_outputs[2]")
    (d,) = m.diagnostics
    back = pickle.loads(pickle.dumps(d))
    assert isinstance(back, MaterialDiagnostic)
    assert (back.origin, back.code, back.start, back.end) == ("tool_outputs[2]", "CV502", 0, 11)
    assert back.to_dict()["origin"] == "tool_outputs[2]"


_LINE = st.tuples(
    st.sampled_from(["", " ", "\t", "  "]),  # before a label
    st.one_of(st.none(), st.integers(0, 10 ** 25)),  # the label (None: an unlabelled line)
    st.sampled_from(["", " ", "\t", "  "]),  # after it
    st.text(st.sampled_from("ab [L]1\u2028"), min_size=1, max_size=12).filter(
        lambda s: s.strip(" \t") != ""),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(_LINE, min_size=1, max_size=40), st.sampled_from(["\n", "\r\n", "\r"]),
       st.integers(1, 64))
def test_labelled_lines_read_in_pieces_are_each_line_without_its_label(
        rows: list[tuple[str, int | None, str, str]], br: str, piece: int) -> None:
    """A big source is read in pieces: wherever they are cut, every labelled line is found with
    its label and its text exactly, and the lines read back as SourceLines (also pickled)."""
    body = br.join(f"{pre}[L{n}]{post}{text}" if n is not None else f"{pre}{post}{text}"
                   for pre, n, post, text in rows)
    with pieces_of(piece):
        (src,) = parse_tool_output(f"Citation Marker: {marker('a')}{br}{body}").sources
    expected_text: list[str] = []
    expected: list[tuple[int, str]] = []
    for pre, n, post, text in rows:
        line = f"{pre}[L{n}]{post}{text}" if n is not None else f"{pre}{post}{text}"
        # The guide's prefix: spaces or tabs, [L#], one space or tab.
        label = re.match(r"[ \t]*\[L(\d+)\][ \t]?", line)
        shown = line if label is None else line[label.end():]
        if label is not None:
            expected.append((int(label.group(1)), shown))
        expected_text.append(shown)
    if not expected:  # no label: a document cited whole
        assert src.kind is SourceKind.DOCUMENT and not src.lines
        return
    assert src.text == "\n".join(expected_text)
    assert lines_of(src) == expected
    assert src.lines == [SourceLine(ln.label, ln.start, ln.end) for ln in src.lines]
    assert pickle.loads(pickle.dumps(src)).lines == src.lines
    repeats = len(expected) - len({n for n, _ in expected})
    assert codes(parse_tool_output(f"Citation Marker: {marker('a')}{br}{body}")).count(
        "CV501") == repeats


_HEADER_PIECES = st.sampled_from([
    "Citation Marker:", "citation marker :", "CITATION MARKER:\t", "Citation Marker", ":",
    "\ufeff", "\n", "\r", "\r\n", " ", "\t", "x", "turn0file0", "[L1] text", "\ue200cite\ue202",
])


@settings(max_examples=500, deadline=None)
@given(st.lists(_HEADER_PIECES, max_size=30).map("".join))
def test_headers_found_from_line_breaks_are_the_patterns_matches(text: str) -> None:
    """The header lines of a tool output (found from its line breaks, each matched again where
    it starts) are the header pattern's own matches: the same sources, whatever the size."""
    got = [(m.span(), m.group(1)) for m in material_module.find_headers(text)]
    assert got == [(m.span(), m.group(1)) for m in material_module.HEADER_LINE_RE.finditer(text)]


def _everything(m: Material) -> tuple[object, ...]:
    """All a material holds, the diagnostics' origins included."""
    return ([(s.id, s.kind, s.text, list(s.lines), s.title, s.url, s.metadata, s.label, s.origin,
              s.origin_span, s.tag, s.pages, s.blocks) for s in m.sources],
            [(type(d), d.code, d.severity, d.message, d.start, d.end, getattr(d, "origin", None))
             for d in m.diagnostics], m.outside)


# Tool outputs near the usual shape (header, metadata, blank line, labelled lines) and off it;
# the usual pieces drawn most often, so that both readings are exercised.
_USUAL_HEAD = f"Citation Marker: {marker('turn0file0')}"
_TOOL_HEADS = st.sampled_from([
    _USUAL_HEAD, _USUAL_HEAD, _USUAL_HEAD, f"citation marker :  {marker('doc-1_a')}",
    f"Citation Marker:\t{marker('L3-x')}", f"Citation Marker: {marker('L3')}",
    f"CITATION MARKER:{marker('L3-L4')}", f"\ufeffCitation Marker: {marker('x')}",
    f"Citation Marker: {marker('x')}  ", f"Citation Marker: {START}cite{DELIMITER}a b{STOP}",
    f"Citation Marker: {START}cite{DELIMITER}a{DELIMITER}L2{STOP}", "Citation Marker: turn0file0",
    f"Citation Marker: {START}cite{DELIMITER}a{DELIMITER}b{STOP}", "Title: no header",
])
_GOOD_META = st.sampled_from(["Title: Doc", "URL: https://x.example/a  ", "Key (x)/y.z: v\t",
                              "title: again", "U: ", "Note:a:b", "T" * 61 + ": long key",
                              "Title :  two  words \t", "URL:\t", "Url: lower", "Title:",
                              "URL: " + " " * 40 + "x" + "\t " * 20, "K  \t: v"])
_ODD_META = st.sampled_from([
    f"Citation Marker: {marker('b')}", "citation marker\t: c", "no colon here", " Indented: x",
    "[Block1]", "T" * 62 + ": too long a key", "", "  ", "\t",
])
_TOOL_META = st.lists(st.one_of(_GOOD_META, _GOOD_META, _GOOD_META, _ODD_META), max_size=4)
_LABEL_NUMBERS = st.integers(0, 400) | st.just(99999999999999999999)
_LABEL_PARTS = st.tuples(
    st.sampled_from(["", "", "", " ", "\t"]), st.sampled_from([" ", " ", "", "\t", "  "]),
    st.sampled_from(["one", "two words", "", "  ", "a [L7] b", "y\u2028y\x85z", "c\x0bd", "é😀"]))
_LABELLED = st.builds(lambda n, p: f"{p[0]}[L{n}]{p[1]}{p[2]}", _LABEL_NUMBERS, _LABEL_PARTS)
_ODD_LINE = st.sampled_from(["plain", "", " ", "[Block2] x", "[l9] lower", "Title: late", "[L]"])
_TOOL_LINES = st.lists(st.one_of(*[_LABELLED] * 6, _ODD_LINE), max_size=8)
_TOOL_END = st.sampled_from(["", "\n", "\n\n", "\r\n", " ", "\n "])
_GOOD_HEADS = [_USUAL_HEAD, f"citation marker :  {marker('doc-1_a')}",
               f"Citation Marker:\t{marker('L3-x')}"]


@st.composite
def _tool_outputs(draw: st.DrawFn) -> str:
    """Half of them of the usual shape, some of those with one odd line put in."""
    if draw(st.booleans()):
        lines = [draw(st.sampled_from(_GOOD_HEADS)), *draw(st.lists(_GOOD_META, max_size=3)),
                 *draw(st.sampled_from([[], [""], [" \t"]])),
                 *[f"{pre}[L{n}]{post}{text}" for n, (pre, post, text) in zip(
                     draw(st.lists(_LABEL_NUMBERS, min_size=1, max_size=8, unique=True)),
                     draw(st.lists(_LABEL_PARTS, min_size=8, max_size=8)), strict=False)]]
        if draw(st.booleans()):
            odd = draw(st.one_of(_ODD_META, _ODD_LINE, _TOOL_HEADS))
            lines.insert(draw(st.integers(1, len(lines))), odd)
        return "\n".join(lines) + draw(st.sampled_from(["", "\n", " ", "\n\n"]))
    br = draw(st.sampled_from(["\n", "\r\n", "\r"]))
    lines = [draw(_TOOL_HEADS), *draw(_TOOL_META), *draw(st.sampled_from([[], [""]])),
             *draw(_TOOL_LINES)]
    return br.join(lines) + draw(_TOOL_END)


@settings(max_examples=600, deadline=None)
@given(_tool_outputs())
def test_usual_tool_outputs_read_fast_as_the_general_reading_reads_them(text: str) -> None:
    """The usual tool output is read by a shortcut; it gives what the general reading gives
    (every source field, diagnostic and outside span), and declines what it cannot read."""
    fast = material_module._simple_tool_output(text, "tool_outputs[3]")
    general = material_module._parse_tool_output(text, "tool_outputs[3]")
    if fast is not None:
        assert _everything(fast) == _everything(general)
    assert _everything(parse_tool_output(text, "tool_outputs[3]")) == _everything(general)


def test_the_usual_tool_output_is_read_by_the_shortcut() -> None:
    """The benchmark's shape (and the guide's example) take the shortcut and read right."""
    for text in (HANDBOOK, HANDBOOK.rstrip("\n"), HANDBOOK.replace("\n\n", "\n")):
        fast = material_module._simple_tool_output(text, "tool_outputs[0]")
        assert fast is not None
        assert _everything(fast) == _everything(material_module._parse_tool_output(
            text, "tool_outputs[0]"))
    [src] = material_module._simple_tool_output(HANDBOOK, "o").sources  # type: ignore[union-attr]
    assert (src.title, src.url, lines_of(src)[1]) == (
        "Employee Handbook", "https://company.example/handbook",
        (2, "Additional remote days require manager approval."))


# The usual head, then the metadata of the benchmark's cases and others near it.
_NEAR_VALUES = st.sampled_from(["Document 7", "a", "a: b", "x ", " x", "", " ", "\tx\t", "é😀",
                                "https://docs.example/7", "[L1] x", "Citation Marker: y"])
_NEAR_KEYS = st.sampled_from(["Title: ", "URL: ", "Title:", "URL:", "title: ", "Url: ",
                              "Title : ", "URL:\t", "Title:  "])
_NEAR_USUAL = st.builds(lambda k1, v1, k2, v2: [k1 + v1, k2 + v2],
                        _NEAR_KEYS, _NEAR_VALUES, _NEAR_KEYS, _NEAR_VALUES)
_USUAL_METAS = st.one_of(
    st.just(["Title: Document 7", "URL: https://docs.example/7"]),
    st.builds(lambda v1, v2: [f"Title: {v1}", f"URL: {v2}"], _NEAR_VALUES, _NEAR_VALUES),
    _NEAR_USUAL, _NEAR_USUAL.map(lambda m: [*m, "Extra: x"]),
    st.lists(_GOOD_META, max_size=4),
    st.permutations(["Title: T", "URL: u", "title: t2"]).map(list),
)


@settings(max_examples=300, deadline=None)
@given(_USUAL_METAS, st.integers(1, material_module._SMALL + 3), st.booleans(),
       st.sampled_from(["", "\n"]), st.data())
def test_the_quick_readings_lines_are_the_general_readings_for_every_reader(
        meta: list[str], n: int, blank: bool, end: str, data: st.DataObject) -> None:
    """The quick reading keeps a usual source's lines as breaks (labels L1..Ln): what every
    reader of the lines sees (columns, items, slices, iteration, length, pickles) is what the
    general reading's columns give, and so is the title, URL and metadata."""
    words = data.draw(st.lists(st.sampled_from(["", "a", "two words", "é😀", " x "]),
                               min_size=n, max_size=n))
    text = "\n".join([_USUAL_HEAD, *meta, *([""] if blank else []),
                      *(f"[L{k}] {w}" for k, w in enumerate(words, 1))]) + end
    fast = material_module._simple_tool_output(text, "tool_outputs[0]")
    general = material_module._parse_tool_output(text, "tool_outputs[0]")
    assert fast is not None
    assert _everything(fast) == _everything(general)
    [quick], [slow] = fast.sources, general.sources
    a, b = quick.lines, slow.lines
    assert isinstance(a, material_module.SourceLines)
    assert isinstance(b, material_module.SourceLines)
    assert (quick.title, quick.url, quick.metadata) == (slow.title, slow.url, slow.metadata)
    assert len(a) == len(b) == n and bool(a) and a == b and b == a and a == list(b)
    assert list(a.labels) == list(b.labels) == list(range(1, n + 1))
    k = data.draw(st.integers(-n, n - 1))
    assert a[k] == b[k] and type(a[k]) is SourceLine
    cut = slice(data.draw(st.integers(-n, n)), data.draw(st.integers(-n, n)),
                data.draw(st.sampled_from([None, 1, 2, -1])))
    assert a[cut] == b[cut] and list(a[cut]) == list(b[cut])
    assert list(reversed(a)) == list(reversed(b)) and repr(a) == repr(b)
    assert pickle.loads(pickle.dumps(a)) == b
    assert list(a.starts) == list(b.starts) and list(a.ends) == list(b.ends)
    assert [quick.line_text(ln) for ln in a] == [slow.line_text(ln) for ln in b] == [
        w.rstrip("\n") for w in words]


def test_lines_kept_as_breaks_make_their_columns_once() -> None:
    """A source read quickly makes its start and end columns when first read, once; other
    attributes are missing as usual."""
    [src] = material_module._simple_tool_output(HANDBOOK, "o").sources  # type: ignore[union-attr]
    lines = src.lines
    assert isinstance(lines, material_module.SourceLines) and lines.breaks is not None
    starts = lines.starts
    assert lines.starts is starts and list(lines.ends) == [ln.end for ln in lines]
    with pytest.raises(AttributeError):
        lines.no_such_column  # type: ignore[attr-defined]  # noqa: B018
    assert not hasattr(lines, "__array__")
    general = material_module.SourceLines([1], [0], [3])
    assert general.breaks is None and general[0:1].breaks is None
