"""Explain the error text TensorFlow, JAX and XLA print when a program will not compile.

:func:`explain_error` reads a log -- a whole ``python train.py 2>&1`` transcript, a pasted
traceback, one exception message -- and returns an :class:`ErrorExplanation`: one
:class:`Failure` per thing that failed, each saying

* **what** failed: the op, primitive, custom-call target or exception class, why
  (:class:`~.unsupported.findings.Reason`: ``no_kernel``, ``dtype`` with the requested dtype,
  ...), and how many times when the message counts them;
* **where it would run**: the device (``XLA_CPU_JIT``, ``tpu``) as the message names it, and
  the :class:`~.unsupported.findings.Platform` it means;
* **in which function**: the graph being compiled and the chain of functions around the op,
  innermost first, their canonical names cleaned (``__inference_f_53[...]`` -> ``f``);
* **where in the user's code**: the frames of TensorFlow's "The op is created at:", of the
  Python traceback around the message, or JAX's "while tracing the function f at file:line";
* **what to do**: :func:`~.unsupported.fixes.suggest` for the offender.

How it reads a log. The text is first made plain (:func:`normalise_log`: ANSI colour codes
removed, Windows and old-Mac line ends made ``\\n``, pytest's ``E   `` prefixes dropped). Then
every :class:`Recogniser` of :data:`RECOGNISERS` -- one per *family* of messages, a table
rather than an if-chain, so a new message form is one row -- scans the whole text with one
compiled regular expression that matches the message's fixed opening words, and its handler
reads what follows the match in a bounded window. No pattern nests quantifiers or lets a
``.*`` run to the end of the text, so a log of many megabytes is read in one pass per
family, without catastrophic backtracking. Repeated messages (a retried compile, a message
printed by both the exception and the logger) become one failure with ``occurrences`` > 1;
failures are listed in the order the log shows them.

Only pure text is involved: nothing here imports jax or TensorFlow, so a log from a TPU
machine is explained on a laptop. Text no recogniser matches gives ``recognised=False``:
the explanation never guesses.
"""

from __future__ import annotations

import codecs
import re
from bisect import bisect_left
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from ..hlo.metadata import StackFrame
from .memory.oom_log import OOM_OPENING, OomReport, oom_fixes, read_oom
from .provenance import is_user_frame, layer_path
from .unsupported.findings import CheckReport, Finding, Platform, Reason
from .unsupported.fixes import suggest

__all__ = [
    "Family",
    "FAMILY_TITLES",
    "FunctionRef",
    "Failure",
    "ErrorExplanation",
    "Recogniser",
    "RECOGNISERS",
    "explain_error",
    "normalise_log",
    "decode_log",
    "clean_function_name",
    "clean_message",
]


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
    #: Pallas kernels lowered for a platform that cannot run them.
    PALLAS = "pallas"
    #: XLA ran out of device memory: ``RESOURCE_EXHAUSTED: Out of memory while trying to
    #: allocate N bytes`` with its "BufferAssignment OOM Debugging" list (GPU, CPU), or TPU's
    #: "Ran out of memory in memory space hbm" with its largest allocations.
    OUT_OF_MEMORY = "out_of_memory"


#: What each family means, in words (the headline of the text output).
FAMILY_TITLES: dict[Family, str] = {
    Family.TF2XLA: "TensorFlow could not compile an op with XLA",
    Family.TF1_LIST: "TensorFlow (1.x message) listed ops XLA cannot compile",
    Family.MLIR_BRIDGE: "TensorFlow's MLIR bridge could not lower ops to HLO",
    Family.TF_KNOWN_ISSUE: "TensorFlow hit a known XLA limitation",
    Family.JAX_TRACING: "JAX could not trace the function",
    Family.MISSING_LOWERING: "JAX has no lowering of a primitive for the platform",
    Family.XLA_STATUS: "XLA refused the program",
    Family.JAX_EXPORT: "jax.export refused the program",
    Family.PALLAS: "a Pallas kernel cannot be lowered for the platform",
    Family.OUT_OF_MEMORY: "the program does not fit in device memory",
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
    #: What an out-of-memory report said (requested bytes, peak buffers, fixes); only for
    #: :attr:`Family.OUT_OF_MEMORY`, and only then in the JSON (as ``"memory"``).
    memory: OomReport | None = None

    @property
    def user_stack(self) -> list[StackFrame]:
        """The frames of :attr:`stack` in the user's own code, innermost first (not
        site-packages, the standard library or a framework's folder)."""
        return [frame for frame in self.stack if is_user_frame(frame)]

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
        if not self.finding.function and other.finding.function:
            self.finding.function = other.finding.function
        if not self.user_stack and other.user_stack:
            self.stack, self.finding.source = other.stack, other.finding.source
        if self.defined_at is None:
            self.defined_at = other.defined_at
        known = {ref.id for ref in self.chain}
        self.chain.extend(ref for ref in other.chain if ref.id not in known)
        for name in ("device", "platform", "graph", "error_class", "status", "count", "layer"):
            if getattr(self, name) is None:
                setattr(self, name, getattr(other, name))

    def to_dict(self) -> dict[str, Any]:
        """:meth:`Finding.to_dict` plus what the message said about where and how."""
        return {
            **self.finding.to_dict(),
            "family": str(self.family),
            "message": self.message,
            "error_class": self.error_class,
            "status": self.status,
            "device": self.device,
            "platform": str(self.platform) if self.platform else None,
            "graph": self.graph.name if self.graph else None,
            "graph_id": self.graph.id if self.graph else None,
            "function_chain": [ref.name for ref in self.chain],
            "function_ids": [ref.id for ref in self.chain],
            "user_stack": [_frame_dict(frame) for frame in self.user_stack],
            "defined_at": _frame_dict(self.defined_at) if self.defined_at else None,
            "count": self.count,
            "layer": self.layer,
            "occurrences": self.occurrences,
            "hints": list(self.hints),
        } | ({"memory": self.memory.to_dict()} if self.memory is not None else {})


def _frame_dict(frame: StackFrame) -> dict[str, Any]:
    return {"file": frame.file, "line": frame.line, "function": frame.function}


@dataclass(slots=True)
class ErrorExplanation:
    """What :func:`explain_error` made of a log: the failures in log order, and how much text
    it read. ``recognised`` is False when no recogniser matched anything."""

    failures: list[Failure] = field(default_factory=list)
    #: Lines of the (normalised) text that was read.
    lines: int = 0

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
        }


# ---- reading the text ---------------------------------------------------------------------------

# CSI sequences (colours, cursor moves), OSC sequences (titles, hyperlinks) and two-byte escapes.
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]")
# pytest shows an exception's lines as `E       message`.
_PYTEST_E = re.compile(r"^E   ", re.M)
# A line of pytest's short test summary, and the banners of the sections that show each
# failure in full before it.
_PYTEST_SUMMARY = re.compile(r"(?:FAILED|ERROR) \S+::\S* - ")
_PYTEST_SECTIONS = ("= FAILURES =", "= ERRORS =")
_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


