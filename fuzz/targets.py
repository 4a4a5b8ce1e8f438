"""The fuzz targets: one per parser, each a Hypothesis strategy and a check.

A check feeds its input to citeview and fails when anything but citeview's own
:class:`~citeview.core.errors.InputError` (or a subclass) escapes, when that error's message is
not one line, or when a command's output is broken (lint's JSON incomplete, a message that does
not print as UTF-8). Run them for a while with ``python fuzz/run.py`` (see fuzz/README.md);
``tests/test_fuzz_inputs.py`` runs each for a few examples in CI.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from citeview.cli import main
from citeview.core.analysis import analyse
from citeview.core.cases import Case
from citeview.core.errors import InputError
from citeview.core.inputs import load_input
from citeview.core.lint_output import locate_analysed
from citeview.core.markers import extract_citations, scan, strip_all, strip_citations
from citeview.core.material import case_material, file_source, parse_context, parse_tool_output
from citeview.core.policy import Policy, read_config
from citeview.core.streaming import IncrementalExtractor, IncrementalScanner
from citeview.core.stripping import PRIVATE_MARKER_CHARS, strip_clean
from citeview.session.loader import SESSION_LOADERS
from fuzz import strategies as fs

# --------------------------------------------------------------------------- helpers


@contextlib.contextmanager
def folder() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="citeview-fuzz-") as tmp:
        yield Path(tmp)


@contextlib.contextmanager
def expected_errors() -> Iterator[None]:
    """Lets citeview's InputError through (checking its message is one printable line);
    anything else propagates and fails the target."""
    try:
        yield
    except InputError as err:
        message = str(err)
        assert message and "\n" not in message, f"not one line: {message!r}"


def run_cli(*args: str) -> tuple[int, str, str]:
    """``citeview ARGS`` in this process: exit status, standard output and error (both must
    encode as UTF-8, as a terminal or a pipe would need)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(args))
        except SystemExit as exc:  # argparse usage errors
            code = int(exc.code or 0)
    text, errors = out.getvalue(), err.getvalue()
    text.encode("utf-8")
    errors.encode("utf-8")
    return code, text, errors


def one_line_error(code: int, err: str) -> None:
    """Exit 2 and one error line last on standard error (after any warnings: resolve reports
    material diagnostics of the cases it read before the bad one)."""
    assert code == 2, code
    lines = err.splitlines()
    assert err.endswith("\n") and lines and lines[-1].startswith("citeview: error: "), err
    assert all(x.startswith("citeview: warning: ") for x in lines[:-1]), err


def use_case(case: Case) -> None:
    """Everything a reader does with a case: analyse, lint with positions, write it back."""
    assert isinstance(case.answer, str) and isinstance(case.id, str) and case.id
    assert all(isinstance(t, str) for t in case.tool_outputs)
    analysed = analyse(case, Policy())
    locate_analysed(analysed)
    for c in analysed.citations:
        _ = c.claim_text, c.targets
    json.dumps(case.to_dict(), ensure_ascii=False).encode("utf-8", "surrogatepass")


# --------------------------------------------------------------------------- markers


@dataclass(frozen=True)
class Chunked:
    text: str
    cuts: tuple[int, ...]


chunked_answers = st.builds(
    lambda text, seed: Chunked(text, tuple(sorted(random.Random(seed).sample(
        range(len(text) + 1), min(len(text) + 1, 4))))),
    fs.answers, st.integers(0, 2**32))


def check_markers(item: Chunked) -> None:
    """The marker parser never raises, and the streaming parser agrees with it however the
    answer is cut into chunks."""
    text = item.text
    for families in (("cite",), ("cite", "navlist"), ()):
        citations = extract_citations(text, families)
        strip_citations(text, citations)
        result = scan(text, families, known_ids=("doc1", "a-b_c"))
        strip_all(text, result)
        clean = strip_clean(text, result)
        assert not any(ch in clean for ch in PRIVATE_MARKER_CHARS)
        for c in citations:
            assert text[c.start:c.end] == c.raw
    stream = IncrementalExtractor()
    got = []
    edges = [0, *item.cuts, len(text)]
    for a, b in zip(edges, edges[1:], strict=False):
        got += stream.feed(text[a:b])
    stream.finish()
    assert got == extract_citations(text)
    scanner = IncrementalScanner(hold_limit=64)
    for a, b in zip(edges, edges[1:], strict=False):
        scanner.feed(text[a:b])
    final = scanner.finish()
    whole = scan(text)
    assert [c.to_dict() for c in final.citations] == [c.to_dict() for c in whole.citations]
    assert [d.to_dict() for d in final.diagnostics] == [d.to_dict() for d in whole.diagnostics]


# --------------------------------------------------------------------------- material


def check_material(text: str) -> None:
    """Material is untrusted text: parsing it reports diagnostics, never raises."""
    parse_tool_output(text)
    parse_context(text)
    file_source("doc1", text)
    case = Case("m", text, None, [text], text, {"doc1": text})
    case_material(case)
    use_case(case)


# --------------------------------------------------------------------------- input formats


def check_input(item: tuple[str, bytes]) -> None:
    """Any file, in any input format (or none): load_input and every reader after it."""
    name, data = item
    with folder() as tmp:
        path = tmp / name
        path.write_bytes(data)
        for plain_text in (False, True):
            with expected_errors():
                dataset = load_input(str(path), SESSION_LOADERS, plain_text=plain_text)
                try:
                    ids = dataset.case_ids()
                    assert len(set(ids)) == len(ids)
                    for case in dataset.iter_cases():
                        use_case(case)
                finally:
                    dataset.close()


