"""The typed model of an HLO module: :class:`Module` > :class:`Computation` > :class:`Instruction`.

Objects are built by :mod:`hloscope.hlo.parser`. Everything that is cheap to keep is read eagerly
(names, opcodes, shapes as text, operand lists); everything else (shapes as objects, attributes,
metadata) is decoded on first access and cached, so a 3 MB module parses quickly while every
detail stays reachable.
"""

from __future__ import annotations

import functools
import operator
import re
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from collections.abc import Set as AbstractSet
from itertools import compress, repeat
from typing import TYPE_CHECKING, Any

from .errors import DecodeError, HloParseError
from .gc_pause import paused_gc
from .metadata import EMPTY_METADATA, Metadata, StackFrame
from .opcodes import CALLED_COMPUTATION_ATTRS, Category, category_of
from .shape import Shape, parse_shape

# The metadata fields that locate an op, for :attr:`Instruction.location`'s quick read
# (a backslash in the file name sends it to the full decoder, which unescapes).
_DIGITS = re.compile(r"\d+")
_NO_LOCATION = (0, "", 0)
_OP_NAME = re.compile(r'\bop_name="([^"\\]*)"')
# Instruction defines no __new__: Instruction.from_parts makes the bare object with this and
# sets the slots itself, without __init__.
_new_instruction = object.__new__
_new_computation = object.__new__

if TYPE_CHECKING:  # pragma: no cover
    import networkx

    from .attributes import Attributes

# The attribute decoders (a fifth of this package's import time) load on first use: a summary
# of a module reads its fusion kinds and locations from the text and may never decode one.
# attributes imports only leaf modules (metadata, shape, opcodes), never this one.

__all__ = [
    "Module",
    "Computation",
    "Instruction",
    "Metadata",
    "StackFrame",
    "SourceText",
    "CALLED_COMPUTATION_ATTRS",
]


class SourceText:
    """The text a module came from, used to point errors at ``path:line:column``."""

    __slots__ = ("path", "text", "_line_starts")

    def __init__(self, text: str, path: str | None = None) -> None:
        self.path = path
        self.text = text
        self._line_starts: list[int] | None = None

    def line_text(self, line: int) -> str:
        starts = self._starts()
        if not 1 <= line <= len(starts):
            return ""
        begin = starts[line - 1]
        end = self.text.find("\n", begin)
        return self.text[begin : end if end >= 0 else len(self.text)]

    def _starts(self) -> list[int]:
        if self._line_starts is None:
            starts = [0]
            find = self.text.find
            i = find("\n")
            while i >= 0:
                starts.append(i + 1)
                i = find("\n", i + 1)
            self._line_starts = starts
        return self._line_starts

    def position(self, offset: int) -> tuple[int, int]:
        """1-based (line, column) of a character offset."""
        import bisect

        starts = self._starts()
        line = bisect.bisect_right(starts, offset)
        return line, offset - starts[line - 1] + 1

    def error(self, message: str, line: int, column: int = 1) -> HloParseError:
        return HloParseError(
            message, path=self.path, line=line, column=column, source_line=self.line_text(line)
        )


# A deep model prints a few hundred distinct attribute texts over hundreds of thousands of ops
# (each layer's ops carry the same metadata), so the quick reads remember their answers: a hit
# costs a hash and a compare, a tenth of reading the text again. Bounded, so a stream of
# modules cannot grow it without limit.
_QUICK_READS = 1 << 16


@functools.lru_cache(maxsize=_QUICK_READS)
def quick_location(text: str) -> tuple[int, str, int] | None:
    """``(stack_frame_id, source_file, source_line)`` read from an instruction's attribute text
    with ``str.find`` alone, or None where only the metadata decoder can tell (an escape in the
    file name, fields out of XLA's printed order). See :attr:`Instruction.location`."""
    if "metadata=" not in text:
        return _NO_LOCATION
    # Substring tests first: a regex search costs more than the test that skips it.
    frame = 0
    at = text.find(" stack_frame_id=")
    if at < 0:
        at = text.find("{stack_frame_id=")
    if at >= 0:
        digits = _DIGITS.match(text, at + 16)
        if digits is None:
            return None
        frame = int(digits.group())
    elif "stack_frame_id=" in text:
        return None
    if "source_" not in text:
        return (frame, "", 0)  # what JAX prints today: the frame id alone (one scan, not four)
    start = text.find(' source_file="')
    if start < 0:
        start = text.find('{source_file="')
    if start >= 0:
        start += 14
        end = text.find('"', start)
        file = text[start:end]
        if end > 0 and "\\" not in file:
            if text.startswith(" source_line=", end + 1):
                digits = _DIGITS.match(text, end + 14)
                if digits is not None:
                    return (frame, file, int(digits.group()))
            elif "source_line=" not in text:
                return (frame, file, 0)
        return None
    if "source_file=" not in text and "source_line=" not in text:
        return (frame, "", 0)
    return None