def decode_log(data: bytes) -> str:
    """Bytes of a log as text: UTF-8 (bad bytes replaced), or UTF-16 when a byte-order mark
    says so (PowerShell's ``>`` writes UTF-16)."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return data.decode(encoding, errors="replace")
    return data.decode("utf-8", errors="replace")


def normalise_log(text: str) -> str:
    """``text`` without ANSI escape sequences, with ``\\n`` line ends and without pytest's
    ``E   `` prefixes: the form every recogniser reads."""
    if "\x1b" in text:
        text = _ANSI.sub("", text)
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if "\nE   " in text or text.startswith("E   "):
        text = _PYTEST_E.sub("", text)
    return text


# `__inference_train_step_53` (tf.function), `__forward_f_12`, `__wrapped__IteratorGetNext_...`
# (an eager op wrapped in a function), `while_body_19_const_0`, `cond_true_52`.
_NAME_RULES: tuple[re.Pattern[str], ...] = (
    re.compile(r"^__inference_(?P<name>.+?)_\d+$"),
    re.compile(r"^__(?:forward|backward)_(?P<name>.+?)(?:_\d+)+$"),
    re.compile(r"^__wrapped__(?P<name>[A-Za-z0-9]+)(?:_.*)?$"),
    re.compile(r"^(?P<name>[A-Za-z_][A-Za-z_]*?[A-Za-z])(?:_\d+)+(?:_const_\d+)?$"),
)


def clean_function_name(canonical: str) -> str:
    """The name people gave a function, from TensorFlow's canonical one: attrs dropped, the
    ``__inference_`` prefix and uniquifying numbers removed (``__inference_f_53[...]`` ->
    ``f``, ``while_body_19_const_0`` -> ``while_body``). Names without such decoration come
    back unchanged."""
    name = canonical.split("[", 1)[0]
    for rule in _NAME_RULES:
        found = rule.match(name)
        if found:
            return found.group("name")
    return name


# A TensorFlow "The op is created at:" frame, and a Python traceback frame (or pytest's).
_TF_FRAME = re.compile(r"[ \t]*File \"(?P<file>[^\"\n]*)\", line (?P<line>\d+)(?:, in (?P<fn>.*))?")
_PY_FRAME = re.compile(
    r"^[ \t]*File \"(?P<file>[^\"\n]+)\", line (?P<line>\d+)(?:, in (?P<fn>[^\n]*))?$"
    r"|^(?P<pfile>[^\s:][^:\n]*\.py):(?P<pline>\d+): (?:in (?P<pfn>\S+))?$",
    re.M,
)
# TF's stand-in frame for graphs made without Python (tf.data functions).
_DUMMY_FILE = "dummy_file_name"
_TRACEBACK_HEADER = "Traceback (most recent call last):"
_FRAME_HEADERS = ("The op is created at:", "Stack trace for op definition:")
# How far to look around a match (characters), and the most lines allowed between the last
# traceback frame and the message for the traceback to be the message's own.
_WINDOW = 64 * 1024
_PYTEST_LOOKBACK = 16 * 1024
_MAX_GAP_LINES = 200
_HEADLINE_MAX = 500
# Messages that end the region of the message before them.
_REGION_STOPS = ("Detected unsupported operations", _TRACEBACK_HEADER)


@dataclass(slots=True)
class _Log:
    """The normalised text and the look-around helpers every handler uses."""

    text: str
    _heads: list[int] | None = None

    def line_end(self, pos: int) -> int:
        end = self.text.find("\n", pos)
        return len(self.text) if end < 0 else end

    def before_on_line(self, pos: int) -> str:
        """The text from the start of ``pos``'s line up to ``pos``."""
        return self.text[self.text.rfind("\n", 0, pos) + 1 : pos]

    def headline(self, start: int) -> str:
        """The message's first line from ``start``, capped, without what a copy from Python
        source leaves at its end (:func:`clean_message`)."""
        return clean_message(self.text[start : self.line_end(start)][:_HEADLINE_MAX])

    def in_source_line(self, pos: int) -> bool:
        """Whether ``pos`` is on a line of source code a traceback shows (the indented line
        after ``File "...", line N``, pytest's ``>`` line, IPython's ``---->`` line): the
        ``raise`` statement that holds a message's words is not the message."""
        start = self.text.rfind("\n", 0, pos) + 1
        line = self.text[start : self.line_end(start)]
        if line.startswith((">", "---->")):
            return True
        if not line[:1].isspace() or start == 0:
            return False
        previous = self.text.rfind("\n", 0, start - 1) + 1
        return _PY_FRAME.match(self.text, previous, start - 1) is not None

    def in_test_summary(self, pos: int) -> bool:
        """Whether ``pos`` is on a line of pytest's short test summary (``FAILED t.py::test -
        Error: message``) of a report whose failure section, above it, showed the error in
        full: the summary repeats it (whole under ``CI=true``, cut to the terminal
        elsewhere) and is no second occurrence."""
        start = self.text.rfind("\n", 0, pos) + 1
        if _PYTEST_SUMMARY.match(self.text, start) is None:
            return False
        return any(self.text.find(banner, 0, start) >= 0 for banner in _PYTEST_SECTIONS)

    def region_end(self, pos: int) -> int:
        """Where the message that continues at ``pos`` ends, at the latest: the next message
        of the same kind, the next traceback, or :data:`_WINDOW` characters on."""
        end = min(len(self.text), pos + _WINDOW)
        for stop in _REGION_STOPS:
            found = self.text.find(stop, pos, end)
            if found >= 0:
                end = found
        return end

    def frames_after(self, pos: int, end: int) -> list[StackFrame]:
        """The frames of the first "The op is created at:" (or "Stack trace for op
        definition:") block between ``pos`` and ``end``, innermost first."""
        starts = [self.text.find(h, pos, end) for h in _FRAME_HEADERS]
        starts = [s for s in starts if s >= 0]
        if not starts:
            return []
        at = self.line_end(min(starts)) + 1
        frames: list[StackFrame] = []
        while at < end:
            found = _TF_FRAME.match(self.text, at, self.line_end(at))
            if not found:
                break
            if found["file"] != _DUMMY_FILE:
                frames.append(StackFrame(found["file"], int(found["line"]), found["fn"] or ""))
            at = self.line_end(found.end()) + 1
        return frames[::-1]

    def traceback_before(self, pos: int) -> list[StackFrame]:
        """The frames of the Python traceback the message at ``pos`` ends, innermost first;
        none when the last traceback before it belongs to something else (it ended more
        than :data:`_MAX_GAP_LINES` lines earlier)."""
        head = self._last_head(pos)
        begin = max(head, pos - _WINDOW) if head >= 0 else max(0, pos - _PYTEST_LOOKBACK)
        frames, last = [], begin
        for found in _PY_FRAME.finditer(self.text, begin, pos):
            file = found["file"] or found["pfile"]
            line = found["line"] or found["pline"]
            frames.append(StackFrame(file, int(line), found["fn"] or found["pfn"] or ""))
            last = found.end()
        if not frames or self.text.count("\n", last, pos) > _MAX_GAP_LINES:
            return []
        return frames[::-1]

    def traceback_start(self, pos: int) -> int:
        """Where the traceback the message at ``pos`` ends begins: its ``Traceback (most
        recent call last):`` line, else (pytest's report has none) the text a pytest report
        of the message may hold."""
        head = self._last_head(pos)
        return max(head, pos - _WINDOW) if head >= 0 else max(0, pos - _PYTEST_LOOKBACK)

    def _last_head(self, pos: int) -> int:
        if self._heads is None:
            heads, at = [], self.text.find(_TRACEBACK_HEADER)
            while at >= 0:
                heads.append(at)
                at = self.text.find(_TRACEBACK_HEADER, at + 1)
            self._heads = heads
        index = bisect_left(self._heads, pos)
        return self._heads[index - 1] if index else -1


# What a message copied out of Python source ends with: the closing quote of the string and the
# brackets of the call (`raise NotImplementedError("... not yet implemented")`), a comma.
_CLOSERS = {")": "(", "]": "[", "}": "{"}
_QUOTES = "\"'`"


def clean_message(text: str) -> str:
    """``text`` without trailing punctuation it does not open itself: a quote whose opening is
    not in it, closing brackets beyond those it opens, a trailing comma or semicolon. What
    it opens and closes stays (``... (bad operands at: 1, 3)``)."""
    text = text.rstrip()
    while text:
        last = text[-1]
        unopened_quote = last in _QUOTES and _quotes_in(text, last) % 2 == 1
        unopened_bracket = last in _CLOSERS and text.count(last) > text.count(_CLOSERS[last])
        if not (last in ",;" or unopened_quote or unopened_bracket):
            return text
        text = text[:-1].rstrip()
    return text


def _quotes_in(text: str, quote: str) -> int:
    """How many ``quote`` characters ``text`` has, apostrophes inside words (``can't``) not
    counted."""
    return len(re.findall(rf"(?<!\w){quote}|{quote}(?!\w)", text))


# `jit(NAME)` as JAX names a jitted function (`jit(spectrum)/eig` in a location or an op_name,
# `jax.jit(step)` in a traceback's source line), and a function that a message names.
_JIT_NAME = re.compile(r"\bp?jit\((?P<name>[A-Za-z_][\w.]*|<lambda>)[,)]")
_NAMED_FUNCTION = re.compile(r"\bFunction '(?P<name>[^'\n]+)'")
# Frames whose function is not a function the user named.
_NOT_A_FUNCTION = ("<module>", "<lambda>", "<listcomp>", "<genexpr>", "<dictcomp>", "<setcomp>")


def _paragraph_end(log: _Log, pos: int) -> int:
    """The end of the paragraph at ``pos`` (a blank line, or 4 KiB on): a message's own text,
    such as the ``Examples are:`` lines of an export refusal or the HLO a verifier quotes."""
    end = log.text.find("\n\n", pos, pos + 4096)
    return min(len(log.text), pos + 4096) if end < 0 else end


def _jax_function(log: _Log, start: int, end: int, stack: list[StackFrame]) -> str:
    """The JAX function a message is about, where the log says: a name in the message itself
    (``Function 'f'``, ``jit(f)`` in a location or op_name between ``start`` and ``end``), else
    the innermost user frame's function, else the nearest ``jit(f)`` in the traceback's source
    lines before the message; ``""`` when none says."""
    named = _NAMED_FUNCTION.search(log.text, start, end)
    if named:
        return named["name"]
    in_message = [m["name"] for m in _JIT_NAME.finditer(log.text, start, end)]
    if in_message and in_message[0] != "<lambda>":
        return in_message[0]
    user = next((f for f in stack if is_user_frame(f)), None)
    if user is not None and user.function and user.function not in _NOT_A_FUNCTION:
        return user.function
    head = log.traceback_start(start)
    before = [m["name"] for m in _JIT_NAME.finditer(log.text, head, start)]
    named_before = [name for name in before if name != "<lambda>"]
    if named_before:
        return named_before[-1]
    return (in_message or before or [""])[0]


