"""TPU MXU alignment: the dots and convolutions whose sizes leave the matrix unit partly idle.

A TPU multiplies matrices on its MXU, a systolic array of ``mxu`` x ``mxu`` multiply-add
cells: 128 x 128 on TPU v2 to v5, 256 x 256 on v6e (Trillium). A matrix product
``[M, K] x [K, N]`` is cut into tiles of the array's size, and a dimension that is not a
multiple of it fills its last tile only partly: the hardware does the whole tile's work anyway.
The arithmetic of it, which this module does for every ``dot`` and ``convolution`` of a module:

* the array holds a ``K x N`` tile of one operand (the contracting dimension along one side,
  the output features along the other) while the ``M`` rows of the other operand stream
  through it. A dimension of size ``d`` uses ``d / pad(d)`` of the array along its side, where
  ``pad(d)`` rounds ``d`` up to a multiple of ``mxu``: ``K = 64`` on a 128 array uses 50%.
  :attr:`MxuFinding.array_use` is the product over the array's two sides, ``K`` and ``N``;
* ``M`` streams, but in passes of ``mxu`` rows (the array fills and drains once per pass), so
  a batch of 64 through a 128 array also idles half the time: the articles this project grew
  from raise a batch from 64 to 128 to fill the 128 x 128 array. :attr:`MxuFinding.use`
  counts all three (``M``, ``N``, ``K``): the useful share of the padded work;
* :attr:`MxuFinding.wasted_flops` is the padded work less the useful work, ``2 B (M'N'K' -
  MNK)`` times the kernel window of a convolution: findings are ranked by it, so a large
  misaligned layer comes before a small one, and a small matrix (every dimension under the
  array's size) is still reported, after the layers that cost more.

What M, N and K are:

* a **dot**: ``K`` is the product of the contracting dimensions, ``M`` of the lhs dimensions
  that are neither batch nor contracting, ``N`` of the rhs ones, ``B`` of the batch
  dimensions (each batch element is its own matrix product);
* a **convolution** (``dim_labels=b01f_01io->b01f``): ``K`` is the kernel's input feature
  dimension (``i``), ``N`` its output features per group (``o / feature_group_count``), ``M``
  the output's batch and spatial positions together (everything but its ``f``), ``B`` the
  feature groups, and each of the kernel's window positions is one more ``[M, K] x [K, N]``
  product (the way XLA lowers a convolution onto the MXU). The gradient of a convolution's
  kernel (``dim_labels=f01b_i01o->01bf``) contracts over the batch, which its labels make the
  input feature: a small batch shows there as a small ``K``.

**Not matrix products**, and so left out: a dot with no contraction (``K = 1``: an outer
product, a broadcast multiply), one whose output per batch element is a single value
(``M = N = 1``: an inner product, a reduction), and any whose useful work ``M N K`` is under
one array row (``mxu`` multiply-adds: the 3 x 3 products of geometry code). A depthwise
convolution has ``K = 1`` per group and is left out by the first rule: it runs on the vector
units, not the MXU.

The figures are per execution: a dot inside a ``while`` body runs once per iteration. Real
TPU compilers also pad the streamed rows to 8 (their vector tile) and may pick which operand
to hold; this is the array-size arithmetic the alignment advice rests on, not a simulation.

Every computation is read, fused ones too: in an optimized module a dot sits inside the
fusion computation of its kernel, and its finding names that kernel
(:attr:`MxuFinding.kernel`) and the user's line in the dot's metadata, else the kernel's.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from ..dataframes import require_pandas
from ..devices import DEFAULT_MXU
from ..devices import devices as registry_rows
from ..hlo.errors import HloParseError
from ..hlo.metadata import StackFrame
from ..hlo.model import Computation, Instruction, Module
from ..json_fields import json_fields
from .provenance import is_user_frame

if TYPE_CHECKING:  # pragma: no cover
    import pandas

__all__ = [
    "mxu_sizes",
    "DEFAULT_MXU",
    "MxuOp",
    "MxuFinding",
    "mxu_findings",
    "mxu_dataframe",
    "padded",
]


#: The function of a finding in the entry computation (what ``hloscope check`` calls it).
_TOP_LEVEL = "<top>"
# How far up the callers of a computation a kernel and a source line are looked for.
_CALLER_DEPTH = 8


def mxu_sizes() -> dict[str, int]:
    """The MXU's side on each TPU the device registry knows (:mod:`hloscope.devices`, read
    now: Cloud TPU system architecture pages, v2-v5 128 x 128, v6e and v7 256 x 256)."""
    return {row.name: row.mxu for row in registry_rows("tpu") if row.mxu is not None}


class MxuOp(StrEnum):
    """The opcodes that run on the MXU."""

    DOT = "dot"
    CONVOLUTION = "convolution"


def padded(size: int, mxu: int) -> int:
    """``size`` rounded up to a multiple of ``mxu``: what the array computes for it
    (``padded(100, 128) == 128``, ``padded(200, 128) == 256``)."""
    return max(mxu, -(-size // mxu) * mxu)


@dataclass(frozen=True, slots=True)
class MxuFinding:
    """One dot or convolution whose ``M``, ``N`` or ``K`` is not a multiple of the MXU size.

    ``node`` is the instruction, ``kernel`` the fusion that runs it in an optimized module
    (the instruction itself when it is not fused), ``function`` its enclosing computation
    (``<top>`` for the entry), ``source`` the user's ``file:line``. ``batch`` counts the
    independent products (batch dimensions, convolution groups), ``window`` the kernel
    positions of a convolution (1 for a dot). See the module docstring for the arithmetic.
    """

    op: MxuOp
    node: str
    kernel: str
    function: str
    module: str
    source: str | None
    dtype: str
    m: int
    n: int
    k: int
    batch: int = 1
    window: int = 1
    mxu: int = DEFAULT_MXU

    @property
    def padded_m(self) -> int:
        return padded(self.m, self.mxu)

    @property
    def padded_n(self) -> int:
        return padded(self.n, self.mxu)

    @property
    def padded_k(self) -> int:
        return padded(self.k, self.mxu)

    @property
    def misaligned(self) -> tuple[str, ...]:
        """The dimensions that are not multiples of the MXU size, of ``("m", "n", "k")``."""
        sizes = {"m": self.m, "n": self.n, "k": self.k}
        return tuple(name for name, size in sizes.items() if size % self.mxu)

    @property
    def array_use(self) -> float:
        """The share of the array's cells that hold data: ``K`` along one side times ``N``
        along the other (``K = 64, N = 128`` on a 128 array: 0.5)."""
        return (self.k / self.padded_k) * (self.n / self.padded_n)

    @property
    def use(self) -> float:
        """The useful share of the padded work, the streamed ``M`` included: ``MNK / M'N'K'``."""
        return self.array_use * (self.m / self.padded_m)

    @property
    def flops(self) -> int:
        """The useful floating-point operations: a multiply and an add per term."""
        return 2 * self.batch * self.window * self.m * self.n * self.k

    @property
    def padded_flops(self) -> int:
        """What the MXU does for it, every dimension rounded up to the array's size."""
        return 2 * self.batch * self.window * self.padded_m * self.padded_n * self.padded_k

    @property
    def wasted_flops(self) -> int:
        return self.padded_flops - self.flops

    @property
    def padded_shape(self) -> str:
        """The matrix product that would fill the array, ``[M', K'] x [K', N']`` (with ``B x``
        in front when there are several): ``[128,128]x[128,256]`` for ``[64,100]x[100,200]``."""
        head = f"{self.batch}x" if self.batch > 1 else ""
        m, n, k = self.padded_m, self.padded_n, self.padded_k
        return f"{head}[{m},{k}]x[{k},{n}]"

    @property
    def shape(self) -> str:
        """The product as it is, in the same form as :attr:`padded_shape`."""
        head = f"{self.batch}x" if self.batch > 1 else ""
        return f"{head}[{self.m},{self.k}]x[{self.k},{self.n}]"

    @property
    def suggestion(self) -> str:
        """What to change, in words: each misaligned dimension and the size that fills it."""
        names = _CONV_NAMES if self.op is MxuOp.CONVOLUTION else _DOT_NAMES
        sizes = {"m": (self.m, self.padded_m), "k": (self.k, self.padded_k)}
        sizes["n"] = (self.n, self.padded_n)
        changes = [
            f"{names[d]} {size} -> {fill}"
            for d, (size, fill) in sizes.items()
            if d in self.misaligned
        ]
        return (
            f"pad or resize to multiples of {self.mxu} to fill the {self.mxu}x{self.mxu} MXU: "
            + ", ".join(changes)
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            **json_fields(
                self,
                "op node kernel function module source dtype mxu_size=mxu batch window m n k "
                "misaligned",
            ),
            "padded": json_fields(self, "m=padded_m n=padded_n k=padded_k"),
            **json_fields(self, "padded_shape array_use use flops wasted_flops suggestion"),
        }


