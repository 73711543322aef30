"""The one door to private jax/jaxlib APIs: XLA's own HLO parser, printer and cost analysis.

jaxlib ships XLA's C++ HLO parser (``hlo_module_from_text``) and HLO cost analysis
(``hlo_module_cost_analysis``) as private Python bindings. hloscope uses them as an *oracle*: to
check its own parser against XLA's, and to let users ask XLA what a module costs. Private APIs move
between releases — ``hlo_module_from_text`` lived in ``jaxlib.xla_extension`` (jaxlib 0.4, 0.5),
then ``jaxlib._jax`` (0.6 to 0.9) and now ``jaxlib._hlo`` — so every such access in hloscope goes
through this module and nowhere else. When a symbol cannot be found, callers get
:class:`XlaApiUnavailable` naming the symbol, where it was looked for and the installed jaxlib
version, instead of an ``AttributeError`` from deep inside a command.

jax and jaxlib are imported only inside functions (through
:func:`hloscope.backends.frameworks.require_jax`): importing this module is free, so offline
commands may import it and only pay for jax when they actually ask XLA something.

Supported: jaxlib from :data:`~hloscope.backends.frameworks.JAX_MINIMUM` (0.5.0, CI tests it) to
the newest tested series (0.10.x). An older jaxlib is an :class:`UnsupportedJaxlib` error; a newer
one gets a :class:`JaxlibVersionWarning` on first use (or the error when
``HLOSCOPE_STRICT_JAXLIB=1``), then works if the symbols are where this module looks. Where a
public API is newer than the oldest supported jax, the fallback lives here too (see
:func:`stablehlo_text`).

The compatibility check (:mod:`hloscope.backends.jax_lowering`) comes here for the private
pieces of cross-platform lowering: override lowering rules that stand in for a primitive JAX
cannot lower for the platform (:func:`lower_for_platform`, :func:`stand_in_rule`), export with
the same stand-ins (:func:`export_for_platform`), and the user frame of a jaxpr equation
(:func:`equation_user_frame`).
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import inspect
import os
import re
import threading
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from .errors import UnsupportedJaxlib, XlaApiUnavailable, XlaCompileFailed, XlaParseFailed
from .frameworks import JAX_EXTRA, JAX_MINIMUM, JAX_NEWEST_TESTED, require_jax, version_tuple

__all__ = [
    "SUPPORTED_JAXLIB",
    "KNOWN_GOOD_JAXLIB",
    "SYMBOL_HOMES",
    "XlaApiUnavailable",
    "XlaParseFailed",
    "UnsupportedJaxlib",
    "JaxlibVersionWarning",
    "jaxlib_version",
    "check_jaxlib_version",
    "private_symbol",
    "xla_parse",
    "xla_structure",
    "xla_stacks",
    "xla_to_text",
    "xla_accepts",
    "xla_cost_analysis",
    "jit_cost_analysis",
    "opcode_text_name",
    "private_compile_dumps",
    "stablehlo_text",
    "hide_hloscope_frames",
    "full_traceback_locations",
    "lower_afresh",
    "static_arguments",
    "TRACEBACK_LIMIT_ENV",
    "stand_in_rule",
    "lower_for_platform",
    "hlo_text",
    "export_for_platform",
    "equation_frames",
    "equation_user_frame",
    "compile_only",
    "pallas_step_cost",
]

#: The jaxlib versions this module supports: from the oldest release (inclusive; CI runs the
#: capture tests against it) to the newest tested (major, minor) series (any patch release of it).
SUPPORTED_JAXLIB: tuple[tuple[int, ...], tuple[int, int]] = (JAX_MINIMUM, JAX_NEWEST_TESTED)

#: The newest tested jaxlib series (kept for callers that knew only one good version).
KNOWN_GOOD_JAXLIB: tuple[int, int] = JAX_NEWEST_TESTED

#: Where private XLA bindings have lived, probed in this order, first home that has the symbol
#: wins: ``jaxlib._jax`` (0.6 to 0.10; the client and cost analysis), ``jaxlib._hlo`` (0.10: the
#: parser and ``HloOpcode``), ``jaxlib.xla_extension`` (0.5: everything). The last,
#: ``jaxlib.xla_client._xla``, is an attribute, not a module: whatever extension module that
#: version's ``xla_client`` uses (see :func:`_home_module`).
SYMBOL_HOMES: tuple[str, ...] = (
    "jaxlib._jax",
    "jaxlib._hlo",
    "jaxlib.xla_extension",
    "jaxlib.xla_client._xla",
)

_STRICT_ENV = "HLOSCOPE_STRICT_JAXLIB"


class JaxlibVersionWarning(UserWarning):
    """The installed jaxlib is not a version hloscope was tested with (private APIs may move)."""


# ---- versions and symbol lookup ----------------------------------------------------------------


def jaxlib_version() -> str | None:
    """The installed jaxlib's version string, or ``None`` when jaxlib is not importable."""
    try:
        import jaxlib.version
    except ImportError:
        return None
    return str(jaxlib.version.__version__)


def _api_unavailable(
    symbol: str, version: str | None, searched: Sequence[str], detail: str = ""
) -> XlaApiUnavailable:
    """:class:`XlaApiUnavailable` naming the jaxlib versions this adapter supports."""
    return XlaApiUnavailable(symbol, version, searched, detail, supported=_supported_range())


def _supported_range() -> str:
    """``0.5.0 to 0.10.x``: :data:`SUPPORTED_JAXLIB` for messages."""
    oldest, newest = SUPPORTED_JAXLIB
    return f"{'.'.join(map(str, oldest))} to {newest[0]}.{newest[1]}.x"


def jaxlib_support(version: str) -> str:
    """Where ``version`` stands against :data:`SUPPORTED_JAXLIB`: ``"old"``, ``"ok"`` or ``"new"``.

    Pre-release suffixes are ignored (``0.10.3.dev20250101`` is 0.10.3); a version without a
    leading number counts as ``"new"`` (a source build: let it try).
    """
    oldest, newest = SUPPORTED_JAXLIB
    found = version_tuple(version)
    if not found:
        return "new"
    if found < oldest:
        return "old"
    return "ok" if found[:2] <= newest else "new"


_checked = False