@functools.lru_cache(maxsize=_QUICK_READS)
def quick_op_name(text: str) -> str | None:
    """The metadata's ``op_name`` read from an instruction's attribute text, or None where only
    the metadata decoder can tell (an escape inside the name). See :attr:`Instruction.op_name`."""
    if "op_name=" not in text:
        return "" if "metadata=" not in text else None
    found = _OP_NAME.search(text)
    return found.group(1) if found is not None else None


_SINGLE_CALL = re.compile(
    r"(?:^|, )(?:" + "|".join(CALLED_COMPUTATION_ATTRS) + r")=%?([A-Za-z_][\w.\-]*)(?=,|$)"
)


def _single_called_name(text: str) -> str | None:
    """The computation of ``calls=f`` (or ``to_apply=f``...) when it is the only one named and
    sits at the top level of the attributes, before any string; else None (split them all).
    Splitting a fusion's attributes to find its one callee cost more than the rest of a
    summary."""
    m = _SINGLE_CALL.search(text)
    if m is None:
        return None
    before = text[: m.start()]
    if '"' in before or before.count("{") != before.count("}") or "(" in before:
        return None
    if len(_CALLEE_KEYS.findall(text)) != 1:
        return None  # another callee attribute (or the word in a string): split them all
    return m.group(1)


# Every 'calls=', 'to_apply=', ... anywhere in a text: as many as the texts' counts of each
# added up (no key is another's suffix, so no two can overlap), in one pass in C.
_CALLEE_KEYS = re.compile("(?:" + "|".join(CALLED_COMPUTATION_ATTRS) + ")=")


_FRAME_ID = re.compile(r"stack_frame_id=(\d+)")  # a literal start: searched at memchr speed


def quick_location_counts(texts: Sequence[str]) -> Counter[tuple[int, str, int]] | None:
    """How many of these attribute texts have each :func:`quick_location`, counted over their
    joined text in C, or None where that count could differ from the one-by-one answer.

    It holds for what JAX prints (``metadata={op_name=... stack_frame_id=N}``): no
    ``source_file``/``source_line`` fields, and at most one frame id per op, inside its
    metadata. Anything else is None, and the caller counts op by op.
    """
    joined = "\n".join(texts)
    if "source_" in joined:
        return None
    frames = _FRAME_ID.findall(joined)
    everywhere = joined.count("stack_frame_id=")
    if len(frames) != everywhere:
        return None  # a frame id without digits
    if frames:
        if everywhere != joined.count(" stack_frame_id=") + joined.count("{stack_frame_id="):
            return None  # a frame id not after ' ' or '{'
        with_frame = list(map(operator.contains, texts, repeat("stack_frame_id=")))
        if sum(with_frame) != len(frames):
            return None  # two on one line
        with_metadata = map(operator.contains, texts, repeat("metadata="))
        if any(map(operator.gt, with_frame, with_metadata)):
            return None  # a frame id outside any metadata
    counts: Counter[tuple[int, str, int]] = Counter()
    for frame, count in Counter(frames).items():
        counts[(int(frame), "", 0)] += count
    if len(texts) > len(frames):
        counts[_NO_LOCATION] += len(texts) - len(frames)
    return counts


