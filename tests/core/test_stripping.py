"""strip --all: every whole marker of any family goes cleanly; the output scans clean."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citeview.core.markers import scan
from citeview.core.stripping import PRIVATE_MARKER_CHARS, strip_clean

S, D, T = "\ue200", "\ue202", "\ue201"
MS, MD, MT = "\u00ee\u02c6\u20ac", "\u00ee\u02c6\u201a", "\u00ee\u02c6"


def clean(text: str, families: tuple[str, ...] = ("cite",)) -> str:
    return strip_clean(text, scan(text, families))


@pytest.mark.parametrize(("text", "expected"), [
    (f"Leave.{S}filecite{D}turn0file0{T}", "Leave."),
    (f"Leave.{S}cite{T} More.", "Leave. More."),
    (f"Leave.{S}{D}turn0search0{D}turn0news1{T} More.", "Leave. More."),  # LibreChat composite
    (f"Leave.{D}turn0search0 More.", "Leave. More."),  # LibreChat standalone
    (f"See {S}url{D}https://example.com{T}.", "See."),
    (f"Visit {S}entity{D}[\"city\",\"Paris\"]{T} soon.", "Visit Paris soon."),
    (f"Look {S}image_group{D}{{\"query\":[\"x\"]}}{T} here.", "Look here."),
    ("Yes fileciteturn45file0L2-L2 fileciteturn46file0L2-L35.", "Yes."),
    ("It floods :contentReference[oaicite:0]{index=0}. Rains [3†source].",
     "It floods. Rains."),
    ("Pictures iturn0image0turn0image1 here.", "Pictures here."),
    (f"It rains {MS}cite{MD}turn0search3{MT}\x81.", "It rains."),
    (f"Days.{S}cite{D}turn0file0{D}L2{T}\nNext", "Days.\nNext"),
])
def test_strip_all_removes_markers_of_any_family_cleanly(text: str, expected: str) -> None:
    out = clean(text)
    assert out == expected
    assert scan(out).diagnostics == []
    assert scan(out, ("cite", "filecite")).diagnostics == []


def test_strip_all_of_the_demo_wild_case_scans_clean() -> None:
    from pathlib import Path

    from citeview.core.inputs import load_input

    ds = load_input(str(Path(__file__).parents[2] / "resources" / "demo" / "demo.jsonl"))
    try:
        for case in ds.iter_cases():
            out = clean(case.answer)
            codes = [d.code for d in scan(out).diagnostics]
            # CV109 (an id written in prose) is not a marker.
            assert [c for c in codes if c < "CV200" and c != "CV109"] == [], case.id
    finally:
        ds.close()


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([S, D, T, "cite", "filecite", "entity", "url", " ", ".",
                                 "turn0file0", "L2", "x", "\n", '["a","b"]', "\ue203",
                                 "\ue204"]), max_size=14))
def test_strip_all_leaves_no_private_marker_character(parts: list[str]) -> None:
    text = "".join(parts)
    out = clean(text)
    assert not any(ch in out for ch in PRIVATE_MARKER_CHARS)


def test_strip_all_command_output_scans_clean(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    from citeview.cli import main

    f = tmp_path / "a.txt"
    f.write_text(f"Leave.{S}filecite{D}turn0file0{T} In {S}entity{D}[\"city\",\"Oslo\"]{T}, "
                 "yes fileciteturn45file0L2-L2.", encoding="utf-8")
    assert main(["strip", "--all", str(f)]) == 0
    out = capsys.readouterr().out
    assert out == "Leave. In Oslo, yes."
    assert scan(out).diagnostics == []