def check_jaxlib_version(*, strict: bool | None = None) -> str:
    """Check the installed jaxlib against :data:`SUPPORTED_JAXLIB` and return its version.

    Older than the range raises :class:`UnsupportedJaxlib` (the APIs hloscope needs are not
    there). Newer than the newest tested series warns (:class:`JaxlibVersionWarning`); with
    ``strict=True`` (default: the ``HLOSCOPE_STRICT_JAXLIB`` environment variable is ``1``) it
    raises :class:`UnsupportedJaxlib` instead. A missing jaxlib raises :class:`XlaApiUnavailable`.
    """
    if strict is None:
        strict = os.environ.get(_STRICT_ENV, "") not in ("", "0")
    version = jaxlib_version()
    if version is None:
        raise _api_unavailable("jaxlib", None, (), f"pip install '{JAX_EXTRA}'")
    support = jaxlib_support(version)
    if support == "old":
        raise UnsupportedJaxlib(
            f"jaxlib {version} is older than hloscope supports ({_supported_range()}): "
            f"pip install '{JAX_EXTRA}' upgrades it"
        )
    if support == "new":
        message = (
            f"hloscope's XLA oracle was tested with jaxlib {_supported_range()}, but jaxlib "
            f"{version} is installed; XLA parser and cost-analysis bindings may have moved."
        )
        if strict:
            raise UnsupportedJaxlib(message + f" (unset {_STRICT_ENV} to continue anyway)")
        warnings.warn(message, JaxlibVersionWarning, stacklevel=3)
    return version


def private_symbol(name: str) -> Any:
    """Find the private jaxlib binding ``name`` in :data:`SYMBOL_HOMES`, first home that has it.

    Raises :class:`XlaApiUnavailable` naming the symbol, the homes searched and the jaxlib
    version when no home has it (or jaxlib is missing).
    """
    global _checked
    if not _checked:
        check_jaxlib_version()
        _checked = True
    for home in SYMBOL_HOMES:
        module = _home_module(home)
        found = getattr(module, name, None) if module is not None else None
        if found is not None:
            return found
    raise _api_unavailable(name, jaxlib_version(), SYMBOL_HOMES)


def _home_module(home: str) -> Any:
    """The object a :data:`SYMBOL_HOMES` entry names, or ``None`` when this jaxlib lacks it.

    A home is a module path (``jaxlib._hlo``) or a module path plus one attribute
    (``jaxlib.xla_client._xla``: ``xla_client`` keeps its extension module as ``_xla``).
    """
    try:
        return importlib.import_module(home)
    except ImportError:
        pass
    parent, _, attribute = home.rpartition(".")
    if not parent:
        return None
    try:
        return getattr(importlib.import_module(parent), attribute, None)
    except ImportError:
        return None


# ---- XLA's parser and printer --------------------------------------------------------------------


def xla_parse(text: str) -> Any:
    """Parse HLO ``text`` with XLA's own parser; returns jaxlib's ``HloModule``.

    XLA also runs its verifier-lite checks while parsing (operand counts, shapes of some ops), so
    a text that parses here is one XLA would load. Raises :class:`XlaParseFailed` carrying XLA's
    message when it does not.
    """
    if isinstance(text, bytes):
        text = text.decode("utf-8")
    parse = private_symbol("hlo_module_from_text")
    if not _reads_stack_frame_tables():
        text = without_stack_frame_tables(text)
    try:
        return parse(text)
    except (RuntimeError, ValueError) as error:  # XLA's absl::Status arrives as one of these
        raise XlaParseFailed(str(error)) from None


def xla_accepts(text: str) -> tuple[bool, str]:
    """Whether XLA's parser accepts ``text``: ``(True, "")`` or ``(False, XLA's message)``."""
    try:
        xla_parse(text)
    except XlaParseFailed as error:
        return False, error.xla_message
    return True, ""


def xla_to_text(text: str) -> str:
    """Parse ``text`` with XLA and print it back with XLA's default printer (``to_string()``)."""
    return str(xla_parse(text).to_string())


def _call_or_get(value: Any) -> Any:
    """jaxlib exposes some members as methods in one release and properties in another."""
    return value() if callable(value) else value


@functools.cache
def _enum_to_text() -> dict[str, str]:
    # On first use: the opcode table costs a watched script's child 2 ms of start-up, and the
    # watcher (which imports this module) never names an opcode.
    from ..hlo.opcodes import OPCODES

    return {op.enum: op.name for op in OPCODES.values()}


def opcode_text_name(opcode: Any) -> str:
    """The HLO text name (``"get-tuple-element"``) of a jaxlib ``HloOpcode`` enum value.

    Uses the enum field of :data:`hloscope.hlo.opcodes.OPCODES`. An enum name that table does not
    know (a newer XLA) is spelled the way XLA usually derives text names, ``kFooBar`` →
    ``foo-bar``, so a structure comparison still shows something readable rather than failing.
    """
    enum = getattr(opcode, "name", None) or str(opcode).rpartition(".")[2]
    known = _enum_to_text().get(enum)
    if known is not None:
        return known
    stem = enum[1:] if enum.startswith("k") else enum
    return re.sub(r"(?<!^)(?=[A-Z])", "-", stem).lower()


def xla_structure(text: str) -> list[dict[str, Any]]:
    """What XLA's parser saw: one dict per computation, in the order XLA keeps them.

    Each is ``{"name": str, "instructions": [{"name", "opcode", "operands"}, ...]}`` with the
    opcode as its HLO text name and operands as a list of instruction names; instructions are
    in XLA's order for the computation (the text order for parsed modules).

    jaxlib before 0.9 binds ``HloComputation`` without its instructions; there the structure
    is read from the module's serialized ``HloModuleProto`` instead (:func:`_proto_structure`).
    """
    module = xla_parse(text)
    computations = list(_call_or_get(module.computations))
    if computations and not hasattr(computations[0], "instructions"):
        order = [str(_call_or_get(c.name)) for c in computations]
        return _proto_structure(bytes(module.as_serialized_hlo_module_proto()), order)
    structure: list[dict[str, Any]] = []
    for computation in _call_or_get(module.computations):
        instructions = [
            {
                "name": str(_call_or_get(instruction.name)),
                "opcode": opcode_text_name(_call_or_get(instruction.opcode)),
                "operands": [str(_call_or_get(o.name)) for o in _call_or_get(instruction.operands)],
            }
            for instruction in _call_or_get(computation.instructions)
        ]
        structure.append(
            {"name": str(_call_or_get(computation.name)), "instructions": instructions}
        )
    return structure


# ---- older XLA: text tables it cannot read, structure from the proto -----------------------------

#: The first jaxlib whose HLO parser reads the stack-frame tables newer XLA prints in a module's
#: header (``FileNames``, ``FunctionNames``, ``FileLocations``, ``StackFrames``); jaxlib 0.7.2
#: rejects them, 0.8.3 reads them.
STACK_FRAME_TABLES_SINCE: tuple[int, int] = (0, 8)

_TABLE_NAMES = ("FileNames", "FunctionNames", "FileLocations", "StackFrames")
# A table: its name alone on a line, then its entries, up to the blank line that ends it.
_TABLE = re.compile(r"^(?:{})[ \t]*\n(?:[^\n]*\S[^\n]*\n)*".format("|".join(_TABLE_NAMES)), re.M)
_STACK_FRAME_ID = re.compile(r"\s*\bstack_frame_id=\d+")


def _reads_stack_frame_tables() -> bool:
    version = jaxlib_version()
    return version is None or version_tuple(version)[:2] >= STACK_FRAME_TABLES_SINCE


