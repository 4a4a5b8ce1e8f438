"""Citation forms seen in real traffic: each has its diagnostic and, where the ids are
recoverable (and the family enabled), a recovered citation."""

from __future__ import annotations

import pytest

from citeview.core.markers import Recovery, scan

S, D, T = "\ue200", "\ue202", "\ue201"
# The UTF-8 bytes of U+E200 / U+E202 / U+E201 read as Windows-1252.
MS, MD, MT = "\u00ee\u02c6\u20ac", "\u00ee\u02c6\u201a", "\u00ee\u02c6"


def found(text: str, families: tuple[str, ...] = ("cite",)) -> tuple[list[tuple[str, ...]],
                                                                         list[str]]:
    r = scan(text, families)
    cits = [(c.family, *c.source_ids, c.locator or "", c.recovered or "") for c in r.citations]
    return cits, [d.code for d in r.diagnostics]


def test_degraded_filecite_not_enabled_is_named_with_its_ids() -> None:
    text = "Leave carries over fileciteturn170file0L2-L2 and more."
    r = scan(text)
    assert r.citations == []
    (d,) = r.diagnostics
    assert d.code == "CV111" and "filecite" in d.message and "turn170file0" in d.message
    assert text[d.start:d.end] == "fileciteturn170file0L2-L2"


def test_two_degraded_filecite_markers_each_get_a_diagnostic() -> None:
    text = "Yes fileciteturn45file0L2-L2 fileciteturn46file0L2-L35."
    r = scan(text)
    assert [(d.code, text[d.start:d.end]) for d in r.diagnostics] == [
        ("CV111", "fileciteturn45file0L2-L2"), ("CV111", "fileciteturn46file0L2-L35")]
    assert "turn46file0" in r.diagnostics[1].message and "L2-L35" in r.diagnostics[1].message


def test_degraded_filecite_is_recovered_when_enabled() -> None:
    cits, codes = found("Yes fileciteturn45file0L2-L2.", ("cite", "filecite"))
    assert cits == [("filecite", "turn45file0", "L2-L2", Recovery.DEGRADED)]
    assert codes == ["CV107"]


def test_content_reference_and_ascii_bracket_reference() -> None:
    text = "It floods :contentReference[oaicite:0]{index=0}. It rains [3†source]."
    r = scan(text)
    assert r.citations == []
    assert [(d.code, text[d.start:d.end]) for d in r.diagnostics] == [
        ("CV112", ":contentReference[oaicite:0]{index=0}"), ("CV108", "[3†source]")]


def test_degraded_image_group_is_not_a_citation() -> None:
    text = "Pictures: iturn0image0turn0image1 here."
    r = scan(text)
    assert r.citations == []
    (d,) = r.diagnostics
    assert d.code == "CV113" and "image" in d.message
    assert "turn0image0" in d.message and "turn0image1" in d.message


@pytest.mark.parametrize("end", ["", "\x81", "\ufffd"])
def test_windows_1252_mojibake_marker_is_recovered(end: str) -> None:
    text = (f"It rains {MS}cite{MD}turn0search3{MT}{end}. "
            f"More {MS}cite{MD}turn0file0{MD}L2-L3{MT}{end}")
    r = scan(text)
    assert [(c.source_ids, c.locator, c.recovered) for c in r.citations] == [
        (("turn0search3",), None, Recovery.MOJIBAKE),
        (("turn0file0",), "L2-L3", Recovery.MOJIBAKE)]
    assert [d.code for d in r.diagnostics] == ["CV114", "CV114"]  # no CV109 on the id
    assert r.citations[0].raw == f"{MS}cite{MD}turn0search3{MT}{end}"


def test_mojibake_of_a_family_not_enabled_is_named_not_recovered() -> None:
    r = scan(f"x {MS}filecite{MD}turn0file0{MT} y")
    assert r.citations == []
    assert [d.code for d in r.diagnostics] == ["CV114"]
    assert "filecite" in r.diagnostics[0].message and "turn0file0" in r.diagnostics[0].message


def test_entity_and_other_non_citation_markers_say_what_they_are() -> None:
    text = f"Visit {S}entity{D}[\"city\",\"Paris\"]{T} and {S}navlist{D}News{D}turn0news1{T}."
    r = scan(text)
    assert r.citations == []
    assert [d.code for d in r.diagnostics] == ["CV113", "CV113"]
    assert "Paris" in r.diagnostics[0].message and "entity" in r.diagnostics[0].message
    assert "navigation" in r.diagnostics[1].message


def test_intact_filecite_not_enabled_says_how_to_enable_it() -> None:
    r = scan(f"x {S}filecite{D}turn0file0{T}")
    assert [d.code for d in r.diagnostics] == ["CV104"]
    assert "--families cite,filecite" in r.diagnostics[0].message


def test_wild_form_before_a_real_marker_numbers_it_second() -> None:
    text = f"A {MS}cite{MD}turn0file0{MD}L1{MT}. B {S}cite{D}turn0file0{D}L2{T}."
    r = scan(text)
    assert [c.recovered for c in r.citations] == [Recovery.MOJIBAKE, None]


def test_prose_is_not_a_wild_form() -> None:
    for text in ["I cited it in italics.", "The file was cited (see [3] and [a†]).",
                 "naïve façade — “quotes” ‘single’ ∑ é", "contentReference alone"]:
        assert scan(text).diagnostics == [], text


def test_demo_has_a_case_with_every_wild_form() -> None:
    from citeview.core.analysis import analyse
    from tests.conftest import demo_case

    a = analyse(demo_case("demo-wild-forms"))
    codes = {d.code for d in a.scan_diagnostics}
    assert {"CV111", "CV112", "CV108", "CV113", "CV114"} <= codes
    assert [c.recovered for c in a.citations] == [None, Recovery.MOJIBAKE, None]
    assert all(t.status.value != "unknown-source" for c in a.citations for t in c.targets)
