"""An import-linter contract type for the worker-thread rule (read by ``lint-imports`` only;
citeview never imports this module, and it needs import-linter, a test dependency).

import-linter's ``forbidden`` contract names external packages whole (``PySide6``), not their
subpackages; this one reads the import lines themselves, so ``PySide6.QtGui`` may be imported
where ``PySide6.QtWidgets`` may not, directly or through any citeview module imported.
"""

from __future__ import annotations

from typing import Any

from importlinter import Contract, ContractCheck, fields, output


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
                        line = detail["line_contents"]
                        for f in forbidden:
                            if f in line:
                                chain = name if importer == name else f"{name} -> ... -> {importer}"
                                violations.append(f"{chain} -> {f} (l.{detail['line_number']})")
        return ContractCheck(kept=not violations, metadata={"violations": violations})

    def render_broken_contract(self, check: ContractCheck) -> None:
        for line in check.metadata["violations"]:
            output.print_error(line)
            output.new_line()


__all__ = ["ForbiddenExternalSubmodule"]
