"""Export/import of a whole session as JSON: lossless, schema-described, clear on bad input."""

from __future__ import annotations

import io
import json
import os
import tempfile
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from citeview.core.datasets import ListDataset
from citeview.core.errors import InputError
from citeview.session import Session, edits
from citeview.session.interchange import (
    ANNOTATION_KEYS,
    REVIEW_KEYS,
    export_document,
    import_document,
    read_document,
    schema,
    write_json,
)
from citeview.session.model import ReviewState, case_citations

M = "\ue200cite\ue202{}\ue201"
TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=12)
ANY_TEXT = st.text(max_size=12)  # lone surrogates too: untrusted model output
JSON = st.recursive(st.none() | st.booleans() | st.integers() | TEXT,
                    lambda c: st.lists(c, max_size=3) | st.dictionaries(TEXT, c, max_size=3),
                    max_leaves=6)


def extra(known: tuple[str, ...]) -> st.SearchStrategy[dict[str, Any]]:
    return st.dictionaries(TEXT.filter(lambda k: k not in known), JSON, max_size=2)


@st.composite
def documents(draw: st.DrawFn) -> dict[str, Any]:
    ids = draw(st.lists(TEXT.filter(bool), min_size=1, max_size=4, unique=True))
    cases = []
    for cid in ids:
        pieces = draw(st.lists(ANY_TEXT | st.sampled_from([M.format("f0"), M.format("t1b2")]),
                               max_size=6))
        case: dict[str, Any] = {"id": cid, "answer": "".join(pieces)}
        if draw(st.booleans()):
            case["question"] = draw(ANY_TEXT)
        if draw(st.booleans()):
            case["tool_outputs"] = draw(st.lists(ANY_TEXT, min_size=1, max_size=2))
        case.update(draw(extra(("id", "answer", "question", "tool_outputs", "context",
                                "documents"))))
        cases.append(case)
    labels = draw(st.lists(TEXT.filter(bool), min_size=1, max_size=4, unique=True))
    verdicts = st.none() | st.sampled_from(labels)
    annotations, seen = [], set()
    for _ in range(draw(st.integers(0, 6))):
        a = {"case_id": draw(st.sampled_from(ids)), "number": draw(st.integers(1, 4)),
             "raw": draw(st.sampled_from([M.format("f0"), M.format("t1b2")])),
             "source_id": draw(st.sampled_from(["f0", "t1b2"])),
             "annotator": draw(st.sampled_from(["", "ana", "bob"])),
             "verdict": draw(verdicts), "note": draw(TEXT), "timestamp": draw(TEXT),
             "claim": draw(TEXT), "recovered": draw(st.booleans()),
             "orphaned": draw(st.booleans())}
        a.update(draw(extra(ANNOTATION_KEYS)))
        key = tuple(a[k] for k in ("case_id", "number", "raw", "source_id", "annotator"))
        if not a["orphaned"] and key in seen:
            continue
        if not a["orphaned"]:
            seen.add(key)
        annotations.append(a)
    reviews = []
    for cid in draw(st.lists(st.sampled_from(ids), unique=True, max_size=len(ids))):
        r = {"case_id": cid, "annotator": draw(st.sampled_from(["", "ana"])),
             "state": draw(st.sampled_from([s.value for s in ReviewState])),
             "verdict": draw(verdicts), "note": draw(TEXT), "timestamp": draw(TEXT)}
        r.update(draw(extra(REVIEW_KEYS)))
        reviews.append(r)
    meta = {"name": draw(TEXT), "labels": labels, "blind": draw(st.booleans()),
            "families": ["cite"], "created": draw(TEXT)}
    meta.update(draw(extra(("name", "labels", "blind", "families", "created", "source"))))
    doc = {"format": "citeview-session", "version": 2, "meta": meta, "cases": cases,
           "reviews": reviews, "annotations": annotations}
    doc.update(draw(extra(("format", "version", "meta", "cases", "reviews", "annotations"))))
    return doc


