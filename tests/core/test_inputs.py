"""Input formats: every sample opens in every format to the same case content; bad input gives
one specific line and changes nothing on disk."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citeview.core.cases import Case
from citeview.core.datasets import ListDataset, case_id_from_path
from citeview.core.errors import InputError
from citeview.core.inputs import (
    SQLITE_MAGIC,
    InputLoader,
    InputLoaders,
    load_input,
    parse_document_option,
    plain_files_case,
)

DATA = Path(__file__).parent.parent / "data"
SAMPLES = DATA / "samples"
FORMATS = DATA / "formats"
PLAIN = FORMATS / "plain"


def sample_cases() -> dict[str, dict]:
    lines = (SAMPLES / "policies.dataset.jsonl").read_text(encoding="utf-8").splitlines()
    return {c["id"]: c for c in (json.loads(line) for line in lines if line.strip())}


CASES = sample_cases()


def content(case: Case) -> tuple:
    return (case.tool_outputs, case.question, case.answer)


def expected(cid: str) -> tuple:
    c = CASES[cid]
    return (c.get("tool_outputs", []), c["question"], c["answer"])


@pytest.mark.parametrize("name", sorted(p.name for p in SAMPLES.glob("*.case.json")))
def test_case_json_matches_dataset_line(name: str) -> None:
    ds = load_input(str(SAMPLES / name))
    assert ds.kind == "case" and len(ds) == 1
    case = ds.get(0)
    assert content(case) == expected(case.id)
    assert case.context == CASES[case.id].get("context")


def test_jsonl_dataset_lists_ids_and_parses_each_case() -> None:
    ds = load_input(str(SAMPLES / "policies.dataset.jsonl"))
    assert ds.kind == "jsonl"
    assert ds.case_ids() == list(CASES)
    for cid in CASES:
        assert content(ds.get(ds.index_of(cid))) == expected(cid)
    with pytest.raises(KeyError):
        ds.index_of("nope")


def test_json_array_and_chat_and_responses_datasets_give_the_same_content() -> None:
    array = load_input(str(FORMATS / "policies.array.json"))
    chat = load_input(str(FORMATS / "policies.chat.jsonl"))
    resp = load_input(str(FORMATS / "policies.responses.jsonl"))
    assert array.kind == "json-array" and chat.kind == "jsonl" and resp.kind == "jsonl"
    assert array.case_ids() == chat.case_ids() == list(CASES)
    for ds in (array, chat, resp):
        for cid in ds.case_ids():
            assert content(ds.get(ds.index_of(cid))) == expected(cid), (ds, cid)
    # Injected context in a system message of a transcript is the case's context.
    opinion = chat.get(chat.index_of("opinion-injected-context"))
    assert opinion.context == CASES["opinion-injected-context"]["context"]


def test_shared_chat_sample_is_the_handbook_case() -> None:
    ds = load_input(str(SAMPLES / "handbook.chat.json"))
    assert ds.kind == "chat"
    case = ds.get(0)
    assert case.id == "handbook"  # no id in the transcript: the file name
    assert content(case) == expected("handbook-line-level")
    assert case.extra["tool_calls"][0]["name"] == "search_policies"


def test_bare_message_list_is_a_transcript() -> None:
    ds = load_input(str(FORMATS / "transit.messages.json"))
    assert ds.kind == "chat" and ds.case_ids() == ["transit.messages"]
    assert content(ds.get(0)) == expected("transit-multi-turn")


def test_responses_keeps_provider_annotations_shifted_to_the_joined_answer() -> None:
    case = load_input(str(FORMATS / "handbook.responses.json")).get(0)
    assert content(case) == expected("handbook-line-level")
    first_len = case.answer.find("\n") + 1
    anns = case.extra["annotations"]
    assert [a["type"] for a in anns] == ["url_citation", "file_citation"]
    assert anns[0]["start_index"] == 0 and anns[1]["index"] == first_len
    assert case.extra["metadata"] == {"note": "kept"}


def test_bare_responses_output_list() -> None:
    ds = load_input(str(FORMATS / "handbook.output.json"))
    assert ds.kind == "responses"
    case = ds.get(0)
    assert case.id == "handbook.output"
    assert (case.tool_outputs, case.answer) == expected("handbook-line-level")[::2]


@pytest.mark.parametrize("cid", [c for c in CASES if CASES[c].get("tool_outputs")])
def test_plain_files_give_the_same_tool_outputs_and_answer(cid: str) -> None:
    materials = sorted(str(p) for p in PLAIN.glob(f"{cid}.material*.txt"))
    case = plain_files_case(materials, [], {}, str(PLAIN / f"{cid}.answer.txt"), cid)
    assert (case.tool_outputs, case.answer) == (CASES[cid]["tool_outputs"], CASES[cid]["answer"])


def test_plain_files_context_and_documents() -> None:
    cid = "opinion-injected-context"
    case = plain_files_case([], [str(PLAIN / f"{cid}.context.txt")],
                            {"doc1": str(PLAIN / "handbook-line-level.material0.txt")},
                            str(PLAIN / f"{cid}.answer.txt"), "x")
    assert case.context == CASES[cid]["context"]
    assert case.documents["doc1"] == CASES["handbook-line-level"]["tool_outputs"][0]
    with pytest.raises(InputError, match="no such file"):
        plain_files_case(["/nonexistent/m.txt"], [], {}, str(PLAIN / f"{cid}.answer.txt"), "x")
    assert parse_document_option("d1=a=b.txt") == ("d1", "a=b.txt")
    with pytest.raises(InputError, match="ID=PATH"):
        parse_document_option("justapath.txt")


def test_plain_text_file_is_an_answer(tmp_path: Path) -> None:
    f = tmp_path / "answer.txt"
    f.write_text("Hello.\ue200cite\ue202turn0file0\ue201\n", encoding="utf-8")
    ds = load_input(str(f))
    assert ds.kind == "plain" and ds.get(0).answer.startswith("Hello.")
    assert ds.case_ids() == ["answer"]


BAD = FORMATS / "bad"


@pytest.mark.parametrize(("name", "message"), [
    ("truncated.case.json", r"truncated JSON"),
    ("wrong-types.case.json", r"\"answer\" must be a string, not a number"),
    ("unknown.json", r"unknown format: an object with keys 'hello', 'n'"),
    ("invalid-utf8.case.json", r"invalid UTF-8 at byte 26"),
    ("empty.json", r"empty \(0 bytes\)"),
    ("not-sqlite.citeview", r"not a citeview session \(not an SQLite database\)"),
    ("duplicate-ids.jsonl", r"duplicate case id 'a' \(lines 1 and 2\)"),
    ("bad-line.jsonl", r"line 2: invalid JSON"),
])
def test_bad_files_give_one_specific_line_and_stay_unchanged(name: str, message: str) -> None:
    path = BAD / name
    before = (path.read_bytes(), os.stat(path).st_mtime_ns)
    with pytest.raises(InputError, match=message) as info:
        load_input(str(path))
    assert "\n" not in str(info.value) and str(path) in str(info.value)
    assert (path.read_bytes(), os.stat(path).st_mtime_ns) == before


def test_directory_and_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="is a directory"):
        load_input(str(tmp_path))
    with pytest.raises(InputError, match="no such file"):
        load_input(str(tmp_path / "missing.json"))


def test_jsonl_records_without_ids_are_named_after_the_file(tmp_path: Path) -> None:
    f = tmp_path / "runs.jsonl"
    f.write_text('{"answer": "a"}\n\n{"answer": "b", "id": 7}\n{"answer": "c"}\n')
    ds = load_input(str(f))
    assert ds.case_ids() == ["runs#1", "7", "runs#3"]
    assert ds.get(2).answer == "c" and ds.get(2).id == "runs#3"


def test_jsonl_record_errors_name_the_line(tmp_path: Path) -> None:
    f = tmp_path / "d.jsonl"
    f.write_text('{"id": "a", "answer": "x"}\n{"id": "b", "answer": 3}\n')
    ds = load_input(str(f))
    assert ds.get(0).answer == "x"
    with pytest.raises(InputError, match=r"d.jsonl line 2: case 'b'|line 2: case \"answer\""):
        ds.get(1)


def test_trailing_garbage_after_a_document_is_reported(tmp_path: Path) -> None:
    f = tmp_path / "x.json"
    f.write_text('{"id": "a", "answer": "x"} extra')
    with pytest.raises(InputError, match="line 1 column 28"):
        load_input(str(f))


def test_list_dataset_rejects_duplicate_ids() -> None:
    ds = ListDataset([Case("a", "x"), Case("b", "y")])
    assert ds.index_of("b") == 1 and len(ds) == 2
    with pytest.raises(InputError, match="duplicate case id"):
        ListDataset([Case("a", "x"), Case("a", "y")])


def test_case_id_from_path() -> None:
    assert case_id_from_path("/x/handbook.chat.json") == "handbook"
    assert case_id_from_path("runs.v2.jsonl") == "runs.v2"


def test_large_jsonl_lists_ids_without_parsing_every_case(tmp_path: Path) -> None:
    # Not a timing test: a line that is not valid JSON after the id is only reported when that
    # case is asked for, which shows ids were listed without parsing each record.
    f = tmp_path / "big.jsonl"
    line = json.dumps(CASES["handbook-line-level"], ensure_ascii=False)
    with open(f, "w", encoding="utf-8") as fh:
        for i in range(2000):
            fh.write(line.replace('"handbook-line-level"', f'"c{i}"', 1) + "\n")
        fh.write('{"id": "late", "answer": "x", "tool_outputs": [1]}\n')
    ds = load_input(str(f))
    assert len(ds) == 2001 and ds.case_ids()[-1] == "late"
    assert ds.get(ds.index_of("c1999")).id == "c1999"
    with pytest.raises(InputError, match="line 2001"):
        ds.get(2000)


# ------------------------------------------------------------------- property: same content

_SAFE = st.text(st.characters(exclude_categories=("Cs",), exclude_characters="\x00\ufeff"),
                min_size=1, max_size=30)


@settings(max_examples=30, deadline=None)
@given(question=_SAFE, answer=_SAFE, outputs=st.lists(_SAFE, max_size=3))
def test_every_format_of_a_case_gives_the_same_content(question: str, answer: str,
                                                       outputs: list[str]) -> None:
    case = {"id": "c1", "question": question, "tool_outputs": outputs, "answer": answer}
    messages: list[dict] = [{"role": "user", "content": question}]
    items: list[dict] = [{"role": "user", "content": question}]
    for n, out in enumerate(outputs):
        messages += [{"role": "assistant", "content": None, "tool_calls": [
                         {"id": f"k{n}", "type": "function",
                          "function": {"name": "f", "arguments": "{}"}}]},
                     {"role": "tool", "tool_call_id": f"k{n}", "content": out}]
        items += [{"type": "function_call", "call_id": f"k{n}", "name": "f", "arguments": ""},
                  {"type": "function_call_output", "call_id": f"k{n}", "output": out}]
    messages.append({"role": "assistant", "content": [{"type": "text", "text": answer}]})
    responses = {"input": items, "output": [{"type": "message", "role": "assistant", "content": [
        {"type": "output_text", "text": answer, "annotations": []}]}]}
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)

        def write(name: str, obj: object, jsonl: bool = False) -> str:
            text = json.dumps(obj, ensure_ascii=False)
            (d / name).write_text(text + "\n" if jsonl else text, encoding="utf-8")
            return str(d / name)

        loaded = [
            load_input(write("c.case.json", case)).get(0),
            load_input(write("d.jsonl", case, jsonl=True)).get(0),
            load_input(write("a.json", [case])).get(0),
            load_input(write("t.chat.json", {"messages": messages})).get(0),
            load_input(write("t.jsonl", {"messages": messages}, jsonl=True)).get(0),
            load_input(write("r.json", responses)).get(0),
        ]
        for n, out in enumerate(outputs):
            (d / f"m{n}.txt").write_text(out, encoding="utf-8", newline="")
        (d / "ans.txt").write_text(answer, encoding="utf-8", newline="")
        plain = plain_files_case([str(d / f"m{n}.txt") for n in range(len(outputs))], [], {},
                                 str(d / "ans.txt"), "p")
    for got in loaded:
        assert (got.tool_outputs, got.question, got.answer) == (outputs, question, answer)
    assert (plain.tool_outputs, plain.answer) == (outputs, answer)


def test_escaped_lone_surrogates_become_replacement_characters(tmp_path: Path) -> None:
    """JSON can escape half a surrogate pair; such text must not crash printing or storage."""
    from citeview.session.store import Session

    raw = '{"id": "x\\ud800", "answer": "bad \\udc00 text \\ud83d\\ude00", "tool_outputs": []}'
    for name, text in (("one.case.json", raw), ("many.jsonl", raw + "\n" + raw.replace("x", "y"))):
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        dataset = load_input(str(path))
        case = dataset.get(0)
        assert case.id == "x\ufffd"
        assert case.answer == "bad \ufffd text 😀"  # a real pair stays one emoji
        case.answer.encode("utf-8")
        session = Session.create(str(tmp_path / f"{name}.citeview"), dataset)
        assert session.get_case(session.case_ids()[0]).answer == case.answer
        session.close()


# --------------------------------------------------------------------------- binary loaders

MAGIC = b"CVTEST\x00"


def _fake_loader(name: str = "test format", calls: list[str] | None = None) -> InputLoader:
    def load(path: str) -> ListDataset:
        if calls is not None:
            calls.append(path)
        return ListDataset([Case(Path(path).stem, "loaded")], path, "test")
    return InputLoader(name, MAGIC, load)


def test_a_binary_format_is_read_by_the_loader_given(tmp_path: Path) -> None:
    path = tmp_path / "x.bin"
    path.write_bytes(MAGIC + b"\x01\x02")
    calls: list[str] = []
    dataset = load_input(str(path), loaders=[_fake_loader(calls=calls)])
    assert (dataset.kind, dataset.get(0).answer) == ("test", "loaded")
    again = dataset.reload()  # read again with the same loaders, not the default registry
    assert again.kind == "test" and calls == [str(path), str(path)]
    with pytest.raises(InputError, match="binary file"):
        load_input(str(path), loaders=[])


def test_loaders_register_one_per_magic() -> None:
    loaders = InputLoaders([_fake_loader()])
    loaders.register(_fake_loader())  # the same name again (a module reloaded): replaced
    assert len(loaders) == 1
    with pytest.raises(ValueError, match="already reads"):
        loaders.register(_fake_loader("another format"))
    assert loaders.find(MAGIC + b"rest") is not None and loaders.find(b"SQLite") is None
    loaders.unregister("test format")
    assert len(loaders) == 0


def test_a_session_without_the_session_loader_says_where_to_get_it(tmp_path: Path) -> None:
    path = tmp_path / "s.citeview"
    path.write_bytes(SQLITE_MAGIC + bytes(100))
    with pytest.raises(InputError, match=r"a citeview session: open it with citeview\.session"):
        load_input(str(path), loaders=[])


def test_the_core_alone_registers_no_loader() -> None:
    """Nothing fills the default registry, importing citeview.session neither (issue 23:
    whether a session loads never depends on what was imported; the entry points pass their
    loaders)."""
    code = ("import sys, citeview.core, citeview.core.inputs as i\n"
            "print(len(i.DEFAULT_LOADERS), 'citeview.session' in sys.modules)\n"
            "import citeview.session\n"
            "print([x.name for x in i.DEFAULT_LOADERS])\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.splitlines() == ["0 False", "[]"]


def test_a_dataset_not_read_by_load_input_cannot_reload_itself() -> None:
    with pytest.raises(InputError, match="not read from a file"):
        ListDataset([Case("a", "x")]).reload()
    with pytest.raises(InputError, match="not read by load_input"):
        ListDataset([Case("a", "x")], "a.json").reload()


def test_the_formats_facade_re_exports_the_public_names() -> None:
    from citeview.core import datasets, files, formats, inputs, transcripts

    homes = (datasets, files, inputs, transcripts)
    for name in formats.__all__:
        value = getattr(formats, name)
        assert any(getattr(m, name, None) is value for m in homes), name


def test_citeview_itself_never_imports_the_facade() -> None:
    import ast

    import citeview

    package = Path(citeview.__file__).parent
    users = []
    for path in package.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [f"{node.module}.{a.name}" for a in node.names]
                     if isinstance(node, ast.ImportFrom) else [])
            names += [n.rsplit(".", 1)[0] for n in names]
            if "citeview.core.formats" in names:
                users.append(f"{path.relative_to(package)}:{node.lineno}")
    assert users == []