def _function_chain(function: str) -> list[FunctionRef]:
    return [FunctionRef(function, function)] if function else []


def _source(stack: list[StackFrame]) -> str | None:
    """``file:line`` of the innermost user frame of ``stack`` (innermost first)."""
    frame = next((f for f in stack if is_user_frame(f)), None)
    return f"{frame.file}:{frame.line}" if frame else None


def _advise(names: Iterable[str], reason: Reason) -> str:
    """The first fixes row for any of ``names`` (most specific first), else the generic
    advice for ``reason``."""
    names = [n for n in names if n]
    for name in names:
        advice = suggest(name)
        if advice:
            return advice
    return suggest(names[0] if names else "", reason)


_PLATFORM_WORD = re.compile(r"\b(XLA_[A-Z]+_JIT|cpu|gpu|tpu|cuda|rocm|CPU|GPU|TPU)\b")


def _platform(word: str | None) -> Platform | None:
    """The platform a device word (``XLA_TPU_JIT``, ``device:GPU:0``, ``tpu``) means."""
    found = _PLATFORM_WORD.search(word or "")
    if not found:
        return None
    try:
        return Platform.parse(found.group())
    except ValueError:
        return None


# `jax.errors.ConcretizationTypeError: ` / `XlaRuntimeError: INVALID_ARGUMENT: ` before a message.
_CLASS_BEFORE = re.compile(r"(?P<cls>[A-Za-z_][\w.]*?(?:Error|Exception|Warning)): $")
# A status code, and the stage XLA names after it (`INVALID_ARGUMENT: [execute] ...`,
# `INVALID_ARGUMENT: during context [hlo verifier]: ...`).
_STATUS_BEFORE = re.compile(
    r"\b(?P<status>[A-Z][A-Z_]+[A-Z]): (?:\[[\w ]+\] |during context \[[^\]\n]*\]: )?$"
)


def _class_before(log: _Log, pos: int) -> str | None:
    """The exception class named just before ``pos`` on its line (``ValueError: ...``),
    skipping a status code (``XlaRuntimeError: INVALID_ARGUMENT: ...``)."""
    before = log.before_on_line(pos)[-300:]
    status = _STATUS_BEFORE.search(before)
    if status:
        before = before[: status.start()]
    found = _CLASS_BEFORE.search(before)
    return found.group("cls").rsplit(".", 1)[-1] if found else None


def _status_before(log: _Log, pos: int) -> str | None:
    found = _STATUS_BEFORE.search(log.before_on_line(pos)[-300:])
    return found.group("status") if found else None


# ---- TensorFlow: "Detected unsupported operations ..." ------------------------------------------

_TF_OPENING = r"Detected unsupported operations when trying to compile graph "
_TF_GRAPH = r"(?P<graph>[^\s\[]+)(?:\[[^\]\n]*\])? on (?P<device>XLA_\w+?_JIT):"
_TF2XLA = re.compile(_TF_OPENING + _TF_GRAPH + r" ?(?P<op>[\w.]+) \(")
_TF1_LIST = re.compile(_TF_OPENING + _TF_GRAPH + r" ?(?P<ops>[\w.]+(?:, ?[\w.]+)*)[ \t]*$", re.M)
_TAGS = re.compile(r"(?:\{\{(?:function_)?node [^}\n]+\}\})+")
_TAG = re.compile(r"\{\{(function_node|node) ([^}\n]+)\}\}")
_ATTR_MISMATCH = "(OpKernel was found, but attributes didn't match)"
_REQUESTED = re.compile(r"Requested Attributes: (?P<attrs>[^\n]*)")
_TYPE_ATTR = re.compile(r"\b(?:T|dtype|Tin|Tout|SrcT|DstT)=\[?(?P<dtype>DT_[A-Z0-9_]+)")
_ANY_DT = re.compile(r"DT_[A-Z0-9_]+")
_ARG_NAME = re.compile(r"_user_specified_name=\"(?P<name>[^\"]*)\"")
_CHAIN = re.compile(r"tf2xla conversion failed while converting (?P<fn>[^\s\[.']+)")
_OUTER_OP = re.compile(r"\[Op:(?P<fn>[^\]\s]+)\]")
_TPU_HINT = re.compile(r"One approach is to outside compile[^\n]*?penalty\.")
_DETECTED_AT = "Detected at node "
_FIRST_ONLY = (
    "TensorFlow stops at the first op it cannot compile: `hloscope check SCRIPT.py:FUNCTION "
    "--platform P` lists every one"
)


def _requested_dtype(reason_text: str) -> str | None:
    """The dtype a kernel was asked for (``Requested Attributes: T=DT_STRING, ...``); of a
    list (``Tin=[DT_FLOAT, DT_STRING]``) the string or the first unusual one."""
    requested = _REQUESTED.search(reason_text)
    if not requested:
        return None
    attrs = requested.group("attrs")
    dtypes = _ANY_DT.findall(attrs)
    for suspect in ("DT_STRING", "DT_VARIANT", "DT_RESOURCE"):
        if suspect in dtypes:
            return suspect
    typed = _TYPE_ATTR.search(attrs)
    return typed.group("dtype") if typed else (dtypes[0] if dtypes else None)


def _tf_layer(node: str) -> str | None:
    """The Keras layer of a node (``sequential_1/dense_2/MatMul`` -> ``sequential_1/dense_2``),
    when its name scopes look like layers (made unique with ``_N``)."""
    scopes = node.split("/")[:-1]
    if not any(re.fullmatch(r".+_\d+", s) for s in scopes if s != "gradient_tape"):
        return None
    return layer_path(node) or None


def _tf_chain(log: _Log, start: int, end: int, inner: list[str]) -> list[FunctionRef]:
    """The functions around the op, innermost first: nested ``function_node`` tags, then the
    ``tf2xla conversion failed while converting F`` lines and the eager ``[Op:F]``."""
    ids = [*inner]
    ids += [m["fn"] for m in _CHAIN.finditer(log.text, start, end)]
    ids += [m["fn"] for m in _OUTER_OP.finditer(log.text, start, end)]
    return [FunctionRef.of(i) for i in dict.fromkeys(ids)]


def _detected_at_frames(log: _Log, pos: int) -> list[StackFrame]:
    """Keras' "Detected at node N defined at (most recent call last):" frames just before
    ``pos`` (used when the message itself has no "The op is created at:")."""
    at = log.text.rfind(_DETECTED_AT, max(0, pos - 8 * 1024), pos)
    if at < 0:
        return []
    frames: list[StackFrame] = []
    for found in _TF_FRAME.finditer(log.text, at, pos):
        frames.append(StackFrame(found["file"], int(found["line"]), found["fn"] or ""))
    return frames[::-1]


def _tf2xla(log: _Log, m: re.Match[str]) -> Iterator[Failure]:
    text, op, after_op = log.text, m["op"], m.end()
    close = text.find("){{", after_op, min(log.region_end(after_op), after_op + 8 * 1024))
    if close >= 0:
        reason_text = text[after_op:close]
        tags = _TAGS.match(text, close + 1)
        tag_text, after = (tags.group(), tags.end()) if tags else ("", close + 1)
    else:  # cut off: read the tags inside the reason
        after = log.line_end(after_op)
        reason_text = tag_text = text[after_op:after]
    found_tags = _TAG.findall(tag_text)
    node = next((name for kind, name in reversed(found_tags) if kind == "node"), "")
    nested = [name for kind, name in found_tags if kind == "function_node"][::-1]
    mismatch = _ATTR_MISMATCH in reason_text
    reason = Reason.DTYPE if mismatch else Reason.NO_KERNEL
    dtype = _requested_dtype(reason_text) if mismatch else None
    end = log.region_end(after)
    stack = log.frames_after(after, end) or _detected_at_frames(log, m.start())
    if not stack:
        stack = log.traceback_before(m.start())
    chain = _tf_chain(log, after, end, [*nested, m["graph"]])
    hints = [_FIRST_ONLY]
    tpu_hint = _TPU_HINT.search(text, after, min(end, after + 2048))
    if tpu_hint:
        hints.insert(0, tpu_hint.group())
    if node and mismatch and op == "_Arg":
        arg = _ARG_NAME.search(reason_text)
        hints.insert(0, f"argument {arg['name'] if arg else node!r} has dtype {dtype}")
    finding = Finding(
        op=op,
        node=node,
        function=chain[0].name,
        reason=reason,
        dtype=dtype,
        source=_source(stack),
        suggestion=_advise((op, dtype or ""), reason),
        detail=log.headline(m.start()),
    )
    yield Failure(
        Family.TF2XLA,
        finding,
        message=finding.detail,
        device=m["device"],
        platform=_platform(m["device"]),
        graph=FunctionRef.of(m["graph"]),
        chain=chain,
        stack=stack,
        error_class=_class_before(log, m.start()),
        layer=_tf_layer(node),
        hints=hints,
    )


