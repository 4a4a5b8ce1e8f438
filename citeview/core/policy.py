"""Lint policy: which rules run, at what severity, and the citation conventions a project asks for.

A policy can be read from ``[tool.citeview]`` in a ``pyproject.toml`` or from a
``citeview.toml`` (top-level keys, or the same ``[tool.citeview]`` table), found from a directory
upward::

    [tool.citeview]
    families = ["cite"]
    require-locators = true          # CV205: line-level sources must be cited with L8-L13
    multi-source = "per-marker"      # CV307: "per-marker" or "one-marker"
    select = ["CV1", "CV2", "CV3"]   # only these rules (codes, prefixes or names)
    extend-select = ["CV307"]        # rules turned on in addition to the defaults
    ignore = ["CV308"]               # rules turned off
    fail-on = "warning"              # citeview lint's exit threshold
    weak-support-threshold = 0.3     # CV401 (when selected): support score below this

    [tool.citeview.severity]
    CV304 = "error"
"""

from __future__ import annotations

import os
import sys
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from citeview.core.diagnostics import RULES, CitationDiagnostic, Diagnostic, Severity
from citeview.core.errors import InputError
from citeview.core.markers import DEFAULT_FAMILIES
from citeview.core.material import MaterialDiagnostic
from citeview.core.support import DEFAULT_THRESHOLD

MultiSource = Literal["one-marker", "per-marker"]
MULTI_SOURCE_STYLES: tuple[str, ...] = ("one-marker", "per-marker")
CONFIG_FILES = ("citeview.toml", "pyproject.toml")
_NAMES = {rule.name: code for code, rule in RULES.items()}


def expand_codes(items: Iterable[str], where: str = "") -> frozenset[str]:
    """Rule codes named by ``items``: codes (``CV201``), prefixes (``CV2``, ``ALL``) or names
    (``unknown-source``). Anything that names no rule raises :class:`InputError`."""
    out: set[str] = set()
    for raw in items:
        item = raw.strip()
        if not item:
            continue
        up = item.upper()
        if up == "ALL":
            out.update(RULES)
            continue
        if item.lower() in _NAMES:
            out.add(_NAMES[item.lower()])
            continue
        matched = {code for code in RULES if code.startswith(up)} if up.startswith("CV") else set()
        if not matched:
            prefix = f"{where}: " if where else ""
            raise InputError(f"{prefix}unknown rule {item!r} (rules are CV101-CV504, "
                             "a prefix such as CV3, or a name such as unknown-source)")
        out.update(matched)
    return frozenset(out)


