"""The HLO opcode table: every opcode XLA prints, its arity and a category for reports.

Names and arities follow ``xla/hlo/ir/hlo_opcode.h`` (``HLO_OPCODE_LIST``), including opcodes
that only newer XLA has (``scan``, ``scaled-dot``, ``mulhi``...) and legacy ones older dumps use.
Categories are hloscope's own grouping, chosen for fusion reports and graph colours:

================  ===========================================================================
category          meaning
================  ===========================================================================
elementwise       one output element from the same element of each input (add, exp, convert)
reduction         combines many elements into one (reduce, reduce-window, select-and-scatter)
linear_algebra    dot, convolution, fft, cholesky, triangular-solve, batch-norm-*
data_movement     moves or reshapes data without arithmetic (broadcast, transpose, slice, gather)
sort              sort, topk
control_flow      call, while, conditional, async-start/update/done
fusion            fusion (a kernel made of a fused computation)
collective        all-reduce, all-gather, collective-permute, ... (cross-device)
custom_call       custom-call (library kernels, host callbacks)
source            parameter, constant, iota, replica-id, partition-id
rng               rng, rng-bit-generator, rng-get-and-update-state
io                infeed, outfeed, send, recv and their -done ops
async_memory      copy-start, copy-done
misc              after-all, add-dependency, domain, opt-barrier
unknown           an opcode this table does not know (a newer XLA); kept, never an error
================  ===========================================================================
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum, auto

__all__ = [
    "Category",
    "Opcode",
    "OPCODES",
    "CATEGORIES",
    "category_of",
    "opcode_info",
    "FREE_OPCODES",
    "SINGLE_COMPUTATION_ATTRS",
    "COMPUTATION_LIST_ATTRS",
    "CALLED_COMPUTATION_ATTRS",
    "CALLER_OPCODES",
]


class Category(StrEnum):
    """The category vocabulary (see the table above).

    A :class:`~enum.StrEnum` whose values are the names in lower case (``auto()``): each
    member *is* its string, so ``category == "elementwise"``, dict keys, JSON and
    ``f"{category}"`` all behave as the plain strings did before.
    """

    ELEMENTWISE = auto()
    REDUCTION = auto()
    LINEAR_ALGEBRA = auto()
    DATA_MOVEMENT = auto()
    SORT = auto()
    CONTROL_FLOW = auto()
    FUSION = auto()
    COLLECTIVE = auto()
    CUSTOM_CALL = auto()
    SOURCE = auto()
    RNG = auto()
    IO = auto()
    ASYNC_MEMORY = auto()
    MISC = auto()
    UNKNOWN = auto()


@dataclass(frozen=True, slots=True)
class Opcode:
    """An opcode: text name, C++ enum name, arity (-1 = variadic) and category."""

    name: str
    enum: str
    arity: int
    category: Category

    @property
    def is_variadic(self) -> bool:
        return self.arity < 0


# One row per opcode: the name HLO text uses, XLA's HloOpcode enum name, the operand count (-1:
# variadic) and the category. Kept as text so the table reads like the one in hlo_opcode.h.
_TABLE = """
abs                       kAbs                      1  elementwise
acos                      kAcos                     1  elementwise
acosh                     kAcosh                    1  elementwise
add                       kAdd                      2  elementwise
add-dependency            kAddDependency            2  misc
after-all                 kAfterAll                -1  misc
all-gather                kAllGather               -1  collective
all-gather-done           kAllGatherDone            1  collective
all-gather-start          kAllGatherStart          -1  collective
all-reduce                kAllReduce               -1  collective
all-reduce-done           kAllReduceDone            1  collective
all-reduce-start          kAllReduceStart          -1  collective
all-to-all                kAllToAll                -1  collective
and                       kAnd                      2  elementwise
asin                      kAsin                     1  elementwise
asinh                     kAsinh                    1  elementwise
async-done                kAsyncDone                1  control_flow
async-start               kAsyncStart              -1  control_flow
async-update              kAsyncUpdate              1  control_flow
atan                      kAtan                     1  elementwise
atan2                     kAtan2                    2  elementwise
atanh                     kAtanh                    1  elementwise
batch-norm-grad           kBatchNormGrad            5  linear_algebra
batch-norm-inference      kBatchNormInference       5  linear_algebra
batch-norm-training       kBatchNormTraining        3  linear_algebra
bitcast                   kBitcast                  1  data_movement
bitcast-convert           kBitcastConvert           1  elementwise
broadcast                 kBroadcast                1  data_movement
call                      kCall                    -1  control_flow
cbrt                      kCbrt                     1  elementwise
ceil                      kCeil                     1  elementwise
cholesky                  kCholesky                 1  linear_algebra
clamp                     kClamp                    3  elementwise
collective-broadcast      kCollectiveBroadcast     -1  collective
collective-permute        kCollectivePermute       -1  collective
collective-permute-done   kCollectivePermuteDone    1  collective
collective-permute-start  kCollectivePermuteStart  -1  collective
collective-reduce         kCollectiveReduce        -1  collective
compare                   kCompare                  2  elementwise
complex                   kComplex                  2  elementwise
concatenate               kConcatenate             -1  data_movement
conditional               kConditional             -1  control_flow
constant                  kConstant                 0  source
convert                   kConvert                  1  elementwise
convolution               kConvolution              2  linear_algebra
copy                      kCopy                     1  data_movement
copy-done                 kCopyDone                 1  async_memory
copy-start                kCopyStart                1  async_memory
cosh                      kCosh                     1  elementwise
cosine                    kCos                      1  elementwise
count-leading-zeros       kClz                      1  elementwise
custom-call               kCustomCall              -1  custom_call
divide                    kDivide                   2  elementwise
domain                    kDomain                   1  misc
dot                       kDot                     -1  linear_algebra
dynamic-reshape           kDynamicReshape          -1  data_movement
dynamic-slice             kDynamicSlice            -1  data_movement
dynamic-update-slice      kDynamicUpdateSlice      -1  data_movement
erf                       kErf                      1  elementwise
exponential               kExp                      1  elementwise
exponential-minus-one     kExpm1                    1  elementwise
fft                       kFft                      1  linear_algebra
floor                     kFloor                    1  elementwise
fusion                    kFusion                  -1  fusion
gather                    kGather                   2  data_movement
get-dimension-size        kGetDimensionSize         1  data_movement
get-tuple-element         kGetTupleElement          1  data_movement
imag                      kImag                     1  elementwise
infeed                    kInfeed                   1  io
iota                      kIota                     0  source
is-finite                 kIsFinite                 1  elementwise
log                       kLog                      1  elementwise
log-plus-one              kLog1p                    1  elementwise
logistic                  kLogistic                 1  elementwise
map                       kMap                     -1  elementwise
maximum                   kMaximum                  2  elementwise
minimum                   kMinimum                  2  elementwise
mulhi                     kMulhi                    2  elementwise
multiply                  kMultiply                 2  elementwise
negate                    kNegate                   1  elementwise
not                       kNot                      1  elementwise
opt-barrier               kOptimizationBarrier      1  misc
or                        kOr                       2  elementwise
outfeed                   kOutfeed                  2  io
pad                       kPad                      2  data_movement
parameter                 kParameter                0  source
partition-id              kPartitionId              0  source
popcnt                    kPopulationCount          1  elementwise
power                     kPower                    2  elementwise
ragged-all-to-all         kRaggedAllToAll           6  collective
ragged-dot                kRaggedDot                3  linear_algebra
real                      kReal                     1  elementwise
recv                      kRecv                     1  io
recv-done                 kRecvDone                 1  io
reduce                    kReduce                  -1  reduction
reduce-precision          kReducePrecision          1  elementwise
reduce-scatter            kReduceScatter           -1  collective
reduce-window             kReduceWindow            -1  reduction
remainder                 kRemainder                2  elementwise
replica-id                kReplicaId                0  source
reshape                   kReshape                  1  data_movement
reverse                   kReverse                  1  data_movement
rng                       kRng                     -1  rng
rng-bit-generator         kRngBitGenerator          1  rng
rng-get-and-update-state  kRngGetAndUpdateState     0  rng
round-nearest-afz         kRoundNearestAfz          1  elementwise
round-nearest-even        kRoundNearestEven         1  elementwise
rsqrt                     kRsqrt                    1  elementwise
scaled-dot                kScaledDot                4  linear_algebra
scan                      kScan                    -1  reduction
scatter                   kScatter                 -1  data_movement
select                    kSelect                   3  elementwise
select-and-scatter        kSelectAndScatter         3  reduction
send                      kSend                     2  io
send-done                 kSendDone                 1  io
set-dimension-size        kSetDimensionSize         2  data_movement
shift-left                kShiftLeft                2  elementwise
shift-right-arithmetic    kShiftRightArithmetic     2  elementwise
shift-right-logical       kShiftRightLogical        2  elementwise
shuffle                   kShuffle                  1  data_movement
sign                      kSign                     1  elementwise
sine                      kSin                      1  elementwise
sinh                      kSinh                     1  elementwise
slice                     kSlice                    1  data_movement
sort                      kSort                    -1  sort
sqrt                      kSqrt                     1  elementwise
stochastic-convert        kStochasticConvert        2  elementwise
subtract                  kSubtract                 2  elementwise
tan                       kTan                      1  elementwise
tanh                      kTanh                     1  elementwise
topk                      kTopK                     1  sort
transpose                 kTranspose                1  data_movement
triangular-solve          kTriangularSolve          2  linear_algebra
tuple                     kTuple                   -1  data_movement
while                     kWhile                    1  control_flow
xor                       kXor                      2  elementwise
# Legacy opcodes still found in old dumps.
trace                     kTrace                    1  misc
tuple-select              kTupleSelect              3  elementwise
"""


def _rows(table: str) -> list[tuple[str, str, int, str]]:
    rows = []
    for line in table.splitlines():
        if line.strip() and not line.startswith("#"):
            name, enum, arity, category = line.split()
            rows.append((name, enum, int(arity), category))
    return rows


_ROWS = _rows(_TABLE)

# The rows spell categories as strings (short lines); the table holds the enum members.
OPCODES: dict[str, Opcode] = {
    name: Opcode(name, enum, arity, Category(category)) for name, enum, arity, category in _ROWS
}

#: Every category, in the order reports list them.
CATEGORIES: tuple[Category, ...] = tuple(Category)

# Ops that produce no kernel of their own: they alias or name existing buffers.
FREE_OPCODES: frozenset[str] = frozenset(
    {
        "parameter",
        "constant",
        "bitcast",
        "tuple",
        "get-tuple-element",
        "after-all",
        "add-dependency",
        "opt-barrier",
        "domain",
        "partition-id",
        "replica-id",
    }
)

_ASYNC_SUFFIXES = ("-start", "-update", "-done")

# --- which opcodes and attributes call computations -----------------------------------------
# The single table: the model resolves called computations from these attributes, the
# attribute decoders read their values as computation names, and the parser checks that the
# names exist for the opcodes that can call.

#: Attributes whose value names one computation (``to_apply=%add``). ``calls`` may also
#: list several (``calls=%a, %b``).
SINGLE_COMPUTATION_ATTRS: tuple[str, ...] = (
    "calls",
    "to_apply",
    "condition",
    "body",
    "true_computation",
    "false_computation",
    "select",
    "scatter",
)
#: Attributes whose value is a list of computations (``branch_computations={%a, %b}``).
COMPUTATION_LIST_ATTRS: tuple[str, ...] = ("branch_computations", "called_computations")
#: Every computation-valued attribute, in the order called computations are listed (the
#: order XLA prints them: lists come before ``select``/``scatter``).
CALLED_COMPUTATION_ATTRS: tuple[str, ...] = (
    *SINGLE_COMPUTATION_ATTRS[:6],
    *COMPUTATION_LIST_ATTRS,
    *SINGLE_COMPUTATION_ATTRS[6:],
)

#: Opcodes that can call a computation. Every other opcode of the table never does; an opcode
#: the table does not know (a newer XLA) is assumed to be able to.
CALLER_OPCODES: frozenset[str] = frozenset(
    {
        "fusion",
        "call",
        "while",
        "conditional",
        "reduce",
        "reduce-window",
        "map",
        "sort",
        "scatter",
        "select-and-scatter",
        "all-reduce",
        "all-reduce-start",
        "reduce-scatter",
        "custom-call",
        "async-start",
        "async-update",
        "async-done",
        "scan",
        "collective-reduce",
    }
)


def opcode_info(name: str) -> Opcode:
    """The table entry for ``name``; unknown opcodes get category ``unknown`` (never an error).

    An unknown ``X-start``/``X-update``/``X-done`` whose stem ``X`` is known is a sugared async
    op wrapping ``X``; it is filed under ``control_flow`` like ``async-start``.
    """
    found = OPCODES.get(name)
    if found is not None:
        return found
    for suffix in _ASYNC_SUFFIXES:
        if name.endswith(suffix) and name[: -len(suffix)] in OPCODES:
            return Opcode(name, "kAsync" + suffix[1:].capitalize(), -1, Category.CONTROL_FLOW)
    return Opcode(name, "kUnknown", -1, Category.UNKNOWN)


def category_of(name: str) -> Category:
    found = OPCODES.get(name)
    return found.category if found is not None else opcode_info(name).category