def _tf1_list(log: _Log, m: re.Match[str]) -> Iterator[Failure]:
    stack = log.traceback_before(m.start())
    graph = FunctionRef.of(m["graph"])
    counts = Counter(op.strip() for op in m["ops"].split(","))
    for op, count in counts.items():
        finding = Finding(
            op=op,
            node="",
            function=graph.name,
            reason=Reason.NO_KERNEL,
            source=_source(stack),
            suggestion=_advise((op,), Reason.NO_KERNEL),
            detail=log.headline(m.start()),
        )
        yield Failure(
            Family.TF1_LIST,
            finding,
            message=finding.detail,
            device=m["device"],
            platform=_platform(m["device"]),
            graph=graph,
            chain=[graph],
            stack=stack,
            error_class=_class_before(log, m.start()),
            count=count,
            hints=["TensorFlow 1.x names the op types only: no node, no Python stack"],
        )


# ---- TensorFlow's MLIR bridge -------------------------------------------------------------------

_MLIR = re.compile(
    r"The following operations cannot be legalized(?P<listed>: )?"
    r"|'(?P<single>tf\.[\w.]+)' op is not legalizable"
    r"|failed to legalize operation '(?P<failed>tf\.[\w.]+)'"
)
_MLIR_ITEM = re.compile(r"[ \t]*(?P<op>[\w.]+) \(count: (?P<count>\d+)\)(?P<more>;)?")
_MLIR_HINT = "the MLIR bridge (TPU, tf-opt -xla-legalize-tf) names every op it could not lower"


def _mlir_items(log: _Log, pos: int) -> Iterator[tuple[str, int]]:
    while True:
        item = _MLIR_ITEM.match(log.text, pos, log.line_end(pos))
        if not item:
            return
        yield item["op"], int(item["count"])
        if not item["more"]:
            return
        pos = item.end()


def _mlir_bridge(log: _Log, m: re.Match[str]) -> Iterator[Failure]:
    if m["single"] or m["failed"]:
        items: Iterable[tuple[str, int | None]] = [(m["single"] or m["failed"], None)]
    elif m["listed"]:
        items = list(_mlir_items(log, m.end()))
    else:  # "cannot be legalized." with no list: the detail lines name the op, if any
        return
    for name, count in items:
        op = name.removeprefix("tf.")
        finding = Finding(
            op=op,
            node="",
            function="",
            reason=Reason.NO_KERNEL,
            suggestion=_advise((op,), Reason.NO_KERNEL),
            detail=log.headline(m.start()),
        )
        yield Failure(
            Family.MLIR_BRIDGE,
            finding,
            message=finding.detail,
            count=count,
            hints=[_MLIR_HINT],
        )


# ---- TensorFlow known issues --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Form:
    """One message form of a family whose regex is an alternation: the named group that
    marks it, the op (or offender) to report when the message names none, the reason, the
    fixes keys to try (most specific first) and what it means."""

    group: str
    pattern: str
    op: str
    reason: Reason
    fix_keys: tuple[str, ...]
    meaning: str = ""


def _alternation(forms: tuple[_Form, ...]) -> re.Pattern[str]:
    """One regex for all ``forms``; the group named after a form marks which one matched.

    Each form must start with a plain character, kept *outside* its marking group
    (``U(?P<unimplemented>NIMPLEMENTED: ...)``): then every alternative of the regex opens
    with a literal, and Python's engine skips ahead to the characters that can start one
    instead of trying every alternative at every position (ten times faster on big logs).
    """
    parts = []
    for form in forms:
        first, rest = form.pattern[0], form.pattern[1:]
        if not (first.isalnum() or first in "'\"`"):
            raise ValueError(f"form {form.group!r} must start with a plain character")
        parts.append(f"{first}(?P<{form.group}>{rest})")
    return re.compile("|".join(parts))


def _form_of(forms: tuple[_Form, ...], m: re.Match[str]) -> _Form:
    return next(form for form in forms if m.group(form.group) is not None)


_KNOWN_ISSUES: tuple[_Form, ...] = (
    _Form(
        "must_be_constant",
        r"Input (?P<input>\d+) to node `(?P<const_node>[^`\n]+)` with op (?P<const_op>\w+) "
        r"must be a compile-time constant",
        "",
        Reason.DYNAMIC_SHAPE,
        ("tf:compile_time_constant",),
        "a shape or size input depends on a value known only at run time",
    ),
    _Form(
        "shapes_concrete",
        r"XLA compilation requires that operator arguments that represent shapes or "
        r"dimensions be evaluated to concrete values at compile time",
        "shape argument",
        Reason.DYNAMIC_SHAPE,
        ("tf:compile_time_constant",),
        "a shape or size input depends on a value known only at run time",
    ),
    _Form(
        "tensor_list_size",
        r"XLA compilation requires a fixed tensor list size",
        "TensorListReserve",
        Reason.DYNAMIC_SHAPE,
        ("TensorListReserve",),
        "a TensorArray/TensorList without a static size (or a loop without maximum_iterations)",
    ),
    _Form(
        "tensor_list_boundary",
        r"Support for TensorList crossing the XLA/TF boundary is not implemented",
        "TensorList",
        Reason.COMPILE_ERROR,
        ("tf:tensor_list_boundary", "TensorListFromTensor"),
        "a TensorArray/TensorList passed into or out of the compiled function",
    ),
    _Form(
        "resource_device",
        r"Trying to access resource (?P<resource>\S+)[^\n]*? located in device "
        r"(?P<res_on>\S+) from device (?P<res_from>[^\s,]+)",
        "resource",
        Reason.COMPILE_ERROR,
        ("tf:resource_device",),
        "a variable or resource lives on another device than the compiled function",
    ),
    _Form(
        "maxpool_determinism",
        r"GPU MaxPool gradient ops do not yet have a deterministic XLA implementation",
        "MaxPoolGrad",
        Reason.NO_KERNEL,
        ("tf:maxpool_determinism", "MaxPoolGrad"),
        "op determinism is on, and XLA's GPU MaxPool gradient is not deterministic",
    ),
)
_KNOWN = _alternation(_KNOWN_ISSUES)
_NODE_IN_BRACKETS = re.compile(r"\[\[\{\{node (?P<node>[^}\n]+)\}\}\]\]")


def _tf_known_issue(log: _Log, m: re.Match[str]) -> Iterator[Failure]:
    form = _form_of(_KNOWN_ISSUES, m)
    if (
        form.group == "shapes_concrete"
        and "compile-time constant" in log.text[max(0, m.start() - 2048) : m.start()]
    ):
        return  # the explanation paragraph of a must-be-constant message already read
    end = log.region_end(m.end())
    op, node = form.op, ""
    if form.group == "must_be_constant":
        op, node = m["const_op"], m["const_node"]
    else:
        tagged = _NODE_IN_BRACKETS.search(log.text, m.end(), end)
        node = tagged["node"] if tagged else ""
    stack = log.frames_after(m.end(), end) or log.traceback_before(m.start())
    chain = _tf_chain(log, m.end(), end, [])
    device = m["res_from"] if form.group == "resource_device" else None
    hints = [form.meaning]
    if form.group == "resource_device":
        hints.append(f"{m['resource']} is on {m['res_on']}")
    finding = Finding(
        op=op,
        node=node,
        function=chain[0].name if chain else "",
        reason=form.reason,
        source=_source(stack),
        suggestion=_advise((*form.fix_keys, op), form.reason),
        detail=log.headline(m.start()),
    )
    yield Failure(
        Family.TF_KNOWN_ISSUE,
        finding,
        message=finding.detail,
        device=device,
        platform=_platform(device),
        graph=chain[0] if chain else None,
        chain=chain,
        stack=stack,
        error_class=_class_before(log, m.start()),
        layer=_tf_layer(node),
        hints=hints,
    )


# ---- JAX tracing errors -------------------------------------------------------------------------