@dataclass(slots=True, frozen=True)
class Policy:
    """What :func:`citeview.core.lint.lint` checks.

    ``select`` (when given) is the exact set of rules that run; otherwise each rule's default
    applies, with CV205 on when ``require_locators`` and CV307 on when ``multi_source`` is set.
    ``extend_select`` adds rules, ``ignore`` removes them (and wins), ``severities`` re-grades.
    ``weak_support_threshold`` is the support score (:mod:`citeview.core.support`) below which
    CV401 fires, when that rule is on.
    """

    families: tuple[str, ...] = DEFAULT_FAMILIES
    require_locators: bool = False
    multi_source: MultiSource | None = None
    select: frozenset[str] | None = None
    extend_select: frozenset[str] = frozenset()
    ignore: frozenset[str] = frozenset()
    severities: Mapping[str, Severity] = field(default_factory=dict)
    fail_on: Severity = Severity.ERROR
    weak_support_threshold: float = DEFAULT_THRESHOLD

    def enabled(self, code: str) -> bool:
        if code in self.ignore:
            return False
        if self.select is not None:
            return code in self.select or code in self.extend_select
        if code in self.extend_select:
            return True
        if code == "CV205" and self.require_locators:
            return True
        if code == "CV307" and self.multi_source is not None:
            return True
        rule = RULES.get(code)
        return rule.enabled if rule is not None else False

    def severity(self, code: str) -> Severity:
        if code in self.severities:
            return self.severities[code]
        rule = RULES.get(code)
        return rule.severity if rule is not None else Severity.WARNING

    def apply(self, diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
        """Enabled diagnostics only, re-graded to this policy's severities."""
        out = []
        for d in diagnostics:
            if not self.enabled(d.code):
                continue
            sev = self.severity(d.code)
            out.append(d if d.severity is sev else _regrade(d, sev))
        return out

    def merged(self, **changes: Any) -> Policy:
        """A copy with ``changes`` (field names) applied; ``None`` values are ignored."""
        return replace(self, **{k: v for k, v in changes.items() if v is not None})

    # -- reading ----------------------------------------------------------------------------

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], where: str = "policy") -> Policy:
        """A policy from the keys of a ``[tool.citeview]`` table (dashes or underscores)."""
        d = {str(k).replace("_", "-"): v for k, v in data.items()}
        known = {"families", "require-locators", "multi-source", "select", "extend-select",
                 "ignore", "severity", "fail-on", "weak-support-threshold"}
        unknown = sorted(set(d) - known)
        if unknown:
            raise InputError(f"{where}: unknown key {unknown[0]!r} (known: "
                             f"{', '.join(sorted(known))})")
        kw: dict[str, Any] = {}
        if "families" in d:
            kw["families"] = tuple(_str_list(d["families"], f"{where}: families"))
            if not kw["families"]:
                raise InputError(f"{where}: families must name at least one family")
        if "require-locators" in d:
            if not isinstance(d["require-locators"], bool):
                raise InputError(f"{where}: require-locators must be true or false")
            kw["require_locators"] = d["require-locators"]
        if "multi-source" in d:
            kw["multi_source"] = parse_multi_source(d["multi-source"], where)
        for key, attr in (("select", "select"), ("extend-select", "extend_select"),
                          ("ignore", "ignore")):
            if key in d:
                kw[attr] = expand_codes(_str_list(d[key], f"{where}: {key}"), f"{where}: {key}")
        if "severity" in d:
            table = d["severity"]
            if not isinstance(table, Mapping):
                raise InputError(f"{where}: severity must be a table of CODE = \"level\"")
            sev: dict[str, Severity] = {}
            for key, value in table.items():
                level = parse_severity(value, f"{where}: severity.{key}")
                for code in expand_codes([str(key)], f"{where}: severity"):
                    sev[code] = level
            kw["severities"] = sev
        if "fail-on" in d:
            kw["fail_on"] = parse_severity(d["fail-on"], f"{where}: fail-on")
        if "weak-support-threshold" in d:
            kw["weak_support_threshold"] = parse_threshold(d["weak-support-threshold"],
                                                           f"{where}: weak-support-threshold")
        return cls(**kw)

    @classmethod
    def discover(cls, start: str | os.PathLike[str] | None = None) -> Policy:
        """The policy of the nearest configuration from ``start`` (default: the current
        directory) upward, or the default policy."""
        found = find_config(start)
        return cls() if found is None else cls.from_mapping(found[1], str(found[0]))


def _regrade(d: Diagnostic, severity: Severity) -> Diagnostic:
    if isinstance(d, MaterialDiagnostic):  # keep the origin it is located in
        return MaterialDiagnostic(d.code, severity, d.message, d.start, d.end, d.origin)
    if isinstance(d, CitationDiagnostic):  # keep the citation it is about
        return CitationDiagnostic(d.code, severity, d.message, d.start, d.end, d.number)
    return Diagnostic(d.code, severity, d.message, d.start, d.end)


def _str_list(value: object, where: str) -> list[str]:
    if isinstance(value, str):
        return [v for v in (p.strip() for p in value.split(",")) if v]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    raise InputError(f"{where} must be a list of strings")


def parse_severity(value: object, where: str = "severity") -> Severity:
    if isinstance(value, str):
        try:
            return Severity(value.strip().lower())
        except ValueError:
            pass
    raise InputError(f"{where}: severity must be \"error\", \"warning\" or \"info\", "
                     f"not {value!r}")


