"""Structure-aware Hypothesis strategies for citeview's inputs.

Not random bytes alone: valid shapes (answers with markers, material with labels, case JSON,
Chat Completions transcripts, Responses output, session exports, lint policies) in which any
field may get a wrong type, a depth or a size it should not have, then written out as a file
would be (pretty or compact JSON, JSONL with blank lines and CRLF, a BOM, truncated, with bytes
flipped or a NUL slipped in).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from citeview.core.markers import DELIMITER, START, STOP

# --------------------------------------------------------------------------- raw JSON pieces


@dataclass(frozen=True)
class Raw:
    """JSON text written as it is: what :func:`json.dumps` cannot produce (an integer past the
    digit limit, nesting deeper than the recursion limit, NaN, a lone surrogate escape)."""

    text: str


def to_json(value: Any, indent: int | None = None) -> str:
    """``value`` as JSON text, with :class:`Raw` pieces spliced in."""
    pieces: dict[str, str] = {}

    def swap(v: Any) -> Any:
        if isinstance(v, Raw):
            key = f"\x00raw{len(pieces)}\x00"
            pieces[key] = v.text
            return key
        if isinstance(v, dict):
            return {str(k): swap(x) for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return [swap(x) for x in v]
        return v

    text = json.dumps(swap(value), indent=indent, ensure_ascii=False)
    for key, raw in pieces.items():
        text = text.replace(json.dumps(key, ensure_ascii=False), raw)
    return text


def _deep(n: int, closed: bool, kind: str) -> Raw:
    if kind == "[":
        return Raw("[" * n + ("]" * n if closed else ""))
    return Raw('{"a": ' * n + "1" + ("}" * n if closed else ""))


raw_values = st.one_of(
    st.builds(lambda n: Raw("9" * n), st.sampled_from([4300, 4301, 5000, 20000])),
    st.builds(lambda n: Raw("-" + "1" * n), st.sampled_from([4301, 6000])),
    st.builds(_deep, st.sampled_from([199, 200, 201, 300, 990, 1200, 100000]), st.booleans(),
              st.sampled_from(["[", "{"])),
    st.sampled_from([Raw("NaN"), Raw("Infinity"), Raw("-Infinity"), Raw("1e999"), Raw("-0"),
                     Raw('"\\ud800"'), Raw('"\\udfff\\ud800"'), Raw('"\\ud83d\\ude00"'),
                     Raw('"\\u0000"'), Raw("1.5e-400"), Raw('"\\ue200cite\\ue202x\\ue201"')]),
)

scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False),
                    st.text(max_size=20))
json_values = st.recursive(scalars, lambda children: st.one_of(
    st.lists(children, max_size=4), st.dictionaries(st.text(max_size=8), children, max_size=4)),
    max_leaves=12)
#: What a field should not hold: any JSON value, or a raw piece past a limit.
wrong_values = st.one_of(json_values, json_values, json_values, raw_values,
                         st.builds(lambda v: [v], raw_values),
                         st.builds(lambda v: {"x": v}, raw_values))

# --------------------------------------------------------------------------- text


def marker(family: str, *parts: str) -> str:
    return START + family + "".join(DELIMITER + p for p in parts) + STOP


source_ids = st.one_of(
    st.builds(lambda t, k, n: f"turn{t}{k}{n}", st.integers(0, 3),
              st.sampled_from(["file", "search", "news", "view", "fetch"]), st.integers(0, 3)),
    st.sampled_from(["doc1", "ctx1", "block2", "a-b_c", "x", "", " ", "turn0", "L3", "bad id"]),
    st.text(max_size=6),
)
locators = st.one_of(
    st.builds(lambda a: f"L{a}", st.integers(0, 12)),
    st.builds(lambda a, b: f"L{a}-L{b}", st.integers(0, 12), st.integers(0, 12)),
    st.sampled_from(["L", "L1-", "L99999999999999999999", "L-1", "l3", "L1-L", "L1–L2"]),
)
families = st.sampled_from(["cite", "navlist", "cite", "image", "Cite", ""])


@st.composite
def markers(draw: st.DrawFn) -> str:
    ids = draw(st.lists(source_ids, min_size=0, max_size=3))
    if draw(st.booleans()):
        ids.append(draw(locators))
    text = marker(draw(families), *ids)
    how = draw(st.sampled_from(["whole"] * 6 + ["no-stop", "no-start", "escaped", "degraded",
                                                "doubled", "bracket"]))
    if how == "no-stop":
        return text[:-1]
    if how == "no-start":
        return text[1:]
    if how == "escaped":
        return text.encode("unicode_escape").decode("ascii")
    if how == "degraded":
        return text.replace(START, "").replace(DELIMITER, "").replace(STOP, "")
    if how == "doubled":
        return START + text
    if how == "bracket":
        return f"【{draw(st.integers(0, 9))}†source】"
    return text


words = st.sampled_from([
    "Remote work is allowed", "three days", ".", ",", " ", "  ", "\n", "\n\n", "\r\n", "\r",
    "**", "*", "_", "`", "```", "```\n", "~~~", "> ", "- ", "1. ", "# ", "[x](http://a)",
    "<b>", "</b>", "&amp;", "|", "\t", "    ", "\\", "é", "👍", "e\u0301", "\u200b", "\ufeff",
    START, DELIMITER, STOP, "turn0file0", "L8", "[L1]", "Citation Marker: ",
])
answers = st.lists(st.one_of(words, markers(), st.text(max_size=8)), max_size=30).map("".join)


@st.composite
def tool_outputs(draw: st.DrawFn) -> str:
    """A tool output: a header (or none), metadata, labelled lines or blocks, noise."""
    lines: list[str] = []
    if draw(st.booleans()):
        lines.append("Citation Marker: " + draw(markers()))
    for _ in range(draw(st.integers(0, 3))):
        lines.append(draw(st.sampled_from(["Title", "URL", "Published", "", "Key:Value"]))
                     + ": " + draw(st.text(max_size=10)))
    if draw(st.booleans()):
        lines.append("")
    label = draw(st.sampled_from(["L", "Block", "l", "L ", "Line"]))
    for _ in range(draw(st.integers(0, 8))):
        n = draw(st.one_of(st.integers(0, 12), st.sampled_from([10**30, -1])))
        lines.append(draw(st.sampled_from([f"[{label}{n}] ", f"[{label}{n}]", f"{label}{n} ",
                                           ""])) + draw(answers))
    sep = draw(st.sampled_from(["\n", "\r\n", "\r"]))
    return sep.join(lines) + draw(st.sampled_from(["", sep]))


@st.composite
def contexts(draw: st.DrawFn) -> str:
    """Injected context: units in tags with id attributes, well formed or not."""
    parts = []
    for _ in range(draw(st.integers(0, 4))):
        name = draw(st.sampled_from(["block", "doc", "b", "x-y", "1bad"]))
        quote = draw(st.sampled_from(['"', "'", ""]))
        sid = draw(source_ids)
        body = draw(answers)
        close = draw(st.sampled_from([f"</{name}>", "", f"</{name}", "</other>"]))
        extra = draw(st.sampled_from(["", ' title="t"', " id=dup", ' id="a" id="b"', " /"]))
        parts.append(f"<{name} id={quote}{sid}{quote}{extra}>{body}{close}")
    return draw(st.sampled_from(["\n", "", "\n\n"])).join(parts)


material_texts = st.one_of(tool_outputs(), contexts(), answers)

# --------------------------------------------------------------------------- records


def _maybe(value: Any) -> Any:
    return st.one_of(st.just(value), wrong_values)


@st.composite
def cases(draw: st.DrawFn) -> dict[str, Any]:
    case: dict[str, Any] = {"answer": draw(answers)}
    if draw(st.booleans()):
        case["id"] = draw(st.one_of(st.text(max_size=8), st.integers(), st.just("")))
    if draw(st.booleans()):
        case["question"] = draw(st.text(max_size=20))
    if draw(st.booleans()):
        case["tool_outputs"] = draw(st.lists(tool_outputs(), max_size=3))
    if draw(st.booleans()):
        case["context"] = draw(st.one_of(contexts(), st.lists(contexts(), max_size=2)))
    if draw(st.booleans()):
        case["documents"] = draw(st.dictionaries(source_ids, material_texts, max_size=2))
    if draw(st.booleans()):
        case[draw(st.text(max_size=6))] = draw(json_values)
    return case


def _content(draw: st.DrawFn) -> Any:
    return draw(st.one_of(
        answers, st.none(),
        st.lists(st.one_of(st.builds(lambda t: {"type": "text", "text": t}, answers),
                           st.builds(lambda t: {"type": "refusal", "refusal": t}, answers),
                           answers, wrong_values), max_size=3)))


@st.composite
def chats(draw: st.DrawFn) -> Any:
    messages = []
    for _ in range(draw(st.integers(0, 6))):
        m: dict[str, Any] = {"role": draw(st.sampled_from(
            ["system", "developer", "user", "assistant", "tool", "function", "other"]))}
        if m["role"] in ("system", "developer") and draw(st.booleans()):
            m["content"] = draw(contexts())
        elif m["role"] in ("tool", "function"):
            m["content"] = draw(st.one_of(tool_outputs(), st.none()))
        else:
            m["content"] = _content(draw)
        if m["role"] == "assistant" and draw(st.booleans()):
            m["tool_calls"] = draw(st.lists(st.one_of(
                st.builds(lambda i, n: {"id": i, "type": "function",
                                        "function": {"name": n, "arguments": "{}"}},
                          st.text(max_size=4), st.text(max_size=4)),
                wrong_values), max_size=2))
        messages.append(m)
    if draw(st.booleans()):
        return messages
    obj: dict[str, Any] = {"messages": messages}
    if draw(st.booleans()):
        obj["metadata"] = draw(st.one_of(
            st.builds(lambda c: {"case_id": c}, st.text(max_size=6)), wrong_values))
    if draw(st.booleans()):
        obj["id"] = draw(st.one_of(st.text(max_size=6), wrong_values))
    return obj


@st.composite
def responses(draw: st.DrawFn) -> Any:
    items: list[Any] = []
    for _ in range(draw(st.integers(0, 5))):
        kind = draw(st.sampled_from(["message", "function_call", "function_call_output",
                                     "file_search_call", "reasoning", "web_search_call", None]))
        item: dict[str, Any] = {"type": kind} if kind is not None else {"role": "assistant"}
        if kind in ("message", None):
            parts = []
            for _ in range(draw(st.integers(0, 3))):
                part: dict[str, Any] = {"type": draw(st.sampled_from(
                    ["output_text", "output_text", "refusal", "other"])), "text": draw(answers)}
                if draw(st.booleans()):
                    part["annotations"] = draw(st.one_of(st.lists(st.one_of(
                        st.builds(lambda s, e, t: {"type": t, "start_index": s,
                                                   "end_index": e, "url": "http://x"},
                                  st.integers(-5, 50), st.integers(-5, 50),
                                  st.sampled_from(["url_citation", "file_citation"])),
                        wrong_values), max_size=3), wrong_values))
                parts.append(part)
            item["content"] = draw(st.one_of(st.just(parts), answers, wrong_values))
        elif kind == "function_call_output":
            item["output"] = draw(st.one_of(tool_outputs(), st.lists(
                st.builds(lambda t: {"type": "output_text", "text": t}, tool_outputs()),
                max_size=2), wrong_values))
        elif kind == "file_search_call":
            item["results"] = draw(st.one_of(st.lists(st.one_of(
                st.builds(lambda t: {"text": t, "file_id": "f"}, tool_outputs()), wrong_values),
                max_size=2), wrong_values))
        elif kind == "function_call":
            item.update(call_id=draw(st.text(max_size=4)), name="f", arguments="{}")
        items.append(item)
    if draw(st.booleans()):
        return items
    obj: dict[str, Any] = {"output": items}
    if draw(st.booleans()):
        obj["input"] = draw(st.one_of(st.text(max_size=10), st.lists(st.one_of(
            st.builds(lambda c: {"role": "user", "content": c}, answers), wrong_values),
            max_size=2), wrong_values))
    if draw(st.booleans()):
        obj["metadata"] = draw(st.one_of(
            st.builds(lambda c: {"id": c}, st.text(max_size=6)), wrong_values))
    return obj


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a JSON value (keys and indices), the value itself first."""
    out = [prefix]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _paths(v, (*prefix, i))
    return out


