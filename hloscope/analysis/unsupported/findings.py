"""What a compatibility check found: one :class:`Finding` per offending op, gathered in a
:class:`CheckReport`.

Every check produces these records -- the TensorFlow graph walk, the JAX cross-platform
lowering, the offline scan of HLO text -- so the text table, ``--json`` and the DataFrame read
the same fields whichever framework the program came from. The JSON contract (tests and outside
tools rely on it)::

    {"platform": "tpu", "proxy": false,
     "findings": [{"op", "node", "function", "reason", "dtype", "source", "suggestion"}],
     "mxu": [{"op", "node", "kernel", "m", "n", "k", "padded_shape", "use", ...}]}

A report with no findings is *clean*: the program should compile for the platform. ``mxu``
holds the TPU performance warnings of :mod:`hloscope.analysis.mxu` (dots and convolutions
that leave the matrix unit partly idle): they say how well it runs, not whether it compiles,
so they stay out of ``findings``, the verdict and the exit status.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from ...dataframes import require_pandas
from ...devices import Platform  # the one vocabulary of platforms; still importable from here

if TYPE_CHECKING:  # pragma: no cover
    import pandas

    from ...hlo.model import Instruction
    from ..mxu import MxuFinding

__all__ = ["Platform", "Reason", "Finding", "CheckReport", "Verdict", "TOP_LEVEL"]

#: The ``function`` of a finding that sits in the checked function itself, not a nested one.
TOP_LEVEL = "<top>"


class Reason(StrEnum):
    """Why an op will not compile (or not run well) on the platform: a fixed vocabulary."""

    #: TF: no XLA kernel is registered for the op on this device.
    NO_KERNEL = "no_kernel"
    #: TF: a kernel exists, but not for this dtype (a ``tf.string`` argument, ``Tin`` with
    #: DT_STRING); JAX/HLO: an element type the platform lacks (64-bit types on TPU).
    DTYPE = "dtype"
    #: A custom-call target that the platform does not provide (``lapack_*`` on TPU, ...).
    CUSTOM_CALL = "custom_call"
    #: JAX: a primitive with no lowering rule for the platform (nonsymmetric ``eig`` on TPU).
    NO_LOWERING = "no_lowering"
    #: A host callback (pure_callback, io_callback, debug.print, py_function, send/recv to
    #: host): it compiles, but it blocks export and stalls the device on every call.
    HOST_CALLBACK = "host_callback"
    #: A shape that is not static: bounded dynamic dimensions in HLO (``s32[<=4]``).
    DYNAMIC_SHAPE = "dynamic_shape"
    #: JAX: tracing failed (ConcretizationTypeError, NonConcreteBooleanIndexError, ...).
    TRACING = "tracing"
    #: ``jax.export`` would refuse the program (custom calls without compatibility guarantees).
    EXPORT = "export"
    #: The framework failed to compile it for a reason none of the above names.
    COMPILE_ERROR = "compile_error"
    #: The program needs more device memory than there is (XLA's ``RESOURCE_EXHAUSTED``).
    OUT_OF_MEMORY = "out_of_memory"
    #: The arrays' shardings do not fit their shapes, the mesh or each other (a dimension
    #: split into pieces that do not divide it, arguments on different devices).
    SHARDING = "sharding"
    #: The program compiled, and failed or warned while it ran (an array used after it was
    #: donated, a NaN that jax_debug_nans caught).
    RUNTIME = "runtime"


#: Reasons that only warn: the program compiles, but something about it deserves attention.
#: (A finding can say otherwise: see :attr:`Finding.warning`.)
WARNING_REASONS = frozenset({Reason.HOST_CALLBACK, Reason.EXPORT})


@dataclass(slots=True)
class Finding:
    """One op that the platform will not compile, and what to do about it.

    ``op`` is the op type (TF), primitive or custom-call target (JAX) or opcode (HLO); ``node``
    the node or instruction name; ``function`` the enclosing function (:data:`TOP_LEVEL` for
    the checked function itself, else a nested function, while/cond body or HLO computation);
    ``dtype`` the offending dtype when the reason is one; ``source`` ``file:line`` in the user's
    code where the op was created, when known; ``suggestion`` the fix, naming the replacement
    API where there is one (see :mod:`.fixes`).
    """

    op: str
    node: str
    function: str
    reason: Reason
    dtype: str | None = None
    source: str | None = None
    suggestion: str = ""
    #: More detail for people (the framework's own message, the Python stack): not in the JSON
    #: contract's required fields, but included in it as ``"detail"``.
    detail: str = ""
    #: Whether the finding only warns, when the reason alone does not decide it: a bounded
    #: dynamic shape already in compiled HLO (``s32[<=4]`` from tf.unique) compiled, while a
    #: shape TF could not make static failed. ``None``: the reason decides.
    warning: bool | None = None
    #: Who confirmed it by compiling the op for the device (``"XLA:TPU (TPU v5 lite)"``), and
    #: the compiler's own refusal (:mod:`.confirm`); ``None`` for a static finding.
    confirmed_by: str | None = None
    compiler_message: str | None = None
    #: The HLO instructions the finding is about (the first, and the others it counts): what a
    #: confirmation compiles alone. Not part of the JSON.
    instructions: tuple[Instruction, ...] = field(default=(), repr=False, compare=False)

    @property
    def is_warning(self) -> bool:
        """True when the op compiles but deserves attention (a callback, an export blocker)."""
        if self.warning is not None:
            return self.warning
        return self.reason in WARNING_REASONS

    def to_dict(self, *, confirmation: bool = False) -> dict[str, Any]:
        """The JSON fields; ``confirmation`` adds ``confirmed_by`` and ``compiler_message``
        (a report checked for a device: see :attr:`CheckReport.confirming`)."""
        data = {
            "op": self.op,
            "node": self.node,
            "function": self.function,
            "reason": str(self.reason),
            "dtype": self.dtype,
            "source": self.source,
            "suggestion": self.suggestion,
            "detail": self.detail,
            "warning": self.is_warning,
        }
        if confirmation:
            data["confirmed_by"] = self.confirmed_by
            data["compiler_message"] = self.compiler_message
        return data


@dataclass(slots=True)
class CheckReport:
    """All findings of one check of one program for one platform.

    ``proxy`` is True when the check could not ask the platform itself and used another one's
    registrations instead (TF on a CPU-only build checking for GPU or TPU); ``notes`` says so
    in words, with the known differences, and carries anything else the reader must know
    (what was checked, what could not be).
    """

    platform: Platform
    program: str
    findings: list[Finding] = field(default_factory=list)
    proxy: bool = False
    notes: list[str] = field(default_factory=list)
    #: TPU only: the dots and convolutions not aligned to the MXU, most wasted work first
    #: (:func:`hloscope.analysis.mxu.mxu_findings`). Performance warnings, not findings: the
    #: verdict and the exit status do not count them.
    mxu: list[MxuFinding] = field(default_factory=list)
    #: The device asked for (``tpu-v5e``), what compiled the findings' ops for it (JAX's device
    #: kind, ``"TPU v5 lite"``; ``None``: not compiled, a static answer), and whether a
    #: confirmation was asked for (then the JSON carries ``compiled_for`` and each finding's
    #: ``confirmed_by``/``compiler_message``).
    device: str | None = None
    compiled_for: str | None = None
    confirming: bool = False
    #: The words of the backend that compiled the whole program for ``device`` when the
    #: registry gave it to one hloscope does not know (a registered backend); then in the JSON.
    compiled_by: str | None = None

    @property
    def errors(self) -> list[Finding]:
        """Findings that stop the program compiling for the platform."""
        return [f for f in self.findings if not f.is_warning]

    @property
    def clean(self) -> bool:
        """True when nothing in the program stops it compiling for the platform."""
        return not self.errors

    def verdict(self) -> Verdict:
        """The one verdict on this report: what ``hloscope check`` prints last and the report
        page heads its platform with (both read it here, so they cannot disagree)."""
        warnings = [f for f in self.findings if f.is_warning]
        return Verdict(
            platform=self.platform,
            proxy=self.proxy,
            problems=_by_reason(self.errors),
            warnings=_by_reason(warnings),
        )

    def by_function(self) -> dict[str, list[Finding]]:
        """Findings grouped by enclosing function, the checked function first."""
        groups: dict[str, list[Finding]] = {}
        for finding in sorted(self.findings, key=lambda f: f.function != TOP_LEVEL):
            groups.setdefault(finding.function, []).append(finding)
        return groups

    def extend(self, findings: Iterable[Finding]) -> None:
        """Add findings, dropping exact repeats (the same op, node, function and reason)."""
        seen = {_identity(f) for f in self.findings}
        for finding in findings:
            if _identity(finding) not in seen:
                seen.add(_identity(finding))
                self.findings.append(finding)

    def to_dict(self) -> dict[str, Any]:
        """The JSON contract: ``{"platform", "proxy", "findings": [...]}`` plus ``program``,
        ``clean``, ``notes`` and ``mxu`` (the TPU MXU alignment warnings)."""
        data: dict[str, Any] = {
            "platform": str(self.platform),
            "proxy": self.proxy,
            "program": self.program,
        }
        if self.confirming:
            data["device"] = self.device
            data["compiled_for"] = self.compiled_for
            if self.compiled_by is not None:
                data["compiled_by"] = self.compiled_by
        data.update(
            {
                "clean": self.clean,
                "verdict": self.verdict().text,
                "notes": list(self.notes),
                "findings": [f.to_dict(confirmation=self.confirming) for f in self.findings],
                "mxu": [f.to_dict() for f in self.mxu],
            }
        )
        return data

    def to_dataframe(self) -> pandas.DataFrame:
        """One row per finding, the JSON fields as columns."""
        pd = require_pandas()

        columns = [
            "op",
            "node",
            "function",
            "reason",
            "dtype",
            "source",
            "suggestion",
            "detail",
            "warning",
        ]
        return pd.DataFrame([f.to_dict() for f in self.findings], columns=columns)


@dataclass(frozen=True, slots=True)
class Verdict:
    """Whether a program compiles for a platform, and why: the findings that stop it
    (``problems``) and those that only warn (``warnings``), each counted by reason, most
    common first."""

    platform: Platform
    proxy: bool
    problems: tuple[tuple[Reason, int], ...]
    warnings: tuple[tuple[Reason, int], ...]

    @property
    def supported(self) -> bool:
        """True when nothing stops the program compiling (warnings alone do not)."""
        return not self.problems

    @property
    def text(self) -> str:
        """``NOT SUPPORTED on tpu: 3 problems (2 custom_call, 1 dtype), 1 warning
        (host_callback)`` or ``OK for tpu: no problems found, 2 warnings (1 host_callback,
        1 export)``: the reasons are named on both sides, so the verdict says why."""
        proxy = " (by proxy)" if self.proxy else ""
        warned = _counted("warning", self.warnings)
        if self.supported:
            tail = f", {warned}" if warned else ""
            return f"OK for {self.platform}{proxy}: no problems found{tail}"
        tail = f", {warned}" if warned else ""
        problems = _counted("problem", self.problems)
        return f"NOT SUPPORTED on {self.platform}{proxy}: {problems}{tail}"


def _by_reason(findings: Iterable[Finding]) -> tuple[tuple[Reason, int], ...]:
    return tuple(Counter(f.reason for f in findings).most_common())


def _counted(noun: str, reasons: tuple[tuple[Reason, int], ...]) -> str:
    """``3 problems (2 custom_call, 1 dtype)``, ``1 warning (host_callback)``, or ``""``."""
    total = sum(n for _, n in reasons)
    if not total:
        return ""
    head = f"{total} {noun}{'s' if total != 1 else ''}"
    if len(reasons) == 1:
        return f"{head} ({reasons[0][0]})"
    return f"{head} (" + ", ".join(f"{n} {reason}" for reason, n in reasons) + ")"


def _identity(finding: Finding) -> tuple[str, str, str, str]:
    return (finding.op, finding.node, finding.function, str(finding.reason))
