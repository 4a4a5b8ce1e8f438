"""The stream replay's model: chunkings, and what each step may show."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citeview.core.cases import Case
from citeview.core.markers import DELIMITER as D
from citeview.core.markers import START as S
from citeview.core.markers import STOP as E
from citeview.core.markers import ScanResult, scan
from citeview.core.material import case_material
from citeview.core.replay import Chunker, StreamReplay, chunks
from citeview.resource_files import resource_path


def demo_cases() -> list[Case]:
    text = resource_path("demo", "demo.jsonl").read_text(encoding="utf-8")
    return [Case.from_dict(json.loads(line)) for line in text.splitlines() if line.strip()]


def dump(r: ScanResult) -> tuple[list[object], list[object]]:
    return ([c.to_dict() for c in r.citations], [d.to_dict() for d in r.diagnostics])


def test_fixed_chunks() -> None:
    assert chunks("abcdefg", 3) == ["abc", "def", "g"]
    assert chunks("", 3) == []
    with pytest.raises(ValueError):
        Chunker(0)


@given(st.text(max_size=200), st.integers(1, 20), st.integers(0, 10))
def test_random_chunks_cover_the_text_with_sizes_around_the_size(text: str, size: int,
                                                                 seed: int) -> None:
    got = chunks(text, size, randomised=True, seed=seed)
    assert "".join(got) == text
    assert all(1 <= len(c) <= 2 * size - 1 for c in got[:-1]) if size > 1 else True
    assert got == chunks(text, size, randomised=True, seed=seed)  # seeded: reproducible


@pytest.mark.parametrize("case", demo_cases(), ids=lambda c: c.id)
def test_every_demo_answer_at_many_chunkings(case: Case) -> None:
    ids = case_material(case).ids()
    whole = scan(case.answer, known_ids=ids)
    # Markers made of marker characters (a mojibake one is text as it streams in).
    spans = [(c.start, c.end) for c in whole.citations if case.answer[c.start] == S]
    for size, randomised, seed in [(1, False, 0), (2, True, 1), (5, True, 2), (9, True, 3),
                                   (40, False, 0), (10_000, False, 0)]:
        stream = StreamReplay(case.answer, known_ids=ids,
                              chunker=Chunker(size, randomised, seed))
        released = 0
        for frame in stream.frames():
            # What may be shown is scanned exactly like that prefix on its own ...
            assert dump(frame.scan) == dump(scan(case.answer[:frame.released], known_ids=ids))
            # ... grows only, and never ends inside a marker of the whole answer.
            assert released <= frame.released <= frame.received
            assert not any(s < frame.released < e for s, e in spans)
            released = frame.released
        assert frame.finished and frame.released == len(case.answer)
        assert dump(frame.scan) == dump(whole)
        assert not frame.provisional_diagnostics


def test_an_open_marker_is_held_and_the_step_counts_chunks() -> None:
    answer = f"Ride.{S}cite{D}turn0file0{E} Park.{S}cite{D}turn0fi"
    stream = StreamReplay(answer, chunker=Chunker(7))
    first = stream.step()
    assert (first.chunks, first.received, first.released, first.held) == (1, 7, 5, True)
    frame = stream.step(100)  # an explicit size: the rest, and the scan finishes
    assert frame.chunks == 2 and frame.finished and frame.released == len(answer)
    assert [d.code for d in frame.final_diagnostics] == ["CV101"]
    assert stream.step() is frame  # nothing more
    stream.restart()
    assert stream.frame.received == 0 and not stream.done


def test_a_marker_longer_than_the_hold_limit_is_released_then_replaced() -> None:
    head = f"Leave {S}cite{D}turn0file0"
    answer = head + " " * 5000 + E + " done."
    stream = StreamReplay(answer, chunker=Chunker(1000))
    frames = list(stream.frames())
    held = [f for f in frames if f.held]
    released = [f for f in frames if not f.held and not f.finished]
    assert held and held[-1].released == len("Leave ")
    assert released and "CV101" in [d.code for d in released[0].provisional_diagnostics]
    assert released[0].released == released[0].received  # shown as it came
    assert frames[-1].scan.citations[0].recovered is None  # completed: a citation again
    assert dump(frames[-1].scan) == dump(scan(answer))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([S, D, E, "cite", "turn0file0", "L2", " ", "\n", "x", "."]),
                max_size=40).map("".join), st.integers(1, 6), st.integers(0, 99),
       st.sampled_from([4096, 4]))
def test_any_chunking_shows_the_scan_of_the_released_prefix(text: str, size: int, seed: int,
                                                            limit: int) -> None:
    stream = StreamReplay(text, hold_limit=limit, chunker=Chunker(size, True, seed))
    frame = stream.frame
    for frame in stream.frames():
        assert dump(frame.scan) == dump(scan(text[:frame.released]))
    assert frame.finished and dump(frame.scan) == dump(scan(text))