@st.composite
def mutated(draw: st.DrawFn, base: st.SearchStrategy[Any]) -> Any:
    """A value of ``base`` with zero to three places replaced by a wrong value (a wrong type,
    a depth or a size past a limit), or a key dropped."""
    value = draw(base)
    for _ in range(draw(st.sampled_from([0, 0, 0, 1, 1, 2, 3]))):
        paths = _paths(value)
        path = draw(st.sampled_from(paths))
        new = draw(wrong_values)
        if not path:
            value = new
            continue
        parent = value
        for key in path[:-1]:
            parent = parent[key]
        if isinstance(parent, dict) and draw(st.integers(0, 4)) == 0:
            del parent[path[-1]]
        else:
            parent[path[-1]] = new
    return value


records = st.one_of(mutated(cases()), mutated(chats()), mutated(responses()))

# --------------------------------------------------------------------------- sessions


@st.composite
def session_exports(draw: st.DrawFn) -> Any:
    n = draw(st.integers(0, 3))
    ids = [f"c{i}" for i in range(n)]
    docs = []
    for cid in ids:
        case = draw(cases())
        case["id"] = cid
        docs.append(case)
    annotator = draw(st.sampled_from(["", "ana", "bo"]))
    reviews = [{"case_id": draw(st.sampled_from([*ids, "zz"])), "annotator": annotator,
                "state": draw(st.sampled_from(["not started", "in progress", "done", "x"])),
                "verdict": draw(st.one_of(st.none(), st.text(max_size=5))),
                "note": draw(st.text(max_size=5))}
               for _ in range(draw(st.integers(0, 2)))] if ids else []
    annotations = [{"case_id": draw(st.sampled_from(ids)),
                    "number": draw(st.one_of(st.integers(-1, 5), st.just(2**63))),
                    "raw": draw(markers()), "source_id": draw(source_ids),
                    "annotator": annotator,
                    "verdict": draw(st.sampled_from(["supported", "unsupported", None, "?"])),
                    "note": draw(st.text(max_size=5)), "claim": draw(st.text(max_size=5)),
                    "orphaned": draw(st.booleans())}
                   for _ in range(draw(st.integers(0, 3)))] if ids else []
    meta: dict[str, Any] = {}
    if draw(st.booleans()):
        meta["labels"] = draw(st.lists(st.text(max_size=6), max_size=3))
    if draw(st.booleans()):
        meta["families"] = draw(st.lists(families, max_size=2))
    if draw(st.booleans()):
        meta["blind"] = draw(st.booleans())
    return {"format": "citeview-session", "version": draw(st.sampled_from([1, 2, 2, 3])),
            "meta": meta, "cases": docs, "reviews": reviews, "annotations": annotations}


