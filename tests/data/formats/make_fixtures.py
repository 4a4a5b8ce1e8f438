"""Regenerate the format fixtures from tests/data/samples (run by hand; outputs are committed).

Each sample case is written again as a chat transcript, a Responses API response, a JSON array
and plain files, so the tests can check every format yields the same case content.
"""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).parent
SAMPLES = HERE.parent / "samples"


def cases() -> list[dict]:
    lines = (SAMPLES / "policies.dataset.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def chat(case: dict) -> dict:
    messages: list[dict] = [{"role": "system", "content": "Answer with citations."}]
    if case.get("context"):
        messages.append({"role": "system", "content": case["context"]})
    messages.append({"role": "user", "content": case["question"]})
    for n, out in enumerate(case.get("tool_outputs", [])):
        call = f"call_{n}"
        messages.append({"role": "assistant", "content": None, "tool_calls": [
            {"id": call, "type": "function",
             "function": {"name": "search", "arguments": json.dumps({"q": n})}}]})
        # Content as a list of text parts, split mid-text: parts are joined as they are.
        half = len(out) // 2
        messages.append({"role": "tool", "tool_call_id": call,
                         "content": [{"type": "text", "text": out[:half]},
                                     {"type": "text", "text": out[half:]}]})
    messages.append({"role": "assistant", "content": case["answer"]})
    return {"id": case["id"], "messages": messages}


def responses(case: dict) -> dict:
    items: list[dict] = [{"role": "user", "content": case["question"]}]
    for n, out in enumerate(case.get("tool_outputs", [])):
        items.append({"type": "function_call", "call_id": f"call_{n}", "name": "search",
                      "arguments": "{}"})
        items.append({"type": "function_call_output", "call_id": f"call_{n}", "output": out})
    answer = case["answer"]
    cut = answer.find("\n") + 1 or len(answer)
    parts = [
        {"type": "output_text", "text": answer[:cut], "annotations": [
            {"type": "url_citation", "start_index": 0, "end_index": 3,
             "url": "https://company.example/a", "title": "A"}]},
        {"type": "output_text", "text": answer[cut:], "annotations": [
            {"type": "file_citation", "index": 0, "file_id": "file-1", "filename": "b.txt"}]},
    ]
    return {"id": case["id"], "object": "response", "model": "gpt-test", "input": items,
            "output": [{"type": "reasoning", "id": "rs_1", "summary": []},
                       {"type": "message", "id": "msg_1", "role": "assistant",
                        "status": "completed", "content": parts}],
            "metadata": {"note": "kept"}}


def main() -> None:
    all_cases = cases()
    by_id = {c["id"]: c for c in all_cases}
    with_tools = [c for c in all_cases if c.get("tool_outputs")]
    dump = dict(ensure_ascii=False)
    (HERE / "policies.chat.jsonl").write_text(
        "".join(json.dumps(chat(c), **dump) + "\n" for c in all_cases), encoding="utf-8")
    (HERE / "policies.responses.jsonl").write_text(
        "".join(json.dumps(responses(c), **dump) + "\n" for c in with_tools), encoding="utf-8")
    (HERE / "policies.array.json").write_text(
        json.dumps(all_cases, indent=1, **dump), encoding="utf-8")
    transit = by_id["transit-multi-turn"]
    bare = chat(transit)["messages"]
    (HERE / "transit.messages.json").write_text(json.dumps(bare, indent=1, **dump),
                                                encoding="utf-8")
    handbook = by_id["handbook-line-level"]
    (HERE / "handbook.responses.json").write_text(
        json.dumps(responses(handbook), indent=1, **dump), encoding="utf-8")
    output_only = responses(handbook)
    output_only = output_only["input"][1:] + output_only["output"]
    (HERE / "handbook.output.json").write_text(json.dumps(output_only, indent=1, **dump),
                                               encoding="utf-8")
    plain = HERE / "plain"
    plain.mkdir(exist_ok=True)
    for case in with_tools:
        for n, out in enumerate(case["tool_outputs"]):
            (plain / f"{case['id']}.material{n}.txt").write_text(out, encoding="utf-8")
        (plain / f"{case['id']}.answer.txt").write_text(case["answer"], encoding="utf-8")
    opinion = by_id["opinion-injected-context"]
    (plain / "opinion-injected-context.context.txt").write_text(opinion["context"],
                                                                encoding="utf-8")
    (plain / "opinion-injected-context.answer.txt").write_text(opinion["answer"],
                                                               encoding="utf-8")
    bad = HERE / "bad"
    bad.mkdir(exist_ok=True)
    text = (SAMPLES / "handbook-line-level.case.json").read_bytes()
    (bad / "truncated.case.json").write_bytes(text[: len(text) // 2])
    (bad / "wrong-types.case.json").write_text('{"id": "x", "answer": 42}\n')
    (bad / "unknown.json").write_text('{"hello": "world", "n": 1}\n')
    (bad / "invalid-utf8.case.json").write_bytes(b'{"id": "x", "answer": "caf\xe9"}\n')
    (bad / "empty.json").write_bytes(b"")
    (bad / "not-sqlite.citeview").write_text("this is not a database\n")
    (bad / "bad-line.jsonl").write_text('{"id": "a", "answer": "x"}\n{"id": "b", "answer": \n')
    (bad / "duplicate-ids.jsonl").write_text('{"id": "a", "answer": "x"}\n'
                                             '{"id": "a", "answer": "y"}\n')


if __name__ == "__main__":
    main()