# The message forms of jax 0.10.2 (diagnostics notes, table A3.1): the class each one is
# raised as, and what it means.
_TRACING_FORMS: tuple[_Form, ...] = (
    _Form(
        "bool_conversion",
        r"Attempted boolean conversion of traced array",
        "TracerBoolConversionError",
        Reason.TRACING,
        ("TracerBoolConversionError",),
        "Python control flow (if/while/and/or) on a traced value",
    ),
    _Form(
        "integer_conversion",
        r"The __index__\(\) method was called on traced array",
        "TracerIntegerConversionError",
        Reason.TRACING,
        ("TracerIntegerConversionError",),
        "a traced value used as a Python int (range, indexing a list)",
    ),
    _Form(
        "array_conversion",
        r"The numpy\.ndarray conversion method __array__\(\) was called on traced array",
        "TracerArrayConversionError",
        Reason.TRACING,
        ("TracerArrayConversionError",),
        "numpy called on a traced array",
    ),
    _Form(
        "boolean_index",
        r"Array boolean indices must be concrete",
        "NonConcreteBooleanIndexError",
        Reason.TRACING,
        ("NonConcreteBooleanIndexError",),
        "boolean-mask indexing: the result's size depends on the data",
    ),
    _Form(
        "concretization",
        r"Abstract tracer value encountered where concrete value is expected",
        "ConcretizationTypeError",
        Reason.TRACING,
        ("ConcretizationTypeError",),
        "a traced value where a concrete (static) one is needed",
    ),
    _Form(
        "invalid_shape",
        r"Shapes must be 1D sequences of concrete values of integer type",
        "TypeError",
        Reason.TRACING,
        ("TypeError",),
        "a shape built from a traced value",
    ),
    _Form(
        "static_slice",
        r"Slice entries must be static integers",
        "IndexError",
        Reason.TRACING,
        ("IndexError",),
        "a slice bound that is a traced value",
    ),
    _Form(
        "no_tracing",
        r"re-tracing function (?P<nt_fn>\S+) at (?P<nt_file>[^\n]+?):(?P<nt_line>\d+) for "
        r"`(?P<nt_api>\w+)`, but 'no_tracing' is set",
        "RuntimeError",
        Reason.TRACING,
        ("RuntimeError",),
        "the function was traced again while jax.no_tracing(True) forbids it (a recompile)",
    ),
)
_TRACING = _alternation(_TRACING_FORMS)
# The lines after a tracing error's first line that name the culprit, the function, the argument.
_CULPRIT = re.compile(
    r"It arose in the (?P<a>[\w.]+) argument"
    r"|The size argument of (?P<b>[\w.]+) must be statically specified"
    r"|The error arose for the first argument of (?P<c>[\w.]+)\(\)"
    r"|The problem arose with the `(?P<d>\w+)` function"
)
_TRACED_AT = re.compile(
    r"The error occurred while tracing the function (?P<fn>\S+) at (?P<file>[^\n]+?):"
    r"(?P<line>\d+) for (?P<api>\w+)\."
)
_DEPENDS_ON = re.compile(r"depends on the value of the argument (?P<arg>[^\s.]+)")
_TRACING_CLASSES = frozenset(form.op for form in _TRACING_FORMS) | {"JAXTypeError"}
_TRACING_END = ("\nSee https://", "\n--------------------", _TRACEBACK_HEADER)


# What raised the error when the message names no API: the fixes table keys tracing errors
# as `Class:trigger` (`ConcretizationTypeError:nonzero`, `TypeError:shape`).
_FORM_TRIGGERS = {"invalid_shape": "shape", "static_slice": "slice"}


def _trigger_keys(error_class: str, trigger: str) -> tuple[str, ...]:
    """The fixes keys of a tracing error, most specific first."""
    return (f"{error_class}:{trigger}", error_class) if trigger else (error_class,)


def _tracing_region(log: _Log, pos: int) -> int:
    end = min(len(log.text), pos + 4096)
    for stop in _TRACING_END:
        found = log.text.find(stop, pos, end)
        if found >= 0:
            end = found
    return end


def _jax_tracing(log: _Log, m: re.Match[str]) -> Iterator[Failure]:
    form = _form_of(_TRACING_FORMS, m)
    named = _class_before(log, m.start())
    error_class = named if named in _TRACING_CLASSES else form.op
    end = _tracing_region(log, m.end())
    culprit = _CULPRIT.search(log.text, m.end(), end)
    culprit_name = next((g for g in culprit.groups() if g), "") if culprit else ""
    trigger = culprit_name.rsplit(".", 1)[-1] or _FORM_TRIGGERS.get(form.group, "")
    traced = _TRACED_AT.search(log.text, m.end(), end)
    defined_at = None
    if traced:
        defined_at = StackFrame(traced["file"], int(traced["line"]), traced["fn"])
    elif form.group == "no_tracing":
        defined_at = StackFrame(m["nt_file"], int(m["nt_line"]), m["nt_fn"])
    stack = log.traceback_before(m.start())
    user = next((f for f in stack if is_user_frame(f)), None)
    source = f"{user.file}:{user.line}" if user else None
    if source is None and defined_at is not None:
        source = f"{defined_at.file}:{defined_at.line}"
    function = defined_at.function if defined_at else (user.function if user else "")
    hints = [form.meaning]
    depends = _DEPENDS_ON.search(log.text, m.end(), end)
    if depends:
        hints.append(f"the value depends on argument {depends['arg']}")
    finding = Finding(
        op=error_class,
        node=culprit_name,
        function=function,
        reason=Reason.TRACING,
        source=source,
        suggestion=_advise((*_trigger_keys(error_class, trigger), *form.fix_keys), Reason.TRACING),
        detail=log.headline(m.start()),
    )
    yield Failure(
        Family.JAX_TRACING,
        finding,
        message=finding.detail,
        chain=[FunctionRef(function, function)] if function else [],
        stack=stack,
        defined_at=defined_at,
        error_class=error_class,
        hints=hints,
    )


# ---- JAX lowering, XLA status, export, Pallas ---------------------------------------------------

_LOWERING_FORMS: tuple[_Form, ...] = (
    _Form(
        "translation_rule",
        r"MLIR translation rule for primitive '(?P<prim>[^'\n]+)' not found for "
        r"platforms? (?P<plats>\[[^\]\n]*\]|[\w-]+)",
        "",
        Reason.NO_LOWERING,
        (),
        "the primitive has lowering rules for other platforms only",
    ),
    _Form(
        "gpu_only_collective",
        r"psend is currently only implemented on GPU",
        "psend",
        Reason.NO_LOWERING,
        (),
        "the collective is implemented for GPU only",
    ),
    _Form(
        "tpu_qr",
        r"QR algorithm is not supported on TPU",
        "qr",
        Reason.NO_LOWERING,
        ("qr",),
        "the requested QR algorithm has no TPU implementation",
    ),
    _Form(
        "tpu_svd",
        r"The SVD algorithm parameter is not implemented on TPU",
        "svd",
        Reason.NO_LOWERING,
        ("svd",),
        "TPU's SVD takes no algorithm parameter",
    ),
)
_LOWERING = _alternation(_LOWERING_FORMS)
_PLATFORM_NAMES = re.compile(r"[A-Za-z][\w-]*")


def _missing_lowering(log: _Log, m: re.Match[str]) -> Iterator[Failure]:
    form = _form_of(_LOWERING_FORMS, m)
    op = m["prim"] or form.op
    device: str | None = None
    if form.group == "translation_rule":
        device = m["plats"]
        names = _PLATFORM_NAMES.findall(device)
        platform = _platform(names[0]) if len(names) == 1 else None
    else:
        platform = Platform.TPU if form.group.startswith("tpu") else None
        device = "tpu" if platform else None
    stack = log.traceback_before(m.start())
    function = _jax_function(log, m.start(), _paragraph_end(log, m.start()), stack)
    finding = Finding(
        op=op,
        node="",
        function=function,
        reason=form.reason,
        source=_source(stack),
        suggestion=_advise((op, *form.fix_keys), form.reason),
        detail=log.headline(m.start()),
    )
    yield Failure(
        Family.MISSING_LOWERING,
        finding,
        message=finding.detail,
        device=device,
        platform=platform,
        chain=_function_chain(function),
        stack=stack,
        error_class=_class_before(log, m.start()),
        hints=[form.meaning],
    )