# --------------------------------------------------------------------------- policies

policy_keys = st.sampled_from(["families", "require-locators", "require_locators",
                               "multi-source", "select", "extend-select", "ignore", "severity",
                               "fail-on", "weak-support-threshold", "unknown-key"])
toml_values = st.one_of(
    st.sampled_from(['"cite"', '["cite", "navlist"]', "true", "false", '"per-marker"',
                     '"one-marker"', '["CV3", "CV201"]', '"CV1,CV2"', '["ALL"]', '["CV999"]',
                     '"error"', '"warning"', '"info"', '"loud"', "0.3", "1.5", "-1", "nan",
                     "inf", '{ CV304 = "error" }', '{ CV304 = "loud" }', "{ }", "[]", '""',
                     "1979-05-27T07:32:00Z", "1" * 5000, "[" * 3000 + "]" * 3000,
                     '"\\ud800"', "0x10", '"a\\u0000b"']),
    st.builds(lambda s: json.dumps(s), st.text(max_size=10)),
)


@st.composite
def policy_files(draw: st.DrawFn) -> tuple[str, bytes]:
    """A configuration file: its name (citeview.toml or pyproject.toml) and bytes."""
    name = draw(st.sampled_from(["citeview.toml", "pyproject.toml"]))
    head = draw(st.sampled_from(["[tool.citeview]\n", "", "[tool]\ncitevie = 1\n",
                                 "[tool.citeview.severity]\n", "tool.citeview = 3\n"]))
    lines = [f"{draw(policy_keys)} = {draw(toml_values)}"
             for _ in range(draw(st.integers(0, 5)))]
    data = (head + "\n".join(lines) + "\n").encode("utf-8", "surrogatepass")
    return name, draw(damaged(data))


