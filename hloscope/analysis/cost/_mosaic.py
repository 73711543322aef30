"""XLA:TPU's own Mosaic kernels: told apart from Pallas kernels, and costed from their body.

A ``tpu_custom_call`` is not always a user's Pallas kernel. XLA:TPU writes Mosaic kernels of its
own for some patterns (``online-softmax``: ``softmax(scores) @ v`` of an attention, a whole
attention as one ``dot_general`` kernel) and calls them through the same custom call. The two
differ in how the kernel travels: JAX's ``pallas_call`` (and Mosaic's ``as_tpu_kernel``)
serialize the kernel as MLIR bytecode (``serialization_format`` in the config, the body starting
``ML\\xefR``) under an ``op_name`` ending in ``pallas_call``; XLA:TPU's own kernels carry their
Mosaic module as text (``module {``). Advice to give a ``pallas_call`` a cost estimate is for
the first kind only: the program has no ``pallas_call`` for the second.

XLA:TPU gives some of its kernels a ``cost_estimate`` (which the cost model reads first) and
others none (``online-softmax``: XLA's cost analysis counts 0 FLOPs for it). For those, the
kernel's text says what it computes: :func:`mosaic_cost` counts the arithmetic of one grid step
of the kernel's function (a ``tpu.matmul`` or ``vector.contract`` 2 x result x contracted
elements, an elementwise ``arith`` op one FLOP per element, a ``math`` op such as ``exp`` one
transcendental, a reduction one FLOP per element reduced; loads, stores, casts of shape free)
times its ``iteration_bounds``. It is an estimate (a step that skips work under a condition is
counted whole) and is flagged as one; the bytes stay the kernel's boundary.
"""

from __future__ import annotations

import base64
import binascii
import math
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from ...hlo.model import Instruction

__all__ = ["MosaicCost", "MOSAIC_TARGET", "mosaic_cost", "xla_kernel_body"]

#: The custom call both kinds of Mosaic kernel reach XLA through.
MOSAIC_TARGET = "tpu_custom_call"

# ``math`` dialect ops XLA would count as transcendentals (its TRANSCENDENTAL opcodes).
_TRANSCENDENTAL = frozenset(
    {
        "exp",
        "exp2",
        "expm1",
        "log",
        "log1p",
        "log2",
        "tanh",
        "rsqrt",
        "sqrt",
        "cbrt",
        "sin",
        "cos",
        "tan",
        "atan",
        "atan2",
        "erf",
        "powf",
        "acos",
        "asin",
        "sinh",
        "cosh",
    }
)
# ``arith`` ops that compute nothing per element.
_FREE_ARITH = frozenset({"constant", "bitcast", "index_cast", "index_castui"})
# One FLOP per element of the reduced vector.
_REDUCTIONS = frozenset({"vector.multi_reduction", "vector.reduction"})

_VECTOR = re.compile(r"vector<((?:\d+x)*)([a-z][a-z0-9]*)>")
_OP = re.compile(r"^\s*(?:%[^=]*?=\s*)?(?P<op>[a-z_]+\.[a-z_0-9]+)\b(?P<rest>.*)$")
_CONSTANT = re.compile(r"^\s*(%[\w]+)\s*=\s*arith\.constant\s+(-?\d+)\s*:\s*(?:index|i\d+)\s*$")
_FOR = re.compile(r"scf\.for\s+%\w+\s*=\s*(\S+)\s+to\s+(\S+)\s+step\s+(\S+)")
_BOUNDS = re.compile(r"iteration_bounds\s*=\s*array<i64(?::\s*([-\d,\s]*))?>")
_LHS_CONTRACTING = re.compile(r"dot_dimension_numbers<\[([\d,\s]*)\]")
_MAPS = re.compile(r"indexing_maps\s*=\s*\[affine_map<\(([^)]*)\)\s*->\s*\(([^)]*)\)>")
_ITERATORS = re.compile(r"iterator_types\s*=\s*\[([^\]]*)\]")


@dataclass(frozen=True, slots=True)
class MosaicCost:
    """A Mosaic kernel's arithmetic over its whole grid: ``flops`` (of which ``matmul_flops``
    in matrix products), ``transcendentals``, and the grid's ``steps``."""

    flops: int
    transcendentals: int
    matmul_flops: int
    steps: int


def xla_kernel_body(inst: Instruction) -> str | None:
    """The Mosaic module (text) of a ``tpu_custom_call`` that XLA:TPU wrote itself; ``None``
    for any other instruction, a Pallas kernel among them (see the module docstring)."""
    if inst.attrs.get("custom_call_target") != MOSAIC_TARGET:
        return None
    kernel = _kernel_config(inst)
    if kernel is None or "serialization_format" in kernel:
        return None
    if "pallas_call" in inst.op_name:
        return None
    body = kernel.get("body")
    return _text_module(body) if isinstance(body, str) else None


def _kernel_config(inst: Instruction) -> dict[str, Any] | None:
    """The ``custom_call_config`` of a ``tpu_custom_call`` (``None`` when it has none)."""
    config = inst.attrs.get("backend_config")
    kernel = config.get("custom_call_config") if isinstance(config, dict) else None
    return kernel if isinstance(kernel, dict) else None


