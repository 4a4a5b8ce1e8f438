"""prepare_material: the guide's material shapes, stable output, neutralisation, round trip."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from citeview.core.errors import InputError
from citeview.core.markers import DELIMITER, START, STOP, extract_citations
from citeview.core.material import SourceKind, parse_context, parse_tool_output
from citeview.core.prepare import (
    REPLACEMENT,
    Document,
    Prepared,
    Unit,
    markdown_title,
    prepare_material,
    split_sentences,
)
from citeview.core.resolution import Status, resolve
from citeview.core.text import split_lines

S, D, E = START, DELIMITER, STOP
UNITS = [u.value for u in Unit]


def parse_back(p: Prepared, unit: str):
    return parse_context(p.text) if unit == "context" else parse_tool_output(p.text, p.origin)


HANDBOOK = Document("handbook.md", "# Employee Handbook\n\nEmployees may work remotely up to "
                    "three days per week.\nAdditional remote days require manager approval.\n")


# ----------------------------------------------------------------------------- shapes


def test_line_unit_is_the_guides_line_level_shape():
    p = prepare_material([HANDBOOK], "line", meta=[("URL", "https://company.example/h"),
                                                   ("Updated", "2026-03-01")])
    assert p.text == (
        f"Citation Marker: {S}cite{D}turn0file0{E}\n"
        "Title: Employee Handbook\nURL: https://company.example/h\nUpdated: 2026-03-01\n\n"
        "[L1] # Employee Handbook\n[L2]\n"
        "[L3] Employees may work remotely up to three days per week.\n"
        "[L4] Additional remote days require manager approval.\n"
    )
    (src,) = p.sources
    assert src.kind is SourceKind.LINE and src.title == "Employee Handbook"
    assert src.url == "https://company.example/h"
    assert [ln.label for ln in src.lines] == [1, 2, 3, 4]  # physical numbers, empty line too
    assert src.line_text(src.lines[1]) == ""
    assert src.line_text(src.lines[3]) == "Additional remote days require manager approval."


def test_line_labels_are_the_documents_own_line_numbers_blank_lines_included():
    """A reader who sees line 2 of the file cites L2: it must exist even when it is blank."""
    doc = Document("notes.txt", "\n\nAlpha.\n\n  \nBeta.\nGamma.\n\n")
    p = prepare_material([doc], "line")
    assert p.text.endswith("\n\n[L3] Alpha.\n[L4]\n[L5]\n[L6] Beta.\n[L7] Gamma.\n")
    (src,) = p.sources
    assert [ln.label for ln in src.lines] == [3, 4, 5, 6, 7]  # leading/trailing blanks dropped
    assert parse_tool_output(p.text, p.origin).sources == p.sources
    res = resolve(extract_citations(f"x{S}cite{D}turn0file0{D}L4{E} "
                                    f"y{S}cite{D}turn0file0{D}L3-L6{E}"), p.sources)
    assert [r.targets[0].status for r in res] == [Status.OK, Status.OK]
    assert res[1].targets[0].text == "Alpha.\n\n\nBeta."


def test_ids_follow_argument_order_and_turn():
    docs = [Document("a.txt", "alpha\n"), Document("b.txt", "beta\n"), Document("c.txt", "")]
    p = prepare_material(docs, "line", turn=3)
    assert [s.id for s in p.sources] == ["turn3file0", "turn3file1", "turn3file2"]
    assert [s.title for s in p.sources] == ["a.txt", "b.txt", "c.txt"]
    assert p.origin == "tool_outputs[3]"
    # An empty document keeps its id (and header) but has nothing to cite: warned.
    assert [str(w) for w in p.warnings] == ["c.txt: no text: nothing to cite"]


def test_block_unit_is_the_guides_block_level_shape():
    doc = Document("contract.txt", "Termination needs thirty days' notice.\nRenewal is yearly.\n"
                   "\nEither party may terminate for breach.\n")
    p = prepare_material([doc], "block")
    assert p.text == (
        f"Citation Marker: {S}cite{D}turn0file0{E}\nTitle: contract.txt\n[Block1]\n"
        "Termination needs thirty days' notice.\nRenewal is yearly.\n\n"
        f"Citation Marker: {S}cite{D}turn0file1{E}\nTitle: contract.txt\n[Block2]\n"
        "Either party may terminate for breach.\n"
    )
    assert [(s.id, s.kind, s.label) for s in p.sources] == [
        ("turn0file0", SourceKind.BLOCK, "Block1"), ("turn0file1", SourceKind.BLOCK, "Block2")]


def test_block_numbers_run_across_documents_and_block_lines_caps_blocks():
    docs = [Document("a.txt", "1\n2\n3\n4\n5\n"), Document("b.txt", "6\n7\n")]
    p = prepare_material(docs, "block", block_lines=2)
    assert [s.text for s in p.sources] == ["1\n2", "3\n4", "5", "6\n7"]
    assert [s.id for s in p.sources] == [f"turn0file{i}" for i in range(4)]
    assert [s.label for s in p.sources] == [f"Block{i}" for i in range(1, 5)]
    assert p.documents == [0, 0, 0, 1]


def test_markdown_heading_joins_the_paragraph_after_it():
    doc = Document("guide.md", "# Setup\n\nInstall it.\n\n## Use\n### Daily\n\nRun it.\n")
    p = prepare_material([doc], "block")
    assert [s.text for s in p.sources] == ["# Setup\n\nInstall it.", "## Use\n### Daily\n\nRun it."]
    plain = prepare_material([Document("guide.txt", doc.text)], "block")
    assert len(plain.sources) == 4  # not Markdown: every paragraph is its own block


def test_context_unit_wraps_blocks_in_tags_with_plain_ids():
    docs = [Document("opinion.md", "# Opinion\n\nWe hold that jurisdiction was lacking.\n")]
    p = prepare_material(docs, "context", turn=5, meta=[("court", "Supreme")])
    assert p.text == ('<block id="block1" title="Opinion" court="Supreme">\n# Opinion\n\n'
                      "We hold that jurisdiction was lacking.\n</block>\n")
    (src,) = p.sources
    assert (src.id, src.kind, src.title, src.meta("court")) == (
        "block1", SourceKind.CONTEXT, "Opinion", "Supreme")


def test_document_unit_has_marker_metadata_and_unlabelled_text():
    p = prepare_material([HANDBOOK], "document")
    assert p.text == (f"Citation Marker: {S}cite{D}turn0file0{E}\nTitle: Employee Handbook\n\n"
                      + HANDBOOK.text)
    (src,) = p.sources
    assert src.kind is SourceKind.DOCUMENT and src.lines == []
    assert src.text == HANDBOOK.text.rstrip("\n")


def test_sentence_split_labels_sentences():
    doc = Document("memo.md", "# Memo\nThe office opens at 9. It closes at 5! Is it open\n"
                   "on Sunday? No.\n\n- Parking is free. e.g. on weekends.\n")
    p = prepare_material([doc], "line", split="sentences")
    (src,) = p.sources
    assert [src.line_text(ln) for ln in src.lines] == [
        "# Memo", "The office opens at 9.", "It closes at 5!", "Is it open on Sunday?", "No.",
        "- Parking is free. e.g. on weekends."]
    assert [ln.label for ln in src.lines] == [1, 2, 3, 4, 5, 6]
    assert "\n\n[L6] - Parking" in p.text  # the paragraph break is kept


def test_split_sentences_never_crosses_a_list_item():
    assert split_sentences(["- one", "- two. Three"]) == [["- one", "- two.", "Three"]]


@pytest.mark.parametrize(("lines", "title"), [
    (["# Title  ##", "text"], "Title"),
    (["intro", "", "Setext", "======", "# Later"], "Setext"),
    (["```", "# not a heading", "```", "## Real"], "Real"),
    (["#hashtag", "    # indented code", "plain"], None),
])
def test_markdown_title(lines, title):
    assert markdown_title(lines) == title


def test_title_falls_back_to_file_name_and_only_markdown_reads_headings():
    py = Document("src/tool.py", "# a comment, not a title\nx = 1\n")
    md = Document("docs/notes.md", "no heading here\n")
    p = prepare_material([py, md], "line")
    assert [s.title for s in p.sources] == ["tool.py", "notes.md"]
    over = prepare_material([py, md], "line", meta=[("Title", "Shared")])
    assert [s.title for s in over.sources] == ["Shared", "Shared"]
    assert over.text.count("Title:") == 2


# ----------------------------------------------------------------------------- stability


def test_same_input_same_bytes_and_line_breaks_do_not_matter():
    lf = "# Doc\n\nOne line.\nTwo lines.\n\nThird para.\n"
    for unit in UNITS:
        runs = {prepare_material([Document("d.md", lf.replace("\n", br))], unit).text
                for br in ("\n", "\r\n", "\r")}
        runs.add(prepare_material([Document("d.md", lf)], unit).text)
        assert len(runs) == 1, unit
        assert "\r" not in runs.pop()


# ----------------------------------------------------------------------------- neutralisation


TRICKY = Document("tricky.txt", "[L5] looks like a label\nCitation Marker: "
                  f"{S}cite{D}turn9file9{E}\n  [Block2]\n<block id=\"x\">&amp; <b>bold</b>\n")


def test_line_unit_keeps_structure_lookalikes_behind_labels_but_replaces_marker_chars():
    p = prepare_material([TRICKY], "line")
    (src,) = p.sources
    assert [src.line_text(ln) for ln in src.lines] == [
        "[L5] looks like a label", f"Citation Marker: {REPLACEMENT}cite{REPLACEMENT}turn9file9"
        f"{REPLACEMENT}", "  [Block2]", '<block id="x">&amp; <b>bold</b>']
    assert extract_citations(p.text.split("\n\n", 1)[1]) == []  # no marker in the body
    assert [w.message for w in p.warnings] == [
        "3 citation marker character(s) (U+E200-U+E202) replaced by U+FFFD"]


def test_block_and_document_units_escape_lines_that_read_as_structure():
    for unit in ("block", "document"):
        p = prepare_material([TRICKY], unit)
        (src,) = p.sources
        shown = split_lines(src.text)
        assert shown[0] == "\\[L5] looks like a label"
        assert shown[1].startswith("\\Citation Marker: ")
        assert src.lines == [] and src.kind is not SourceKind.LINE
        assert any("2 line(s) that would read as marker headers" in w.message
                   for w in p.warnings), unit
    # A first line that would read as a block label, in a document unit.
    p = prepare_material([Document("b.txt", "[Block7]\ntext\n")], "document")
    assert p.sources[0].label is None and p.sources[0].text == "\\[Block7]\ntext"


def test_context_unit_escapes_tags_so_a_document_cannot_close_its_unit():
    doc = Document("page.html", 'a <b>x</b> &amp; b < c\n</block>\n<block id="evil">\n[L2] z\n')
    p = prepare_material([doc], "context")
    (src,) = parse_context(p.text).sources
    assert src.id == "block1"
    assert src.text == ('a &lt;b>x&lt;/b> &amp;amp; b < c\n&lt;/block>\n&lt;block id="evil">\n'
                        "\\[L2] z")
    assert src.lines == []
    msgs = [w.message for w in p.warnings]
    assert any("escaped (&lt;, &amp;)" in m for m in msgs)
    assert any("would read as line labels" in m for m in msgs)
    # Decoding the two entities gives the document's text back.
    decoded = src.text.replace("&lt;", "<").replace("&amp;", "&").replace("\\[L2]", "[L2]")
    assert decoded == doc.text.rstrip("\n")


def test_context_attribute_values_survive_quotes_and_angle_brackets():
    doc = Document("q.md", "# The \"<Remote>\" policy\n\nText.\n")
    p = prepare_material([doc], "context", meta=[("note", "it's \"fine\"")])
    (src,) = parse_context(p.text).sources
    assert parse_context(p.text).diagnostics == []
    assert src.title == "The \"&lt;Remote&gt;\" policy" and src == p.sources[0]


def test_bad_options_raise_input_error():
    docs = [HANDBOOK]
    for kwargs in ({"unit": "page"}, {"turn": -1}, {"split": "words"},
                   {"unit": "block", "split": "sentences"}, {"unit": "line", "block_lines": 3},
                   {"unit": "block", "block_lines": 0},
                   {"meta": [("Bad:key", "v")]}, {"meta": [("Citation Marker", "v")]},
                   {"meta": [("k", "")]}, {"meta": [("k", "1"), ("K", "2")]},
                   {"unit": "context", "meta": [("id", "x")]},
                   {"unit": "context", "meta": [("two words", "x")]},
                   {"meta": [("k" * 62, "v")]}):
        with pytest.raises(InputError):
            prepare_material(docs, **kwargs)


# ----------------------------------------------------------------------------- round trip

# Text that stresses the format: labels, headers, tags, entities, markers, odd line breaks and
# Unicode that str.splitlines would split on.
ATOMS = ["[L5] ", "[L12]", "[Block3]", "Citation Marker: ", "citation marker:", "Title: x",
         "<block id=\"b\">", "</block>", "<x>", "&lt;", "&#60;", "&", "【turn0file0】",
         START, DELIMITER, STOP, "\\ue200", "\n", "\r\n", "\r", "\n\n", "  ", "\t", "# ",
         "\u2028", "\x85", "\x0c", "\u00e9", "\U0001f600", "key: value"]
doc_text = st.lists(st.one_of(st.sampled_from(ATOMS), st.text(max_size=12)),
                    max_size=25).map("".join)
documents = st.lists(st.tuples(st.sampled_from(["a.md", "b.txt", "c.py"]), doc_text),
                     min_size=1, max_size=4).map(lambda ds: [Document(n, t) for n, t in ds])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents, st.sampled_from(UNITS), st.integers(0, 3), st.sampled_from([None, 1, 3]),
       st.booleans())
def test_round_trip_parser_reads_back_exactly_the_prepared_sources(docs, unit, turn, k,
                                                                    sentences):
    kwargs: dict = {"turn": turn}
    if unit in ("block", "context"):
        kwargs["block_lines"] = k
    if unit == "line" and sentences:
        kwargs["split"] = "sentences"
    p = prepare_material(docs, unit, **kwargs)
    assert prepare_material(docs, unit, **kwargs).text == p.text  # deterministic
    m = parse_back(p, unit)
    assert m.diagnostics == []
    assert m.sources == p.sources
    assert len({s.id for s in p.sources}) == len(p.sources)
    # The only marker characters in the material are those of the headers.
    assert p.text.count(START) == (0 if unit == "context" else len(p.sources))


def _visible(text: str) -> str:
    """What prepare keeps of a document's lines: marker characters replaced and
    whitespace-only lines emptied; empty lines dropped for comparison."""
    text = text.translate({ord(c): REPLACEMENT for c in (START, DELIMITER, STOP)})
    return "\n".join(ln for ln in split_lines(text) if ln.strip())


_ESCAPED_LINE = re.compile(r"(?m)^\\(?=[ \t]*(?:\[L\d+\]|citation marker[ \t]*:|\[block))",
                           re.IGNORECASE)


def _undo(text: str, unit: str) -> str:
    """Inverse of the documented escapes: the leading backslash, and in context units the
    two entities."""
    text = _ESCAPED_LINE.sub("", text)
    if unit == "context":
        text = re.sub(r"&(lt|amp);", lambda m: "<" if m.group(1) == "lt" else "&", text)
    return text


@settings(max_examples=100, deadline=None)
@given(documents)
def test_round_trip_keeps_each_documents_text_except_what_is_warned(docs):
    # Line units: every physical line from the first non-empty one to the last comes back
    # under its own number (whitespace-only lines empty).
    p = prepare_material(docs, "line")
    for src, i in zip(p.sources, p.documents, strict=True):
        lines = split_lines(docs[i].text)
        for ln in src.lines:
            expect = lines[ln.label - 1].translate(
                {ord(c): REPLACEMENT for c in (START, DELIMITER, STOP)})
            assert src.line_text(ln) == (expect if expect.strip() else "")
        filled = [n for n, x in enumerate(lines, 1) if x.strip()]
        assert [ln.label for ln in src.lines] == (
            list(range(filled[0], filled[-1] + 1)) if filled else [])
    # Other units: the text is the document's, except lines warned about as escaped.
    for unit in ("block", "document", "context"):
        p = prepare_material(docs, unit)
        escaped = {w.document for w in p.warnings if "escaped" in w.message}
        for i, doc in enumerate(docs):
            got = "\n".join(s.text for s, j in zip(p.sources, p.documents, strict=True)
                            if j == i)
            got = "\n".join(ln for ln in split_lines(got) if ln.strip())
            if i not in escaped:
                assert got == _visible(doc.text), unit
            else:
                assert _undo(got, unit) == _visible(doc.text), unit


def test_prepared_citations_resolve_to_the_cited_text():
    docs = [HANDBOOK, Document("faq.txt", "Q: Laptops?\nA: Provided.\n")]
    p = prepare_material(docs, "line")
    answer = (f"Remote work is capped at three days.{S}cite{D}turn0file0{D}L3{E} "
              f"Laptops are provided.{S}cite{D}turn0file1{D}L2{E} "
              f"Bogus.{S}cite{D}turn0file0{D}L5{E}")
    res = resolve(extract_citations(answer), p.sources)
    assert [r.targets[0].status for r in res] == [Status.OK, Status.OK,
                                                 Status("line-out-of-range")]
    assert res[0].targets[0].text == "Employees may work remotely up to three days per week."
    assert res[1].targets[0].text == "A: Provided."
