"""Marker parsing: reference behaviour (properties against a transcription of the guide's
helper), and what ``scan`` adds: recovered citations and CV1xx diagnostics."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from citeview.core.markers import (
    DELIMITER as D,
)
from citeview.core.markers import (
    START as S,
)
from citeview.core.markers import (
    STOP as E,
)
from citeview.core.markers import (
    Recovery,
    StrippedText,
    decode_literal_escapes,
    extract_citations,
    scan,
    strip_all,
    strip_citations,
)


def reference_extract(text: str, families: tuple[str, ...] = ("cite",)) -> list[dict]:
    """The guide's Python helper, transcribed (the oracle for the property tests)."""
    if not families:
        return []
    family_pattern = "|".join(re.escape(f) for f in families)
    token_re = re.compile(
        rf"{re.escape(S)}(?P<family>{family_pattern}){re.escape(D)}(?P<body>.*?){re.escape(E)}",
        re.DOTALL,
    )
    out = []
    for m in token_re.finditer(text):
        parts = [p.strip() for p in m.group("body").split(D)]
        parts = [p for p in parts if p]
        if not parts:
            continue
        locator = None
        if re.fullmatch(r"^L\d+(?:-L\d+)?$", parts[-1]):
            locator = parts.pop()
        if not parts or any(not re.fullmatch(r"^[A-Za-z0-9_-]+$", p) for p in parts):
            continue
        out.append({"raw": m.group(0), "family": m.group("family"), "source_ids": parts,
                    "locator": locator, "start": m.start(), "end": m.end()})
    return out


def reference_strip(text: str, citations: list[dict]) -> str:
    for c in sorted(citations, key=lambda c: c["start"], reverse=True):
        text = text[: c["start"]] + text[c["end"] :]
    return text


# Marker-rich text: the three marker characters, ids, locators, families, whitespace, prose.
_atoms = st.sampled_from([
    S, D, E, "cite", "navlist", "turn0file0", "turn1news2", "L8", "L8-L13", "L8-13", " ", "\n",
    "\t", "x", "block5", "a b", "【turn0file0】", "\\ue200", "\\ue201", "\\ue202", ".", "😀",
    "citeturn0file1", "-", "_", "L", "٣",
])
marker_text = st.lists(_atoms, max_size=40).map("".join)
families = st.sampled_from([("cite",), ("cite", "navlist"), ("navlist",), (), ("ci",)])


@settings(max_examples=400, deadline=None)
@given(marker_text, families)
def test_extract_equals_reference(text: str, fams: tuple[str, ...]) -> None:
    got = [c.to_dict() for c in extract_citations(text, fams)]
    ref = reference_extract(text, fams)
    assert got == ref
    assert strip_citations(text, extract_citations(text, fams)) == reference_strip(text, ref)


@settings(max_examples=300, deadline=None)
@given(marker_text)
def test_scan_keeps_conformant_and_spans_never_overlap(text: str) -> None:
    result = scan(text)
    assert [c.to_dict() for c in result.conformant] == reference_extract(text)
    spans = sorted((c.start, c.end) for c in result.citations)
    for (_, e1), (s2, _) in zip(spans, spans[1:], strict=False):
        assert e1 <= s2
    for c in result.citations:
        assert text[c.start : c.end] == c.raw
        assert c.source_ids
    for d in result.diagnostics:
        assert 0 <= d.start <= d.end <= len(text)


@settings(max_examples=200, deadline=None)
@given(marker_text)
def test_strip_all_removes_every_marker_character(text: str) -> None:
    result = scan(text)
    clean = strip_all(text, result)
    assert not any(ch in clean for ch in (S, D, E))
    assert len(clean) <= len(text)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=30), st.lists(st.tuples(st.integers(0, 30), st.integers(0, 8)),
                                       max_size=5))
def test_stripped_text_offset_maps(text: str, raw_spans: list[tuple[int, int]]) -> None:
    spans = [(min(s, len(text)), min(s + n, len(text))) for s, n in raw_spans]
    st_ = StrippedText.build(text, spans)
    removed = set()
    for s, e in spans:
        removed.update(range(s, e))
    kept = [i for i in range(len(text)) if i not in removed]
    assert st_.text == "".join(text[i] for i in kept)
    for clean_i, orig_i in enumerate(kept):
        assert st_.to_original(clean_i) == orig_i
        assert st_.to_clean(orig_i) == clean_i


def codes(text: str, **kw: object) -> list[tuple[str, str]]:
    return [(d.code, text[d.start : d.end]) for d in scan(text, **kw).diagnostics]  # type: ignore[arg-type]


