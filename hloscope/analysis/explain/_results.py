"""What :func:`~hloscope.analysis.explain.explain` returns: each stage's ops (:class:`LinkedOp`),
gathered per source line (:class:`SourceLine`), the kernels with their lines
(:class:`ExplainedKernel`), and the whole (:class:`Explanation`), which narrows to one line or
one kernel."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from typing import Any

from ...json_fields import json_fields
from ...stages import Stage
from ..errors import FocusNotFound

STAGE_ORDER: tuple[Stage, ...] = (Stage.JAXPR, Stage.STABLEHLO, Stage.HLO, Stage.OPTIMIZED_HLO)
# An op's text is cut to this many characters (the whole text is in the stage itself).
_TEXT_LIMIT = 160


@dataclass(slots=True)
class LinkedOp:
    """One op of one stage: a jaxpr equation, a StableHLO op or an HLO instruction.

    ``name`` is how the stage names it (``%3`` in StableHLO, the instruction name in HLO,
    ``#12`` for the 12th jaxpr equation), ``op`` its operation (primitive, ``stablehlo.add``,
    opcode), ``line`` the line of the stage's text it is on (1-based; for the jaxpr, the
    equation's index + 1). ``kernels`` are the kernels it ended in after optimization; for an
    op of the optimized module, ``kernel`` is the kernel that holds it. An op in no kernel has
    a ``fate``: ``"bitcast"`` (it became an op that only renames memory, no kernel runs for
    it) or ``"removed"`` (folded, simplified, or merged with an identical op by CSE).
    """

    stage: Stage
    name: str
    op: str
    op_name: str
    source: str
    text: str
    line: int = 0
    kernels: list[str] = field(default_factory=list)
    kernel: str = ""
    fate: str = ""

    def to_dict(self) -> dict[str, Any]:
        out = {
            "name": self.name,
            "op": self.op,
            "op_name": self.op_name,
            "source": self.source,
            "text": self.text,
            "line": self.line,
            "kernels": list(self.kernels),
        }
        if self.stage is Stage.OPTIMIZED_HLO:
            out["kernel"] = self.kernel
        else:
            out["fate"] = self.fate
        return out


@dataclass(slots=True)
class SourceLine:
    """One line of the user's code (or, for TensorFlow, one layer) and what it became.

    ``ops`` holds each stage's ops from this line (:data:`STAGE_ORDER`); ``kernels`` the
    kernels its optimized ops sit in, in the order of the fusion report (what
    :func:`~hloscope.analysis.fusions.by_source` lists); ``inferred_kernels`` the kernels with
    no source of their own that were traced back to this line. ``code`` is the line's text
    when its file can be read.
    """

    source: str
    file: str = ""
    line: int = 0
    function: str = ""
    code: str = ""
    ops: dict[Stage, list[LinkedOp]] = field(default_factory=dict)
    kernels: list[str] = field(default_factory=list)
    inferred_kernels: list[str] = field(default_factory=list)

    def stage_ops(self, stage: Stage) -> list[LinkedOp]:
        return self.ops.get(stage, [])

    def counts(self) -> dict[str, int]:
        """Ops per stage (``optimized_hlo``: the ops after optimization, as ``by_source``)."""
        return {str(stage): len(self.ops.get(stage, [])) for stage in STAGE_ORDER}

    @property
    def n_ops(self) -> int:
        """Ops from this line in the optimized module (``by_source``'s ``ops``)."""
        return len(self.ops.get(Stage.OPTIMIZED_HLO, []))

    @property
    def optimized_away(self) -> bool:
        """Ops came from this line before optimization, and none are left after it."""
        earlier = any(self.ops.get(s) for s in STAGE_ORDER[:-1])
        return earlier and not self.kernels and not self.inferred_kernels

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "source": self.source,
            "file": self.file,
            "line": self.line,
            "function": self.function,
            "code": self.code,
            "counts": self.counts(),
            "kernels": list(self.kernels),
            "inferred_kernels": list(self.inferred_kernels),
            "optimized_away": self.optimized_away,
        }
        for stage in STAGE_ORDER:
            out[str(stage)] = [op.to_dict() for op in self.ops.get(stage, [])]
        return out


@dataclass(slots=True)
class ExplainedKernel:
    """One kernel of the optimized module and the lines it came from.

    ``sources`` are its members' lines with how many members came from each, most first (the
    fusion report's). A kernel without any gets ``inferred_sources`` and ``inferred_how``
    (``"op_name"``: an earlier stage's op of the same name has a line; ``"holds OP"``: it holds
    the op ``OP`` of before optimization, a dot or another op XLA does not duplicate;
    ``"feeds K"`` / ``"fed by K"``: the nearest op with a line along what reads it, else what
    it reads, ``K`` the kernel or loop holding that op).
    """

    name: str
    computation: str
    where: str
    opcode: str
    kind: str
    backend_kind: str
    signature: str
    op_name: str
    n_ops: int
    sources: list[tuple[str, int]] = field(default_factory=list)
    inferred_sources: list[str] = field(default_factory=list)
    inferred_how: str = ""

    @property
    def lines(self) -> list[str]:
        """Its own sources, else the inferred ones."""
        return [s for s, _ in self.sources] or list(self.inferred_sources)

    def to_dict(self) -> dict[str, Any]:
        return {
            **json_fields(
                self, "name computation where opcode kind backend_kind signature op_name n_ops"
            ),
            "sources": [[s, n] for s, n in self.sources],
            "inferred_sources": list(self.inferred_sources),
            "inferred_how": self.inferred_how,
        }