# --------------------------------------------------------------------------- files


@st.composite
def damaged(draw: st.DrawFn, data: bytes) -> bytes:
    """``data`` as it is (mostly), or damaged: truncated, bytes flipped, a NUL or invalid UTF-8
    slipped in, a BOM, CRLF line ends."""
    how = draw(st.sampled_from(["keep"] * 6 + ["truncate", "flip", "nul", "invalid", "bom",
                                              "crlf", "garbage"]))
    if not data or how == "keep":
        return data
    at = draw(st.integers(0, len(data)))
    if how == "truncate":
        return data[:at]
    if how == "flip":
        at = min(at, len(data) - 1)
        return data[:at] + bytes([data[at] ^ draw(st.integers(1, 255))]) + data[at + 1:]
    if how == "nul":
        return data[:at] + b"\x00" + data[at:]
    if how == "invalid":
        return data[:at] + draw(st.sampled_from([b"\xff", b"\xc3", b"\xed\xa0\x80"])) + data[at:]
    if how == "bom":
        return b"\xef\xbb\xbf" + data
    if how == "crlf":
        return data.replace(b"\n", b"\r\n")
    return data + draw(st.sampled_from([b" x", b"\n{", b"\n]", b"}", b"\n\n\n", b"\x1a"]))


@st.composite
def input_files(draw: st.DrawFn) -> tuple[str, bytes]:
    """An input file as a user might hand it over: a name and its bytes (a case, a dataset, a
    transcript, Responses output or plain text, written any way a tool might write it)."""
    shape = draw(st.sampled_from(["document", "jsonl", "array", "plain", "json-values"]))
    indent = draw(st.sampled_from([None, 2]))
    if shape == "document":
        text = to_json(draw(records), indent)
        suffix = draw(st.sampled_from([".json", ".case.json", ".chat.json", ".txt", ""]))
    elif shape == "jsonl":
        lines = [to_json(r) for r in draw(st.lists(records, min_size=1, max_size=4))]
        blanks = draw(st.sampled_from(["\n", "\n\n", "\n \n"]))
        text = blanks.join(lines) + draw(st.sampled_from(["", "\n"]))
        suffix = draw(st.sampled_from([".jsonl", ".ndjson", ".json", ""]))
    elif shape == "array":
        text = to_json(draw(st.lists(records, max_size=4)), indent)
        suffix = ".json"
    elif shape == "plain":
        text = draw(st.one_of(answers, tool_outputs()))
        suffix = draw(st.sampled_from([".txt", ".md", ".json", ""]))
    else:
        text = to_json(draw(wrong_values), indent)
        suffix = draw(st.sampled_from([".json", ".jsonl"]))
    data = text.encode("utf-8", "surrogatepass")
    return "input" + suffix, draw(damaged(data))
