"""The core: pure Python (no Qt), typed. Markers, material, locators, resolution, lint, formats.

The names below are importable from ``citeview.core`` directly. Modules with heavier imports
(lint pulls in markdown-it-py) load on first use, so ``citeview parse`` starts fast.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from citeview.core.cases import Case
from citeview.core.diagnostics import RULES, Diagnostic, Rule, Severity
from citeview.core.errors import InputError
from citeview.core.locators import Locator, parse_locator
from citeview.core.markers import (
    DELIMITER,
    START,
    STOP,
    Citation,
    Recovery,
    ScanResult,
    StrippedText,
    decode_literal_escapes,
    extract_citations,
    scan,
    strip_citations,
)
from citeview.core.text import Utf16Map, from_utf16, split_lines, to_utf16

if TYPE_CHECKING:
    from citeview.core.claims import claim_spans
    from citeview.core.datasets import Dataset, ListDataset
    from citeview.core.inputs import load_input
    from citeview.core.lint import lint
    from citeview.core.material import (
        Material,
        Source,
        SourceKind,
        SourceLine,
        case_material,
        file_source,
        parse_context,
        parse_tool_output,
    )
    from citeview.core.policy import Policy
    from citeview.core.prepare import Document, prepare_material
    from citeview.core.prompts import instructions, policy_for
    from citeview.core.resolution import Resolution, Status, Target, resolve
    from citeview.core.streaming import IncrementalExtractor
    from citeview.core.support import support_score

_LAZY = {
    "claim_spans": "claims",
    "Dataset": "datasets", "ListDataset": "datasets", "load_input": "inputs",
    "lint": "lint",
    "Material": "material", "Source": "material", "SourceKind": "material",
    "SourceLine": "material", "case_material": "material", "file_source": "material",
    "parse_context": "material", "parse_tool_output": "material",
    "Policy": "policy",
    "Document": "prepare", "prepare_material": "prepare",
    "instructions": "prompts", "policy_for": "prompts",
    "Resolution": "resolution", "Status": "resolution", "Target": "resolution",
    "resolve": "resolution",
    "IncrementalExtractor": "streaming",
    "support_score": "support",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'citeview.core' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"citeview.core.{module}"), name)
    globals()[name] = value
    return value


__all__ = [
    "DELIMITER", "RULES", "START", "STOP", "Case", "Citation", "Dataset", "Diagnostic",
    "Document", "IncrementalExtractor", "InputError", "ListDataset", "Locator", "Material",
    "Policy", "Recovery",
    "Resolution", "Rule", "ScanResult", "Severity", "Source", "SourceKind", "SourceLine",
    "Status", "StrippedText", "Target", "Utf16Map", "case_material", "claim_spans",
    "decode_literal_escapes", "extract_citations", "file_source", "from_utf16", "instructions",
    "lint", "load_input", "parse_context", "parse_locator", "parse_tool_output", "policy_for",
    "prepare_material", "resolve", "scan", "split_lines", "strip_citations", "support_score",
    "to_utf16",
]