class Instruction:
    """One HLO instruction: ``[ROOT] name = shape opcode(operands), attr=value, ...``.

    ``opcode`` is XLA's text name (``add``, ``get-tuple-element``, ``fusion``); ``operands`` are the
    defining :class:`Instruction` objects; ``attrs`` is a lazy mapping from attribute name to a
    decoded value (``attrs.raw(name)`` gives the text as written).
    """

    __slots__ = (
        "name",
        "opcode",
        "computation",
        "operands",
        "_users",
        "_shape_text",
        "_shape",
        "_payload",
        "_attr_text",
        "_attrs",
        "_line",
        "_attr_col",
        "_called",
        "_metadata",
        "__weakref__",
    )

    def __init__(
        self,
        name: str,
        opcode: str,
        shape_text: str,
        attr_text: str = "",
        payload: str | None = None,
        line: int = 0,
        attr_col: int = 0,
    ) -> None:
        self.name = name
        self.opcode = opcode
        self.computation: Computation | None = None
        self.operands: list[Instruction] = []
        self._users: list[Instruction] | None = None
        self._shape_text = shape_text
        self._shape: Shape | None = None
        self._payload = payload
        self._attr_text = attr_text
        self._attrs: Attributes | None = None
        self._line = line
        self._attr_col = attr_col
        self._called: list[Computation] | None = None
        self._metadata: Metadata | None = None

    @classmethod
    def from_parts(
        cls,
        name: str,
        opcode: str,
        shape_text: str,
        attr_text: str,
        attr_col: int,
        payload: str | None,
        line: int,
        computation: Computation | None,
        operands: list[Instruction],
    ) -> Instruction:
        """The fast constructor the parser uses, one call per instruction of a module.

        It builds the same instruction as ``Instruction(name, opcode, shape_text, attr_text,
        payload, line, attr_col)`` with ``computation`` and ``operands`` set, but every
        argument is positional and required, and the slots are set directly: the parser makes
        tens of thousands of instructions per module, where going through ``type.__call__`` and
        ``__init__``'s defaults shows in the parse time. ``operands`` is kept, not copied (the
        parser passes ``[]`` for operands it resolves later). ``attr_col`` may be ``-1``: the
        column where the attributes start is then worked out when an error message needs it
        (see :meth:`_attribute_column`)."""
        inst = _new_instruction(cls)
        inst.name = name
        inst.opcode = opcode
        inst.computation = computation
        inst.operands = operands
        inst._users = inst._shape = inst._attrs = inst._called = inst._metadata = None
        inst._shape_text = shape_text
        inst._payload = payload
        inst._attr_text = attr_text
        inst._attr_col = attr_col
        inst._line = line
        return inst

    @property
    def users(self) -> list[Instruction]:
        """Instructions of the same computation that use this one, in order (built on demand)."""
        users = self._users
        if users is None:
            comp = self.computation
            if comp is None:
                return []
            comp._build_users()
            users = self._users
        return users  # type: ignore[return-value]

    # --- shape ----------------------------------------------------------------------------
    @property
    def shape(self) -> Shape:
        shape = self._shape
        if shape is None:
            if not self._shape_text:
                shape = self._shape = self._inferred_shape()
                return shape
            try:
                shape = self._shape = parse_shape(self._shape_text)
            except DecodeError as e:
                raise self._error(f"bad shape {self._shape_text!r}: {e.message}") from None
        return shape

    def _inferred_shape(self) -> Shape:
        """XLA lets text leave out the shape where it can infer it; we infer the common cases:
        elementwise ops (the first array operand's shape; ``pred`` for compare) and tuples."""
        ops = self.operands
        if self.opcode == "tuple":
            return Shape("tuple", tuple_shapes=tuple(op.shape for op in ops))
        if self.category == "elementwise" and ops:
            base = ops[1].shape if self.opcode == "select" and len(ops) > 1 else ops[0].shape
            if self.opcode in ("compare", "is-finite"):
                return Shape("pred", base.dims, base.dynamic_dims, base.layout)
            return base
        if self.opcode == "get-tuple-element" and ops:
            index = self.attrs.get("index")
            subs = ops[0].shape.tuple_shapes
            if isinstance(index, int) and 0 <= index < len(subs):
                return subs[index]
        raise self._error(f"the shape of {self.opcode!r} is left out and hloscope cannot infer it")

    @property
    def shape_text(self) -> str:
        return self._shape_text

    # --- attributes -----------------------------------------------------------------------
    @property
    def attrs(self) -> Attributes:
        attrs = self._attrs
        if attrs is None:
            from .attributes import Attributes

            attrs = self._attrs = Attributes(self._attr_text, self.opcode, self._attr_error)
        return attrs

    def _attr_error(self, message: str, offset: int) -> HloParseError:
        return self._error(message, self._attribute_column() + offset + 1)

    def _attribute_column(self) -> int:
        """0-based column where the attribute text starts in its line (0: unknown).

        The parser's bulk path leaves it for later (``-1``): only error messages need it, and
        working it out for every line costs a tenth of the parse. It is then the line's length
        less the attributes', the attributes running to the end of the line there.
        """
        column = self._attr_col
        if column < 0:
            column = 0
            comp = self.computation
            module = comp.module if comp is not None else None
            source = module.source if module is not None else None
            if source is not None:
                line = source.line_text(self._line)
                if line.endswith(self._attr_text):
                    column = len(line) - len(self._attr_text)
            self._attr_col = column
        return column

    @property
    def attr_text(self) -> str:
        """The attribute text after the operand list, as written (without the leading ', ')."""
        return self._attr_text

    @property
    def payload(self) -> str | None:
        """What stands in the parentheses of ``parameter(N)`` and ``constant(...)``."""
        return self._payload

    @property
    def parameter_number(self) -> int | None:
        if self.opcode != "parameter" or self._payload is None:
            return None
        try:
            return int(self._payload.strip())
        except ValueError:
            return None

    @property
    def literal(self) -> Any:
        """The value of a ``constant`` as a numpy array (``None`` when elided as ``{...}``)."""
        if self.opcode != "constant" or self._payload is None:
            return None
        from .literals import parse_literal

        try:
            return parse_literal(self._payload, self.shape)
        except DecodeError as e:
            raise self._error(f"bad literal: {e.message}") from None

    @property
    def metadata(self) -> Metadata:
        md = self._metadata
        if md is None:
            # Metadata is what most reports read from every instruction: take the one-pass
            # reader first, and the attribute mapping (which also reports errors) otherwise.
            if self._attrs is None:
                from .attributes import read_metadata

                md = read_metadata(self._attr_text)
            if md is None:
                md = self.attrs.get("metadata") or EMPTY_METADATA
            self._metadata = md
        return md

    @property
    def fusion_kind(self) -> str | None:
        """``kLoop``/``kInput``/``kOutput``/``kCustom`` for a fusion, else ``None``."""
        if self.opcode != "fusion":
            return None
        if self._attrs is None:
            # XLA prints 'kind=kLoop' first: read it off the text when nothing before it can
            # hide another 'kind=' (a string or a brace), without splitting every attribute.
            text = self._attr_text
            if text.startswith("kind=k") and text.count("kind=") == 1:
                end = text.find(",")
                kind = text[5:end] if end >= 0 else text[5:]
                if kind.isalnum():
                    return kind
        return self.attrs.get("kind")

    @property
    def called_computations(self) -> list[Computation]:
        called = self._called
        if called is None:
            called = self._called = self._resolve_called()
        return called

    @property
    def category(self) -> Category:
        return category_of(self.opcode)

    @property
    def is_root(self) -> bool:
        comp = self.computation
        return comp is not None and comp.root is self

    @property
    def line(self) -> int:
        """1-based line where the instruction starts in the parsed text (0 if unknown)."""
        return self._line

    @property
    def fused_computation(self) -> Computation | None:
        if self.opcode != "fusion":
            return None
        called = self.called_computations
        return called[0] if called else None

    @property
    def async_wrapped(self) -> Instruction | None:
        """The op an ``async-start``/``-update``/``-done`` runs: the root of the computation its
        start calls (the ``fusion`` of a ``fusion-start``, for instance). ``None`` otherwise.
        """
        start = self
        for _ in range(10_000):  # -update/-done chain back to their start; a bound, not a loop
            if start.opcode not in ("async-update", "async-done") or not start.operands:
                break
            start = start.operands[0]
        if start.opcode != "async-start":
            return None
        called = start.called_computations
        return called[0].root if called else None

    # --- provenance -----------------------------------------------------------------------
    @property
    def stack(self) -> list[StackFrame]:
        """The Python call stack that produced this op, innermost frame first.

        From the module's ``StackFrames`` table (``stack_frame_id``) when present, else the
        single frame given by ``source_file``/``source_line``.
        """
        md = self.metadata
        module = self.computation.module if self.computation is not None else None
        if md.stack_frame_id and module is not None:
            frames = module.stack_frames(md.stack_frame_id)
            if frames:
                return frames
        if md.source_file:
            return [
                StackFrame(
                    md.source_file,
                    md.source_line,
                    "",
                    md.source_column,
                    md.source_end_line,
                    md.source_end_column,
                )
            ]
        return []

    @property
    def location(self) -> tuple[int, str, int]:
        """``(stack_frame_id, source_file, source_line)`` of the metadata (0 and ``""`` where
        absent), read straight from the attribute text when the metadata was not decoded yet.

        Reports that group a whole module's ops by where they came from need only these three
        fields, and decoding every op's metadata costs ten times more. Text the quick read is
        unsure of (an escape in the file name, fields out of XLA's printed order) goes to the
        full decoder, so the answer is always the decoded metadata's.
        """
        if self._metadata is None:
            quick = quick_location(self._attr_text)
            if quick is not None:
                return quick
        md = self.metadata
        return (md.stack_frame_id, md.source_file, md.source_line)

    @property
    def op_name(self) -> str:
        """The metadata's ``op_name`` (``""`` when absent), read like :attr:`location`:
        straight from the text while the metadata is not decoded, the decoder for escapes."""
        md = self._metadata
        if md is None:
            name = quick_op_name(self._attr_text)
            if name is not None:
                return name
            md = self.metadata
        return md.op_name

    @property
    def source_file(self) -> str | None:
        """The file of :attr:`source` (``None`` when the op has no location), without decoding
        the metadata when :attr:`location` can answer (what a count of ops per file needs)."""
        frame_id, file, _ = self.location
        module = self.computation.module if self.computation is not None else None
        if frame_id and module is not None:
            frames = module.stack_frames(frame_id)
            if frames:
                return frames[0].file
        return file or None

    @property
    def source(self) -> StackFrame | None:
        """The innermost frame of :attr:`stack` (``None`` when the op has no location)."""
        stack = self.stack
        return stack[0] if stack else None

    # --- helpers --------------------------------------------------------------------------
    def _resolve_called(self) -> list[Computation]:
        comp = self.computation
        module = comp.module if comp is not None else None
        if module is None:
            return []
        out: list[Computation] = []
        text = self._attr_text
        if not text or "=" not in text:
            return out
        quick = _single_called_name(text)
        if quick is not None:
            found = module.computations_by_name.get(quick)
            if found is not None:
                return [found]
        attrs = None
        for key in CALLED_COMPUTATION_ATTRS:
            if key + "=" not in text:  # cheap test before splitting the attributes
                continue
            if attrs is None:
                attrs = self.attrs
            if key in attrs:
                value = attrs[key]
                names = value if isinstance(value, (list, tuple)) else [value]
                for name in names:
                    if isinstance(name, Computation):
                        out.append(name)
                        continue
                    found = module.computations_by_name.get(name)
                    if found is None:
                        raise self._error(f"{key} names unknown computation {name!r}")
                    out.append(found)
        return out

    def _error(self, message: str, column: int = 1) -> HloParseError:
        comp = self.computation
        source = comp.module.source if comp is not None and comp.module is not None else None
        if source is None:
            return HloParseError(f"{self.name}: {message}")
        return source.error(message, self._line, column)

    def __repr__(self) -> str:
        return f"<Instruction {self.name} = {self._shape_text} {self.opcode}>"

    def to_text(self, *, percent: bool = True) -> str:
        from .printer import instruction_to_text

        return instruction_to_text(self, percent=percent)