_STATUS_FORMS: tuple[_Form, ...] = (
    _Form(
        "element_type",
        r"Element type (?P<etype>\w+) is not supported on (?P<eplat>\w+)",
        "",
        Reason.DTYPE,
        (),
        "the device has no support for this element type",
    ),
    _Form(
        "x64_rewrite",
        r"While rewriting computation to not contain X64 element types, XLA encountered an "
        r"HLO for which this rewriting is not implemented: ?(?P<hlo>[^\n]*)",
        "",
        Reason.DTYPE,
        (),
        "TPU emulates 64-bit types by rewriting them, and this op has no rewrite",
    ),
    _Form(
        "tpu_driver_x64",
        r"64-bit data types are not yet supported on the TPU driver API",
        "64-bit types",
        Reason.DTYPE,
        ("f64",),
        "the TPU driver API has no 64-bit types",
    ),
    _Form(
        "unimplemented",
        r"UNIMPLEMENTED: (?!While rewriting computation|Element type)(?P<umsg>[^\n]+)",
        "UNIMPLEMENTED",
        Reason.COMPILE_ERROR,
        (),
        "XLA does not implement what the program asks for on this platform",
    ),
    # jax 0.10.2, `lax.dot(a, b, preferred_element_type=jnp.float32)` of float4_e2m1fn arrays
    # on CPU: XLA's operand_upcaster makes an f32 convert that keeps the operand's 4-bit
    # element size, and the verifier refuses it.
    _Form(
        "custom_element_size",
        r"The XLA CPU/GPU backend does not support custom element sizes on non-sub-byte "
        r"types: ?(?P<ces_hlo>[^\n]*)",
        "",
        Reason.DTYPE,
        ("xla:custom_element_size",),
        "an array of a sub-byte type (float4, int4, int2, ...) was widened inside one op; "
        "the CPU and GPU backends keep sub-byte element sizes only on sub-byte types",
    ),
    _Form(
        "hlo_verifier",
        r"during context \[hlo verifier\]: ",
        "HLO verifier",
        Reason.COMPILE_ERROR,
        ("xla:hlo_verifier",),
        "XLA's HLO verifier refused the module the compiler's passes made of the program",
    ),
    # jax 0.10.2, `jax.ffi.ffi_call("a_target_nobody_registered", ...)` on CPU.
    _Form(
        "ffi_not_found",
        r"No FFI handler registered for (?P<nf_target>\S+) on a platform "
        r"(?P<nf_platform>[^\n(]+?)(?: \([^)\n]*\))?[ \t]*(?=\n|\Z)",
        "",
        Reason.CUSTOM_CALL,
        ("xla:ffi_not_found",),
        "no FFI handler of that name is registered for the platform the program runs on",
    ),
    # jax 0.10.2, `ffi_call(..., custom_call_api_version=1)` of a target registered as a
    # typed FFI handler (or not at all).
    _Form(
        "custom_call_not_found",
        r"No registered implementation for (?:(?P<cn_api>untyped|typed) )?custom call to "
        r"(?P<cn_target>\S+) for (?P<cn_platform>\w+)",
        "",
        Reason.CUSTOM_CALL,
        ("xla:custom_call_not_found",),
        "no custom-call implementation of that name and API version is registered for the platform",
    ),
    # jax 0.10.2, an FFI handler (lapack_spotrf_ffi) given int32 operands or an int32
    # attribute where it binds float32 buffers and a uint8 scalar.
    _Form(
        "ffi_operands",
        r"Failed to decode all FFI handler operands \(bad operands at: (?P<fo_at>[\d, ]+)\)",
        "FFI handler",
        Reason.COMPILE_ERROR,
        ("xla:ffi_operands",),
        "the FFI handler was given operands or attributes of other types or ranks than it "
        "binds; it checks them when the program runs ([execute]), not when it compiles",
    ),
    _Form(
        "ffi_arity",
        r"Wrong number of (?P<fa_what>arguments|results|attributes): expected "
        r"(?P<fa_expected>\d+) but got (?P<fa_got>\d+)",
        "FFI handler",
        Reason.COMPILE_ERROR,
        ("xla:ffi_operands",),
        "the FFI handler was called with another number of operands, results or attributes "
        "than it binds; it checks them when the program runs ([execute])",
    ),
    # jax 0.10.2, a jaxlib LAPACK handler (lapack_spotrf_ffi) given a vector: jaxlib's own
    # FFI helpers check ranks and sizes.
    _Form(
        "ffi_helpers",
        r"jaxlib/ffi_helpers\.h: (?P<fh_msg>[^\n]+)",
        "FFI handler",
        Reason.COMPILE_ERROR,
        ("xla:ffi_operands",),
        "a jaxlib kernel (LAPACK, cuSOLVER, ...) refused the shape of an operand",
    ),
    # Recorded from users' logs (jax-ml/jax#16901, #22626): cuDNN could not start on the GPU.
    _Form(
        "cudnn_init",
        r"DNN library initialization failed",
        "cuDNN",
        Reason.COMPILE_ERROR,
        ("xla:cudnn_init",),
        "cuDNN could not be initialised on the GPU: a cuDNN of another version than jaxlib "
        "was built with was loaded, or there was no GPU memory left to create its handle",
    ),
    # The status codes of XLA's other refusals, read only where JAX raised them as its XLA
    # runtime error (a TensorFlow FAILED_PRECONDITION is about variables, not XLA).
    _Form(
        "invalid_argument",
        r"INVALID_ARGUMENT: ",
        "INVALID_ARGUMENT",
        Reason.COMPILE_ERROR,
        ("xla:INVALID_ARGUMENT",),
        "XLA refused an argument of the program, an option or an operand",
    ),
    _Form(
        "not_found",
        r"NOT_FOUND: ",
        "NOT_FOUND",
        Reason.COMPILE_ERROR,
        ("xla:NOT_FOUND",),
        "XLA did not find something the program names (a kernel, a target, a file)",
    ),
    _Form(
        "failed_precondition",
        r"FAILED_PRECONDITION: ",
        "FAILED_PRECONDITION",
        Reason.COMPILE_ERROR,
        ("xla:FAILED_PRECONDITION",),
        "the runtime was not in the state the call needs (a device library, a buffer)",
    ),
)
_STATUS = _alternation(_STATUS_FORMS)
# The forms that only say a status code (or a stage): dropped where a specific form explained
# the same message (see _drop_generic).
_GENERIC_STATUS = frozenset(
    {"invalid_argument", "not_found", "failed_precondition", "hlo_verifier"}
)
_GENERIC_OPS = frozenset(
    {"UNIMPLEMENTED", *(f.op for f in _STATUS_FORMS if f.group in _GENERIC_STATUS)}
)
# The exceptions JAX raises XLA's status errors as (jax 0.4.36 on; XlaRuntimeError before).
_XLA_RUNTIME_CLASSES = ("JaxRuntimeError", "XlaRuntimeError")
# `%bitcast-convert.5 = s64[3]{0} bitcast-convert(f64[3]{0} %p)`: the opcode and element types.
_HLO_OP = re.compile(r"= *[^ \n]+ (?P<opcode>[a-z][\w-]*)\(")
_HLO_NAME_TYPE = re.compile(r"%?(?P<name>[\w.-]+) = (?P<etype>[a-z]\w*)\[")
_OP_NAME = re.compile(r'op_name="(?P<op_name>[^"\n]*)"')
_X64_TYPES = re.compile(r"\b(f64|c128|s64|u64)\[")
_FAILED_AFTER = re.compile(r"Failed after (?P<pass>[\w-]+)")
_WRONG = re.compile(
    r"Wrong (?P<what>[a-z][a-z ]*?): expected (?P<expected>\w+) but got (?P<got>\w+?)"
    r"(?=Wrong |\s|$)"
)
# What an FFI handler's platform word (`on a platform Host (canonical host)`, `CUDA`) means.
_FFI_PLATFORMS = {"host": Platform.CPU, "cuda": Platform.GPU, "rocm": Platform.GPU}
# Log lines before a cuDNN failure that say why (cuda_dnn.cc).
_CUDNN_CAUSES = re.compile(
    r"Loaded runtime CuDNN library: [^\n]*?compiled with: [\d.]+"
    r"|Could not create cudnn handle: \w+"
    r"|Memory usage: \d+ bytes free, \d+ bytes total"
)


@dataclass(slots=True)
class _Status:
    """What a status message says beyond its form: the offender, the dtype, the device, and
    notes on where it failed."""

    op: str
    node: str = ""
    dtype: str | None = None
    device: str | None = None
    platform: Platform | None = None
    hints: list[str] = field(default_factory=list)


def _status_facts(log: _Log, m: re.Match[str], form: _Form) -> _Status:
    facts = _Status(op=form.op)
    group = form.group
    if group == "element_type":
        facts.dtype, facts.op, facts.device = m["etype"].lower(), m["etype"], m["eplat"]
        facts.platform = _platform(facts.device)
    elif group == "x64_rewrite":
        hlo = m["hlo"][:2048]
        opcode = _HLO_OP.search(hlo)
        found = set(_X64_TYPES.findall(hlo))
        types = [t for t in ("f64", "c128", "s64", "u64") if t in found]  # floats decide
        facts.op = opcode["opcode"] if opcode else "X64 rewriting"
        facts.dtype = ",".join(types) or None
        facts.platform, facts.device = Platform.TPU, "TPU (64-bit types are rewritten for TPU)"
    elif group == "tpu_driver_x64":
        facts.platform, facts.device = Platform.TPU, "TPU driver"
    elif group == "custom_element_size":
        _read_verifier_hlo(log, m, facts)
    elif group in ("ffi_not_found", "custom_call_not_found"):
        _read_missing_target(m, group, facts)
    elif group in ("ffi_operands", "ffi_arity", "ffi_helpers"):
        _read_ffi_operands(log, m, group, facts)
    elif group == "cudnn_init":
        facts.platform, facts.device = Platform.GPU, "GPU (cuDNN)"
        window = log.text[max(0, m.start() - 8192) : m.start()]
        facts.hints.extend(dict.fromkeys(c.group() for c in _CUDNN_CAUSES.finditer(window)))
    return facts


