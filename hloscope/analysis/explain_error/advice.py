"""What to do: the fixes table's row for an offender, and what kind of fix it is.

:func:`advise` returns an :class:`Advice`: the sentence (from
:func:`~..unsupported.fixes.suggest`, or this package's own rows for what that table does not
cover) and its :class:`AdviceKind`, so a program (and the corpus test) can tell "use jnp, not
np" from "mark the argument static" without reading prose.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from enum import StrEnum
from typing import NamedTuple

from ..unsupported.findings import Reason
from ..unsupported.fixes import suggest
from .framework import Framework, framework_of

__all__ = ["AdviceKind", "Advice", "advise", "advice_kind_of", "torch_xla_log"]


class AdviceKind(StrEnum):
    """The kinds of fix explain-error gives."""

    SMALLER_BATCH = "smaller_batch"
    SHARD = "shard"
    LOWER_PRECISION = "lower_precision"
    FREE_MEMORY = "free_memory"
    BIGGER_DEVICE = "bigger_device"
    DONATE = "donate"
    REMAT = "remat"
    SHORTER_INPUT = "shorter_input"
    SMALLER_BLOCKS = "smaller_blocks"
    RAISE_VMEM_LIMIT = "raise_vmem_limit"
    DISABLE_CHECK = "disable_check"
    RELEASE_DEVICE = "release_device"
    INSTALL = "install"
    HARMLESS = "harmless"
    JNP_NOT_NP = "jnp_not_np"
    STATIC_ARGS = "static_args"
    LAX_CONTROL_FLOW = "lax_control_flow"
    FIXED_SIZE = "fixed_size"
    DYNAMIC_SLICE = "dynamic_slice"
    NO_LEAKED_TRACER = "no_leaked_tracer"
    FIX_SHAPES = "fix_shapes"
    SEE_RECOMPILES = "see_recompiles"
    REPLACE_OP = "replace_op"
    CAST_DTYPE = "cast_dtype"
    MESH_AXIS = "mesh_axis"
    SAME_DEVICES = "same_devices"
    REDUCE_OR_SPEC = "reduce_or_spec"
    #: Explicit sharding (sharding in types): reshard the operand, or give the op out_sharding.
    RESHARD = "reshard"
    HASHABLE_STATIC = "hashable_static"
    PRNG_KEY = "prng_key"
    REUSED_DONATION = "reused_donation"
    UNUSED_DONATION = "unused_donation"
    FIND_NAN = "find_nan"
    EXPLICIT_TRANSFER = "explicit_transfer"
    #: A multi-host job: every host launched, with the same jax.distributed arguments.
    CHECK_HOSTS = "check_hosts"
    #: An internal check of XLA (or Mosaic) failed: a bug to report, with a dump.
    REPORT_BUG = "report_bug"
    #: Free memory is there but not in one piece: fragmentation.
    DEFRAGMENT = "defragment"
    #: On-chip scalar memory (SMEM) ran out: fewer scalars or a smaller scalar prefetch.
    FEWER_SCALARS = "fewer_scalars"
    #: TPU tile padding makes an array many times its size: change its minor dimensions.
    TILE_PADDING = "tile_padding"
    OTHER = "other"


class Advice(NamedTuple):
    """A fix in words and its kind."""

    text: str
    kind: AdviceKind


# This package's own rows, tried before the shared fixes table: where that table's row is for
# another error (a `bool()` of a tracer is not an `int()`), or has none.
_OWN_ROWS: dict[str, str] = {
    "ConcretizationTypeError:bool": (
        "Python control flow (if, while, and/or, bool()) on a traced value: use jax.lax.cond, "
        "jax.lax.while_loop or jnp.where, or mark the argument static "
        "(jax.jit(f, static_argnames=...)) when it is a setting, not data"
    ),
    "UnexpectedTracerError": (
        "a traced value escaped its transformation (kept in a global, on self, in a list "
        "appended inside jit/scan): return it from the function instead of storing it"
    ),
    "InconclusiveDimensionOperation": (
        "a shape-polymorphic export compares a symbolic dimension with a number (or another "
        "dimension) that the shapes allow either way: state what you know of the dimension "
        "(jax.export.symbolic_shape('b', constraints=('b <= 1024',))), write the shape logic "
        "without the comparison (or with jax.export's symbolic-dimension helpers), or export "
        "that part (a gradient, a shape-dependent branch) with concrete shapes"
    ),
    "tf:uncopyable_input": (
        "keep strings (and other host-only types) out of the function that runs on the "
        "device: do the string work (parsing, lookups, tf.strings) before it, outside "
        "jit_compile=True or under tf.device('/CPU:0'), and pass it numbers"
    ),
    "TraceContextError": (
        "state made outside the transform (a module's variable, an Rngs stream) was changed or "
        "used inside it, which would leak a tracer: pass the module or Rngs in as an argument "
        "of the transformed function (nnx.jit, nnx.grad, nnx.scan) instead of closing over it"
    ),
}

# Which kind a fixes key means, first match wins (keys as advise() receives them).
_KIND_RULES: tuple[tuple[re.Pattern[str], AdviceKind], ...] = tuple(
    (re.compile(pattern), kind)
    for pattern, kind in (
        (
            r"^TracerBoolConversionError$|^ConcretizationTypeError:bool$",
            AdviceKind.LAX_CONTROL_FLOW,
        ),
        (r"^TracerArrayConversionError$", AdviceKind.JNP_NOT_NP),
        (r"^TracerIntegerConversionError$", AdviceKind.STATIC_ARGS),
        # TF's shape operand known only at run time: its first fix is a Python value.
        (r"^tf:compile_time_constant$", AdviceKind.STATIC_ARGS),
        # A variable on another device than the compiled function: create or copy it there.
        (r"^tf:resource_device$", AdviceKind.SAME_DEVICES),
        (r"^NonConcreteBooleanIndexError$", AdviceKind.FIXED_SIZE),
        (
            # (jnp.repeat's fix is a static total_repeat_length, jnp.bincount's a static
            # length: a size given, as nonzero's.)
            # (A boolean or integer conversion inside one of them is the same size traced:
            # jnp.extract's compress converts the mask's any() to a Python bool. BCOO's
            # fromdense takes its nse, the number of stored elements, as that size.)
            r"^(?:ConcretizationTypeError|TracerBoolConversionError|TracerIntegerConversionError)"
            r":(nonzero|where|argwhere|flatnonzero|unique|repeat"
            r"|bincount|setdiff1d|union1d|intersect1d|trim_zeros|compress|extract"
            r"|bcoo_fromdense|fromdense)$",
            AdviceKind.FIXED_SIZE,
        ),
        (r"^(?:UnexpectedTracerError|TraceContextError)$", AdviceKind.NO_LEAKED_TRACER),
        (r"^(ConcretizationTypeError|TypeError|InvalidShape|RuntimeError)", AdviceKind.STATIC_ARGS),
        (r"^IndexError", AdviceKind.DYNAMIC_SLICE),
        (
            r"^(f64|c128|s64|u64|float64|complex128|int64|uint64|DT_\w+|string|tf\.string)$",
            AdviceKind.CAST_DTYPE,
        ),
        # A string entering a compiled function: no cast makes it a number inside XLA; the
        # string work (parsing, decoding) moves out of the function, its numbers come in.
        (r"^(?:_Arg|captured:DT_STRING)$", AdviceKind.REPLACE_OP),
        (r"^xla:cudnn_init$", AdviceKind.INSTALL),
        (r"^tf:uncopyable_input$", AdviceKind.CAST_DTYPE),
    )
)


def advice_kind_of(key: str, reason: Reason) -> AdviceKind:
    """The kind of the fix a fixes key gives; an op with no kernel or lowering is replaced."""
    for pattern, kind in _KIND_RULES:
        if pattern.search(key):
            return kind
    if reason in (Reason.NO_KERNEL, Reason.NO_LOWERING, Reason.CUSTOM_CALL):
        return AdviceKind.REPLACE_OP
    if reason is Reason.DTYPE:
        return AdviceKind.CAST_DTYPE
    return AdviceKind.OTHER


_ON_PLATFORM = re.compile(r"\bon (?P<platform>GPU|TPU|CPU)\b")


def _for_another_platform(text: str, platform: str | None) -> bool:
    """Whether a row speaks of one platform only, and not ``platform`` (a TPU log must not get
    "XLA convolutions on GPU take floating-point inputs only")."""
    said = {found["platform"].lower() for found in _ON_PLATFORM.finditer(text)}
    return bool(platform and said and platform.lower() not in said)


def advise(names: Iterable[str], reason: Reason, platform: str | None = None) -> Advice:
    """The first row for any of ``names`` (most specific first) -- this package's own rows,
    then the shared fixes table -- else the generic advice for ``reason``; rows about another
    platform than ``platform`` (when known) are passed over."""
    names = [n for n in names if n]
    for name in names:
        text = _OWN_ROWS.get(name) or suggest(name)
        if text and not _for_another_platform(text, platform):
            return Advice(text, advice_kind_of(name, reason))
    first = names[0] if names else ""
    text = suggest(first, reason)
    if _for_another_platform(text, platform):
        first, text = "", suggest("", reason)
    return Advice(text, advice_kind_of(first, reason))


# What only a PyTorch/XLA log holds: its package and frames, its runtime's variables and calls.
_TORCH_XLA = re.compile(
    r"torch_xla|PJRT_DEVICE|XLA_USE_BF16|xla_multiprocessing|xmp\.spawn|xm\.mark_step"
    r"|XRTCompile|XRTExecute|xla_client/xla_util\.cc"
    # torch_xla raises the runtime's status as "RuntimeError: Bad StatusOr access: CODE: ...";
    # JAX raises it as its own XlaRuntimeError/JaxRuntimeError.
    r"|Bad StatusOr access"
)


def torch_xla_log(text: str) -> bool:
    """Whether ``text`` is a PyTorch/XLA log (its frames, package or runtime names, as
    :func:`~.framework.framework_of` reads them, or its multiprocessing and XRT runtime): its
    advice is torch_xla's, never JAX's ``jax.jit``/``XLA_PYTHON_CLIENT_*`` settings."""
    if framework_of(text) is Framework.PYTORCH_XLA:
        return True
    return _TORCH_XLA.search(text) is not None