_OPCODE_OF = operator.attrgetter("opcode")
_SHAPE_TEXT_OF = operator.attrgetter("shape_text")
_OP_NAME_OF = operator.attrgetter("op_name")
_LOCATION_OF = vars(Instruction)["location"].fget  # the property's getter, called directly
_BUILD_LOCK = threading.RLock()  # see Computation._build


def _parameter_order(number: int | None) -> tuple[bool, int]:
    return (number is None, number or 0)


class Computation:
    """A named list of instructions with one root: the entry, a fused body, a reducer..."""

    __slots__ = (
        "name",
        "_instructions",
        "_root",
        "is_entry",
        "module",
        "execution_thread",
        "signature",
        "expanded_from",
        "_by_name",
        "_line",
        "_body",
        "_structure",
        "__weakref__",
    )

    def __init__(self, name: str, is_entry: bool = False, line: int = 0) -> None:
        self.name = name
        self._instructions: list[Instruction] = []
        self._root: Instruction | None = None
        self.is_entry = is_entry
        self.module: Module | None = None
        self.execution_thread: str | None = None
        self.signature: str | None = None  # "(p: f32[]) -> f32[]" as written, if any
        # The sugared ``X-start`` this computation was made from (XLA's parser makes an
        # ``async_wrapped`` computation for each); None for computations the text spells out.
        self.expanded_from: Instruction | None = None
        self._by_name: dict[str, Instruction] = {}
        self._line = line
        # A body the parser has read and checked but not turned into Instruction objects yet
        # (see ``instructions``): anything with ``build(computation)``, ``opcodes()``,
        # ``opcode_counts()``, ``location_counts()`` (None: count op by op), ``column(k)``
        # and ``attribute_texts()`` (hloscope.hlo.parser._bulk.BulkBody). None once built, and
        # for bodies made some other way.
        self._body: Any = None
        # Its number among the module's distinct bodies (hloscope.hlo.structure), once asked.
        self._structure: int | None = None

    @classmethod
    def from_parts(
        cls,
        name: str,
        is_entry: bool,
        line: int,
        signature: str | None,
        body: Any,
        module: Module,
    ) -> Computation:
        """The fast constructor the whole-module parser uses, one call per body: the same
        computation as ``Computation(name, is_entry, line)`` with ``signature``, ``module`` and
        an unbuilt ``body`` set, its slots set directly (a module holds thousands)."""
        comp = _new_computation(cls)
        comp.name = name
        comp._instructions = []
        comp._root = None
        comp.is_entry = is_entry
        comp.module = module
        comp.execution_thread = None
        comp.signature = signature
        comp.expanded_from = None
        comp._by_name = {}
        comp._line = line
        comp._body = body
        comp._structure = None
        return comp

    # --- the body, built on first use ---------------------------------------------------
    # A plainly printed body is checked at parse time as a whole (names, operands, opcodes,
    # called computations) but its Instruction objects are made when first asked for: a
    # summary counts opcodes and source files of a 400k-instruction module without making
    # any, and a report that reads only the entry makes only that.
    @property
    def instructions(self) -> list[Instruction]:
        """The instructions in the order of the text."""
        if self._body is not None:
            self._build()
        return self._instructions

    @instructions.setter
    def instructions(self, instructions: list[Instruction]) -> None:
        self._body = None
        self._instructions = instructions
        self._structure = None  # another body: its structure is asked for again

    @property
    def root(self) -> Instruction | None:
        """The ``ROOT`` instruction (the last one where none is marked)."""
        if self._body is not None:
            self._build()
        return self._root

    @root.setter
    def root(self, root: Instruction | None) -> None:
        self._root = root
        self._structure = None

    def _build(self) -> None:
        # One builder at a time, and the body let go only once built: a second thread asking
        # meanwhile waits here instead of seeing an empty list or making twin objects.
        with _BUILD_LOCK:
            body = self._body
            if body is None:
                return
            # Many long-lived objects at once, as in the parse: made with the collector paused
            # and handed to the oldest generation, or young collections would scan them all.
            with paused_gc():
                body.build(self)
            self._body = None

    def opcodes(self) -> list[str]:
        """The opcode of each instruction, in order, without building the instructions."""
        body = self._body  # read once: another thread may build it meanwhile
        if body is not None:
            return body.opcodes()
        return list(map(_OPCODE_OF, self._instructions))

    def opcode_counts(self) -> Counter[str]:
        """How many instructions have each opcode, in the order each first appears, without
        building the instructions (nor, for a body a forked child checked, reading its text)."""
        body = self._body
        if body is not None:
            return body.opcode_counts()
        return Counter(map(_OPCODE_OF, self._instructions))

    def opcode_set(self) -> AbstractSet[str]:
        """The distinct opcodes of its instructions, without building them (nor, for a body a
        forked child counted, reading its text): what a test for an opcode asks, a third of
        the time of counting them."""
        body = self._body
        if body is not None:
            return body.opcode_set()
        return set(map(_OPCODE_OF, self._instructions))

    def shape_texts(self) -> Sequence[str]:
        """The shape text of each instruction, in order, without building the instructions."""
        body = self._body
        if body is not None:
            return body.column(2)
        return list(map(_SHAPE_TEXT_OF, self._instructions))

    def shape_texts_hold(self, char: str) -> bool:
        """Whether some instruction's shape text holds ``char``: told without reading a
        body whose text does not hold it at all (a forked parse's body is read on first use)."""
        body = self._body
        if body is not None and not body.holds(char):
            return False
        return any(char in text for text in self.shape_texts())

    def text_columns(self) -> list[Sequence[str]] | None:
        """The body as the parser read it, while not built: one column per field (ROOT, name,
        shape, opcode, operand text, attributes), one row per instruction in order, for an
        analysis that reads a whole body column by column (the cost of a fused body). None
        once built, and for a body read any other way."""
        body = self._body
        return getattr(body, "columns", None) if body is not None else None

    def read_ahead(self, reader: Callable[[list[Sequence[str]]], Any]) -> tuple[Any] | None:
        """``(reader(columns),)`` where a forked parse's child worked it out from this body's
        columns (:func:`~hloscope.hlo.parser.send_structure` names the reader), so that an
        analysis asks for it without reading the body's text here; None otherwise (and once
        the body is built): the caller reads :meth:`text_columns` itself."""
        body = self._body
        return body.read_ahead(reader) if body is not None else None

    def location_counts(self) -> Counter[tuple[int, str, int]]:
        """How many instructions have each :attr:`Instruction.location`, counted from the
        text where the body is not built yet (a tenth of the time of reading each op)."""
        body = self._body
        if body is not None:
            counts = body.location_counts()
            if counts is not None:
                return counts
        return Counter(self.locations())

    def locations(self) -> list[tuple[int, str, int]]:
        """:attr:`Instruction.location` of each instruction, in order; read from the text
        without building the instructions unless some metadata needs the decoder."""
        body = self._body
        if body is not None:
            quick = body.quick_locations()
            if None not in quick:
                return quick
        return list(map(_LOCATION_OF, self.instructions))

    def op_names(self) -> list[str]:
        """:attr:`Instruction.op_name` of each instruction, in order; read from the text
        without building the instructions unless some metadata needs the decoder."""
        body = self._body
        if body is not None:
            quick = list(map(quick_op_name, body.attribute_texts()))
            if None not in quick:
                return quick  # type: ignore[return-value]
        return list(map(_OP_NAME_OF, self.instructions))

    def stack_at(self, position: int, location: tuple[int, str, int]) -> list[StackFrame]:
        """:attr:`Instruction.stack` of the instruction at ``position``, whose
        :attr:`~Instruction.location` is ``location``: from the module's frame table, without
        building the body, unless only the decoded metadata can say (a ``source_file``)."""
        frame_id, file, _ = location
        if frame_id and self.module is not None:
            frames = self.module.stack_frames(frame_id)
            if frames:
                return frames
        if not file:
            return []
        return self.instructions[position].stack

    def root_position(self) -> int:
        """The position of :attr:`root` among the instructions (-1 for none), without building
        the body: its ``ROOT`` line, else its last."""
        body = self._body
        if body is not None:
            roots = body.column(0)
            return next(compress(range(len(roots)), roots), len(roots) - 1)
        root = self._root
        return next((n for n, inst in enumerate(self._instructions) if inst is root), -1)

    @property
    def parameters(self) -> list[Instruction]:
        """Parameter instructions ordered by parameter number."""
        params = [i for i in self.instructions if i.opcode == "parameter"]
        numbers = [i.parameter_number for i in params]
        if None in numbers or numbers != sorted(n or 0 for n in numbers):  # most print in order
            order = sorted(range(len(params)), key=lambda n: _parameter_order(numbers[n]))
            params = [params[n] for n in order]
        return params

    def instruction(self, name: str) -> Instruction:
        if self._body is not None:
            self._build()
        return self._by_name[name]

    def _build_users(self) -> None:
        instructions = self.instructions
        for inst in instructions:
            inst._users = []
        for inst in instructions:
            operands: Iterable[Instruction] = inst.operands
            if not operands:
                continue
            if len(inst.operands) > 1:  # one entry per user, as XLA's users() has
                operands = dict.fromkeys(operands)  # (by identity: no __eq__ here)
            for operand in operands:
                users = operand._users
                if users is None:  # an operand from another computation (defensive)
                    users = operand._users = []
                users.append(inst)

    def get(self, name: str) -> Instruction | None:
        if self._body is not None:
            self._build()
        return self._by_name.get(name)

    def __iter__(self) -> Iterator[Instruction]:
        return iter(self.instructions)

    def __len__(self) -> int:
        body = self._body
        if body is not None:
            return len(body)  # counted without building (nor reading its text)
        return len(self._instructions)

    @property
    def line(self) -> int:
        return self._line

    @property
    def callers(self) -> list[Instruction]:
        """Instructions anywhere in the module that call this computation."""
        if self.module is None:
            return []
        return self.module.callers_of(self)

    @property
    def is_fusion_computation(self) -> bool:
        return any(i.opcode == "fusion" for i in self.callers)

    def __repr__(self) -> str:
        return f"<Computation {self.name}: {len(self.instructions)} instructions>"