def test_well_formed_answer_has_no_diagnostics() -> None:
    text = (f"Remote work is allowed.{S}cite{D}turn0file0{D}L1-L2{E} "
            f"Travel too.{S}cite{D}turn0file1{E}")
    result = scan(text)
    assert result.diagnostics == []
    assert [c.source_ids for c in result.citations] == [("turn0file0",), ("turn0file1",)]
    assert result.citations[0].parsed_locator is not None
    assert (result.citations[0].parsed_locator.first, result.citations[0].parsed_locator.last) \
        == (1, 2)


def test_unterminated_marker_and_the_marker_it_swallows_are_recovered() -> None:
    text = f"One.{S}cite{D}turn0file0 Two.{S}cite{D}turn0file1{D}L3{E}"
    assert extract_citations(text) == []  # the reference loses both
    result = scan(text)
    assert [(c.source_ids, c.locator, c.recovered) for c in result.citations] == [
        (("turn0file0",), None, Recovery.UNTERMINATED),
        (("turn0file1",), "L3", Recovery.SWALLOWED),
    ]
    assert result.diagnostics[0].code == "CV101"
    assert text[result.diagnostics[0].start : result.diagnostics[0].end] == f"{S}cite{D}turn0file0"


def test_unterminated_at_end_of_text() -> None:
    text = f"Claim.{S}cite{D}turn0file0{D}L2"
    result = scan(text)
    assert [(c.source_ids, c.locator) for c in result.citations] == [(("turn0file0",), "L2")]
    assert [d.code for d in result.diagnostics] == ["CV101"]


def test_empty_marker_invalid_id_unknown_family_stray_characters() -> None:
    assert codes(f"a{S}cite{E}") == [("CV102", f"{S}cite{E}")]
    assert codes(f"a{S}cite{D} {D}{E}") == [("CV102", f"{S}cite{D} {D}{E}")]
    assert codes(f"a{S}cite{D}turn0 file0{E}") == [("CV103", "turn0 file0")]
    assert codes(f"a{S}footnote{D}turn0file0{E}")[0][0] == "CV104"
    assert codes(f"a{S}navlist{D}turn0file0{E}")[0][0] == "CV113"  # known, not a citation
    assert scan(f"a{S}navlist{D}turn0file0{E}", families=("cite", "navlist")).diagnostics == []
    assert codes(f"a{E} b{D}") == [("CV105", E), ("CV105", D)]


def test_malformed_locators() -> None:
    text = f"a{S}cite{D}turn0file0{D}lines 8-13{E}"
    assert codes(text) == [("CV110", "lines 8-13")]
    [c] = scan(text).citations
    assert (c.locator, c.recovered) == ("L8-L13", Recovery.MALFORMED_LOCATOR)
    # "L8-13" is a valid id for the reference, which reads it as a second source id
    text = f"a{S}cite{D}turn0file0{D}L8-13{E}"
    [c] = extract_citations(text)
    assert c.source_ids == ("turn0file0", "L8-13")
    assert codes(text) == [("CV110", "L8-13")]
    # a locator not in last place
    text = f"a{S}cite{D}turn0file0{D}L8-L13{D}turn0file1{E}"
    assert codes(text) == [("CV110", "L8-L13")]


def test_literal_escape_markers_are_decoded_and_recovered() -> None:
    text = r"Remote work.\ue200cite\ue202turn0file0\ue202L1\ue201 More."
    result = scan(text)
    [c] = result.citations
    assert (c.source_ids, c.locator, c.recovered) == (("turn0file0",), "L1",
                                                      Recovery.LITERAL_ESCAPE)
    assert [d.code for d in result.diagnostics] == ["CV106"]
    assert decode_literal_escapes(r"\uE200cite\\ue202x\u{e201}") == f"{S}cite{D}x{E}"
    assert strip_all(text, result) == "Remote work. More."


def test_degraded_markers() -> None:
    text = "Fares rise.citeturn0search0L1-L2 Approved.citeturn0search1turn1news0\n"
    result = scan(text)
    assert [(c.source_ids, c.locator, c.recovered) for c in result.citations] == [
        (("turn0search0",), "L1-L2", Recovery.DEGRADED),
        (("turn0search1", "turn1news0"), None, Recovery.DEGRADED),
    ]
    assert [d.code for d in result.diagnostics] == ["CV107", "CV107"]
    # ids that are not of the turn shape are found when the material's ids are known
    assert scan("Held.citeblock5", known_ids=["block5"]).citations[0].source_ids == ("block5",)
    # words that merely start with cite are not markers
    assert scan("We recite turn-taking rules.").citations == []