_DOT_NAMES = {"m": "M (rows, e.g. the batch)", "k": "K (contracting)", "n": "N (output)"}
_CONV_NAMES = {
    "m": "M (batch x output positions)",
    "k": "K (input features)",
    "n": "N (output features)",
}


# ---- finding them -------------------------------------------------------------------------------


def mxu_findings(module: Module, mxu: int = DEFAULT_MXU) -> list[MxuFinding]:
    """Every dot and convolution of ``module`` (fused computations too) whose ``M``, ``N`` or
    ``K`` is not a multiple of ``mxu`` (128 for TPU v2-v5, 256 for v6e: :func:`mxu_sizes`),
    most wasted work first. Products that are not matrix products are left out (see the
    module docstring)."""
    if mxu < 1:
        raise ValueError(f"the MXU size must be positive, not {mxu}")
    found = []
    for computation in module.computations:
        opcodes = computation.opcodes()
        if MxuOp.DOT not in opcodes and MxuOp.CONVOLUTION not in opcodes:
            continue  # most computations are not built to find that out
        for instruction in computation.instructions:
            finding = _finding(module, instruction, mxu)
            if finding is not None and finding.misaligned:
                found.append(finding)
    return sorted(found, key=lambda f: (-f.wasted_flops, f.module, f.node))