def _read_verifier_hlo(log: _Log, m: re.Match[str], facts: _Status) -> None:
    hlo = m["ces_hlo"][:2048]
    opcode, named = _HLO_OP.search(hlo), _HLO_NAME_TYPE.match(hlo)
    facts.op = opcode["opcode"] if opcode else "HLO instruction"
    if named:
        facts.node, facts.dtype = named["name"], named["etype"]
    facts.device = "CPU or GPU (XLA's CPU/GPU backends)"
    op_name = _OP_NAME.search(hlo)
    if op_name:
        facts.hints.append(f"made from {op_name['op_name']} (the op_name XLA kept)")
    after = _FAILED_AFTER.search(log.text, m.end(), _paragraph_end(log, m.end()) + 256)
    if after:
        facts.hints.append(f"the verifier ran after XLA's {after['pass']} pass (compile time)")


def _read_missing_target(m: re.Match[str], group: str, facts: _Status) -> None:
    if group == "ffi_not_found":
        facts.op, word = m["nf_target"], m["nf_platform"].strip()
    else:
        facts.op, word = m["cn_target"], m["cn_platform"]
        if m["cn_api"] == "untyped":
            facts.hints.append(
                "the call used the legacy (untyped) custom-call API: a handler registered "
                "with jax.ffi.register_ffi_target is typed FFI, called with "
                "custom_call_api_version=4 (ffi_call's default)"
            )
    facts.platform = _FFI_PLATFORMS.get(word.lower()) or _platform(word)
    facts.device = word
    facts.hints.append("XLA looks handlers up by name and platform when it compiles the call")


def _read_ffi_operands(log: _Log, m: re.Match[str], group: str, facts: _Status) -> None:
    if group == "ffi_arity":
        facts.node = m["fa_what"]
        facts.hints.append(f"{m['fa_what']}: expected {m['fa_expected']}, got {m['fa_got']}")
        return
    if group == "ffi_helpers":
        facts.hints.append(clean_message(m["fh_msg"]))
        return
    facts.node = f"operands at {m['fo_at'].strip()}"
    end = min(_paragraph_end(log, m.end()), m.end() + 2048)
    wrong = list(dict.fromkeys(w.group() for w in _WRONG.finditer(log.text, m.end(), end)))
    facts.hints.extend(wrong)
    dtypes = [w for w in _WRONG.finditer(log.text, m.end(), end) if "type" in w["what"]]
    if dtypes:
        facts.dtype = dtypes[0]["got"].lower()


def _glued_path_start(log: _Log, pos: int) -> int:
    """Where a message that opens with a path ends up starting (``./jaxlib/ffi_helpers.h: ...``
    is matched from ``jaxlib``): the class and status code are read before that."""
    before = log.before_on_line(pos)
    if not before.endswith("/"):
        return pos
    glued = re.search(r"[\w./-]*$", before)
    return pos - len(glued.group()) if glued else pos


def _xla_status(log: _Log, m: re.Match[str]) -> Iterator[Failure]:
    form = _form_of(_STATUS_FORMS, m)
    start = _glued_path_start(log, m.start())
    error_class = _class_before(log, start)
    bare_code = form.group in _GENERIC_STATUS and form.group != "hlo_verifier"
    if bare_code and error_class not in _XLA_RUNTIME_CLASSES:
        return  # a status code alone, not raised by JAX as XLA's: not ours to explain
    facts = _status_facts(log, m, form)
    stack = log.traceback_before(m.start())
    function = _jax_function(log, m.start(), _paragraph_end(log, m.start()), stack)
    keys = (*(facts.dtype or "").split(","), *form.fix_keys)
    if form.group == "custom_element_size":
        keys = form.fix_keys  # the fix is about the sub-byte operand, not the wide type
    finding = Finding(
        op=facts.op,
        node=facts.node,
        function=function,
        reason=form.reason,
        dtype=facts.dtype,
        source=_source(stack),
        suggestion=_advise(keys, form.reason),
        detail=log.headline(m.start()),
    )
    status = _status_before(log, start)
    if form.group == "unimplemented" or (form.group in _GENERIC_STATUS and form.op.isupper()):
        status = form.op
    yield Failure(
        Family.XLA_STATUS,
        finding,
        message=finding.detail,
        device=facts.device,
        platform=facts.platform,
        chain=_function_chain(function),
        stack=stack,
        error_class=error_class,
        status=status,
        hints=[form.meaning, *facts.hints],
    )


_EXPORT_FORMS: tuple[_Form, ...] = (
    _Form(
        "custom_call",
        r"Cannot serialize code with custom calls whose targets have no compatibility "
        r"guarantees",
        "custom_call",
        Reason.EXPORT,
        ("jax.export:custom_call",),
        "jax.export only serializes custom calls with compatibility guarantees",
    ),
    _Form(
        "host_callbacks",
        r"serialization of host_callbacks is not yet implemented",
        "host_callback",
        Reason.EXPORT,
        ("host_callbacks", "xla_ffi_python_cpu_callback"),
        "a host callback (pure_callback, io_callback, debug.print) cannot be serialized",
    ),
    _Form(
        "compile_args",
        r"serialization error, unimplemented lowered\.compile_args:",
        "host_callback",
        Reason.EXPORT,
        ("host_callbacks", "xla_ffi_python_cpu_callback"),
        "the lowering keeps host callbacks or objects alive, which cannot be serialized",
    ),
    _Form(
        "multi_platform_callback",
        r"multi-platform lowering for python_callback",
        "host_callback",
        Reason.HOST_CALLBACK,
        ("host_callbacks", "xla_ffi_python_cpu_callback"),
        "a host callback cannot be lowered for several platforms at once",
    ),
    _Form(
        "platform_mismatch",
        r"Function '(?P<pm_fn>[^'\n]+)' was (?:exported|lowered) for platforms "
        r"'(?P<pm_for>[^\n]+?)' but it is used on '(?P<pm_on>[^\n]+)'\.?[ \t]*(?=\n|\Z)",
        "",
        Reason.EXPORT,
        ("jax.export:platforms",),
        "the artifact was exported for other platforms than the one running it",
    ),
    _Form(
        "backend_mismatch",
        r"the platform for the specified backend (?P<bm_backend>\w+) is different from the "
        r"lowering platform (?P<bm_platform>\w+)",
        "lowering platform",
        Reason.EXPORT,
        ("jax.export:platforms",),
        "a program lowered for one platform cannot be compiled by another platform's backend",
    ),
    _Form(
        "persistent_cache",
        r"Not writing persistent cache entry for '(?P<pc_module>[^'\n]+)' because it uses "
        r"host callbacks",
        "host_callback",
        Reason.HOST_CALLBACK,
        ("xla_ffi_python_cpu_callback",),
        "programs with host callbacks are not written to the persistent compilation cache",
    ),
)
_EXPORT = _alternation(_EXPORT_FORMS)
_CUSTOM_CALL_TARGET = re.compile(r"stablehlo\.custom_call @(?P<target>[\w.$-]+)")
_MLIR_LOC = re.compile(r"\"(?P<file>[^\"\n]+)\":(?P<line>\d+):\d+")


def _export_targets(log: _Log, pos: int) -> list[tuple[str, list[StackFrame]]]:
    """The ``Examples are:`` lines of a custom-call refusal: each target, with the source
    locations its ``loc(...)`` names (innermost first)."""
    end = log.text.find("\n\n", pos, pos + _WINDOW)
    end = pos + _WINDOW if end < 0 else end
    found: list[tuple[str, list[StackFrame]]] = []
    for target in _CUSTOM_CALL_TARGET.finditer(log.text, pos, end):
        line_end = min(log.line_end(target.end()), end)
        locs = _MLIR_LOC.findall(log.text, target.end(), line_end)
        found.append((target["target"], [StackFrame(f, int(n)) for f, n in locs]))
    return found


def _platform_list(text: str) -> str:
    """``"('tpu', 'cuda')"`` -> ``"tpu, cuda"``."""
    return ", ".join(re.findall(r"[A-Za-z]\w*", text)) or text


def _joined(inner: list[StackFrame], outer: list[StackFrame]) -> list[StackFrame]:
    """``inner`` then the frames of ``outer`` at other lines (a ``loc(...)`` and the
    traceback often name the same line)."""
    known = {(frame.file, frame.line) for frame in inner}
    return inner + [frame for frame in outer if (frame.file, frame.line) not in known]