def test_bracket_references_and_verbatim_ids_one_diagnostic_per_span() -> None:
    text = "See 【turn0file0】 and 【6†L9-L11】, or turn0file1, or block12."
    assert codes(text, known_ids=["block12"]) == [
        ("CV108", "【turn0file0】"), ("CV108", "【6†L9-L11】"),
        ("CV109", "turn0file1"), ("CV109", "block12"),
    ]
    # an id inside a real marker is not verbatim
    assert codes(f"x{S}cite{D}turn0file0{E}") == []
    # a short or digit-free known id is not flagged
    assert codes("the doc a1 and intro", known_ids=["a1", "intro"]) == []


def test_no_families_means_no_citations() -> None:
    text = f"x{S}cite{D}turn0file0{E}"
    assert extract_citations(text, ()) == []
    assert scan(text, ()).citations == []


def test_linear_on_many_unterminated_markers() -> None:
    # The reference rescans to the end for each unterminated START; scan must not. Checked by
    # size, not time: 20,000 unterminated markers parse to 20,000 recoveries.
    text = f"{S}cite{D}turn0file0 prose " * 20_000 + f"{S}cite{D}turn0file1{E}"
    result = scan(text)
    assert len(result.citations) == 20_001
    assert extract_citations(text) == []


def test_degraded_ids_are_read_whole_and_a_failed_candidate_hides_nothing() -> None:
    # A known id that is a prefix of the glued id must not split it ("turn0file1" + "2").
    [c] = scan("Fares.citeturn0file12", known_ids=["turn0file1"]).citations
    assert c.source_ids == ("turn0file12",)
    # "cited" is no marker, but the degraded marker glued after it is still found.
    [c] = scan("He cited??\ufffdciteturn0file0turn0file1 it.").citations
    assert (c.raw, c.source_ids) == ("\ufffdciteturn0file0turn0file1",
                                     ("turn0file0", "turn0file1"))
    # A stand-in for a lost character between the parts, and a question mark that is prose.
    [c] = scan("Is it so?citeblock5\ufffdL8-L13?", known_ids=["block5"]).citations
    assert (c.source_ids, c.locator, c.raw) == (("block5",), "L8-L13", "citeblock5\ufffdL8-L13?")


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 60), st.integers(0, 5)), max_size=12),
       st.lists(st.tuples(st.integers(0, 70), st.integers(0, 6)), max_size=20))
def test_lower_priority_findings_never_overlap_higher_ones(spans, queries) -> None:
    """The span bookkeeping behind "one diagnostic per span", in and out of text order."""
    from citeview.core.markers import _Occupied

    occ = _Occupied()
    taken: list[tuple[int, int]] = []
    for s, n in sorted(spans):
        if all(s >= e or s + n <= b for b, e in taken):
            occ.add(s, s + n)
            taken.append((s, s + n))
    occ.commit()
    for s, n in [*sorted(queries), *queries]:
        e = s + n
        expected = any(b < max(e, s + 1) and s < be for b, be in taken)
        assert occ.overlaps(s, e) == expected, (taken, s, e)


# Answers with markers and every look-alike's literal, inside markers and out.
_SCAN_ATOMS = st.sampled_from([
    f"{S}cite{D}turn0file0{E}", f"{S}cite{D}doc12{D}L3{E}", f"{S}cite{D}a{D}b{E}",
    f"{S}filecite{D}turn1search2{E}", f"{S}cite{D}L4{D}L5{E}", f"{S}cite{D}x{D}L8-13{E}",
    f"{S}cite{D}a-b_c{E}", f"{S}cite {D}a{E}", S, D, E, " ", "\n", "x", ".", "?", "\ufffd",
    "return", "turn", "cite", "cited", "turn0file0", "doc12", "a1", "block5", "citeturn0file0",
    "fileciteturn0file0L2", "iturn0image0turn0image1", "eturn0search5turn0search15",
    "contentReference[oaicite:0]{index=0}", "[oai_citation:1\u2021T](http://x)",
    ":codex-file-citation[x]{path=a.py}", "[cite: 1]", "[cite_start]", "[3\u2020source]",
    "\u00ee\u02c6\u20accite\u00ee\u02c6\u201aturn0search3\u00ee\u02c6", "\u3010turn0file0\u3011",
    "\\ue200", "\\ue201", "\\ue202", "L5", "L2-L3",
])
_KNOWN = st.sampled_from([(), ("turn0file0",), ("doc12", "turn0file0"), ("a1", ""), ("block5",),
                          tuple(f"doc{k}x" for k in range(20)) + ("doc12",)])