def check_commands(item: tuple[str, bytes]) -> None:
    """The commands that read an input: one line and exit 2 on bad input, never a traceback;
    lint's output always a complete document."""
    name, data = item
    with folder() as tmp:
        path = str(tmp / name)
        Path(path).write_bytes(data)
        for args in (["resolve", "--json", path], ["parse", "--scan", path],
                     ["strip", "--all", path]):
            code, _, err = run_cli(*args)
            if code != 0:
                one_line_error(code, err)
        for fmt in ("json", "sarif"):
            code, out, err = run_cli("lint", "--no-config", "--format", fmt, path)
            assert code in (0, 1) and err == "", (code, err)
            doc = json.loads(out)
            if fmt == "json":
                summary = doc["summary"]
                assert len(doc["cases"]) == summary["cases"] + summary["invalid_records"]


# --------------------------------------------------------------------------- sessions


def check_session_export(item: tuple[Any, bytes]) -> None:
    """``citeview import`` of an exported session (any shape, damaged or not): a session that
    opens, exports and reads back, or one line and exit 2."""
    _, data = item
    with folder() as tmp:
        src, out = tmp / "s.json", tmp / "s.citeview"
        src.write_bytes(data)
        code, _, err = run_cli("import", str(src), "-o", str(out))
        if code != 0:
            one_line_error(code, err)
            return
        code, text, err = run_cli("export", str(out), "--format", "json")
        assert code == 0, err
        json.loads(text)
        dataset = load_input(str(out), SESSION_LOADERS)
        try:
            for case in dataset.iter_cases():
                use_case(case)
        finally:
            dataset.close()


_SESSION_BYTES: bytes | None = None


def session_bytes() -> bytes:
    """A real session file (a dataset of the test samples), made once."""
    global _SESSION_BYTES
    if _SESSION_BYTES is None:
        from citeview.session import Session

        samples = Path(__file__).resolve().parents[1] / "tests" / "data" / "samples"
        with folder() as tmp:
            path = str(tmp / "s.citeview")
            Session.create(path, load_input(str(samples / "policies.dataset.jsonl"))).close()
            _SESSION_BYTES = Path(path).read_bytes()
    return _SESSION_BYTES


@st.composite
def damaged_sessions(draw: st.DrawFn) -> bytes:
    data = bytearray(session_bytes())
    for _ in range(draw(st.integers(1, 8))):
        at = draw(st.integers(0, len(data) - 1))
        data[at] = draw(st.integers(0, 255))
    cut = draw(st.one_of(st.none(), st.integers(0, len(data))))
    return bytes(data if cut is None else data[:cut])


def check_session_file(data: bytes) -> None:
    """A damaged ``.citeview`` file: read (as far as it can be) or a one-line error."""
    with folder() as tmp:
        path = tmp / "s.citeview"
        path.write_bytes(data)
        with expected_errors():
            dataset = load_input(str(path), SESSION_LOADERS)
            try:
                for case in dataset.iter_cases():
                    use_case(case)
            finally:
                dataset.close()
        code, _, err = run_cli("export", str(path), "--format", "json")
        if code != 0:
            one_line_error(code, err)


# --------------------------------------------------------------------------- policy


def check_policy(item: tuple[str, bytes]) -> None:
    """A configuration file, found or named: a policy or a one-line error."""
    name, data = item
    with folder() as tmp:
        path = tmp / name
        path.write_bytes(data)
        with expected_errors():
            read_config(str(path))
        with expected_errors():
            Policy.discover(tmp)
        answer = tmp / "a.txt"
        answer.write_text("An answer.\n", encoding="utf-8")
        cwd = os.getcwd()
        os.chdir(tmp)
        try:
            code, out, err = run_cli("lint", "--format", "json", str(answer))
        finally:
            os.chdir(cwd)
        if code == 2:
            one_line_error(code, err)
        else:
            json.loads(out)


# --------------------------------------------------------------------------- the registry


@dataclass(frozen=True)
class Target:
    name: str
    strategy: st.SearchStrategy[Any]
    check: Callable[[Any], None]
    about: str


def _export_files(draw: st.DrawFn) -> tuple[Any, bytes]:
    doc = draw(fs.mutated(fs.session_exports()))
    return doc, draw(fs.damaged(fs.to_json(doc, draw(st.sampled_from([None, 2]))).encode(
        "utf-8", "surrogatepass")))


TARGETS: dict[str, Target] = {t.name: t for t in (
    Target("markers", chunked_answers, check_markers,
           "extract/scan/strip and the streaming parser on answers with broken markers"),
    Target("material", fs.material_texts, check_material,
           "tool outputs, injected context and files as material"),
    Target("inputs", fs.input_files(), check_input,
           "load_input on cases, JSONL, arrays, transcripts, Responses output, plain text"),
    Target("commands", fs.input_files(), check_commands,
           "resolve, parse, strip and lint on the same files"),
    Target("session-export", st.composite(_export_files)(), check_session_export,
           "citeview import / export of session exports"),
    Target("session-file", damaged_sessions(), check_session_file,
           "damaged .citeview (SQLite) files"),
    Target("policy", fs.policy_files(), check_policy,
           "citeview.toml and [tool.citeview] in pyproject.toml"),
)}