class Module:
    """An HLO module: header attributes, computations in file order, and the entry."""

    __slots__ = (
        "name",
        "computations",
        "entry",
        "header_attr_text",
        "source",
        "computations_by_name",
        "_header_attrs",
        "file_names",
        "function_names",
        "file_locations",
        "stack_frame_table",
        "_frame_cache",
        "_callers",
        "warnings",
        "header_line",
        "_structures",
        "kernel_estimates",
        "source_files",
        "__weakref__",
    )

    def __init__(self, name: str) -> None:
        self.name = name
        self.header_line = 1  # 1-based line of the HloModule header in the source text
        self.computations: list[Computation] = []
        self.entry: Computation | None = None
        self.header_attr_text = ""
        self.source: SourceText | None = None
        self.computations_by_name: dict[str, Computation] = {}
        self._header_attrs: Attributes | None = None
        # Stack-frame index (FileNames / FunctionNames / FileLocations / StackFrames).
        self.file_names: dict[int, str] = {}
        self.function_names: dict[int, str] = {}
        self.file_locations: dict[int, dict[str, int]] = {}
        # id -> (location id, parent_frame_id as printed: the parent's id + 1, see stack_frames)
        self.stack_frame_table: dict[int, tuple[int, int]] = {}
        self._frame_cache: dict[int, list[StackFrame]] = {}
        self._callers: dict[str, list[Instruction]] | None = None
        self.warnings: list[str] = []
        # Costs of custom-call kernels known from outside the text (a capture's estimates of
        # its Pallas kernels, by operand and result types); the cost model reads them.
        self.kernel_estimates: list[dict[str, Any]] = []
        # The source files its metadata names, as they were when it was compiled (a capture's
        # snapshot, by real path); empty: read them as they are now.
        self.source_files: dict[str, str] = {}
        # Key -> number of each distinct computation body (see hloscope.hlo.structure).
        self._structures: dict[Any, int] = {}

    # --- lookup ---------------------------------------------------------------------------
    def computation(self, name: str) -> Computation:
        return self.computations_by_name[name]

    def instructions(self) -> Iterator[Instruction]:
        """Every instruction of every computation, in file order."""
        for comp in self.computations:
            yield from comp.instructions

    @property
    def header_attrs(self) -> Attributes:
        """Module attributes (``is_scheduled``, ``entry_computation_layout``...), decoded lazily."""
        if self._header_attrs is None:
            from .attributes import Attributes

            self._header_attrs = Attributes.for_module(self)
        return self._header_attrs

    def callers_of(self, computation: Computation) -> list[Instruction]:
        if self._callers is None:
            table: dict[str, list[Instruction]] = {}
            for inst in self.instructions():
                for called in inst.called_computations:
                    table.setdefault(called.name, []).append(inst)
            self._callers = table
        return self._callers.get(computation.name, [])

    def fusion_computations(self) -> list[Computation]:
        """Computations called by ``fusion`` instructions."""
        seen: dict[str, Computation] = {}
        for comp in self.computations:
            if "fusion" not in comp.opcode_counts():
                continue  # most computations (the fused ones) are not built to find that out
            for inst in comp.instructions:
                if inst.opcode == "fusion":
                    for called in inst.called_computations:
                        seen.setdefault(called.name, called)
        return list(seen.values())

    def stack_frames(self, frame_id: int) -> list[StackFrame]:
        """Resolve a ``stack_frame_id`` to its chain of frames, innermost first, as XLA does.

        Every id in the four tables is 1-based (entry ``N`` is the ``N``-th of its table) except
        one: ``parent_frame_id`` is printed as the parent's id **plus one**, and XLA's parser
        subtracts that one again (``ParseStackFramesList`` in ``hlo_parser.cc``:
        ``set_parent_frame_id(*parent_frame_id - 1)``). So ``parent_frame_id=1`` means *no
        parent* (the outermost frame) and ``parent_frame_id=6`` means frame 5. The table keeps
        the printed value (the printer writes it back unchanged); the chain is walked here.

        A chain XLA cannot walk gives no frames at all, as in XLA (which logs ``Invalid
        stack_frame_id`` and drops the op's frame id): a parent that is not in the table
        (``parent_frame_id=0`` is parent -1), a loop, or a frame whose file location is
        missing. The op then keeps only its metadata's own location (:attr:`Instruction.stack`).
        """
        cached = self._frame_cache.get(frame_id)
        if cached is None:
            cached = self._frame_cache[frame_id] = self._walk_frames(frame_id)
        return cached

    def _walk_frames(self, frame_id: int) -> list[StackFrame]:
        frames: list[StackFrame] = []
        seen: set[int] = set()
        current = frame_id
        while current != 0:  # 0: the outermost frame's parent (printed as 1)
            entry = self.stack_frame_table.get(current)
            if entry is None or current in seen:
                return []  # dangling parent or a loop: XLA drops the whole stack
            seen.add(current)
            location_id, printed_parent = entry
            loc = self.file_locations.get(location_id)
            if loc is None:
                return []
            frames.append(
                StackFrame(
                    file=self.file_names.get(loc.get("file_name_id", 0), ""),
                    line=loc.get("line", 0),
                    function=self.function_names.get(loc.get("function_name_id", 0), ""),
                    column=loc.get("column", 0),
                    end_line=loc.get("end_line", 0),
                    end_column=loc.get("end_column", 0),
                )
            )
            current = printed_parent - 1
        return frames

    # --- views ----------------------------------------------------------------------------
    def to_text(self) -> str:
        """Print the module as HLO text that XLA's parser reads."""
        from .printer import module_to_text

        return module_to_text(self)

    def graph(
        self, computation: str | Computation | None = None, expand_fusions: bool = False
    ) -> networkx.DiGraph:
        """A networkx view: a node per instruction, an edge per operand use."""
        from .graph import module_graph

        return module_graph(self, computation=computation, expand_fusions=expand_fusions)

    def __repr__(self) -> str:
        return f"<Module {self.name}: {len(self.computations)} computations>"