_SCAN_FAMILIES = st.sampled_from([("cite",), ("cite",), ("cite", "filecite"), ("filecite",), (),
                                  ("",), ("ci",)])


@settings(max_examples=500, deadline=None)
@given(st.lists(st.one_of(_SCAN_ATOMS, st.sampled_from(["Some prose ", "more words. "])),
                max_size=14).map("".join), _SCAN_FAMILIES, _KNOWN)
def test_scan_skips_only_passes_that_find_nothing(text: str, fams: tuple[str, ...],
                                                  known: tuple[str, ...]) -> None:
    """A scan that skips the passes whose literals lie inside markers (and most answers, the
    scan after the reference's parse) finds what running every pass finds."""
    from citeview.core.markers import _scan_passes

    every = _scan_passes(text, fams, {k for k in known if k}, extract_citations(text, fams),
                         skip=False)
    assert scan(text, fams, known) == every
    assert scan(text, fams, iter(known)) == every


# Answers of and near the usual shape (prose, markers of one id and a line locator at sentence
# ends), read the short way (one split) where every START opens a usual marker.

_SHAPE_FAMILIES = st.sampled_from(["cite", "cite", "cite", "filecite", "ci", "navlist", "",
                                   "cite "])
_SHAPE_IDS = st.sampled_from(["turn0file0", "turn0file0", "turn12file3", "doc12", "a-b_c", "L4",
                              "Lx", "l4", "x y", "", " turn0file0", "turn0file0\n", "\u00e9t\u00e9",
                              "turn0file0" + D + "turn0file1", "_", "-"])
_SHAPE_LOCATORS = st.sampled_from([None, None, "L5", "L5-L8", "L12-L3", "L5-8", " L5", "L\u0663",
                                   "L5" + D, "", "x"])
_SHAPE_PROSE = st.sampled_from([
    "Remote work is allowed.", "Staff may work from home", " ", "\n", "\n\n", ".", ",", "\u03a9",
    "\u00e9t\u00e9 ", "return to the office.", "turn", "cite", "cited", "turn0file0", "doc12",
    "\\ue200", "\u3010turn0file0\u3011", "[cite: 1]", "\u00ee", S, D, E, "L4", "\ufffd", "?",
])


@st.composite
def _shaped_answers(draw: st.DrawFn) -> str:
    out: list[str] = []
    for _ in range(draw(st.integers(0, 6))):
        out.append(draw(st.lists(_SHAPE_PROSE, max_size=3).map("".join)))
        if draw(st.integers(0, 3)):
            loc = draw(_SHAPE_LOCATORS)
            out.append(S + draw(_SHAPE_FAMILIES) + D + draw(_SHAPE_IDS)
                       + ("" if loc is None else D + loc) + (E if draw(st.integers(0, 9)) else ""))
    return "".join(out)


@settings(max_examples=600, deadline=None)
@given(_shaped_answers(), _SCAN_FAMILIES, _KNOWN)
def test_the_split_reads_an_answer_as_the_general_scan_does(text: str, fams: tuple[str, ...],
                                                            known: tuple[str, ...]) -> None:
    from citeview.core.markers import _scan_passes, _split_plain

    ids = {k for k in known if k}
    every = _scan_passes(text, fams, ids, extract_citations(text, fams), skip=False)
    short = _split_plain(text, fams, ids)
    assert short is None or short == every
    assert scan(text, fams, known) == every


def test_the_usual_answer_is_read_by_the_split() -> None:
    from citeview.core.markers import _split_plain

    answer = (f"Remote work is allowed.{S}cite{D}turn0file0{D}L7-L8{E}\n\nStaff may work "
              f"from home.{S}cite{D}turn0file0{D}L5{E}\n\nAnother claim.{S}cite{D}doc12{E}\n")
    found = _split_plain(answer, ("cite",), {"turn0file0", "doc12"})
    assert found is not None and not found.diagnostics
    assert [(c.source_ids, c.locator, answer[c.start:c.end] == c.raw) for c in found.citations] \
        == [(("turn0file0",), "L7-L8", True), (("turn0file0",), "L5", True), (("doc12",), None,
                                                                               True)]
    # An id that may be a locator, a START of no usual marker: the general way reads it.
    for other in (answer.replace("turn0file0", "L4", 1), answer + S,
                  answer.replace(f"{D}L5", f" {D}L5")):
        assert _split_plain(other, ("cite",), {"turn0file0"}) is None