def ordered(doc: dict[str, Any]) -> dict[str, Any]:
    """The document with rows in the session's order (cases order, then citation number...)."""
    pos = {c["id"]: i for i, c in enumerate(doc["cases"])}
    out = dict(doc)
    out["reviews"] = sorted(doc["reviews"], key=lambda r: (pos[r["case_id"]], r["annotator"]))
    out["annotations"] = sorted(doc["annotations"], key=lambda a: (
        pos[a["case_id"]], a["number"], a["source_id"], a["annotator"]))
    return out


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents())
def test_import_export_round_trip_keeps_everything(doc: dict[str, Any]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        with import_document(doc, os.path.join(tmp, "a.citeview")) as session:
            exported = export_document(session)
            buf = io.StringIO()
            write_json(session, buf)
        assert json.loads(buf.getvalue()) == exported
        # Same content; rows sorted as the session lists them (same-key orphans keep order).
        assert json.dumps(exported, sort_keys=True) == json.dumps(ordered(doc), sort_keys=True)
        path = os.path.join(tmp, "a.json")
        Path(path).write_text(buf.getvalue(), encoding="utf-8")
        with import_document(read_document(path), os.path.join(tmp, "b.citeview")) as again:
            assert export_document(again) == exported


def test_exported_session_matches_the_schema(tmp_path: Path, dataset: ListDataset) -> None:
    s = Session.create(str(tmp_path / "s.citeview"), dataset, annotator="ana")
    slot = case_citations(s.get_case("transit-multi-turn"))[1]
    edits.set_verdict(s, slot.keys("transit-multi-turn")[1], "supported")
    edits.set_case(s, "transit-multi-turn", verdict="unsupported", note="x")
    buf = io.StringIO()
    write_json(s, buf)
    s.close()
    doc = json.loads(buf.getvalue())
    jsonschema.Draft202012Validator(schema()).validate(doc)
    assert doc["annotations"][0]["claim"] == slot.claim
    assert doc["annotations"][0]["annotator"] == "ana"
    assert doc["reviews"][0]["state"] == "in progress"


@pytest.mark.parametrize(("text", "message"), [
    ('{"format": "citeview-session", "version": 1, "cases": [', r"truncated JSON"),
    ('{"cases": []}', r"not a citeview session export \(no \"format\""),
    ('{"format": "citeview-session", "version": 9}', r"newer citeview \(export version 9"),
    ('{"format": "citeview-session", "version": 1, "cases": {}}',
     r"\"cases\" must be a list, not an object"),
    ('{"format": "citeview-session", "version": 1, "cases": [{"id": "a", "answer": "x"}], '
     '"annotations": [{"case_id": "a", "number": "1", "raw": "r", "source_id": "s"}]}',
     r"annotations\[0\]\.number must be a citation number \(1, 2, \.\.\.\), not a string"),
    ('{"format": "citeview-session", "version": 1, "cases": [], '
     '"reviews": [{"case_id": "zz"}]}', r"reviews\[0\]: case 'zz' is not among the cases"),
    ('{"format": "citeview-session", "version": 1, "meta": {"blind": "yes"}}',
     r"meta\.blind must be a boolean, not a string"),
])
def test_bad_documents_give_one_specific_line(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "doc.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=message) as info:
        read_document(str(path))
    assert "\n" not in str(info.value) and str(path) in str(info.value)
    assert path.read_text(encoding="utf-8") == text


@pytest.mark.parametrize("names", [("raw",), ("anchor",), ("raw", "anchor")])
def test_import_reads_the_anchor_under_either_name(tmp_path: Path, names: tuple[str, ...]
                                                   ) -> None:
    # Exports name a citation's anchor "raw" (every version); "anchor" is read too.
    from citeview.core.inputs import load_input

    cases = load_input(str(Path(__file__).parent.parent / "data" / "providers"
                           / "anthropic-char.json"))
    with Session.create(str(tmp_path / "s.citeview"), cases, annotator="ana") as s:
        key = case_citations(s.get_case("anthropic-char"))[1].keys("anthropic-char")[0]
        edits.set_verdict(s, key, "unsupported")
        doc = export_document(s)
    (ann,) = doc["annotations"]
    assert ann["raw"] == key.anchor == "char_location@147-147"
    del ann["raw"]
    for name in names:
        ann[name] = key.anchor
    jsonschema.Draft202012Validator(schema()).validate(doc)
    with import_document(doc, str(tmp_path / "t.citeview")) as again:
        (got,) = again.annotations()
        assert (got.key, got.verdict, got.orphaned) == (key, "unsupported", False)
        assert got.extra == {}  # "anchor" is the key's, not an unknown field kept aside
    del ann[names[-1]]
    if len(names) == 1:
        with pytest.raises(InputError, match=r"annotations\[0\]\.raw must be a string"):
            import_document(doc, str(tmp_path / "u.citeview"))
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.Draft202012Validator(schema()).validate(doc)