def parse_threshold(value: object, where: str = "weak-support-threshold") -> float:
    """A support threshold: a number from 0 to 1 (a TOML number, or its text on the CLI)."""
    number: float | None = None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            number = float(value)
        except OverflowError:  # an int too large for a float: out of range anyway
            number = None
    elif isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            number = None
    if number is None or not 0.0 <= number <= 1.0:  # NaN fails both comparisons
        raise InputError(f"{where}: must be a number from 0 to 1, not {value!r}")
    return number


def parse_multi_source(value: object, where: str = "policy") -> MultiSource | None:
    if value is None or value == "" or value is False:
        return None
    if value == "one-marker":
        return "one-marker"
    if value == "per-marker":
        return "per-marker"
    raise InputError(f"{where}: multi-source must be \"one-marker\" or \"per-marker\", "
                     f"not {value!r}")


def _read_toml(path: Path) -> dict[str, Any]:
    """The TOML document of ``path``; any file that is not valid, readable TOML raises a
    one-line :class:`InputError` naming it."""
    try:
        raw = path.read_bytes()
    except OSError as err:
        raise InputError(f"{path}: cannot read ({err.strerror or err})") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        line = raw.count(b"\n", 0, err.start) + 1
        raise InputError(f"{path}: not UTF-8 (byte 0x{raw[err.start]:02x} on line {line}); "
                         "TOML files must be UTF-8") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise InputError(f"{path}: invalid TOML ({str(err).splitlines()[0]})") from None
    except ValueError as err:
        # tomllib turns integer text into int unguarded: past the interpreter's digit limit
        # that raises a plain ValueError.
        what = (f"an integer longer than {sys.get_int_max_str_digits()} digits"
                if "integer string conversion" in str(err) else str(err).splitlines()[0])
        raise InputError(f"{path}: invalid TOML ({what})") from None
    except RecursionError:
        # tomllib parses nested arrays and inline tables recursively.
        raise InputError(f"{path}: invalid TOML (arrays or tables nested too deeply)") from None


def _tool_table(data: Mapping[str, Any], path: Path) -> Mapping[str, Any] | None:
    tool = data.get("tool")
    if isinstance(tool, Mapping) and "citeview" in tool:
        table = tool["citeview"]
        if not isinstance(table, Mapping):
            raise InputError(f"{path}: [tool.citeview] must be a table")
        return table
    return None


def _config_table(data: Mapping[str, Any], path: Path) -> Mapping[str, Any]:
    """The policy keys of a config file: its ``[tool.citeview]`` table, or else its top-level
    keys (a ``citeview.toml``)."""
    table = _tool_table(data, path)
    return table if table is not None else {k: v for k, v in data.items() if k != "tool"}


def read_config(path: str | os.PathLike[str]) -> Policy:
    """The policy of one TOML file: its ``[tool.citeview]`` table, or else its top-level keys
    (a ``citeview.toml``)."""
    p = Path(path)
    if p.is_dir():
        raise InputError(f"{p}: is a directory, not a configuration file")
    if not p.is_file():
        raise InputError(f"{p}: no such file")
    data = _read_toml(p)
    if p.name == "pyproject.toml" and _tool_table(data, p) is None:
        raise InputError(f"{p}: no [tool.citeview] table")
    return Policy.from_mapping(_config_table(data, p), str(p))


def find_config(start: str | os.PathLike[str] | None = None
                ) -> tuple[Path, Mapping[str, Any]] | None:
    """The nearest ``citeview.toml`` (always used) or ``pyproject.toml`` with a
    ``[tool.citeview]`` table, from ``start`` upward: (path, table)."""
    here = Path(start if start is not None else os.getcwd()).resolve()
    for directory in (here, *here.parents):
        own = directory / "citeview.toml"
        if own.is_file():
            return own, _config_table(_read_toml(own), own)
        pyproject = directory / "pyproject.toml"
        if pyproject.is_file():
            table = _tool_table(_read_toml(pyproject), pyproject)
            if table is not None:
                return pyproject, table
    return None