@dataclass(slots=True)
class Explanation:
    """Every source line of one module with its ops at each stage, and every kernel with its
    lines. Build it with :func:`explain`; :meth:`focus_line` and :meth:`focus_kernel` narrow it.

    ``stages`` are the stages that were there to link; ``missing`` says, per absent stage, why
    and how to get it. ``unattributed`` counts, per stage, the ops with no source at all
    (constants, XLA's own ops, the bodies of jax's internal functions).
    """

    module: str
    frontend: str
    stages: list[Stage]
    missing: dict[str, str]
    lines: list[SourceLine]
    kernels: list[ExplainedKernel]
    unattributed: dict[str, int] = field(default_factory=dict)
    focus: str = ""
    notes: list[str] = field(default_factory=list)

    # -- lookups ------------------------------------------------------------------------------

    def kernel(self, name: str) -> ExplainedKernel:
        """The kernel called ``name`` (a leading ``%`` is ignored)."""
        wanted = name.lstrip("%")
        for kernel in self.kernels:
            if kernel.name == wanted:
                return kernel
        close = difflib.get_close_matches(wanted, [k.name for k in self.kernels], n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise FocusNotFound(f"module {self.module} has no kernel {wanted!r}{hint}")

    def matching_lines(self, spec: str) -> list[SourceLine]:
        """The lines ``spec`` names: ``FILE:N`` (FILE may be the end of the path) or, for
        TensorFlow, a layer path (its sub-layers included)."""
        found = [line for line in self.lines if _line_matches(line, spec)]
        if found:
            return found
        shown = ", ".join(_short(line.source) for line in self.lines[:6])
        more = f", ... ({len(self.lines)} in all)" if len(self.lines) > 6 else ""
        raise FocusNotFound(
            f"no op of module {self.module} came from {spec!r} (lines with ops: {shown}{more})"
        )

    # -- focus --------------------------------------------------------------------------------

    def focus_line(self, spec: str) -> Explanation:
        """Only the lines ``spec`` names (see :meth:`matching_lines`) and their kernels."""
        lines = self.matching_lines(spec)
        names = {k for line in lines for k in (*line.kernels, *line.inferred_kernels)}
        kernels = [k for k in self.kernels if k.name in names]
        return self._narrowed(lines, kernels, f"line {spec}")

    def focus_kernel(self, name: str) -> Explanation:
        """Only kernel ``name``, the lines it came from, and of each line only the ops that
        ended in it (for a kernel whose line was inferred from a neighbour: in the
        neighbour)."""
        kernel = self.kernel(name)
        wanted = set(kernel.lines)
        # A kernel traced to its line through a neighbour shows the ops of that neighbour.
        related = {kernel.name}
        if kernel.inferred_how.startswith(("feeds ", "fed by ", "op_name, ")):
            related.add(kernel.inferred_how.rsplit(" ", 1)[-1])
        lines = []
        for line in self.lines:
            if line.source not in wanted:
                continue
            ops = {
                stage: [op for op in ops if related & {*op.kernels, op.kernel}]
                for stage, ops in line.ops.items()
            }
            lines.append(
                SourceLine(
                    line.source,
                    line.file,
                    line.line,
                    line.function,
                    line.code,
                    ops,
                    [k for k in line.kernels if k == kernel.name],
                    [k for k in line.inferred_kernels if k == kernel.name],
                )
            )
        return self._narrowed(lines, [kernel], f"kernel {kernel.name}")

    def _narrowed(
        self, lines: list[SourceLine], kernels: list[ExplainedKernel], focus: str
    ) -> Explanation:
        return Explanation(
            self.module,
            self.frontend,
            list(self.stages),
            dict(self.missing),
            lines,
            kernels,
            dict(self.unattributed),
            focus,
            list(self.notes),
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "module": self.module,
            "frontend": self.frontend,
            "stages": [str(s) for s in self.stages],
            "missing": dict(self.missing),
            "focus": self.focus,
            "lines": [line.to_dict() for line in self.lines],
            "kernels": [k.to_dict() for k in self.kernels],
            "unattributed": dict(self.unattributed),
            "notes": list(self.notes),
        }


def _short(source: str) -> str:
    path, sep, rest = source.partition(":")
    return path.rsplit("/", 1)[-1] + sep + rest


_LINE_SPEC = re.compile(r"^(?P<file>.+):(?P<line>\d+)$")


def _line_matches(line: SourceLine, spec: str) -> bool:
    spec = spec.strip()
    found = _LINE_SPEC.match(spec)
    if found and line.file:
        file, number = found.group("file"), int(found.group("line"))
        return line.line == number and (
            line.file == file or line.file.endswith("/" + file.lstrip("./"))
        )
    return line.source == spec or line.source.startswith(spec.rstrip("/") + "/")


def _cut(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _TEXT_LIMIT else text[: _TEXT_LIMIT - 1] + "\u2026"
