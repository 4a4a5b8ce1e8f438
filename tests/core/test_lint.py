"""lint(): one fixture per rule with its exact diagnostics, the clean samples, the rule-breaking
sample, and the policy's switches."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citeview.core.cases import Case
from citeview.core.diagnostics import RULES, Severity
from citeview.core.lint import lint
from citeview.core.markers import DELIMITER, START, STOP
from citeview.core.policy import Policy

DATA = Path(__file__).parent.parent / "data"
FIXTURES = sorted((DATA / "lint").glob("*.case.json"))


def _load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _sample(name: str) -> Case:
    return Case.from_dict(_load(DATA / "samples" / f"{name}.case.json"))


def M(*parts: str) -> str:
    return START + "cite" + "".join(DELIMITER + p for p in parts) + STOP


TOOL = (f"Citation Marker: {M('turn0file0')}\n[L1] Remote work: three days.\n"
        "[L2] Extra days need approval.\n")


def test_every_rule_of_the_catalog_up_to_cv308_has_a_fixture() -> None:
    covered = {p.name.split("-")[0] for p in FIXTURES}
    wanted = {code for code in RULES if code < "CV400"}
    assert wanted <= covered


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name.removesuffix(".case.json"))
def test_fixture_yields_exactly_its_expected_diagnostics(path: Path) -> None:
    data = _load(path)
    case = Case.from_dict(data)
    policy = Policy.from_mapping(data.get("policy", {}))
    got = [(d.code, d.start, d.end, getattr(d, "origin", None)) for d in lint(case, policy)]
    expected = [(e["code"], e["start"], e["end"], e.get("origin")) for e in data["expect"]]
    assert got == expected
    for e in data["expect"]:  # the spans are where the fixture says they are
        text = case.answer if "origin" not in e else case.tool_outputs[1]
        assert text[e["start"]:e["end"]] == e["text"]


@pytest.mark.parametrize("name", ["handbook-line-level", "contract-block-level",
                                  "opinion-injected-context", "transit-multi-turn"])
def test_clean_samples_yield_nothing(name: str) -> None:
    assert lint(_sample(name)) == []


def test_require_locators_flags_only_citations_of_lined_sources_without_locator() -> None:
    policy = Policy(require_locators=True)
    # Every citation has a locator, or cites a block source whole.
    assert lint(_sample("handbook-line-level"), policy) == []
    assert lint(_sample("contract-block-level"), policy) == []
    # The two-source citation of line-level sources has none: one finding per source.
    case = _sample("transit-multi-turn")
    found = [(d.code, case.answer[d.start:d.end]) for d in lint(case, policy)]
    assert found == [("CV205", M("turn0search1", "turn1news0"))] * 2


def test_rule_breaking_sample_reports_each_breach_where_it_is() -> None:
    case = _sample("handbook-rule-breaking")
    a = case.answer
    found = {(d.code, a[d.start:d.end]) for d in lint(case)}

    def at(marker_text: str) -> str:
        assert marker_text in a
        return marker_text

    expected = {
        ("CV301", at(M("turn0file0", "L1"))),      # inside **...**
        ("CV304", at(M("turn0file0", "L2"))),      # approval<marker>.
        ("CV201", at(M("turn0file3", "L1"))),      # invented source
        ("CV202", at(M("turn0file0", "L12-L14"))),  # past the last line
        ("CV302", at(M("turn0file1", "L2"))),      # in the fenced block
        ("CV109", "turn0file1"),                   # "see turn0file1 for details"
        ("CV305", at(M("turn0file1", "L3"))),      # a line of its own
        ("CV203", at(M("turn0file1", "L6-L5"))),   # reversed
        ("CV303", at(M("turn0file1", "L4"))),      # glued to the closing fence
    }
    assert expected <= found
    # The fence-line marker is reported once, as CV303, not also as CV302.
    fence = a.rindex(M("turn0file1", "L4"))
    assert [d.code for d in lint(case) if d.start == fence] == ["CV303"]
    # The verbatim id is the one in the prose, not one inside a marker.
    cv109 = [d for d in lint(case) if d.code == "CV109"]
    assert len(cv109) == 1 and a[cv109[0].start - 4:cv109[0].start] == "see "


def test_diagnostics_are_sorted_by_position_and_deterministic() -> None:
    case = _sample("handbook-rule-breaking")
    first = lint(case)
    assert first == lint(case)
    keys = [(d.start, d.end, d.code) for d in first]
    assert keys == sorted(keys)


def test_lint_does_not_modify_the_case() -> None:
    case = _sample("handbook-rule-breaking")
    before = case.to_dict()
    lint(case, Policy(require_locators=True, multi_source="per-marker"))
    assert case.to_dict() == before


def test_a_rule_can_be_turned_off_or_regraded() -> None:
    case = _sample("handbook-rule-breaking")
    codes = {d.code for d in lint(case)}
    assert "CV304" in codes
    off = lint(case, Policy(ignore=frozenset({"CV304"})))
    assert "CV304" not in {d.code for d in off}
    assert {d.code for d in off} == codes - {"CV304"}
    graded = lint(case, Policy(severities={"CV304": Severity.ERROR, "CV201": Severity.INFO}))
    sev = {d.code: d.severity for d in graded}
    assert sev["CV304"] is Severity.ERROR and sev["CV201"] is Severity.INFO
    assert sev["CV202"] is Severity.ERROR  # untouched rules keep their default


def test_each_case_is_linted_under_its_own_policy_when_policies_alternate() -> None:
    case = _sample("handbook-rule-breaking")
    placement_off = Policy(ignore=frozenset({f"CV30{k}" for k in range(1, 9)}))
    support_on = Policy(extend_select=frozenset({"CV401"}), weak_support_threshold=1.0)
    default = {d.code for d in lint(case)}
    assert "CV304" in default and "CV401" not in default
    for _ in range(2):
        assert not any(d.code.startswith("CV3") for d in lint(case, placement_off))
        assert "CV401" in {d.code for d in lint(case, support_on)}
        assert {d.code for d in lint(case)} == default


def test_select_limits_the_run_to_the_named_rules() -> None:
    case = _sample("handbook-rule-breaking")
    only = lint(case, Policy(select=frozenset({"CV201", "CV203"})))
    assert sorted({d.code for d in only}) == ["CV201", "CV203"]


def test_missing_locator_only_when_required_and_only_for_lined_sources() -> None:
    block = ("Citation Marker: " + M("turn0file1") + "\n[Block1]\nA block of text.\n")
    case = Case("c", "Three days." + M("turn0file0") + " A block." + M("turn0file1") + "\n",
                tool_outputs=[TOOL + "\n" + block])
    assert [d.code for d in lint(case)] == []
    req = lint(case, Policy(require_locators=True))
    assert [(d.code, case.answer[d.start:d.end]) for d in req] == [("CV205", M("turn0file0"))]


def test_material_diagnostics_follow_answer_diagnostics_with_their_origin() -> None:
    case = Case("c", "Three days." + M("turn9file9") + "\n", tool_outputs=[TOOL, TOOL])
    diags = lint(case)
    assert [d.code for d in diags] == ["CV201", "CV206"]
    assert getattr(diags[1], "origin", None) == "tool_outputs[1]"
    # Re-grading keeps the origin.
    graded = lint(case, Policy(severities={"CV206": Severity.ERROR}))
    assert graded[1].severity is Severity.ERROR
    assert getattr(graded[1], "origin", None) == "tool_outputs[1]"


def test_families_come_from_the_policy() -> None:
    answer = "Three days." + START + "ref" + DELIMITER + "turn0file0" + STOP + "\n"
    case = Case("c", answer, tool_outputs=[TOOL])
    assert [d.code for d in lint(case)] == ["CV104"]
    assert lint(case, Policy(families=("cite", "ref"))) == []


def test_multi_source_style_follows_the_policy_both_ways() -> None:
    two = TOOL + "\nCitation Marker: " + M("turn0file1") + "\n[L1] Second.\n"
    combined = Case("c", "Both say so." + M("turn0file0", "turn0file1") + "\n",
                    tool_outputs=[two])
    separate = Case("c", "Both say so." + M("turn0file0") + M("turn0file1") + "\n",
                    tool_outputs=[two])
    assert lint(combined) == [] and lint(separate) == []
    per = Policy(multi_source="per-marker")
    one = Policy(multi_source="one-marker")
    assert [d.code for d in lint(combined, per)] == ["CV307"]
    assert lint(separate, per) == []
    assert [d.code for d in lint(separate, one)] == ["CV307"]
    assert lint(combined, one) == []


_ANSWER_PIECES = st.sampled_from([
    "Claim", " ", "\n", "\n\n", "**", "*", "`", "```\n", ".", ",", "turn0file0", "【turn0file0】",
    "citeturn0file0", "\\ue200", START, STOP, DELIMITER, "cite", "L1", "L2-L1", "L9", "- ",
    "> ", "😀", "\r\n", "turn0file7",
])


@settings(max_examples=120, deadline=None)
@given(st.lists(_ANSWER_PIECES, max_size=40))
def test_any_answer_lints_with_sorted_spans_inside_it(parts: list[str]) -> None:
    answer = "".join(parts)
    case = Case("h", answer, tool_outputs=[TOOL])
    policy = Policy(require_locators=True, multi_source="per-marker",
                    extend_select=frozenset({"CV307", "CV401"}))
    diags = lint(case, policy)
    assert diags == lint(case, policy)
    keys = [(d.start, d.end, d.code) for d in diags]
    assert keys == sorted(keys)
    for d in diags:
        assert 0 <= d.start <= d.end <= len(answer)
        assert d.severity is policy.severity(d.code)


# CV401 weak-support: the claim against the cited line "[L1] Remote work: three days."
_UNRELATED = "Bananas ripen quickly in tropical heat." + M("turn0file0", "L1") + "\n"
_PARAPHRASE = "Remote work is allowed three days." + M("turn0file0", "L1") + "\n"


def test_weak_support_fires_only_when_selected_and_only_for_unrelated_claims() -> None:
    unrelated = Case("c", _UNRELATED, tool_outputs=[TOOL])
    paraphrase = Case("c", _PARAPHRASE, tool_outputs=[TOOL])
    assert lint(unrelated) == []  # off by default
    on = Policy(extend_select=frozenset({"CV401"}))
    found = lint(unrelated, on)
    assert [(d.code, d.severity, unrelated.answer[d.start:d.end]) for d in found] == [
        ("CV401", Severity.INFO, M("turn0file0", "L1"))]
    assert "0 of the claim's" in found[0].message
    assert lint(paraphrase, on) == []
    assert lint(unrelated, Policy(select=frozenset({"CV401"})))[0].code == "CV401"


def test_weak_support_threshold_comes_from_the_policy() -> None:
    # "Remote work is allowed three days": remote, work, allow, three, day; the line holds
    # remote, work, three, day: 4 of 5.
    paraphrase = Case("c", _PARAPHRASE, tool_outputs=[TOOL])
    strict = Policy(extend_select=frozenset({"CV401"}), weak_support_threshold=0.9)
    assert [d.code for d in lint(paraphrase, strict)] == ["CV401"]
    assert "4 of the claim's 5" in lint(paraphrase, strict)[0].message
    lenient = Policy(extend_select=frozenset({"CV401"}), weak_support_threshold=0.0)
    assert lint(Case("c", _UNRELATED, tool_outputs=[TOOL]), lenient) == []


def test_weak_support_skips_unresolved_citations() -> None:
    case = Case("c", "Bananas ripen quickly." + M("turn9file9") + "\n", tool_outputs=[TOOL])
    on = Policy(extend_select=frozenset({"CV401"}))
    assert [d.code for d in lint(case, on)] == ["CV201"]


def test_lint_analysis_hands_back_what_lint_computed() -> None:
    from citeview.core.lint import lint_analysis

    case = _sample("handbook-rule-breaking")
    a = lint_analysis(case, Policy(require_locators=True))
    assert a.all_diagnostics == lint(case, Policy(require_locators=True))
    assert [r.citation for r in a.resolutions] == list(a.citations)
    assert any(not r.ok for r in a.resolutions)  # the sample cites unknown sources