def without_stack_frame_tables(text: str) -> str:
    """``text`` without the stack-frame tables and ``stack_frame_id`` references an older XLA
    cannot parse. Only source locations go; every line of computation text stays where it was
    (a table's lines become blank lines), so XLA's error locations still point at the input.
    """
    if not any(f"\n{name}\n" in text for name in _TABLE_NAMES):
        return text

    def blank(found: re.Match[str]) -> str:
        return "\n" * found.group(0).count("\n")

    return _STACK_FRAME_ID.sub("", _TABLE.sub(blank, text))


def _proto_fields(data: bytes) -> Iterator[tuple[int, int | bytes]]:
    """The ``(field number, value)`` pairs of one protobuf message: varints as ints,
    length-delimited fields as bytes (enough wire format to walk an ``HloModuleProto``)."""
    position = 0

    def varint() -> int:
        nonlocal position
        shift = result = 0
        while True:
            byte = data[position]
            position += 1
            result |= (byte & 0x7F) << shift
            shift += 7
            if byte < 0x80:
                return result

    while position < len(data):
        key = varint()
        number, wire = key >> 3, key & 7
        if wire == 0:
            yield number, varint()
        elif wire == 2:
            size = varint()
            yield number, data[position : position + size]
            position += size
        elif wire in (1, 5):  # fixed 64 / 32 bits: nothing hloscope reads
            position += 8 if wire == 1 else 4
        else:
            raise ValueError(f"unsupported protobuf wire type {wire}")


def _decode_packed(data: bytes) -> list[int]:
    """The varints of a packed repeated field (``operand_ids``)."""
    values: list[int] = []
    shift = result = 0
    for byte in data:
        result |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            values.append(result)
            shift = result = 0
    return values


# Field numbers in xla/service/hlo.proto.
_MODULE_COMPUTATIONS, _MODULE_SCHEDULE = 3, 7
_SCHEDULE_SEQUENCES, _MAP_KEY, _MAP_VALUE, _SEQUENCE_IDS = 1, 1, 2, 1
_COMPUTATION_NAME, _COMPUTATION_INSTRUCTIONS, _COMPUTATION_ID = 1, 2, 5
_INSTRUCTION_NAME, _INSTRUCTION_OPCODE, _INSTRUCTION_ID, _INSTRUCTION_OPERANDS = 1, 2, 35, 36


def _proto_instruction(data: bytes) -> tuple[int, str, str, list[int]]:
    """``(id, name, opcode, operand ids)`` of one ``HloInstructionProto``."""
    ident, name, opcode, operands = 0, "", "", []
    for number, value in _proto_fields(data):
        if number == _INSTRUCTION_NAME and isinstance(value, bytes):
            name = value.decode()
        elif number == _INSTRUCTION_OPCODE and isinstance(value, bytes):
            opcode = value.decode()
        elif number == _INSTRUCTION_ID and isinstance(value, int):
            ident = value
        elif number == _INSTRUCTION_OPERANDS:
            operands.extend(_decode_packed(value) if isinstance(value, bytes) else [value])
    return ident, name, opcode, operands


def _proto_schedule(data: bytes) -> dict[int, list[int]]:
    """Computation id -> instruction ids in schedule order, from an ``HloScheduleProto``."""
    sequences: dict[int, list[int]] = {}
    for number, entry in _proto_fields(data):
        if number != _SCHEDULE_SEQUENCES or not isinstance(entry, bytes):
            continue
        key, ids = 0, []
        for field_number, field in _proto_fields(entry):
            if field_number == _MAP_KEY and isinstance(field, int):
                key = field
            elif field_number == _MAP_VALUE and isinstance(field, bytes):
                for _, packed in _proto_fields(field):
                    ids.extend(_decode_packed(packed) if isinstance(packed, bytes) else [packed])
        sequences[key] = ids
    return sequences


def _proto_structure(data: bytes, order: Sequence[str] = ()) -> list[dict[str, Any]]:
    """:func:`xla_structure` read from a serialized ``HloModuleProto`` (the opcode field of the
    proto is already the HLO text name).

    The proto lists computations in post order (callees first); ``order``, the computation names in
    the order XLA keeps them (``HloModule.computations()``, which older jaxlib binds), restores
    XLA's order. It also lists a computation's instructions in post order; a parsed computation
    keeps text order, which for a scheduled module (``is_scheduled=true``) is its schedule, stored
    beside the computations: the schedule's order is used where there is one, the proto's
    elsewhere.
    """
    fields = list(_proto_fields(data))
    schedule: dict[int, list[int]] = {}
    for number, value in fields:
        if number == _MODULE_SCHEDULE and isinstance(value, bytes):
            schedule = _proto_schedule(value)
    structure: list[dict[str, Any]] = []
    for number, value in fields:
        if number != _MODULE_COMPUTATIONS or not isinstance(value, bytes):
            continue
        name, ident, instructions = "", 0, []
        for field_number, field in _proto_fields(value):
            if field_number == _COMPUTATION_NAME and isinstance(field, bytes):
                name = field.decode()
            elif field_number == _COMPUTATION_ID and isinstance(field, int):
                ident = field
            elif field_number == _COMPUTATION_INSTRUCTIONS and isinstance(field, bytes):
                instructions.append(_proto_instruction(field))
        names = {i: instruction_name for i, instruction_name, _, _ in instructions}
        sequence = schedule.get(ident)
        if sequence is not None and sorted(sequence) == sorted(names):
            by_id = {instruction[0]: instruction for instruction in instructions}
            instructions = [by_id[i] for i in sequence]
        structure.append(
            {
                "name": name,
                "instructions": [
                    {"name": iname, "opcode": opcode, "operands": [names[o] for o in operands]}
                    for _, iname, opcode, operands in instructions
                ],
            }
        )
    if sorted(order) == sorted(c["name"] for c in structure):
        rank = {name: index for index, name in enumerate(order)}
        structure.sort(key=lambda computation: rank[computation["name"]])
    return structure


# ---- call stacks: what XLA's parser made of the stack-frame tables -------------------------------

# Field numbers in xla/service/hlo.proto and xla/xla_data.proto.
_MODULE_STACK_FRAME_INDEX, _INSTRUCTION_METADATA = 17, 7
_INDEX_FILE_NAMES, _INDEX_FUNCTION_NAMES, _INDEX_FILE_LOCATIONS, _INDEX_STACK_FRAMES = 1, 2, 3, 4
# OpMetadata: source_file, source_line, source_end_line, source_column, source_end_column,
# stack_frame_id.
_MD_FILE, _MD_LINE, _MD_END_LINE, _MD_COLUMN, _MD_END_COLUMN, _MD_FRAME = 3, 4, 17, 18, 19, 15


def _int32(value: int | bytes) -> int:
    """A varint read as protobuf ``int32``: negative numbers arrive as 64-bit two's complement."""
    if not isinstance(value, int):
        return 0
    return value - (1 << 64) if value >= 1 << 63 else value


