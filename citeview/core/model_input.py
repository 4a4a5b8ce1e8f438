"""What the model saw: the question, the citable material exactly as the input holds it, and the
instructions the input itself carries (a transcript's system and developer messages); where the
input carries none, the instructions ``citeview prompt`` recommends for its material's shape,
labelled as recommended. Plain text, so prompt -> answer -> parse -> render can be walked
through and copied."""

from __future__ import annotations

from dataclasses import dataclass, field

from citeview.core.cases import Case
from citeview.core.material import SourceKind, case_material
from citeview.core.prepare import Unit
from citeview.core.prompts import instructions as recommended_instructions

_UNITS = {SourceKind.LINE: Unit.LINE, SourceKind.FILE: Unit.LINE, SourceKind.BLOCK: Unit.BLOCK,
          SourceKind.CONTEXT: Unit.CONTEXT, SourceKind.DOCUMENT: Unit.DOCUMENT}


@dataclass(slots=True)
class ModelInput:
    question: str | None
    material: list[tuple[str, str]] = field(default_factory=list)  # (where, text as given)
    instructions: list[tuple[str, str]] = field(default_factory=list)  # (role, text)
    recommended: bool = False  # the instructions are citeview's, not the input's
    unit: str | None = None  # the material's shape the recommendation is for

    def text(self) -> str:
        """All of it as one plain text, in the order the model read it."""
        out: list[str] = []
        heading = ("Instructions (recommended by citeview prompt for "
                   f"{self.unit}-level material; the input carries none)" if self.recommended
                   else "Instructions (as the input carries them)")
        if self.instructions:
            out.append(f"== {heading} ==")
            for role, text in self.instructions:
                out.append(f"[{role}]\n{text}" if not self.recommended else text)
        for where, text in self.material:
            out.append(f"== Material: {where} ==\n{text}")
        if self.question:
            out.append(f"== Question ==\n{self.question}")
        return "\n\n".join(out) + "\n"


def model_input(case: Case) -> ModelInput:
    """What the model of ``case`` was given (see the module docstring)."""
    found = ModelInput(case.question)
    given = case.extra.get("instructions")
    if isinstance(given, list):  # a chat transcript's system and developer messages
        found.instructions = [(str(x.get("role", "system")), str(x.get("text", "")))
                              for x in given if isinstance(x, dict)]
    elif isinstance(given, str) and given.strip():  # a Responses record's own field
        found.instructions = [("instructions", given)]
    for n, text in enumerate(case.tool_outputs):
        found.material.append((f"tool output {n}", text))
    # A chat's injected context is its system messages that hold id tags: shown once, above.
    told = "\n".join(t for _, t in found.instructions if case.context and t in case.context)
    if case.context is not None and case.context != told:
        found.material.append(("injected context", case.context))
    for key, text in case.documents.items():
        found.material.append((f"document {key}", text))
    if not found.instructions:
        kinds = [s.kind for s in case_material(case).sources]
        unit = next((_UNITS[k] for k in kinds if k in _UNITS), None)
        if unit is not None:
            found.instructions = [("system", recommended_instructions(unit))]
            found.recommended, found.unit = True, unit.value
    return found


__all__ = ["ModelInput", "model_input"]
