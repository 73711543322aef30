"""The records of an explained log: :class:`Family`, :class:`Failure`, :class:`ErrorExplanation`."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from ...hlo.metadata import StackFrame
from ...json_fields import json_fields
from ..memory.oom_log import OomReport
from ..unsupported.findings import CheckReport, Finding, Platform
from .allocation import Allocation
from .names import clean_function_name
from .user_line import is_users


class Family(StrEnum):
    """The families of messages :func:`explain_error` knows, one :class:`Recogniser` each."""

    #: TF2 ``Detected unsupported operations when trying to compile graph G on XLA_X_JIT: OP
    #: (reason){{node N}}``, one op per message, with "The op is created at:".
    TF2XLA = "tf2xla"
    #: TF 1.x: the same opening, then every op comma-separated, without per-node detail.
    TF1_LIST = "tf1_list"
    #: TF's MLIR bridge: ``The following operations cannot be legalized: tf.X (count: N); ...``.
    MLIR_BRIDGE = "mlir_bridge"
    #: TF/XLA known issues: must-be-constant inputs, TensorList sizes, resources on another
    #: device, non-deterministic gradients.
    TF_KNOWN_ISSUE = "tf_known_issue"
    #: TensorFlow itself (not XLA) refused an op's inputs: shapes or element types the op
    #: does not take, as a ``tf.function`` built its graph (``Dimensions must be equal, but are
    #: 3 and 4 for '{{node MatMul}} = MatMul[...]'``, ``Input 'y' of 'Mul' Op has type int32
    #: that does not match type float32``), as a kernel ran eagerly (``Incompatible shapes:
    #: [2,3] vs. [4] [Op:AddV2]``) or as a graph's node ran (``[[{{node add}}]]``).
    TF_OP = "tf_op"
    #: JAX tracing errors: ConcretizationTypeError, TracerBoolConversionError, the built-in
    #: TypeError/IndexError of non-static shapes and slices, ...
    JAX_TRACING = "jax_tracing"
    #: JAX: ``MLIR translation rule for primitive 'eig' not found for platform tpu``.
    MISSING_LOWERING = "missing_lowering"
    #: XLA status errors about element types: ``INVALID_ARGUMENT: Element type C128 is not
    #: supported on TPU.``, the X64 rewriting ``UNIMPLEMENTED``, other ``UNIMPLEMENTED``.
    XLA_STATUS = "xla_status"
    #: ``jax.export`` refusals: custom calls without compatibility guarantees, host callbacks,
    #: an artifact exported for another platform.
    JAX_EXPORT = "jax_export"
    #: Pallas kernels that did not lower (a platform that cannot run them, a block shape off
    #: the TPU's tiles, an op Mosaic cannot lower), partition or compile (Mosaic's refusals,
    #: blocks too big for VMEM).
    PALLAS = "pallas"
    #: XLA ran out of device memory: ``RESOURCE_EXHAUSTED: Out of memory while trying to
    #: allocate N bytes`` with its "BufferAssignment OOM Debugging" list (GPU, CPU), or TPU's
    #: "Ran out of memory in memory space hbm" with its largest allocations.
    OUT_OF_MEMORY = "out_of_memory"
    #: The runtime could not allocate a buffer on the device while the program ran or loaded:
    #: ``Error allocating device buffer: Attempting to allocate 196.00M ... (0x0x0_HBM0)``,
    #: ``Failed to allocate request for 176.00MiB``, TF's ``OOM when allocating tensor``.
    DEVICE_ALLOCATION = "device_allocation"
    #: The backend did not start: ``Unable to initialize backend 'tpu'``, a TPU held by another
    #: process, a cuDNN that cannot be loaded or create its handle.
    BACKEND_STARTUP = "backend_startup"
    #: A function traced again and again: TF's "triggered tf.function retracing" warning,
    #: JAX's ``TRACING CACHE MISS`` explanations.
    RECOMPILE = "recompile"
    #: JAX refused the shapes of an op's operands (``dot_general requires contracting
    #: dimensions to have the same shape``, incompatible broadcasting).
    JAX_SHAPE = "jax_shape"
    #: JAX could not place arrays as their shardings say: a dimension split into pieces that
    #: do not divide it, arguments on different devices, a mesh axis the mesh lacks,
    #: shard_map's out_specs against what the function computes.
    SHARDING = "sharding"
    #: JAX refused how a jitted function was called or how an array was used: a static
    #: argument it cannot hash, a string where an array belongs, an array used after it was
    #: donated, a plain array as a random key, a NaN jax_debug_nans caught; or a library
    #: calling a JAX API the installed JAX no longer (or not yet) has, at import too (the
    #: packages do not fit; JAX itself failing to import is a backend that did not start).
    JAX_CALL = "jax_call"
    #: A multi-host job whose processes did not meet: a coordination-service barrier timed
    #: out (``DEADLINE_EXCEEDED: Barrier timed out``), or a process stopped because another
    #: one died.
    DISTRIBUTED = "distributed"
    #: XLA (or Mosaic, or the framework around it) aborted on an internal check: ``Check
    #: failed:`` with the file:line of its source, ``RET_CHECK failure``: a bug to report.
    XLA_CRASH = "xla_crash"


#: What each family means, in words (the headline of the text output).
FAMILY_TITLES: dict[Family, str] = {
    Family.TF2XLA: "TensorFlow could not compile an op with XLA",
    Family.TF1_LIST: "TensorFlow (1.x message) listed ops XLA cannot compile",
    Family.MLIR_BRIDGE: "TensorFlow's MLIR bridge could not lower ops to HLO",
    Family.TF_KNOWN_ISSUE: "TensorFlow hit a known XLA limitation",
    Family.TF_OP: "TensorFlow refused an op's inputs",
    Family.JAX_TRACING: "JAX could not trace the function",
    Family.MISSING_LOWERING: "JAX has no lowering of a primitive for the platform",
    Family.XLA_STATUS: "XLA refused the program",
    Family.JAX_EXPORT: "jax.export refused the program",
    Family.PALLAS: "a Pallas kernel did not lower, partition or compile",
    Family.OUT_OF_MEMORY: "the program does not fit in device memory",
    Family.DEVICE_ALLOCATION: "the device could not allocate a buffer",
    Family.BACKEND_STARTUP: "the backend did not start",
    Family.RECOMPILE: "a function was traced again and again",
    Family.JAX_SHAPE: "JAX refused the shapes of an op",
    Family.SHARDING: "JAX could not shard the arrays as asked",
    Family.JAX_CALL: "JAX refused how a function was called or an array was used",
    Family.DISTRIBUTED: "the processes of a multi-host job did not meet",
    Family.XLA_CRASH: "XLA aborted on an internal check (a bug in XLA, not the program)",
}


# ---- the records --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FunctionRef:
    """A function as the message names it (``id``, attrs dropped) and as people call it
    (``name``: ``__inference_train_step_53`` -> ``train_step``, ``while_body_19_const_0`` ->
    ``while_body``)."""

    name: str
    id: str

    @classmethod
    def of(cls, canonical: str) -> FunctionRef:
        raw = canonical.split("[", 1)[0]
        return cls(clean_function_name(raw), raw)


@dataclass(slots=True)
class Failure:
    """One thing that failed, as the log said it.

    ``finding`` holds what :class:`~.unsupported.findings.Finding` holds for ``hloscope check``
    (op, node, function, reason, dtype, source, suggestion), so both commands share their JSON
    fields;
    the rest is what only an error message tells: its ``family``, the ``device`` word it
    used and the ``platform`` that means, the ``graph`` being compiled, the function
    ``chain`` innermost first, the ``stack`` (innermost frame first, every frame; see
    :attr:`user_stack`), the exception class and XLA status code, a ``count`` when the
    message counts the op, the Keras ``layer`` read from a node's name scope, and how many
    times the log repeated the message (``occurrences``).
    """

    family: Family
    finding: Finding
    #: The message's first line as the log has it (capped), for people and for ``detail``.
    message: str
    device: str | None = None
    platform: Platform | None = None
    graph: FunctionRef | None = None
    chain: list[FunctionRef] = field(default_factory=list)
    stack: list[StackFrame] = field(default_factory=list)
    #: Where the traced function is defined (JAX: "while tracing the function f at file:line").
    defined_at: StackFrame | None = None
    error_class: str | None = None
    status: str | None = None
    count: int | None = None
    layer: str | None = None
    occurrences: int = 1
    #: Further sentences worth reading (TF's TPU soft-placement hint, "TF stops at the first").
    hints: list[str] = field(default_factory=list)
    #: Offset of the message in the normalised text: failures are listed in log order.
    offset: int = 0
    #: Offsets of the repeats merged into this failure (where else the log says it): a bare
    #: status code around a repeat is explained by it too.
    repeats_at: list[int] = field(default_factory=list, repr=False)
    #: Read by a form general enough to hold other families' messages (a primitive's name,
    #: then "must"): dropped where another failure was read on the same line.
    fallback: bool = field(default=False, repr=False)
    #: Read from the message's structure alone (the class a traceback ends with, a fatal log
    #: line) where no recogniser knew its words: dropped where any other failure was read.
    last_resort: bool = field(default=False, repr=False)
    #: ``"words"`` where the family was read from the message's words alone
    #: (:mod:`.family_words`), with the reader's ``confidence`` (its probability, 0 to 1);
    #: both in the JSON then.
    read_from: str | None = None
    confidence: float | None = None
    #: What an out-of-memory report said (requested bytes, peak buffers, fixes); only for
    #: :attr:`Family.OUT_OF_MEMORY`, and only then in the JSON (as ``"memory"``).
    memory: OomReport | None = None
    #: What kind of fix :attr:`Finding.suggestion` is (:class:`~.advice.AdviceKind`), so a
    #: program can act on it; ``None`` when the advice is generic.
    advice_kind: str | None = None
    #: Further fixes, best first, each ``(kind, sentence)``: what the numbers of a memory
    #: report support besides the first.
    more_advice: list[tuple[str, str]] = field(default_factory=list)
    #: The numbers of a failed allocation the message states (requested, free, reservable,
    #: limit bytes, memory space), in whichever words it states them; in the JSON as
    #: ``"allocation"`` when there are any.
    allocation: Allocation | None = None
    #: The framework that printed the message (``jax``, ``tensorflow``, ``pytorch_xla``) and
    #: the libraries over JAX whose frames surround it (``flax``, ``equinox``), as the log's
    #: frames and wrappers show them.
    framework: str | None = None
    libraries: list[str] = field(default_factory=list)

    @property
    def user_stack(self) -> list[StackFrame]:
        """The frames of :attr:`stack` in the user's own code, innermost first (not
        site-packages, the standard library or a framework's folder)."""
        return [frame for frame in self.stack if is_users(frame)]

    @property
    def source_in_library(self) -> bool:
        """Whether the line given as the one to fix is in installed code (site-packages, a
        framework's folder), not the user's: a library's line that called the framework."""
        source = self.finding.source
        if not source:
            return False
        file, _, line = source.rpartition(":")
        frame = StackFrame(file, int(line), "") if line.isdigit() else StackFrame(source, 0, "")
        return not is_users(frame)

    @property
    def identity(self) -> tuple[str, ...]:
        """What makes two messages the same failure (repeats are merged on it)."""
        f = self.finding
        return (str(self.family), f.op, f.node, f.function, str(f.reason), f.dtype or "")

    @property
    def identity_without_function(self) -> tuple[str, ...]:
        """:attr:`identity` less the function (a repeat may not name it)."""
        f = self.finding
        return (str(self.family), f.op, f.node, str(f.reason), f.dtype or "")

    def absorb(self, other: Failure) -> None:
        """Merge a repeat of this failure: count it, and keep what only the repeat knew."""
        self.occurrences += other.occurrences
        self.repeats_at.extend([other.offset, *other.repeats_at])
        if not self.finding.function and other.finding.function:
            self.finding.function = other.finding.function
        if not self.user_stack and other.user_stack:
            self.stack, self.finding.source = other.stack, other.finding.source
        if self.defined_at is None:
            self.defined_at = other.defined_at
        known = {ref.id for ref in self.chain}
        self.chain.extend(ref for ref in other.chain if ref.id not in known)
        # A later repeat may say more (JAX's second cache miss of a function made anew).
        self.hints.extend(hint for hint in other.hints if hint not in self.hints)
        for name in (
            "device",
            "platform",
            "graph",
            "error_class",
            "status",
            "count",
            "layer",
            "allocation",
        ):
            if getattr(self, name) is None:
                setattr(self, name, getattr(other, name))

    def to_dict(self) -> dict[str, Any]:
        """:meth:`Finding.to_dict` plus what the message said about where and how."""
        return {
            **self.finding.to_dict(),
            **json_fields(self, "family message error_class status device platform"),
            "graph": self.graph.name if self.graph else None,
            "graph_id": self.graph.id if self.graph else None,
            "function_chain": [ref.name for ref in self.chain],
            "function_ids": [ref.id for ref in self.chain],
            "user_stack": [frame_dict(frame) for frame in self.user_stack],
            "defined_at": frame_dict(self.defined_at) if self.defined_at else None,
            **json_fields(self, "count layer occurrences hints advice_kind"),
            "more_advice": [{"kind": kind, "fix": fix} for kind, fix in self.more_advice],
            **json_fields(self, "source_in_library framework libraries"),
        } | self._optional_dicts()

    def _optional_dicts(self) -> dict[str, Any]:
        """The records only some failures have: an out-of-memory report, allocation numbers,
        how a family read from words alone was read."""
        extra: dict[str, Any] = {}
        if self.memory is not None:
            extra["memory"] = self.memory.to_dict()
        if self.allocation is not None:
            extra["allocation"] = self.allocation.to_dict()
        if self.read_from is not None:
            extra |= json_fields(self, "read_from confidence")
        return extra