def _ints(data: bytes) -> dict[int, int]:
    """The varint fields of a small message (FileLocation, StackFrame) by field number."""
    return {number: _int32(value) for number, value in _proto_fields(data)}


class _ProtoFrames:
    """A ``StackFrameIndexProto`` with the chain walk XLA does (``StackFrames::GetStackFrame``).

    In the proto every id is 1-based and 0 means none, ``parent_frame_id`` included (the text
    prints it plus one; the parser takes that one off).
    """

    __slots__ = ("files", "functions", "locations", "frames", "_chains")

    def __init__(self, data: bytes) -> None:
        self.files: list[str] = []
        self.functions: list[str] = []
        self.locations: list[dict[int, int]] = []
        self.frames: list[dict[int, int]] = []
        self._chains: dict[int, list[Any]] = {}
        for number, value in _proto_fields(data):
            if not isinstance(value, bytes):
                continue
            if number == _INDEX_FILE_NAMES:
                self.files.append(value.decode())
            elif number == _INDEX_FUNCTION_NAMES:
                self.functions.append(value.decode())
            elif number == _INDEX_FILE_LOCATIONS:
                self.locations.append(_ints(value))
            elif number == _INDEX_STACK_FRAMES:
                self.frames.append(_ints(value))

    @staticmethod
    def _at(table: list[Any], one_based: int, default: Any) -> Any:
        return table[one_based - 1] if 0 < one_based <= len(table) else default

    def chain(self, frame_id: int) -> list[Any]:
        """The frames of ``frame_id``, innermost first, as hloscope ``StackFrame`` objects."""
        from ..hlo.metadata import StackFrame

        cached = self._chains.get(frame_id)
        if cached is not None:
            return cached
        out: list[Any] = []
        seen: set[int] = set()
        current = frame_id
        while 0 < current <= len(self.frames) and current not in seen:
            seen.add(current)
            frame = self.frames[current - 1]
            location = self._at(self.locations, frame.get(1, 0), {})
            out.append(
                StackFrame(
                    file=self._at(self.files, location.get(1, 0), ""),
                    line=location.get(3, 0),
                    function=self._at(self.functions, location.get(2, 0), ""),
                    column=location.get(4, 0),
                    end_line=location.get(5, 0),
                    end_column=location.get(6, 0),
                )
            )
            current = frame.get(2, 0)
        self._chains[frame_id] = out
        return out


def _metadata_stack(data: bytes, frames: _ProtoFrames) -> list[Any]:
    """One instruction's stack from its ``OpMetadata``: the frame chain of ``stack_frame_id``,
    else the single location in ``source_file``/``source_line``/... (TensorFlow writes only
    those), else none."""
    from ..hlo.metadata import StackFrame

    fields: dict[int, int | bytes] = dict(_proto_fields(data))
    frame_id = _int32(fields.get(_MD_FRAME, 0))
    chain = frames.chain(frame_id) if frame_id else []
    if chain:
        return chain
    source = fields.get(_MD_FILE, b"")
    if not isinstance(source, bytes) or not source:
        return []
    return [
        StackFrame(
            file=source.decode(),
            line=_int32(fields.get(_MD_LINE, 0)),
            column=_int32(fields.get(_MD_COLUMN, 0)),
            end_line=_int32(fields.get(_MD_END_LINE, 0)),
            end_column=_int32(fields.get(_MD_END_COLUMN, 0)),
        )
    ]


def xla_stacks(text: str) -> dict[str, list[Any]]:
    """Instruction name -> the call stack XLA's parser read for it, innermost frame first.

    The oracle for :attr:`hloscope.hlo.model.Instruction.stack`. XLA parses ``text``; its
    ``HloModuleProto`` holds the module's ``stack_frame_index`` (file names, function names,
    file locations, and frames with their ``parent_frame_id``) and every instruction's
    ``metadata.stack_frame_id``. Each frame is a :class:`~hloscope.hlo.metadata.StackFrame` with
    every field XLA keeps (file, line, column, end line, end column, function). An instruction
    without a frame id gets the one location of its metadata (``source_file`` ...), if any.

    XLA renumbers frames when it builds the proto, so frame *ids* differ from the text's; the
    resolved chains are what both must agree on. Instruction names are unique in a module.
    """
    data = bytes(xla_parse(text).as_serialized_hlo_module_proto())
    fields = list(_proto_fields(data))
    index = b"".join(
        v for n, v in fields if n == _MODULE_STACK_FRAME_INDEX and isinstance(v, bytes)
    )
    frames = _ProtoFrames(index)
    stacks: dict[str, list[Any]] = {}
    for number, computation in fields:
        if number != _MODULE_COMPUTATIONS or not isinstance(computation, bytes):
            continue
        for field_number, instruction in _proto_fields(computation):
            if field_number != _COMPUTATION_INSTRUCTIONS or not isinstance(instruction, bytes):
                continue
            name, metadata = "", b""
            for inner, value in _proto_fields(instruction):
                if inner == _INSTRUCTION_NAME and isinstance(value, bytes):
                    name = value.decode()
                elif inner == _INSTRUCTION_METADATA and isinstance(value, bytes):
                    metadata = value
            stacks[name] = _metadata_stack(metadata, frames)
    return stacks


# ---- cost analysis -------------------------------------------------------------------------------


def _cpu_client() -> Any:
    jax = require_jax()

    try:
        return jax.devices("cpu")[0].client
    except (RuntimeError, AttributeError, IndexError) as error:
        raise _api_unavailable(
            "Device.client (CPU)", jaxlib_version(), ("jax.devices('cpu')",), str(error)
        ) from None


def _normalise_costs(costs: Any) -> dict[str, float]:
    """Cost analyses come as a dict, a one-element list of dicts (older jax) or ``None``."""
    if costs is None:
        return {}
    if isinstance(costs, Sequence) and not isinstance(costs, (str, bytes)):
        if not costs:
            return {}
        if len(costs) != 1:
            raise ValueError(f"expected one cost-analysis dict per executable, got {len(costs)}")
        costs = costs[0]
    if not isinstance(costs, Mapping):
        raise TypeError(f"unexpected cost analysis type {type(costs).__name__}")
    return {str(key): float(value) for key, value in costs.items()}


def xla_cost_analysis(text: str) -> dict[str, float]:
    """XLA's HLO cost analysis of a module text on the CPU backend.

    Keys are XLA's: ``flops``, ``transcendentals``, ``bytes accessed``, and per-operand
    ``bytes accessed{i}{shape index}`` / ``utilization{i}{...}`` entries. This is the analysis of
    the module *as written*: cost an optimized module to see what XLA will run.
    """
    analyse = private_symbol("hlo_module_cost_analysis")
    return _normalise_costs(analyse(_cpu_client(), xla_parse(text)))


