"""An import-linter contract type for the worker-thread rule (read by ``lint-imports`` only;
citeview never imports this module, and it needs import-linter, a test dependency).

import-linter's ``forbidden`` contract names external packages whole (``PySide6``), not their
subpackages; this one reads the import statements themselves (the module's source, multi-line
imports included), so ``PySide6.QtGui`` may be imported where ``PySide6.QtWidgets`` or
``PySide6.QtCore.QObject`` may not, directly or through any citeview module imported.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path
from typing import Any

from importlinter import Contract, ContractCheck, fields, output


def imported_names(line: str) -> list[str]:
    """The modules (and names in them) an import line names: ``from a import b, c as d`` gives
    ``a``, ``a.b``, ``a.c``; ``import a.b as c`` gives ``a.b``."""
    line = line.split("#", 1)[0].strip().replace("(", " ").replace(")", " ")
    if line.startswith("from ") and " import " in line:
        module, names = line[5:].split(" import ", 1)
        module = module.strip()
        return [module] + [f"{module}.{n.split(' as ')[0].strip()}"
                           for n in names.split(",") if n.strip()]
    if line.startswith("import "):
        return [n.split(" as ")[0].strip() for n in line[7:].split(",") if n.strip()]
    return []


@cache
def statement_names(module: str) -> dict[int, list[str]]:
    """Per line of ``module``'s source (found from the working directory, where lint-imports
    runs), the names its import statement there names (as :func:`imported_names`)."""
    base = Path.cwd().joinpath(*module.split("."))
    path = base / "__init__.py" if base.is_dir() else base.with_suffix(".py")
    if not path.is_file():
        return {}
    out: dict[int, list[str]] = {}
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            out[node.lineno] = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            out[node.lineno] = [a.name for a in node.names]
    return out


class ForbiddenExternalSubmodule(Contract):
    type_name = "forbidden_external_submodule"

    source_modules = fields.ListField(subfield=fields.ModuleField())
    forbidden_submodules = fields.ListField(subfield=fields.StringField())

    def check(self, graph: Any, verbose: bool) -> ContractCheck:
        forbidden = [str(f) for f in self.forbidden_submodules]  # type: ignore[attr-defined]
        violations: list[str] = []
        for source in self.source_modules:  # type: ignore[attr-defined]
            name = source.name
            reached = {name} | {m for m in graph.find_upstream_modules(name)
                                if m.split(".")[0] == name.split(".")[0]}
            for importer in sorted(reached):
                for root in {f.split(".")[0] for f in forbidden}:
                    if not graph.direct_import_exists(importer=importer, imported=root):
                        continue
                    for detail in graph.get_import_details(importer=importer, imported=root):
                        named = (statement_names(importer).get(detail["line_number"])
                                 or imported_names(detail["line_contents"]))
                        for f in forbidden:
                            if any(n == f or n.startswith(f + ".") for n in named):
                                chain = name if importer == name else f"{name} -> ... -> {importer}"
                                violations.append(f"{chain} -> {f} (l.{detail['line_number']})")
        return ContractCheck(kept=not violations, metadata={"violations": violations})

    def render_broken_contract(self, check: ContractCheck) -> None:
        for line in check.metadata["violations"]:
            output.print_error(line)
            output.new_line()


__all__ = ["ForbiddenExternalSubmodule", "imported_names"]
