"""Leaked citation forms of issue 28: ChatGPT's copied ``[oai_citation:N‡Title](url)``, Codex's
``:codex-file-citation{...}``, the bare ids of a marker cut across chunks, the Gemini app's
``[cite_start]`` / ``[cite: 1, 2]`` and a damaged ``:contentReference``. Each is named, with
its ids where it carries them, and ``strip --all`` removes it without residue. Fixtures:
``tests/data/lint/CV112-damaged-*``, ``CV115``-``CV118`` (README there)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citeview.cli import main
from citeview.core.diagnostics import RULES
from citeview.core.markers import scan
from citeview.core.stripping import strip_clean
from citeview.core.wild import find_wild

LINT = Path(__file__).parent.parent / "data" / "lint"
NEW = ["CV112-damaged-content-reference", "CV115-copied-citation-link",
       "CV116-codex-file-citation", "CV117-cut-marker-residue", "CV118-gemini-cite-tag"]

OAI = "[oai_citation:3‡Météo Lyon](https://meteo.example/lyon?utm_source=chatgpt.com)"
CODEX_OLD = (":codex-file-citation[codex-file-citation]{line_range_start=1 line_range_end=5 "
             'path=src/a.py git_url="https://github.com/example/app/blob/main/src/a.py#L1-L5"}')
CODEX_NEW = ':codex-file-citation{path="/tmp/out/report.xlsx" purpose="output"}'
CUT = "eturn0search5turn0search15"
DAMAGED = ":contentReference[oaicite:5]index=5}"


def clean(text: str) -> str:
    return strip_clean(text, scan(text))


def one(text: str) -> tuple[str, str, str]:
    (d,) = scan(text).diagnostics
    return d.code, text[d.start:d.end], d.message


def test_the_rules_are_named_and_warnings() -> None:
    assert [(RULES[c].name, RULES[c].severity.value) for c in
            ("CV115", "CV116", "CV117", "CV118")] == [
        ("copied-citation-link", "warning"), ("codex-file-citation", "warning"),
        ("cut-marker-residue", "warning"), ("gemini-cite-tag", "warning")]


def test_chatgpt_copied_citation_link_names_its_number_title_and_url() -> None:
    code, raw, msg = one(f"Lyon stays dry {OAI} today.")
    assert (code, raw) == ("CV115", OAI)
    assert "link 3" in msg and "'Météo Lyon'" in msg and "https://meteo.example/lyon" in msg
    (f,) = find_wild(f"x {OAI}", ("cite",))
    assert f.ids == ("oai_citation:3",)
    # The older copy form separates the title with a comma.
    old = "[oai_citation:1,GitHub - example/app](https://github.com/example/app)"
    assert one(f"See {old}.")[:2] == ("CV115", old)


def test_codex_file_citations_name_path_and_lines() -> None:
    code, raw, msg = one(f"The loader reads twice.{CODEX_OLD} Next.")
    assert (code, raw) == ("CV116", CODEX_OLD)
    assert "Codex file citation of src/a.py (L1-L5)" in msg
    (f,) = find_wild(f"x {CODEX_OLD}", ("cite",))
    assert (f.ids, f.locator) == (("src/a.py",), "L1-L5")
    code, raw, msg = one(f"Written {CODEX_NEW}.")
    assert (code, raw) == ("CV116", CODEX_NEW) and "of /tmp/out/report.xlsx:" in msg


def test_bare_ids_of_a_cut_marker_are_named_with_their_ids() -> None:
    code, raw, msg = one(f"Storms on Friday {CUT} continues.")
    assert (code, raw) == ("CV117", CUT)
    assert "the tail 'e' of 'cite'" in msg and "turn0search5, turn0search15" in msg
    # Two ids glued without a tail are a cut marker too; one id alone stays CV109.
    assert one("Storms turn0search5turn0search15.")[:2] == ("CV117",
                                                            "turn0search5turn0search15")
    assert one("Storms turn0search5.")[0] == "CV109"
    # A whole family in front is a degraded marker (recovered), not residue.
    assert one("Storms citeturn0search5.")[0] == "CV107"
    # A word that is no family's tail is not taken for one.
    assert [d.code for d in scan("rewrite turn0search5turn0search6 x").diagnostics] == ["CV117"]
    assert scan("writeturn0search5").diagnostics == []


def test_gemini_app_tags_name_their_source_numbers() -> None:
    text = "[cite_start]Storms arrive[cite: 1, 2]. Winds[cite: 230-234]."
    diags = scan(text).diagnostics
    assert [(d.code, text[d.start:d.end]) for d in diags] == [
        ("CV118", "[cite_start]"), ("CV118", "[cite: 1, 2]"), ("CV118", "[cite: 230-234]")]
    assert "where a cited claim starts" in diags[0].message
    assert "citing sources 1, 2 of a list" in diags[1].message
    assert "citing source 230-234" in diags[2].message


def test_damaged_content_reference_is_one_form() -> None:
    assert one(f"Dry {DAMAGED}.")[:2] == ("CV112", DAMAGED)
    assert one("Dry :contentReference[oaicite:6]{index=6.")[:2] == (
        "CV112", ":contentReference[oaicite:6]{index=6")


@pytest.mark.parametrize(("text", "expected"), [
    (f"Lyon stays dry {OAI} today.", "Lyon stays dry today."),
    (f"Lyon stays dry. {OAI}", "Lyon stays dry."),
    (f"The loader reads twice.{CODEX_OLD} Next.", "The loader reads twice. Next."),
    (f"Written {CODEX_NEW}.", "Written."),
    (f"Storms on Friday {CUT} continues.", "Storms on Friday continues."),
    ("[cite_start]Storms arrive[cite: 1, 2]. Winds[cite: 230-234].", "Storms arrive. Winds."),
    (f"Dry {DAMAGED}. Wet.", "Dry. Wet."),
])
def test_strip_all_removes_each_form_cleanly(text: str, expected: str) -> None:
    out = clean(text)
    assert out == expected
    assert scan(out).diagnostics == []


@pytest.mark.parametrize("name", NEW)
def test_strip_all_command_leaves_no_residue_of_the_fixtures(tmp_path, capsys,
                                                             name: str) -> None:
    case = json.loads((LINT / f"{name}.case.json").read_text(encoding="utf-8"))
    f = tmp_path / "answer.txt"
    f.write_text(case["answer"], encoding="utf-8")
    assert main(["strip", "--all", str(f)]) == 0
    out = capsys.readouterr().out
    assert [d.code for d in scan(out).diagnostics] == []
    for e in case["expect"]:
        assert e["text"] not in out
    for residue in ("index=", "oai_citation", "codex-file-citation", "turn0search", "[cite"):
        assert residue not in out


FORMS = [OAI, CODEX_OLD, CODEX_NEW, CUT, DAMAGED, "[cite_start]", "[cite: 1, 2]",
         "[cite: 230-234]", ":contentReference[oaicite:0]{index=0}"]
PROSE = ["Lyon", " ", ".", ",", "\n", "turn", "cite", "e", "[", "]", "{", "}", "(", ")", ":",
         "index=5}", "‡", "x"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(FORMS), st.sampled_from(PROSE)), max_size=12))
def test_strip_never_leaves_a_forms_residue(parts: list[str]) -> None:
    """Whatever stands around the forms, each whole form that the text holds is gone after a
    clean strip, and what is left scans without a finding of these rules."""
    text = "".join(parts)
    out = clean(text)
    codes = {d.code for d in scan(out).diagnostics}
    assert not codes & {"CV112", "CV115", "CV116", "CV117", "CV118"}, (text, out)


@settings(max_examples=50, deadline=None)
@given(st.sampled_from(["[oai_citation:1‡" + "a" * 40, ":codex-file-citation{path=" + "a" * 40,
                        "eturn0search5" * 3 + "x", "[cite: 1," * 3, "turn0a" * 5,
                        ":contentReference[oaicite:1]{index="]),
       st.integers(min_value=2_000, max_value=4_000))
def test_near_misses_repeated_at_length_are_read_whole(piece: str, n: int) -> None:
    """Long runs of near misses (a form that never closes, glued to the next) are read in one
    pass: the patterns' repeats are bounded and their pieces cannot overlap, so each start is
    tried once over a bounded stretch. What is found is exactly the whole forms."""
    text = piece * n
    found = find_wild(text, ("cite",))
    for f in found:
        assert f.code in {"CV112", "CV115", "CV116", "CV117", "CV118"}
        assert f.end - f.start <= 2_500  # no form spans the run


def test_the_demo_wild_case_shows_the_new_forms_and_strips_clean() -> None:
    from tests.conftest import demo_case

    case = demo_case("demo-wild-forms")
    r = scan(case.answer)
    assert {"CV115", "CV116", "CV117", "CV118"} <= {d.code for d in r.diagnostics}
    out = strip_clean(case.answer, r)
    assert "Other copies leak their own forms: the Gemini app's night boats run on Saturdays, " \
           "Codex's, ChatGPT's copied link and the ids of a marker cut across chunks." in out


_ALL_FORMS = [*FORMS, "fileciteturn170file0L2-L2", "iturn0image0turn0image1", "[3\u2020source]",
              "\u00ee\u02c6\u20accite\u00ee\u02c6\u201aturn0search3\u00ee\u02c6",
              "\u00ee\u02c6\u20acnavlist\u00ee\u02c6\u201ax\u00ee\u02c6\x81",
              "eturn0search5turn0search15", "\ufffdfilecite\ufffdturn0file0\ufffd"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(_ALL_FORMS), st.sampled_from(PROSE)), max_size=12),
       st.sampled_from([("cite",), ("cite", "filecite"), (), ("navlist",)]))
def test_every_wild_form_holds_a_literal_the_scan_looks_for(parts: list[str],
                                                            families: tuple[str, ...]) -> None:
    """The scan skips the search for these forms where none of may_hold_wild's literals lies
    outside its markers: each form found holds one, so none is missed."""
    from citeview.core.wild import may_hold_wild

    text = "".join(parts)
    for f in find_wild(text, families):
        assert may_hold_wild(text[f.start:f.end]), (text, f)
    if not may_hold_wild(text):
        assert find_wild(text, families) == []