def frame_dict(frame: StackFrame) -> dict[str, Any]:
    return {"file": frame.file, "line": frame.line, "function": frame.function}


@dataclass(slots=True)
class UnreadError:
    """The error a log ends with where no family was read (:mod:`.unread`): what its structure
    says without its words being known. The message and its exception class or XLA status
    code, the op it names, the frames (innermost first) and the user's line, the device and
    framework the log names, and the family its words come closest to
    (:mod:`.family_words`), with a probability under the ``threshold`` a family is named
    from."""

    message: str
    error_class: str | None = None
    status: str | None = None
    #: The op, primitive or instruction the message names, where it names one.
    op: str | None = None
    device: str | None = None
    platform: Platform | None = None
    stack: list[StackFrame] = field(default_factory=list)
    source: str | None = None
    framework: str | None = None
    libraries: list[str] = field(default_factory=list)
    closest: Family | None = None
    closest_probability: float | None = None
    threshold: float | None = None
    #: Where its line starts in the normalised text.
    offset: int = field(default=0, repr=False)

    @property
    def user_stack(self) -> list[StackFrame]:
        """The frames in the user's own code, innermost first."""
        return [frame for frame in self.stack if is_users(frame)]

    @property
    def raised_in(self) -> StackFrame | None:
        """The frame that raised it, where that is installed code (a library's, the
        framework's): the innermost frame, unless it is the user's own."""
        if not self.stack or is_users(self.stack[0]):
            return None
        return self.stack[0]

    def to_dict(self) -> dict[str, Any]:
        raised = self.raised_in
        return {
            **json_fields(self, "message error_class status op device platform source"),
            "raised_in": frame_dict(raised) if raised else None,
            "user_stack": [frame_dict(frame) for frame in self.user_stack],
            **json_fields(self, "framework libraries closest closest_probability threshold"),
        }