def _jax_export(log: _Log, m: re.Match[str]) -> Iterator[Failure]:
    form = _form_of(_EXPORT_FORMS, m)
    stack = log.traceback_before(m.start())
    device = platform = None
    offenders: list[tuple[str, list[StackFrame]]] = [(form.op, stack)]
    if form.group == "custom_call":
        offenders = [(t, _joined(s, stack)) for t, s in _export_targets(log, m.end())] or offenders
    elif form.group == "platform_mismatch":
        offenders = [(m["pm_fn"], stack)]
        used, exported = _platform_list(m["pm_on"]), _platform_list(m["pm_for"])
        device = f"{used} (exported for {exported})"
        platform = _platform(m["pm_on"])
    elif form.group == "backend_mismatch":
        device = f"{m['bm_platform']} (backend {m['bm_backend']})"
        platform = _platform(m["bm_platform"])
    function = _jax_function(log, m.start(), _paragraph_end(log, m.start()), stack)
    for op, frames in offenders:
        finding = Finding(
            op=op,
            node="",
            function=function,
            reason=form.reason,
            source=_source(frames),
            suggestion=_advise(form.fix_keys, form.reason),
            detail=log.headline(m.start()),
        )
        yield Failure(
            Family.JAX_EXPORT,
            finding,
            message=finding.detail,
            device=device,
            platform=platform,
            chain=_function_chain(function),
            stack=frames,
            error_class=_class_before(log, m.start()),
            hints=[form.meaning],
        )


_PALLAS = re.compile(
    r"Cannot lower pallas_call on platform: ?(?P<platform>\w+)"
    r"|Only interpret mode is supported on CPU backend"
)


def _pallas(log: _Log, m: re.Match[str]) -> Iterator[Failure]:
    device = m["platform"] or "cpu"
    stack = log.traceback_before(m.start())
    function = _jax_function(log, m.start(), _paragraph_end(log, m.start()), stack)
    finding = Finding(
        op="pallas_call",
        node="",
        function=function,
        reason=Reason.NO_LOWERING,
        source=_source(stack),
        suggestion=_advise(("pallas_call", "tpu_custom_call"), Reason.NO_LOWERING),
        detail=log.headline(m.start()),
    )
    yield Failure(
        Family.PALLAS,
        finding,
        message=finding.detail,
        device=device,
        platform=_platform(device),
        chain=_function_chain(function),
        stack=stack,
        error_class=_class_before(log, m.start()),
        hints=[
            "Pallas kernels run on the GPU or TPU they were written for; elsewhere only "
            "with interpret=True"
        ],
    )


# ---- out of memory ------------------------------------------------------------------------------

# GPU prints "Out of memory while trying to allocate" and, a line on, "BufferAssignment OOM
# Debugging.": one report, read from its first line.
_OOM_SAME_REPORT = 512
# The device a report names: XLA:TPU in its status, or the TPU compiler's own wording.
_OOM_PLATFORM = re.compile(r"XLA:(?P<word>TPU|GPU|CPU)\b")


_LINE_CLASS = re.compile(r"(?P<cls>[A-Za-z_][\w.]*?(?:Error|Exception)): ")


def _oom_class(line: str) -> str | None:
    """The exception class that opens the message's line (``XlaRuntimeError: RESOURCE_EX...``);
    the opening words may sit mid-line (TPU: "...compile permanent error. Ran out of ...")."""
    found = _LINE_CLASS.match(line)
    return found["cls"].rsplit(".", 1)[-1] if found else None


def _out_of_memory(log: _Log, m: re.Match[str]) -> Iterator[Failure]:
    """An out-of-memory report (:func:`~.memory.oom_log.read_oom`): the failure names the
    function from the op_names, the largest user line that made buffers, and the fixes."""
    if m.group(0).startswith("BufferAssignment") and OOM_OPENING.search(
        log.text, max(0, m.start() - _OOM_SAME_REPORT), m.start()
    ):
        return
    report = read_oom(log.text, m.start())
    if report is None:
        return
    start = log.text.rfind("\n", 0, m.start()) + 1
    groups = [g for g in report.by_source() if g.source is not None]
    user = [g.source for g in groups if g.user and g.source is not None]
    stack = log.traceback_before(start)
    function = _jax_function(log, m.start(), log.region_end(m.start()), stack)
    word = _OOM_PLATFORM.search(log.text, start, log.line_end(m.end()))
    device = word["word"].lower() if word else ("tpu" if m["space"] else None)
    fixes = oom_fixes(report)
    finding = Finding(
        op="out of memory",
        node="",
        function=function,
        reason=Reason.OUT_OF_MEMORY,
        source=f"{user[0].file}:{user[0].line}" if user else _source(stack),
        suggestion="; ".join(fix.fix for fix in fixes[:2]),
        detail=log.headline(start),
    )
    yield Failure(
        Family.OUT_OF_MEMORY,
        finding,
        message=log.headline(start),
        device=device,
        platform=_platform(device),
        chain=_function_chain(function),
        stack=stack,
        error_class=_oom_class(log.headline(start)),
        status="RESOURCE_EXHAUSTED" if "RESOURCE_EXHAUSTED: " in log.headline(start) else None,
        memory=report,
    )


# ---- the table and the driver -------------------------------------------------------------------

Handler = Callable[[_Log, re.Match[str]], Iterable[Failure]]


@dataclass(frozen=True, slots=True)
class Recogniser:
    """One family of messages: the regex that finds each message's opening, and the handler
    that reads the match and the text after it into failures."""

    family: Family
    pattern: re.Pattern[str]
    handler: Handler


#: Every family :func:`explain_error` knows, tried in this order on the whole text.
RECOGNISERS: tuple[Recogniser, ...] = (
    Recogniser(Family.TF2XLA, _TF2XLA, _tf2xla),
    Recogniser(Family.TF1_LIST, _TF1_LIST, _tf1_list),
    Recogniser(Family.MLIR_BRIDGE, _MLIR, _mlir_bridge),
    Recogniser(Family.TF_KNOWN_ISSUE, _KNOWN, _tf_known_issue),
    Recogniser(Family.JAX_TRACING, _TRACING, _jax_tracing),
    Recogniser(Family.MISSING_LOWERING, _LOWERING, _missing_lowering),
    Recogniser(Family.XLA_STATUS, _STATUS, _xla_status),
    Recogniser(Family.JAX_EXPORT, _EXPORT, _jax_export),
    Recogniser(Family.PALLAS, _PALLAS, _pallas),
    Recogniser(Family.OUT_OF_MEMORY, OOM_OPENING, _out_of_memory),
)

# Repeats of a message are recognised by this much text from its start (the op, node and
# function of a TF message; the class and the "while tracing" line of a JAX one).
_REPEAT_KEY = 600


def explain_error(text: str, recognisers: Iterable[Recogniser] = RECOGNISERS) -> ErrorExplanation:
    """Explain every TensorFlow, JAX or XLA compile error in ``text`` (see the module
    docstring); ``recognised`` is False when none is there."""
    log = _Log(normalise_log(text))
    merged: dict[tuple[str, ...], list[Failure]] = {}
    for recogniser in recognisers:
        seen: dict[str, list[Failure]] = {}
        for match in recogniser.pattern.finditer(log.text):
            if log.in_source_line(match.start()) or log.in_test_summary(match.start()):
                continue
            key = log.text[match.start() : match.start() + _REPEAT_KEY]
            if key in seen:  # the same message again: count it, do not read it again
                for failure in seen[key]:
                    failure.occurrences += 1
                continue
            found = [_placed(f, match.start()) for f in recogniser.handler(log, match)]
            seen[key] = [_merge(merged, failure) for failure in found]
    failures = sorted((f for kept in merged.values() for f in kept), key=lambda f: f.offset)
    _drop_generic(failures)
    lines = log.text.count("\n") + (bool(log.text) and not log.text.endswith("\n"))
    return ErrorExplanation(failures, lines=lines)


def _placed(failure: Failure, offset: int) -> Failure:
    failure.offset = offset
    return failure


def _merge(merged: dict[tuple[str, ...], list[Failure]], failure: Failure) -> Failure:
    """Add ``failure``, or fold it into the one it repeats; return the one kept. A repeat
    that names no function is the same failure as one that does (JAX prints a lowering error
    twice: after the stack that made the op, where nothing names the function, and after the
    call's traceback)."""
    function = failure.finding.function
    same = merged.setdefault(failure.identity_without_function, [])
    for kept in same:
        if function in (kept.finding.function, "") or not kept.finding.function:
            kept.absorb(failure)
            return kept
    same.append(failure)
    return failure


def _drop_generic(failures: list[Failure]) -> None:
    """A bare status code (``UNIMPLEMENTED: ...``, ``INVALID_ARGUMENT: ...``) or verifier
    context whose message another form explained says nothing more: drop it."""

    def generic(failure: Failure) -> bool:
        return failure.family == Family.XLA_STATUS and failure.finding.op in _GENERIC_OPS

    for failure in [f for f in failures if generic(f)]:
        others = [f for f in failures if f is not failure and f.offset >= failure.offset]
        if any(failure.message.find(other.message[:80]) >= 0 for other in others):
            failures.remove(failure)
