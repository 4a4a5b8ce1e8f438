"""Resolving citations: statuses a reviewer acts on, exact spans, every sample as a reader
expects, and generated material of every shape."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from citeview.core.cases import Case
from citeview.core.markers import DELIMITER, START, STOP, Citation, scan
from citeview.core.material import (
    Material,
    SourceKind,
    case_material,
    file_source,
    parse_context,
    parse_tool_output,
)
from citeview.core.resolution import Resolution, Status, Target, resolve

SAMPLES = Path(__file__).parent.parent / "data" / "samples"


def marker(sid: str) -> str:
    return f"{START}cite{DELIMITER}{sid}{STOP}"


def cite(*ids: str, locator: str | None = None) -> Citation:
    return Citation("raw", "cite", ids, locator, 0, 3)


def one(citation: Citation, material: Material) -> Target:
    (res,) = resolve([citation], material)
    (t,) = res.targets
    return t


MAT = parse_tool_output(
    f"Citation Marker: {marker('f')}\n[L3] three\n[L4] four\n[L4] four again\n[L6] six\n"
    f"[L7] seven\n\nCitation Marker: {marker('blk')}\n[Block1]\nBlock text.\n\n"
    f"Citation Marker: {marker('doc')}\nJust a document."
)


def test_single_line_and_range() -> None:
    t = one(cite("f", locator="L3"), MAT)
    assert (t.status, t.labels, t.text) == (Status.OK, (3,), "three")
    t = one(cite("f", locator="L6-L7"), MAT)
    assert (t.status, t.labels, t.text) == (Status.OK, (6, 7), "six\nseven")
    assert t.source is not None and t.span == (t.lines[0].start, t.lines[-1].end)


def test_repeated_labels_are_all_cited() -> None:
    t = one(cite("f", locator="L4"), MAT)
    assert t.status is Status.OK
    assert t.labels == (4, 4)
    assert t.text == "four\nfour again"


def test_no_locator_cites_the_whole_source() -> None:
    t = one(cite("blk"), MAT)
    assert t.status is Status.WHOLE_SOURCE
    assert t.text == "Block text."
    assert t.span == (0, len("Block text."))
    assert "Block1" in t.detail


def test_unknown_source_suggests_a_close_id() -> None:
    t = one(cite("g", locator="L1"), parse_tool_output(f"Citation Marker: {marker('turn0file1')}"
                                                       "\n[L1] x"))
    assert t.status is Status.UNKNOWN_SOURCE and t.source is None and t.span is None
    t = one(cite("turn0file3", locator="L1"), parse_tool_output(
        f"Citation Marker: {marker('turn0file1')}\n[L1] x"))
    assert t.suggestion == "turn0file1" and "turn0file1" in t.detail


@pytest.mark.parametrize(
    ("locator", "end", "shown", "words"),
    [
        ("L9", "both", (), "past the last line, L7"),
        ("L1", "both", (), "before the first line, L3"),
        ("L5", "both", (), "skip from L4 to L6"),
        ("L6-L9", "last", (6, 7), "L9"),
        ("L1-L3", "first", (3,), "L1"),
        ("L12-L14", "both", (), "past the last line, L7"),
    ],
)
def test_out_of_range_says_which_end(locator: str, end: str, shown: tuple[int, ...],
                                     words: str) -> None:
    t = one(cite("f", locator=locator), MAT)
    assert t.status is Status.OUT_OF_RANGE
    assert t.out_of_range_end == end
    assert t.labels == shown
    assert words in t.detail


def test_reversed_range() -> None:
    t = one(cite("f", locator="L7-L6"), MAT)
    assert t.status is Status.REVERSED
    assert t.labels == (6, 7)
    assert "reversed" in t.detail


@pytest.mark.parametrize("sid", ["blk", "doc"])
def test_line_locator_on_unlined_source(sid: str) -> None:
    t = one(cite(sid, locator="L2"), MAT)
    assert t.status is Status.NO_LINES
    assert t.source is not None and t.text == t.source.text


def test_locator_applies_to_each_source_of_a_multi_source_citation() -> None:
    (res,) = resolve([cite("f", "blk", "nope", locator="L3")], MAT)
    assert [t.status for t in res.targets] == [Status.OK, Status.NO_LINES, Status.UNKNOWN_SOURCE]
    assert res.status is Status.UNKNOWN_SOURCE
    assert not res.ok


def test_duplicate_id_resolves_to_first_definition_and_says_so() -> None:
    m = parse_tool_output(f"Citation Marker: {marker('a')}\n[L1] first\n\n"
                          f"Citation Marker: {marker('a')}\n[L1] second")
    t = one(cite("a", locator="L1"), m)
    assert t.text == "first" and t.duplicates == 1 and "2 times" in t.detail


def test_resolve_accepts_plain_sources_and_keeps_order() -> None:
    src = file_source("notes", "a\nb\nc")
    res = resolve([cite("notes", locator="L2-L3"), cite("notes")], [src])
    assert [r.index for r in res] == [0, 1]
    assert res[0].targets[0].text == "b\nc"


# --------------------------------------------------------------------------- samples


def sample(name: str) -> tuple[Case, Material, list[Resolution]]:
    case = Case.from_dict(json.loads((SAMPLES / name).read_text(encoding="utf-8")))
    material = case_material(case)
    cits = scan(case.answer, known_ids=material.ids()).citations
    return case, material, resolve(cits, material)


def rows(res: list[Resolution]) -> list[tuple[str, str | None, str]]:
    return [(t.source_id, r.citation.locator, t.status.value) for r in res for t in r.targets]


def test_sample_handbook_line_level() -> None:
    _, m, res = sample("handbook-line-level.case.json")
    assert m.diagnostics == []
    assert rows(res) == [("turn0file0", "L1", "ok"), ("turn0file0", "L2-L5", "ok")]
    assert res[0].targets[0].text == "Employees may work remotely up to three days per week."
    assert res[1].targets[0].labels == (2, 3, 4, 5)
    assert res[1].targets[0].text.endswith("within five business days.")


def test_sample_handbook_rule_breaking() -> None:
    _, m, res = sample("handbook-rule-breaking.case.json")
    assert m.diagnostics == []
    table = rows(res)
    assert ("turn0file3", "L1", "unknown-source") in table
    assert ("turn0file0", "L12-L14", "line-out-of-range") in table
    assert ("turn0file1", "L6-L5", "reversed-range") in table
    bad = {(t.source_id, r.citation.locator): t for r in res for t in r.targets if not t.ok}
    assert len(bad) == 3
    oor = bad[("turn0file0", "L12-L14")]
    assert oor.out_of_range_end == "both" and "past the last line, L5" in oor.detail
    rev = bad[("turn0file1", "L6-L5")]
    assert rev.labels == (5, 6)
    # The rest resolve, including the citations inside bold and code (placement is lint's job).
    assert sum(1 for _, _, s in table if s == "ok") == len(table) - 3


def test_sample_transit_multi_turn_two_source_citation() -> None:
    _, m, res = sample("transit-multi-turn.case.json")
    assert [s.origin for s in m.sources] == ["tool_outputs[0]", "tool_outputs[0]",
                                             "tool_outputs[1]"]
    two = [r for r in res if len(r.targets) == 2]
    assert len(two) == 1
    assert [t.source_id for t in two[0].targets] == ["turn0search1", "turn1news0"]
    assert all(t.status is Status.WHOLE_SOURCE for t in two[0].targets)
    assert rows(res)[0] == ("turn0search0", "L1-L2", "ok")
    assert res[0].targets[0].text.endswith("Monthly passes stay at $127.")
    assert all(r.ok for r in res)


def test_sample_contract_block_level() -> None:
    _, m, res = sample("contract-block-level.case.json")
    assert [(s.kind, s.label) for s in m.sources] == [(SourceKind.BLOCK, "Block1"),
                                                      (SourceKind.BLOCK, "Block2")]
    assert rows(res) == [("turn0file0", None, "whole-source"), ("turn0file1", None,
                                                                "whole-source")]
    assert res[1].targets[0].text.startswith("Either party may terminate")


def test_sample_opinion_injected_context() -> None:
    _, m, res = sample("opinion-injected-context.case.json")
    assert [s.id for s in m.sources] == ["block4", "block5", "block6"]
    assert rows(res) == [("block5", None, "whole-source"), ("block4", None, "whole-source")]
    assert res[0].targets[0].source is not None
    assert res[0].targets[0].source.title == "Opinion, Part II"
    assert res[0].targets[0].text.startswith("We hold that the District Court")


def test_sample_chat_transcript_tool_message_resolves() -> None:
    chat = json.loads((SAMPLES / "handbook.chat.json").read_text(encoding="utf-8"))
    msgs = chat["messages"]
    # Read the transcript as a reviewer would: tool messages are the material, the last
    # assistant message is the answer.
    tools = [msg["content"] for msg in msgs if msg["role"] == "tool"]
    answer = [msg["content"] for msg in msgs if msg["role"] == "assistant" and msg["content"]][-1]
    m = Material()
    for i, t in enumerate(tools):
        m.extend(parse_tool_output(t, f"tool_outputs[{i}]"))
    res = resolve(scan(answer).citations, m)
    assert rows(res) == [("turn0file0", "L1", "ok"), ("turn0file0", "L2-L5", "ok")]


def test_sample_dataset_every_case_resolves_like_its_single_case_file() -> None:
    lines = (SAMPLES / "policies.dataset.jsonl").read_text(encoding="utf-8").splitlines()
    cases = [Case.from_dict(json.loads(line)) for line in lines if line.strip()]
    assert len(cases) == 5
    for case in cases:
        _, _, expected = sample(f"{case.id}.case.json")
        m = case_material(case)
        got = resolve(scan(case.answer).citations, m)
        assert rows(got) == rows(expected)


def test_context_material_line_locator_is_reported() -> None:
    m = parse_context('<block id="block5">Held.</block>')
    assert one(cite("block5", locator="L1"), m).status is Status.NO_LINES


# --------------------------------------------------------------------------- generated material

BREAK = st.sampled_from(["\n", "\r\n", "\r"])
# Line text: anything but line breaks (U+2028, U+0085, form feed and emoji included); no "<" so
# that context units stay well formed.
TEXT = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n<"),
               max_size=12)
PLAIN = TEXT.map(lambda s: "x" + s)  # an unlabelled line: never blank, a label or a header


@dataclass
class Expected:
    id: str
    kind: SourceKind
    text: str
    lines: list[tuple[int, str]]  # (label, text) of the citable lines, in order


@st.composite
def labels_st(draw: st.DrawFn) -> list[int]:
    start = draw(st.integers(0, 10**6))
    steps = draw(st.lists(st.sampled_from([0, 1, 1, 1, 2, 7]), min_size=0, max_size=14))
    out = [start]
    for s in steps:
        out.append(out[-1] + s)
    return out


@st.composite
def line_source(draw: st.DrawFn, sid: str) -> tuple[str, Expected]:
    br = draw(BREAK)
    labels = draw(labels_st())
    body: list[str] = []
    shown: list[str] = []
    lines: list[tuple[int, str]] = []
    for label in labels:
        if draw(st.booleans()) and draw(st.booleans()):
            extra = draw(PLAIN)
            body.append(extra)
            shown.append(extra)
        text = draw(TEXT)
        body.append(f"[L{label}] {text}")
        shown.append(text)
        lines.append((label, text))
    meta = draw(st.sampled_from(["", f"Title: T {sid}{br}URL: https://x.example/{sid}{br}"]))
    # Metadata runs to the first blank or labelled line: without a blank line, the body must
    # start with a labelled line.
    blank = br if meta or not body[0].startswith("[L") or draw(st.booleans()) else ""
    raw = f"Citation Marker: {marker(sid)}{br}{meta}{blank}" + br.join(body)
    return raw, Expected(sid, SourceKind.LINE, "\n".join(shown), lines)


@st.composite
def block_source(draw: st.DrawFn, sid: str) -> tuple[str, Expected]:
    br = draw(BREAK)
    text = draw(st.lists(PLAIN, min_size=1, max_size=4))
    raw = f"Citation Marker: {marker(sid)}{br}[Block{len(sid)}]{br}" + br.join(text)
    return raw, Expected(sid, SourceKind.BLOCK, "\n".join(text), [])


@st.composite
def document_source(draw: st.DrawFn, sid: str) -> tuple[str, Expected]:
    br = draw(BREAK)
    text = draw(st.lists(PLAIN, min_size=1, max_size=4))
    meta = draw(st.sampled_from(["", f"Title: Doc{br}Updated: 2026-01-01{br}"]))
    raw = f"Citation Marker: {marker(sid)}{br}{meta}{br}" + br.join(text)
    return raw, Expected(sid, SourceKind.DOCUMENT, "\n".join(text), [])


@st.composite
def context_unit(draw: st.DrawFn, sid: str) -> tuple[str, Expected]:
    br = draw(BREAK)
    tag = draw(st.sampled_from(["block", "doc", "passage"]))
    if draw(st.booleans()):
        labels = draw(labels_st())
        texts = [draw(TEXT) for _ in labels]
        inner = br.join(f"[L{n}] {t}" for n, t in zip(labels, texts, strict=True))
        exp = Expected(sid, SourceKind.CONTEXT, "\n".join(texts), list(zip(labels, texts,
                                                                           strict=True)))
    else:
        texts = draw(st.lists(PLAIN, min_size=1, max_size=4))
        inner = br.join(texts)
        exp = Expected(sid, SourceKind.CONTEXT, "\n".join(texts), [])
    return f'<{tag} id="{sid}" title="T">{br}{inner}{br}</{tag}>', exp


@st.composite
def file_doc(draw: st.DrawFn, sid: str) -> tuple[str, Expected]:
    texts = draw(st.lists(TEXT, min_size=1, max_size=12))
    brs = [draw(BREAK) for _ in texts]
    # "\r" then an empty line then "\n" would read as one "\r\n" break.
    for i in range(len(texts) - 1):
        if brs[i] == "\r" and texts[i + 1] == "" and brs[i + 1].startswith("\n"):
            brs[i] = "\r\n"
    raw = "".join(t + b for t, b in zip(texts, brs, strict=True))
    return raw, Expected(sid, SourceKind.FILE, "\n".join(texts),
                         [(i + 1, t) for i, t in enumerate(texts)])


@st.composite
def generated_case(draw: st.DrawFn) -> tuple[Case, list[Expected]]:
    expected: list[Expected] = []
    outputs: list[str] = []
    for turn in range(draw(st.integers(0, 2))):
        chunks = []
        for k in range(draw(st.integers(1, 3))):
            shape = draw(st.sampled_from([line_source, line_source, block_source,
                                          document_source]))
            raw, exp = draw(shape(f"turn{turn}file{k}"))
            chunks.append(raw)
            expected.append(exp)
        outputs.append(draw(st.sampled_from(["\n\n", "\n", "\r\n\r\n"])).join(chunks))
    units = []
    for k in range(draw(st.integers(0, 2))):
        raw, exp = draw(context_unit(f"block{k}"))
        units.append(raw)
        expected.append(exp)
    documents = {}
    for k in range(draw(st.integers(0, 1))):
        raw, exp = draw(file_doc(f"notes{k}"))
        documents[exp.id] = raw
        expected.append(exp)
    case = Case(id="gen", answer="", tool_outputs=outputs,
                context="\nNot citable.\n".join(units) if units else None, documents=documents)
    return case, expected


def expected_status(labels: list[int], first: int, last: int) -> tuple[Status, str | None]:
    """A reversed range is reversed first of all; which end is not a label is said too."""
    status = Status.REVERSED if first > last else Status.OUT_OF_RANGE
    first_ok, last_ok = first in labels, last in labels
    if first_ok and last_ok:
        return (Status.REVERSED if first > last else Status.OK), None
    if first == last or not (first_ok or last_ok):
        return status, "both"
    return status, "first" if not first_ok else "last"


@given(generated_case(), st.data())
@settings(max_examples=60, deadline=None)
def test_generated_material_of_every_shape_resolves_exactly(
        gen: tuple[Case, list[Expected]], data: st.DataObject) -> None:
    case, expected = gen
    material = case_material(case)
    assert [d.code for d in material.diagnostics if d.code != "CV501"] == []
    assert [s.id for s in material.sources] == [e.id for e in expected]
    for src, exp in zip(material.sources, expected, strict=True):
        assert (src.kind, src.text) == (exp.kind, exp.text)
        assert [(line.label, src.text[line.start:line.end]) for line in src.lines] == exp.lines
        whole = one(cite(exp.id), material)
        assert whole.status is Status.WHOLE_SOURCE and whole.text == exp.text
        labels = [n for n, _ in exp.lines]
        if not labels:
            t = one(cite(exp.id, locator=f"L{data.draw(st.integers(0, 99))}"), material)
            assert t.status is Status.NO_LINES and t.text == exp.text
            continue
        near = sorted({*labels, min(labels) - 1, max(labels) + 1, labels[0] + 3})
        pick = st.sampled_from([n for n in near if n >= 0])
        for _ in range(4):
            first, last = data.draw(pick), data.draw(pick)
            loc = f"L{first}" if first == last and data.draw(st.booleans()) else \
                f"L{first}-L{last}"
            t = one(cite(exp.id, locator=loc), material)
            status, end = expected_status(labels, first, last)
            assert (t.status, t.out_of_range_end) == (status, end), (loc, labels, t.detail)
            lo, hi = min(first, last), max(first, last)
            want = [(n, s) for n, s in exp.lines if lo <= n <= hi]
            assert [(line.label, src.text[line.start:line.end]) for line in t.lines] == want
            if status is Status.OK:
                assert t.span == (t.lines[0].start, t.lines[-1].end)
                assert t.text.split("\n")[0] == want[0][1] or "\n" in want[0][1]
    repeats = sum(len(e.lines) - len({n for n, _ in e.lines}) for e in expected)
    assert sum(d.code == "CV501" for d in material.diagnostics) == repeats


def test_all_shapes_fixture_resolves_as_a_reader_expects() -> None:
    path = Path(__file__).parent.parent / "data" / "material" / "all-shapes.case.json"
    case = Case.from_dict(json.loads(path.read_text(encoding="utf-8")))
    material = case_material(case)
    kinds = {s.id: s.kind.value for s in material.sources}
    assert kinds == {"turn0file0": "line", "turn0file1": "block", "turn1view0": "document",
                     "turn1view1": "line", "turn1view2": "line", "ctx1": "context",
                     "faq": "file"}
    assert [d.code for d in material.diagnostics] == ["CV503"]
    report = material.get("turn0file0")
    assert report is not None and report.meta("Author") == "Ops team"
    assert [line.label for line in report.lines] == [12, 13, 15]
    assert "(table omitted)" in report.text
    res = resolve(scan(case.answer, known_ids=material.ids()).citations, material)
    got = [(t.source_id, t.status.value, t.text) for r in res for t in r.targets]
    assert got[:8] == [
        ("turn0file0", "ok", "The pilot ran for six weeks in two regions.\n"
                             "41 of 50 participants finished it."),
        ("turn0file0", "ok", "Costs stayed 8% under budget."),
        ("turn0file1", "whole-source", "The steering group recommends a national roll-out.\n"
                                       "It asks for a review after one year."),
        ("turn1view0", "whole-source", "The programme will be extended to all regions in "
                                       "autumn."),
        ("ctx1", "whole-source", "The board approved the extension unanimously."),
        ("turn1view1", "ok", "A consultation starts in May."),
        ("turn1view2", "ok", "Budget: 2.4 million."),
        ("faq", "ok", "Who can join? Any team."),
    ]
    gap, unlined, unknown = (r.targets[0] for r in res[-3:])
    assert (gap.status, gap.out_of_range_end, gap.labels) == (Status.OUT_OF_RANGE, "last", (13,))
    assert "skip from L13 to L15" in gap.detail
    assert unlined.status is Status.NO_LINES and "Block4" in unlined.detail
    assert unknown.status is Status.UNKNOWN_SOURCE
    assert case.context is not None
    assert [case.context[s:e] for o, s, e in material.outside if o == "context"] == [
        "Background notes (not citable)."]


_LABELS = st.one_of(
    st.integers(0, 12).map(lambda n: list(range(1, n + 1))),  # L1..Ln: the quick path's
    st.lists(st.integers(0, 14), max_size=12),  # any labels: gaps, repeats, disorder, L0
    st.integers(1, 8).flatmap(lambda n: st.permutations(range(1, n + 1))).map(list),
)
_RAW_LOCATORS = st.one_of(
    st.builds(lambda a, b: f"L{a}" if b is None else f"L{a}-L{b}", st.integers(0, 15),
              st.none() | st.integers(0, 15)),
    st.sampled_from(["L3-5", "lines 2-4", "L", "L1-", "L\u0663", "x"]),
)


@given(_LABELS, _RAW_LOCATORS, st.booleans())
@settings(max_examples=300, deadline=None)
@example([1, 3, 3], "L2", False)
@example([1, 2, 2, 4], "L1-L3", False)
def test_a_quickly_made_target_is_the_one_the_general_path_makes(
        labels: list[int], raw: str, twice: bool) -> None:
    """A citation of lines that exist in a source labelled L1..Ln resolves, by its quick path,
    to exactly what the general path gives (status, lines, span, detail); any other citation
    (a near miss such as "lines 2-4" too) is left to the general path."""
    from citeview.core.locators import parse_locator
    from citeview.core.material import Source, SourceLines
    from citeview.core.resolution import _ok_target, _resolve_one

    text = "".join(f"line {n}\n" for n in labels)
    starts = [sum(len(f"line {m}\n") for m in labels[:i]) for i in range(len(labels))]
    lines = SourceLines(labels, starts, [s + len(f"line {n}") for s, n in zip(starts, labels,
                                                                                strict=True)])
    src = Source("f", SourceKind.LINE, text, lines)
    sources = {"f": [src, src] if twice else [src]}
    quick = _ok_target("f", raw, sources, {})
    general = _resolve_one("f", raw, sources, {}, sources.keys())
    if quick is not None:
        assert quick == general and type(quick.lines) is type(general.lines)
        assert [type(x) for x in quick.lines] == [type(x) for x in general.lines]
    ok_range = (labels == list(range(1, len(labels) + 1)) and not twice
                and parse_locator(raw) is not None and general.status is Status.OK)
    assert (quick is not None) == ok_range


@given(st.integers(1, 140), st.lists(st.tuples(st.integers(0, 142), st.integers(0, 142)),
                                     min_size=1, max_size=6), st.booleans())
@settings(max_examples=200, deadline=None)
@example(8, [(7, 8), (5, 5), (1, 1)], False)
def test_a_quickly_read_source_resolves_as_the_general_reading_of_it_does(
        n: int, ranges: list[tuple[int, int]], twice: bool) -> None:
    """A usual tool output is read quickly, its lines kept as breaks: its citations (the quick
    target's path when they name lines that exist) resolve to what the general reading of the
    same text gives, target for target, and the results are real resolutions, targets and
    lines (equal, pickled and frozen as ones made by their classes; lines hashed too)."""
    import pickle
    from dataclasses import FrozenInstanceError

    from citeview.core import material as material_module
    from citeview.core.material import SourceLine
    from citeview.core.resolution import _ok_target, _resolve_one

    text = "\n".join([f"Citation Marker: {marker('turn0file0')}", "Title: T", "URL: u", "",
                      *(f"[L{k}] line {k}" + " x" * (k % 3) for k in range(1, n + 1))])
    quick = material_module._simple_tool_output(text, "tool_outputs[0]")
    general = material_module._parse_tool_output(text, "tool_outputs[0]")
    assert quick is not None
    if twice:  # (an id defined twice: never the quick target's)
        quick.sources.append(quick.sources[0])
        general.sources.append(general.sources[0])
    cites = [cite("turn0file0", locator=f"L{a}" if a == b else f"L{a}-L{b}") for a, b in ranges]
    fast, slow = resolve(cites, quick), resolve(cites, general)
    assert [r.to_dict() for r in fast] == [r.to_dict() for r in slow]
    for r, g in zip(fast, slow, strict=True):
        assert type(r) is Resolution and r.index == g.index and r.citation is g.citation
        assert r == Resolution(r.index, r.citation, r.targets)
        [t], [u] = r.targets, g.targets
        assert type(t) is Target and t.source is quick.sources[0]
        assert (t.status, t.lines, t.span, t.detail, t.out_of_range_end, t.locator) == (
            u.status, u.lines, u.span, u.detail, u.out_of_range_end, u.locator)
        assert [type(x) for x in t.lines] == [type(x) for x in u.lines]
        assert all(type(x) is SourceLine and hash(x) == hash(SourceLine(x.label, x.start, x.end))
                   for x in t.lines)
        assert pickle.loads(pickle.dumps(t.lines)) == t.lines
        with pytest.raises(FrozenInstanceError):
            t.span = None  # type: ignore[misc]
        with pytest.raises(FrozenInstanceError):
            r.index = 5  # type: ignore[misc]
        # The quick target, asked directly, is the general path's on the same source.
        loc = r.citation.locator
        sources = quick.by_id()
        made = _ok_target("turn0file0", loc, sources, {})
        if made is not None:
            assert made == _resolve_one("turn0file0", loc, sources, {}, sources.keys())
            assert made.status is Status.OK and not twice