def _finding(module: Module, instruction: Instruction, mxu: int) -> MxuFinding | None:
    if instruction.opcode == MxuOp.DOT:
        sizes = _dot_sizes(instruction)
    elif instruction.opcode == MxuOp.CONVOLUTION:
        sizes = _convolution_sizes(instruction)
    else:
        return None
    if sizes is None:
        return None
    m, n, k, batch, window = sizes
    if not _is_matrix_product(m, n, k, mxu):
        return None
    try:
        dtype = instruction.shape.element_type
    except HloParseError:
        dtype = "?"
    return MxuFinding(
        op=MxuOp(instruction.opcode),
        node=instruction.name,
        kernel=_kernel(instruction),
        function=_function(instruction.computation),
        module=module.name,
        source=_source(instruction),
        dtype=dtype,
        m=m,
        n=n,
        k=k,
        batch=batch,
        window=window,
        mxu=mxu,
    )


def _is_matrix_product(m: int, n: int, k: int, mxu: int) -> bool:
    """Not an outer product (``K = 1``), not an inner one (``M = N = 1``), and at least one
    array row's work (``M N K >= mxu``)."""
    return k > 1 and m * n > 1 and m * n * k >= mxu


# (M, N, K, batch, window): the sizes of one MXU product (see the module docstring).
_Sizes = tuple[int, int, int, int, int]


def _dims(instruction: Instruction, operand: int) -> tuple[int, ...] | None:
    """The static dimensions of an operand, ``None`` when unknown or dynamic."""
    try:
        dims = instruction.operands[operand].shape.dims
    except (HloParseError, IndexError):
        return None
    if any(d is None for d in dims):
        return None
    return tuple(d for d in dims if d is not None)


def _int_list(instruction: Instruction, name: str) -> tuple[int, ...]:
    try:
        value = instruction.attrs.get(name)
    except HloParseError:
        return ()
    return tuple(value) if isinstance(value, (list, tuple)) else ()


