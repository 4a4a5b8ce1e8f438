"""A second look at the speed fast paths: the objects they build (a quickly read source's
lines, kept as breaks; targets, resolutions and lines filled in a slot class and then given
their class) behave as the ones the general code builds wherever a user's data goes: pickled
(a worker's result), copied, compared, shown, read from several threads at once (the window
analyses in worker threads)."""

from __future__ import annotations

import copy
import dataclasses
import pickle
import threading

import pytest

from citeview.core.analysis import Analyser
from citeview.core.cases import Case
from citeview.core.markers import scan
from citeview.core.material import SourceLines, parse_tool_output
from citeview.core.policy import Policy
from citeview.core.resolution import Resolution, Target, resolve

S, D, T = "\ue200", "\ue202", "\ue201"


def _tool_output(n: int, sid: str = "turn0search1") -> str:
    lines = "".join(f"\n[L{k}] line {k} says something" for k in range(1, n + 1))
    return f"Citation Marker: {S}cite{D}{sid}{T}\nTitle: A title\nURL: https://x.org\n{lines}\n"


def _marker(sid: str, loc: str | None = None) -> str:
    return f"{S}cite{D}{sid}{D}{loc}{T}" if loc else f"{S}cite{D}{sid}{T}"


def _quick_lines(n: int = 5) -> SourceLines:
    lines = parse_tool_output(_tool_output(n)).sources[0].lines
    assert type(lines) is SourceLines and lines.breaks is not None  # (the quick reading's)
    return lines


def test_lines_kept_as_breaks_pickle_copy_compare_and_show_as_columns_do() -> None:
    for fresh in (True, False):
        lines = _quick_lines()
        if not fresh:
            _ = lines.starts  # columns made
        columns = SourceLines.of(list(lines))
        for other in (pickle.loads(pickle.dumps(lines)), copy.copy(lines),
                      copy.deepcopy(lines)):
            assert other == lines == columns
            assert list(other) == list(columns)
        assert repr(lines) == repr(columns)
        assert lines[1:3] == columns[1:3] and list(lines[1:3]) == list(columns[1:3])
        assert lines[-1] == columns[-1]


def test_lines_kept_as_breaks_make_the_same_columns_in_many_threads() -> None:
    for _ in range(50):
        lines = _quick_lines(40)
        want = SourceLines.of(list(_quick_lines(40)))
        barrier = threading.Barrier(4)
        seen: list[object] = []

        def read(lines: SourceLines = lines, barrier: threading.Barrier = barrier,
                 seen: list[object] = seen) -> None:
            barrier.wait()
            seen.append((list(lines.starts), list(lines.ends), list(lines)))

        threads = [threading.Thread(target=read) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert all(s == (list(want.starts), list(want.ends), list(want)) for s in seen)


@pytest.mark.parametrize("n", [3, 200])  # (lines kept as breaks; as columns: over 128 lines)
def test_targets_made_the_short_way_are_whole_targets(n: int) -> None:
    material = parse_tool_output(_tool_output(n))
    answer = " ".join(f"Claim {k}. {_marker('turn0search1', loc)}"
                      for k, loc in enumerate(["L1", "L2-L3", "L1-L3", None, "L2"]))
    resolutions = resolve(scan(answer).citations, material)
    for res in resolutions:
        assert type(res) is Resolution
        for t in res.targets:
            assert type(t) is Target and type(t.lines[0]).__name__ == "SourceLine"
            built = Target(**{f.name: getattr(t, f.name) for f in dataclasses.fields(Target)})
            assert t == built and repr(t) == repr(built)
            assert dataclasses.replace(t) == t
            assert dataclasses.asdict(t) == dataclasses.asdict(built)
            with pytest.raises(dataclasses.FrozenInstanceError):
                t.detail = "x"  # type: ignore[misc]
        for other in (pickle.loads(pickle.dumps(res)), copy.copy(res), copy.deepcopy(res)):
            assert other == res and repr(other) == repr(res)
            assert type(other) is Resolution and type(other.targets[0]) is Target


def test_an_analyser_numbers_by_the_policy_asked_in_many_threads() -> None:
    analyser = Analyser()
    case = Case("c", f"Claim one. {_marker('turn0search1', 'L1')}", "", [_tool_output(3)])
    policies = [Policy(require_locators=True), Policy(), None]
    want = {id(p): analyser.numbering(p) for p in policies}
    errors: list[str] = []
    barrier = threading.Barrier(len(policies))

    def work(policy: Policy | None) -> None:
        barrier.wait()
        for _ in range(300):
            got = analyser.analysed_once(case, policy).policy
            if got != want[id(policy)]:
                errors.append(f"{policy!r}: {got!r}")

    threads = [threading.Thread(target=work, args=(p,)) for p in policies]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


def test_a_plain_case_pickles_and_copies_as_a_made_one() -> None:
    data = {"id": "c1", "answer": "a", "question": "q", "tool_outputs": ["x"]}
    quick = Case.from_dict(data)
    made = Case("c1", "a", "q", ["x"])
    for other in (pickle.loads(pickle.dumps(quick)), copy.copy(quick), copy.deepcopy(quick)):
        assert other == made and repr(other) == repr(made)
