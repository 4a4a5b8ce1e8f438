"""The core: pure Python (no Qt), typed. Markers, material, locators, resolution, lint, formats."""

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

__all__ = [
    "DELIMITER", "RULES", "START", "STOP", "Case", "Citation", "Diagnostic", "InputError",
    "Locator", "Recovery", "Rule", "ScanResult", "Severity", "StrippedText", "Utf16Map",
    "decode_literal_escapes", "extract_citations", "from_utf16", "parse_locator", "scan",
    "split_lines", "strip_citations", "to_utf16",
]