@lru_cache(maxsize=256)
def _text_module(encoded: str) -> str | None:
    try:
        raw = base64.b64decode(encoded, validate=False)
    except (binascii.Error, ValueError):
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None  # MLIR bytecode: a serialized (Pallas) kernel
    return text if text.lstrip().startswith("module") else None


@lru_cache(maxsize=256)
def mosaic_cost(module: str) -> MosaicCost | None:
    """What the Mosaic ``module``'s kernel computes over its grid (see the module docstring);
    ``None`` when it holds no function to read."""
    kernel = _kernel_function(module)
    if kernel is None:
        return None
    header, lines = kernel
    steps = _steps(header)
    constants: dict[str, int] = {}
    flops = transcendentals = matmul = 0
    repeats = [1]  # how often the enclosing region runs per step
    for line in lines:
        found = _CONSTANT.match(line)
        if found is not None:
            constants[found[1]] = int(found[2])
        times = math.prod(repeats)
        f, t, m = _line_cost(line)
        flops += f * times
        transcendentals += t * times
        matmul += m * times
        opened = line.count("{") - line.count("}")
        for _ in range(max(0, opened)):
            repeats.append(_trip_count(line, constants))
        for _ in range(max(0, -opened)):
            if len(repeats) > 1:
                repeats.pop()
    return MosaicCost(flops * steps, transcendentals * steps, matmul * steps, steps)


def _kernel_function(module: str) -> tuple[str, list[str]] | None:
    """The header and body lines of the kernel's function: the one with ``iteration_bounds``
    (the grid), else the first."""
    functions: list[tuple[str, list[str]]] = []
    for line in module.splitlines():
        stripped = line.strip()
        if stripped.startswith("func.func"):
            functions.append((stripped, []))
        elif functions:
            functions[-1][1].append(line)
    if not functions:
        return None
    return next((f for f in functions if "iteration_bounds" in f[0]), functions[0])


def _steps(header: str) -> int:
    found = _BOUNDS.search(header)
    if found is None or not found[1]:
        return 1
    sizes = [int(size) for size in found[1].split(",") if size.strip()]
    return math.prod(size for size in sizes if size > 0)


def _trip_count(line: str, constants: dict[str, int]) -> int:
    """How often a region opened on ``line`` runs: a ``scf.for`` of constant bounds its trip
    count, anything else (a condition, a loop of bounds known only at run time) once."""
    found = _FOR.search(line)
    if found is None:
        return 1
    lower, upper, step = (constants.get(v, _int(v)) for v in found.groups())
    if lower is None or upper is None or not step:
        return 1
    return max(0, -(-(upper - lower) // step))


def _int(text: str) -> int | None:
    try:
        return int(text)
    except ValueError:
        return None


def _vectors(text: str) -> list[tuple[int, ...]]:
    return [tuple(int(d) for d in dims.split("x") if d) for dims, _ in _VECTOR.findall(text)]


def _line_cost(line: str) -> tuple[int, int, int]:
    """``(flops, transcendentals, matmul flops)`` of one op line, once."""
    found = _OP.match(line)
    if found is None:
        return 0, 0, 0
    op, rest = found["op"], found["rest"]
    dialect, _, name = op.partition(".")
    types = rest.rsplit(" : ", 1)[-1] if " : " in rest else ""
    vectors = _vectors(types)
    if not vectors:
        return 0, 0, 0  # scalar (index) arithmetic of the scalar core, or no values
    if op in ("tpu.matmul", "vector.contract"):
        products = _matmul_flops(op, rest, vectors)
        return products, 0, products
    if op in _REDUCTIONS:
        return math.prod(vectors[0]), 0, 0
    elements = math.prod(vectors[-1])
    if dialect == "math":
        return (0, elements, 0) if name in _TRANSCENDENTAL else (elements, 0, 0)
    if dialect == "arith" and name not in _FREE_ARITH:
        return elements, 0, 0
    return 0, 0, 0


def _matmul_flops(op: str, rest: str, vectors: list[tuple[int, ...]]) -> int:
    """2 x the result's elements x the contracted size of the left operand."""
    lhs, result = vectors[0], vectors[-1]
    contracted = _contracted_dims(op, rest, len(lhs))
    size = math.prod(lhs[d] for d in contracted if d < len(lhs)) if contracted else lhs[-1]
    return 2 * math.prod(result) * size


def _contracted_dims(op: str, rest: str, rank: int) -> list[int]:
    if op == "tpu.matmul":
        found = _LHS_CONTRACTING.search(rest)
        return [int(d) for d in found[1].split(",") if d.strip()] if found else []
    maps, iterators = _MAPS.search(rest), _ITERATORS.search(rest)
    if maps is None or iterators is None:
        return []
    names = [n.strip() for n in maps[1].split(",")]
    kinds = [k.strip().strip('"') for k in iterators[1].split(",")]
    reduced = {n for n, k in zip(names, kinds, strict=False) if k == "reduction"}
    lhs = [d.strip() for d in maps[2].split(",")]
    return [i for i, d in enumerate(lhs[:rank]) if d in reduced]