@dataclass(slots=True)
class ErrorExplanation:
    """What :func:`explain_error` made of a log: the failures in log order, and how much text
    it read. ``recognised`` is False when no recogniser matched anything."""

    failures: list[Failure] = field(default_factory=list)
    #: Lines of the (normalised) text that was read.
    lines: int = 0
    #: Where no failure was read but the log ends in an error: what its structure says.
    unread: UnreadError | None = None

    @property
    def recognised(self) -> bool:
        return bool(self.failures)

    @property
    def families(self) -> list[Family]:
        """The families of the failures, each once, in log order."""
        return list(dict.fromkeys(f.family for f in self.failures))

    @property
    def platform(self) -> Platform | None:
        """The platform the first failure that names one was compiled for."""
        return next((f.platform for f in self.failures if f.platform), None)

    @property
    def findings(self) -> list[Finding]:
        return [f.finding for f in self.failures]

    def to_report(self, program: str = "error log") -> CheckReport:
        """The failures as a :class:`~.unsupported.findings.CheckReport`, the record
        ``hloscope check`` returns. A log that names no platform (JAX tracing errors are
        platform-independent) is reported for ``cpu``, and a note says so."""
        platform = self.platform
        notes = [f"read from {program}: {', '.join(map(str, self.families)) or 'nothing'}"]
        if platform is None:
            notes.append("the log names no platform; cpu is assumed")
        report = CheckReport(platform or Platform.CPU, program, notes=notes)
        report.findings.extend(self.findings)
        return report

    def to_dict(self) -> dict[str, Any]:
        """The ``--json`` of ``hloscope explain-error``: ``recognised``, ``platform``,
        ``families`` and one object per failure (:meth:`Failure.to_dict`)."""
        platform = self.platform
        return {
            "recognised": self.recognised,
            "platform": str(platform) if platform else None,
            "families": [str(family) for family in self.families],
            "lines": self.lines,
            "failures": [f.to_dict() for f in self.failures],
            "unread": self.unread.to_dict() if self.unread else None,
        }