def jit_cost_analysis(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> dict[str, float]:
    """``jax.jit(fn).lower(*args, **kwargs).compile().cost_analysis()`` as a plain dict.

    ``fn`` may already be jitted. This is the public-API answer to "what does XLA think this
    costs", and what :func:`xla_cost_analysis` of the compiled module's text should agree with.
    """
    jax = require_jax()

    compiled = jax.jit(fn).lower(*args, **kwargs).compile()
    return _normalise_costs(compiled.cost_analysis())


# ---- public APIs newer than the oldest supported jax --------------------------------------------


def stablehlo_text(lowered: Any) -> str:
    """The StableHLO text of a ``jax.stages.Lowered`` with source locations (``loc(...)``).

    ``Lowered.as_text(debug_info=True)`` where jax has the keyword; older ``as_text`` (jax
    0.4.30, and any jax that drops it again) takes only ``dialect``, so there the same printing
    is done by hand: the module from
    ``compiler_ir("stablehlo")`` printed with MLIR's ``enable_debug_info``, which is what
    ``as_text(debug_info=True)`` does inside.
    """
    if _accepts_keyword(lowered.as_text, "debug_info"):
        return str(lowered.as_text(debug_info=True))
    from jax._src.interpreters import mlir

    return str(mlir.module_to_string(lowered.compiler_ir("stablehlo"), enable_debug_info=True))


def _accepts_keyword(function: Callable[..., Any], keyword: str) -> bool:
    """Whether ``function`` takes ``keyword`` (the version check of a grown public API)."""
    try:
        return keyword in inspect.signature(function).parameters
    except (TypeError, ValueError):  # no signature (a C function): assume the newest API
        return True


# ---- per-compile dumps (used by hloscope.backends.jax_compile) ----------------------------------

_dump_lock = threading.Lock()
_dump_dirs: dict[str, int] = {}  # folder -> how many captures are using it right now
_dump_original: Any = None  # jax's get_compile_options while our wrapper is installed


def _redirect_pjrt_dumps(original: Callable[..., Any]) -> Callable[..., Any]:
    def get_compile_options(*args: Any, **kwargs: Any) -> Any:
        options = original(*args, **kwargs)
        overrides = dict(options.env_option_overrides)
        target = overrides.get("xla_dump_to")
        with _dump_lock:
            ours = isinstance(target, str) and target in _dump_dirs
        if ours:
            options.executable_build_options.debug_options.xla_dump_to = target
        return options

    get_compile_options.__wrapped__ = original  # type: ignore[attr-defined]
    return get_compile_options


@contextlib.contextmanager
def private_compile_dumps(directory: str) -> Iterator[None]:
    """Make JAX compiles given ``compiler_options={"xla_dump_to": directory}`` dump only there.

    ``Lowered.compile(compiler_options=...)`` hands the options to XLA as per-compile
    ``env_option_overrides``, and XLA's HLO dumps honour them. But PJRT first writes the compile
    inputs (``module_NNNN.<name>/module.mlir``, ``compile_options.textproto``) using the
    DebugOptions *before* those overrides, i.e. into the folder the user's ``XLA_FLAGS`` named
    (verified on jaxlib 0.10.2). jax builds those DebugOptions in
    ``jax._src.compiler.get_compile_options``; while this context is active, a wrapper points
    them at ``directory`` for exactly the compiles whose overrides name it. Other compiles, in
    this thread or another, are untouched. The wrapper is installed on first entry and removed
    when the last user leaves.

    If jax moved that function, compiles still dump to ``directory``; only the small PJRT
    input folder may land in a user-configured dump folder, and a warning says so.
    """
    global _dump_original
    jax_compiler: Any
    try:
        from jax._src import compiler as jax_compiler
    except ImportError:  # pragma: no cover - depends on the jax version
        jax_compiler = None
    if jax_compiler is None or not callable(getattr(jax_compiler, "get_compile_options", None)):
        if "xla_dump_to" in os.environ.get("XLA_FLAGS", ""):
            warnings.warn(
                "jax._src.compiler.get_compile_options is gone (jax "
                f"{jaxlib_version()}); PJRT may write compile inputs into the XLA_FLAGS dump "
                "folder",
                JaxlibVersionWarning,
                stacklevel=3,
            )
        yield
        return
    with _dump_lock:
        _dump_dirs[directory] = _dump_dirs.get(directory, 0) + 1
        if _dump_original is None:
            _dump_original = jax_compiler.get_compile_options
            jax_compiler.get_compile_options = _redirect_pjrt_dumps(_dump_original)
    try:
        yield
    finally:
        with _dump_lock:
            _dump_dirs[directory] -= 1
            if not _dump_dirs[directory]:
                del _dump_dirs[directory]
            if not _dump_dirs and _dump_original is not None:
                jax_compiler.get_compile_options = _dump_original
                _dump_original = None


# ---- source locations ----------------------------------------------------------------------------

_HLOSCOPE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_frames_hidden = False


def hide_hloscope_frames(source_info_util: Any = None, also: Sequence[str] = ()) -> None:
    """Keep hloscope's own frames out of the source locations JAX records in HLO metadata.

    JAX stores the Python stack of every traced operation (``FileNames``/``StackFrames`` in the
    HLO header, ``stack_frame_id`` in metadata), keeping every frame outside jax and the standard
    library. Without this, a function captured through hloscope would carry
    ``hloscope/backends/jax_compile.py`` frames that a direct ``jax.jit(f).lower(x)`` does not.
    Uses ``jax._src.source_info_util.register_exclusion`` (the hook flax and equinox use); pass
    the freshly imported module when calling from an import hook, and in ``also`` other path
    prefixes to hide (the script runner hides ``<frozen runpy>``). Idempotent; silently a no-op
    when jax moved the function (only cosmetic frames are at stake).
    """
    global _frames_hidden
    if _frames_hidden:
        return
    if source_info_util is None:
        try:
            from jax._src import source_info_util
        except ImportError:  # pragma: no cover - depends on the jax version
            return
    register = getattr(source_info_util, "register_exclusion", None)
    if callable(register):
        for prefix in (_HLOSCOPE_DIR, *also):
            register(prefix)
        _frames_hidden = True


#: The environment variable jax reads ``jax_traceback_in_locations_limit`` from at import.
TRACEBACK_LIMIT_ENV = "JAX_TRACEBACK_IN_LOCATIONS_LIMIT"
#: What hloscope sets it to for its captures: negative means no limit (jax's config help).
UNLIMITED_TRACEBACK = -1


@contextlib.contextmanager
def full_traceback_locations() -> Iterator[None]:
    """Let JAX record every user frame of each op in the HLO locations while this is active.

    JAX keeps at most ``jax_traceback_in_locations_limit`` frames of an op's Python stack
    (10 in older jax, 100 in 0.10); a model called through a few layers of helpers loses the
    outer frames, often the very line of the user's step function. Inside this context the
    limit is lifted (a negative value: unlimited) for this thread only, with jax's own
    thread-local config context, and the user's setting is back afterwards. A limit the user
    already lifted is left alone. Where jax has no such context, the global value is set and
    restored; where it has no such option at all, nothing happens (only frames are at stake).
    """
    require_jax()
    try:
        from jax._src import config as jax_config
    except ImportError:  # pragma: no cover - depends on the jax version
        yield
        return
    state = getattr(jax_config, "traceback_in_locations_limit", None)
    current = getattr(state, "value", None)
    if not isinstance(current, int) or current < 0:
        yield
        return
    try:
        scoped = state(UNLIMITED_TRACEBACK)  # type: ignore[misc]
    except TypeError:  # pragma: no cover - a jax whose config states are not contexts
        scoped = None
    if scoped is not None:
        with scoped:
            yield
        return
    import jax  # pragma: no cover - the same fallback, process-wide

    jax.config.update("jax_traceback_in_locations_limit", UNLIMITED_TRACEBACK)
    try:
        yield
    finally:
        jax.config.update("jax_traceback_in_locations_limit", current)


def static_arguments(jitted: Any) -> tuple[tuple[int, ...], tuple[str, ...]]:
    """The positions and names of ``jitted``'s static arguments (``jax.jit(f, static_argnums=,
    static_argnames=)``), which its compiled executable does not take. jax keeps them in the
    private ``_jit_info``; a function without it (not a ``jax.jit``) has none."""
    info = getattr(jitted, "_jit_info", None)
    numbers = tuple(int(n) for n in getattr(info, "static_argnums", None) or ())
    names = tuple(str(n) for n in getattr(info, "static_argnames", None) or ())
    return numbers, names


def lower_afresh(traced: Any) -> Any:
    """``traced.lower()``, but never answered from JAX's in-memory lowering cache.

    JAX caches lowerings by jaxpr and lowering parameters; the frame limit of the locations is
    not in that key. A function the user already lowered under a small
    ``jax_traceback_in_locations_limit`` would come back with its cut stacks even inside
    :func:`full_traceback_locations`. Lowering parameters that differ from the default only in
    an empty (instead of absent) tuple of override lowering rules lower exactly the same way
    (no rule is overridden either way) but miss that cache, and leave the user's own cached
    lowerings alone. Where jax lacks the private ``LoweringParameters`` (or ``lower`` does not
    take them), this is plain ``traced.lower()``.
    """
    import dataclasses

    try:
        from jax._src.interpreters import mlir
    except ImportError:  # pragma: no cover - depends on the jax version
        return traced.lower()
    parameters_type: Any = getattr(mlir, "LoweringParameters", None)
    fields = {f.name for f in dataclasses.fields(parameters_type)} if parameters_type else set()
    if "override_lowering_rules" not in fields or not _accepts_keyword(
        traced.lower, "_private_parameters"
    ):
        return traced.lower()  # pragma: no cover - depends on the jax version
    parameters = dataclasses.replace(parameters_type(), override_lowering_rules=())
    return traced.lower(_private_parameters=parameters)


# ---- cross-platform lowering (used by hloscope.backends.jax_lowering) -------------------------


def stand_in_rule(ctx: Any, *args: Any, **params: Any) -> list[Any]:
    """A lowering rule that emits zeros of the primitive's result types and nothing else.

    Used for primitives that cannot be lowered for the target platform on this machine (no
    rule for it, or a host callback whose TPU lowering needs a TPU client): with a stand-in,
    the *rest* of the program still lowers, so a check finds every problem in one run instead
    of stopping at the first. Effectful primitives pass their ordering tokens through, as JAX
    requires of a rule for an op with ordered effects. The stand-in's output is never run.
    """
    from jax._src.interpreters import mlir

    tokens = getattr(ctx, "tokens_in", None)
    if tokens is not None and tuple(tokens.effects()):
        ctx.set_tokens_out(tokens)
    return [mlir.full_like_aval(ctx, 0, aval) for aval in ctx.avals_out]


def _lowering_parameters(primitives: Sequence[Any]) -> Any:
    """``mlir.LoweringParameters`` whose override rules replace ``primitives`` by
    :func:`stand_in_rule` (an empty tuple when there are none: a fresh lowering, see
    :func:`lower_afresh`); ``None`` where jax lacks the private dataclass or the field."""
    import dataclasses

    try:
        from jax._src.interpreters import mlir
    except ImportError:  # pragma: no cover - depends on the jax version
        return None
    parameters_type: Any = getattr(mlir, "LoweringParameters", None)
    fields = {f.name for f in dataclasses.fields(parameters_type)} if parameters_type else set()
    if "override_lowering_rules" not in fields:
        return None  # pragma: no cover - depends on the jax version
    rules = tuple((primitive, stand_in_rule) for primitive in primitives)
    return dataclasses.replace(parameters_type(), override_lowering_rules=rules)


def lower_for_platform(traced: Any, platform: str, stand_ins: Sequence[Any] = ()) -> Any:
    """``traced.lower(lowering_platforms=(platform,))``: lower a traced function for a
    platform this machine may not have (cross-platform lowering needs no device).

    ``stand_ins`` are primitive objects lowered by :func:`stand_in_rule` instead of their own
    rules. Like :func:`lower_afresh`, never answered from JAX's lowering cache. Raises
    :class:`XlaApiUnavailable` when ``stand_ins`` are asked for on a jax without override
    rules, and when ``Traced.lower`` has no ``lowering_platforms`` (jax before 0.4.3x).
    """
    if not _accepts_keyword(traced.lower, "lowering_platforms"):
        raise _api_unavailable(  # pragma: no cover - depends on the jax version
            "Traced.lower(lowering_platforms=...)", jaxlib_version(), ("jax.stages.Traced",)
        )
    parameters = _lowering_parameters(stand_ins)
    if parameters is None or not _accepts_keyword(traced.lower, "_private_parameters"):
        if stand_ins:  # pragma: no cover - depends on the jax version
            raise _api_unavailable(
                "mlir.LoweringParameters.override_lowering_rules",
                jaxlib_version(),
                ("jax._src.interpreters.mlir",),
            )
        return traced.lower(lowering_platforms=(platform,))  # pragma: no cover
    return traced.lower(lowering_platforms=(platform,), _private_parameters=parameters)


def hlo_text(lowered: Any) -> str:
    """The HLO text (before optimizations, with metadata and stack frames) of a
    ``jax.stages.Lowered``: ``compiler_ir("hlo").as_hlo_module().to_string()``, the text
    XLA would dump as ``before_optimizations``; ``as_text(dialect="hlo")`` (no metadata) where
    the computation has no ``as_hlo_module``."""
    computation = lowered.compiler_ir("hlo")
    as_module = getattr(computation, "as_hlo_module", None)
    if callable(as_module):
        return str(as_module().to_string())
    return str(lowered.as_text(dialect="hlo"))  # pragma: no cover - depends on the jax version


def export_for_platform(
    jitted: Any,
    args: Sequence[Any],
    kwargs: Mapping[str, Any],
    platform: str,
    stand_ins: Sequence[Any] = (),
) -> Any:
    """``jax.export.export(jitted, platforms=[platform])(*args, **kwargs)``: what jax.export
    says of the program for ``platform``, with ``stand_ins`` lowered by
    :func:`stand_in_rule` (export's private ``_override_lowering_rules``) so that a primitive
    already known to have no lowering does not hide export's own refusals. Returns the
    ``Exported``; raises what export raises."""
    jax = require_jax()
    export = jax.export.export
    if stand_ins and _accepts_keyword(export, "_override_lowering_rules"):
        rules = tuple((primitive, stand_in_rule) for primitive in stand_ins)
        return export(jitted, platforms=[platform], _override_lowering_rules=rules)(*args, **kwargs)
    return export(jitted, platforms=[platform])(*args, **kwargs)


def equation_frames(equation: Any) -> list[tuple[str, int, str]]:
    """``(file, line, function)`` of every frame JAX keeps of the Python stack that created a
    jaxpr equation, innermost first: JAX's own rule (``source_info_util.user_frames``: not jax,
    not the standard library, not what :func:`hide_hloscope_frames` excluded), so these are the
    frames JAX writes into HLO metadata. An equation inside a jitted library function (the
    ``eig`` of ``jnp.linalg.eigvals``) has only that function's frames: its caller's are those
    of the calling equation. Empty when it has none or jax moved the function."""
    try:
        from jax._src import source_info_util
    except ImportError:  # pragma: no cover - depends on the jax version
        return []
    user_frames = getattr(source_info_util, "user_frames", None)
    source_info = getattr(equation, "source_info", None)
    if not callable(user_frames) or source_info is None:
        return []  # pragma: no cover - depends on the jax version
    try:
        first = next(iter(inspect.signature(user_frames).parameters), "")
    except (TypeError, ValueError):  # pragma: no cover
        first = ""
    argument = source_info if first == "source_info" else getattr(source_info, "traceback", None)
    try:
        return [
            (str(frame.file_name), int(frame.start_line), str(frame.function_name))
            for frame in user_frames(argument)
        ]
    except Exception:  # noqa: BLE001 - a location is a nicety, never a reason to fail
        return []


def equation_user_frame(equation: Any) -> tuple[str, int, str] | None:
    """``(file, line, function)`` of the innermost frame of :func:`equation_frames`, by JAX's
    own rule; ``None`` when it has none or jax moved the function."""
    frames = equation_frames(equation)
    return frames[0] if frames else None


# ---- Pallas kernels (hloscope.backends.pallas_kernels) -------------------------------------------


def pallas_step_cost(kernel: Any) -> tuple[int, int] | None:
    """FLOPs and transcendentals of one grid step of a Pallas kernel (its jaxpr, as
    ``pallas_call``'s ``jaxpr`` parameter holds it), by JAX's own Pallas cost rules
    (``jax._src.pallas.cost_estimate``, what ``pl.estimate_cost`` applies). Those rules skip
    loops: a ``scan`` here counts its body times its length, a ``while`` its body once, a
    ``cond`` its costliest branch. ``None`` when this jax has no such rules (before 0.4.36) or
    they fail on the kernel."""
    try:
        rules = importlib.import_module("jax._src.pallas.cost_estimate")
        from jax._src import core
    except ImportError:  # pragma: no cover - depends on the jax version
        return None
    estimate = getattr(rules, "cost_estimate_jaxpr", None)
    closed_type = getattr(core, "ClosedJaxpr", None)
    if estimate is None or closed_type is None or kernel is None:
        return None  # pragma: no cover - depends on the jax version

    def closed(jaxpr: Any) -> Any:
        return jaxpr if hasattr(jaxpr, "consts") else closed_type(jaxpr, ())

    def cost(jaxpr: Any) -> tuple[int, int]:
        jaxpr = closed(jaxpr)
        base = estimate(jaxpr)
        flops, transcendentals = int(base.flops), int(base.transcendentals)
        for equation in jaxpr.jaxpr.eqns:
            name = str(getattr(equation.primitive, "name", ""))
            params = equation.params
            inner: list[tuple[int, int]] = []
            times = 1
            if name == "scan":
                inner, times = [cost(params["jaxpr"])], int(params["length"])
            elif name == "while":
                inner = [cost(params["body_jaxpr"])]
            elif name == "cond":
                inner = [max((cost(branch) for branch in params["branches"]), default=(0, 0))]
            for f, t in inner:
                flops += f * times
                transcendentals += t * times
        return flops, transcendentals

    try:
        return cost(kernel)
    except Exception:  # noqa: BLE001 - an estimate is a nicety, never a reason to fail
        return None


# ---- the tracing context (recompile diagnosis, hloscope.capture.compile_watch) -------------------


def trace_context_items() -> list[tuple[str, Any]] | None:
    """The config and context-manager values in JAX's tracing-cache key, with their names.

    ``jax._src.config.trace_context()`` is the tuple JAX puts in every tracing-cache key, and
    ``trace_context_names()`` (jaxlib 0.8 on) names its entries: ``jax_enable_x64``,
    ``jax_default_matmul_precision``, the mesh context managers... Two compiles of one function
    whose items differ were told apart by config or a context manager. ``None`` where this jax
    lacks either function, or names and values do not line up (nothing then is compared).
    """
    try:
        from jax._src import config as jax_config
    except ImportError:  # pragma: no cover - depends on the jax version
        return None
    values_of = getattr(jax_config, "trace_context", None)
    names_of = getattr(jax_config, "trace_context_names", None)
    if not callable(values_of) or not callable(names_of):
        return None  # pragma: no cover - depends on the jax version
    try:
        names, values = tuple(names_of()), tuple(values_of())
    except (NotImplementedError, TypeError):  # pragma: no cover - older jaxlib
        return None
    if len(names) != len(values):
        return None  # pragma: no cover - depends on the jax version
    return list(zip(names, values))


# ---- compiling and running HLO text (used by hloscope.bench) -------------------------------------
#
# PJRT compiles MLIR, not HLO: a module text goes HLO text -> XLA's parser -> ``XlaComputation``
# -> ``mlir.xla_computation_to_mlir_module`` (XLA's own HLO-to-MHLO importer) -> the client's
# ``compile_and_load`` (``compile`` before jaxlib 0.6). The importer keeps the entry
# parameters' layouts only as a module attribute that compilation ignores, so they are passed
# again as ``CompileOptions.argument_layouts``. XLA optimizes the module it is given: an
# already optimized module must be made plain first (``hloscope.bench.extract.runnable_text``).


def _executable_devices(devices: Sequence[Any]) -> Any:
    """``DeviceList`` of ``devices`` where this jaxlib has one, else the plain list."""
    device_list = private_symbol("DeviceList") if _has_symbol("DeviceList") else None
    return device_list(tuple(devices)) if device_list is not None else list(devices)


def _has_symbol(name: str) -> bool:
    try:
        private_symbol(name)
    except XlaApiUnavailable:
        return False
    return True


def _xla_shape(dtype: Any, dims: Sequence[int], minor_to_major: Sequence[int]) -> Any:
    """jaxlib's ``Shape`` of an array with an explicit layout."""
    import numpy as np

    shape_type = private_symbol("Shape")
    return shape_type.array_shape(np.dtype(dtype), tuple(dims), tuple(minor_to_major))


def xla_compile(
    text: str,
    device: Any,
    argument_layouts: Sequence[tuple[Any, Sequence[int], Sequence[int]]] | None = None,
) -> Any:
    """Compile the HLO module ``text`` for ``device`` (a ``jax.Device``); returns jaxlib's
    ``LoadedExecutable``.

    ``argument_layouts`` gives, per entry parameter, ``(numpy dtype, dims, minor_to_major)``;
    without it XLA picks the default layouts. Raises :class:`XlaParseFailed` when XLA's parser
    rejects the text and :class:`XlaCompileFailed` when the compiler does.
    """
    computation_type = private_symbol("XlaComputation")
    to_mlir = _mlir_importer()
    _prepare_custom_calls(text)
    module = xla_parse(text)
    mlir = to_mlir(computation_type(module.as_serialized_hlo_module_proto()))
    options = private_symbol("CompileOptions")()
    if argument_layouts is not None:
        options.argument_layouts = [_xla_shape(*layout) for layout in argument_layouts]
    client = device.client
    try:
        compile_and_load = getattr(client, "compile_and_load", None)
        if compile_and_load is not None:
            return compile_and_load(mlir, _executable_devices([device]), options)
        # jaxlib 0.5: compile() loads too and takes its devices from the device assignment.
        return client.compile(mlir, compile_options=options)  # pragma: no cover
    except Exception as error:  # noqa: BLE001 - XLA's status arrives as several types
        raise XlaCompileFailed(_first_line(str(error))) from None


def compile_only(text: str, device: Any) -> Any:
    """Compile the HLO module ``text`` for ``device``, a device of a compile-only client (a TPU
    topology's: :func:`jax.experimental.topologies.get_topology_desc`), which compiles but
    cannot load or run: its ``compile`` takes an MLIR module object made in JAX's own MLIR
    context, not text. Returns jaxlib's ``Executable``; raises what XLA raises (its status
    message is the answer a caller wants, so it is not wrapped)."""
    from jax._src.interpreters import mlir as jax_mlir
    from jax._src.lib.mlir import ir

    computation_type = private_symbol("XlaComputation")
    to_mlir = _mlir_importer()
    module = xla_parse(text)
    source = to_mlir(computation_type(module.as_serialized_hlo_module_proto()))
    options = private_symbol("CompileOptions")()
    with jax_mlir.make_ir_context():
        parsed = ir.Module.parse(source)
        return device.client.compile(
            parsed, executable_devices=_executable_devices([device]), compile_options=options
        )


def _prepare_custom_calls(text: str) -> None:
    """Load what the module's CPU library calls need before they run.

    jaxlib fills in the LAPACK function table of its ``lapack_*_ffi`` custom calls only when
    jax lowers a linalg op (``jaxlib.lapack._lapack.initialize()``, called by
    ``jax._src.lax.linalg``); an executable compiled from text in a process that never did
    would call through empty pointers and crash.
    """
    if 'custom_call_target="lapack_' not in text:
        return
    try:
        from jaxlib import lapack
    except ImportError:  # pragma: no cover - depends on the jaxlib version
        return
    initialize = getattr(getattr(lapack, "_lapack", None), "initialize", None)
    if callable(initialize):
        initialize()


def _mlir_importer() -> Callable[[Any], str]:
    mlir = private_symbol("mlir")
    found = getattr(mlir, "xla_computation_to_mlir_module", None)
    if found is None:
        raise _api_unavailable(
            "mlir.xla_computation_to_mlir_module", jaxlib_version(), SYMBOL_HOMES
        )
    return found


def _first_line(message: str) -> str:
    lines = [line for line in message.strip().splitlines() if line.strip()]
    return lines[0] if lines else "XLA failed without a message"


def executable_hlo_text(executable: Any) -> str:
    """The optimized HLO text XLA made of a compiled ``LoadedExecutable`` (its first module)."""
    modules = _call_or_get(executable.hlo_modules)
    return str(modules[0].to_string())


def execute(executable: Any, arguments: Sequence[Any]) -> list[Any]:
    """Run a ``LoadedExecutable`` from :func:`xla_compile` on ``arguments`` (jax arrays on its
    device, in the parameters' layouts); returns its outputs as jax arrays, a tuple result
    flattened into its elements. Does not wait for the device."""
    try:
        return list(executable.execute(list(arguments)))
    except Exception as error:  # noqa: BLE001 - XLA's status arrives as several types
        message = f"running the executable failed: {_first_line(str(error))}"
        raise XlaCompileFailed(message) from None


# ---- memory of a compiled function -------------------------------------------------------------

#: Dump files of the optimized module that say where its memory goes.
MEMORY_REPORT_KINDS = ("buffer-assignment", "buffer-assignment-values", "live-range")


def compile_with_memory_reports(
    fn: Callable[..., Any], *args: Any, **kwargs: Any
) -> tuple[str, dict[str, str], dict[str, int]]:
    """Compile ``fn(*args, **kwargs)`` with ``jax.jit`` and return what XLA says of its memory:
    the optimized HLO text, XLA's own reports of that module by dump-file kind (see
    :data:`MEMORY_REPORT_KINDS`; ``live-range`` is XLA's ``HloLiveRange`` with the peak), and
    ``Compiled.memory_analysis()`` as ``{field: bytes}``.

    The reports come from a private dump of this one compile (the same redirect as
    :func:`private_compile_dumps`), because ``memory_analysis()`` gives only totals and its
    ``peak_memory_in_bytes`` is not the live-range peak on every backend. A compile answered by
    JAX's persistent cache dumps nothing: the reports are then empty.
    """
    import tempfile

    from ..dump.index import load_dump
    from .dump_options import compile_dumping

    jax = require_jax()
    jitted: Any = fn if hasattr(fn, "lower") else jax.jit(fn)
    lowered = jitted.lower(*args, **kwargs)
    with tempfile.TemporaryDirectory(prefix="hloscope-memory-") as folder:
        with private_compile_dumps(folder):
            # A capture's options: the live range is written whatever XLA_FLAGS says.
            compiled = compile_dumping(lowered, folder, None)
        reports: dict[str, str] = {}
        for module in load_dump(folder).modules:
            if module.after_file is None:
                continue
            for kind in MEMORY_REPORT_KINDS:
                files = module.companions(kind)
                if files and kind not in reports:
                    reports[kind] = files[0].path.read_text()
    stats: dict[str, int] = {}
    analysis = compiled.memory_analysis()
    for attribute in dir(analysis):
        value = getattr(analysis, attribute, None)
        if attribute.endswith("_in_bytes") and isinstance(value, int):
            stats[attribute] = value
    return str(compiled.as_text()), reports, stats