def _dot_sizes(instruction: Instruction) -> _Sizes | None:
    lhs, rhs = _dims(instruction, 0), _dims(instruction, 1)
    if lhs is None or rhs is None:
        return None
    lhs_batch = _int_list(instruction, "lhs_batch_dims")
    lhs_contracting = _int_list(instruction, "lhs_contracting_dims")
    rhs_batch = _int_list(instruction, "rhs_batch_dims")
    rhs_contracting = _int_list(instruction, "rhs_contracting_dims")
    try:
        k = _product(lhs[d] for d in lhs_contracting)
        batch = _product(lhs[d] for d in lhs_batch)
    except IndexError:
        return None
    m = _product(s for d, s in enumerate(lhs) if d not in lhs_batch and d not in lhs_contracting)
    n = _product(s for d, s in enumerate(rhs) if d not in rhs_batch and d not in rhs_contracting)
    return m, n, k, batch, 1


def _convolution_sizes(instruction: Instruction) -> _Sizes | None:
    kernel = _dims(instruction, 1)
    try:
        labels = instruction.attrs.get("dim_labels")
        output = instruction.shape.dims
        groups = instruction.attrs.get("feature_group_count") or 1
        batch_groups = instruction.attrs.get("batch_group_count") or 1
    except HloParseError:
        return None
    if kernel is None or labels is None or any(d is None for d in output):
        return None
    try:
        k = kernel[labels.kernel_input_feature_dimension]
        features = kernel[labels.kernel_output_feature_dimension]
        window = _product(kernel[d] for d in labels.kernel_spatial_dimensions)
        out_features = output[labels.output_feature_dimension]
    except (IndexError, ValueError, AttributeError):
        return None
    total = _product(d for d in output if d is not None)
    if not out_features or not isinstance(groups, int) or not isinstance(batch_groups, int):
        return None
    both = groups * batch_groups
    return total // out_features, features // both, k, both, window


def _product(values: Iterable[int]) -> int:
    return math.prod(values)


# ---- where it runs and where it came from --------------------------------------------------------


def _caller(computation: Computation | None) -> Instruction | None:
    if computation is None or computation.is_entry:
        return None
    callers = computation.callers
    return callers[0] if callers else None


def _kernel(instruction: Instruction) -> str:
    """The outermost fusion that runs ``instruction``, else ``instruction`` itself."""
    kernel = instruction
    current = _caller(instruction.computation)
    for _ in range(_CALLER_DEPTH):
        if current is None or current.opcode != "fusion":
            break
        kernel = current
        current = _caller(current.computation)
    return kernel.name


def _function(computation: Computation | None) -> str:
    """The enclosing computation for a reader: a fused computation counts as its caller's."""
    for _ in range(_CALLER_DEPTH):
        if computation is None or computation.is_entry:
            return _TOP_LEVEL
        caller = _caller(computation)
        if caller is None or caller.opcode != "fusion":
            return computation.name
        computation = caller.computation
    return _TOP_LEVEL if computation is None or computation.is_entry else computation.name


def _source(instruction: Instruction) -> str | None:
    """The user's ``file:line`` in the metadata of ``instruction``, else of its callers."""
    current: Instruction | None = instruction
    for _ in range(_CALLER_DEPTH):
        if current is None:
            return None
        frame = _user(current.stack)
        if frame is not None:
            return f"{frame.file}:{frame.line}"
        current = _caller(current.computation)
    return None


def _user(stack: Sequence[StackFrame]) -> StackFrame | None:
    return next((frame for frame in stack if is_user_frame(frame)), None)


# ---- as a table ---------------------------------------------------------------------------------

_COLUMNS = [
    "op",
    "node",
    "kernel",
    "function",
    "module",
    "source",
    "dtype",
    "mxu_size",
    "batch",
    "window",
    "m",
    "n",
    "k",
    "padded_shape",
    "array_use",
    "use",
    "flops",
    "wasted_flops",
    "suggestion",
]


def mxu_dataframe(findings: Iterable[MxuFinding]) -> pandas.DataFrame:
    """One row per finding (:meth:`MxuFinding.to_dict`'s flat fields), in the order given."""
    pd = require_pandas()
    rows = [{c: f.to_dict()[c] for c in _COLUMNS} for f in findings]
    return pd.DataFrame(rows, columns=_COLUMNS)
