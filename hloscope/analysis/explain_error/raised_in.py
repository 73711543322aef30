"""The family of an exception read from the module that raised it: its traceback's innermost
frame.

A traceback's innermost frame is where the exception was raised, and the source layout of JAX
and the libraries around it is stable across releases and wordings: a ``ValueError`` raised in
``jax/_src/named_sharding.py`` is a sharding's whatever its message says. The table
(:data:`ORIGINS`) was written from the source trees (jax-ml/jax at cec06d1, google/orbax at
3ff7b24a: what each module raises), not from logs; each row is a module (or a folder of them)
whose raises are all of one family, or a module with raises of several families and the
functions among them that raise one family's (``jax/_src/pjit.py``'s sharding checks, lax's
shape rules), or leaves out the functions that do not (xla_bridge's look-up of a platform by the
name a call gave).

Only the raising module counts: a frame of the user's own file, or of a library that merely
calls JAX (Flax's, Keras's), is no answer, even where a JAX frame calls it or is called by it
further out. A traceback JAX filtered (its innermost frame the user's call, or JAX's
``traceback_util`` re-raising) says nothing either.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ...hlo.metadata import StackFrame
from .record import Family

__all__ = ["ORIGINS", "Origin", "in_kernel_trace", "origin_of", "raising_frame"]


@dataclass(frozen=True, slots=True)
class Origin:
    """A row: the modules whose raises are of ``family`` (paths from the package's root, a
    folder's ending in ``/``), and where the module raises for several families, the
    functions that raise this one's."""

    family: Family
    modules: tuple[str, ...]
    functions: re.Pattern[str] | None = None

    def holds(self, frame: StackFrame) -> bool:
        """Whether ``frame`` is in one of the row's modules (and functions)."""
        path = "/" + frame.file.replace("\\", "/")
        in_module = any(
            f"/{module}" in path if module.endswith("/") else path.endswith(f"/{module}")
            for module in self.modules
        )
        if not in_module:
            return False
        # Python 3.11+ (and IPython) may name the function with its class or enclosing
        # function before it (``ArrayHandler._construct_single_replica_sharding``).
        function = frame.function.rsplit(".", 1)[-1]
        return self.functions is None or bool(self.functions.search(function))


def _functions(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


# JAX's modules whose raises are of several families: the functions of their sharding
# checks, by name (not "shard" in any name: pxla's shard_args only hands arrays to the runtime,
# whose errors are of any family).
_SHARDING_FUNCTIONS = _functions(
    r"^(?:"
    # jax/_src/pjit.py
    r"pjit_check_aval_sharding|_resolve_in_shardings|_create_sharding_for_array"
    r"|with_sharding_constraint|_sharding_constraint_impl|_sharding_constraint_batcher"
    r"|_pjit_batcher_for_sharding|check_shardings_are_auto|assert_shardings_equal|reshard"
    r"|_check_unreduced_reshard|_get_new_mesh"
    # jax/_src/interpreters/pxla.py
    r"|lower_sharding_computation|maybe_concretize_mesh|_get_and_check_device_assignment"
    r"|_maybe_get_and_check_(?:in|out)_shardings|check_array_xla_sharding_layout_match"
    # jax/_src/core.py
    r"|check_unreduced_args|_check_mat|get_mat|_canonicalize_mat|getu|get_sharding"
    r"|_check_divisibility|check_avals_context_mesh|standard_vma_rule"
    r")$"
)

#: The table, first matching row wins. Paths are JAX 0.4 to 0.10's (``jax/_src/...``), with the
#: older homes of a module where it moved (``jax/experimental/shard_map.py``).
ORIGINS: tuple[Origin, ...] = (
    # Pallas: its front end, its Mosaic (TPU, GPU) and Triton lowerings, the TPU custom call
    # that carries a kernel, Mosaic GPU, jax-triton. Not jax/experimental/pallas/: its
    # modules re-export these, and its ops/ are kernels written with Pallas, whose own checks
    # of their arguments are of any family (a mask hashed while traced).
    Origin(
        Family.PALLAS,
        (
            "jax/_src/pallas/",
            "jax/_src/tpu_custom_call.py",
            "jax/experimental/mosaic/",
            "jaxlib/mosaic/",
            "jax_triton/",
        ),
    ),
    # Shardings, meshes, partition specs, shard_map and custom partitioning.
    Origin(
        Family.SHARDING,
        (
            "jax/_src/sharding.py",
            "jax/_src/sharding_impls.py",
            "jax/_src/named_sharding.py",
            "jax/_src/partition_spec.py",
            "jax/_src/op_shardings.py",
            "jax/_src/mesh.py",
            "jax/_src/mesh_utils.py",
            "jax/experimental/mesh_utils.py",
            "jax/_src/shard_map.py",
            "jax/experimental/shard_map.py",
            "jax/_src/custom_partitioning.py",
            "jax/_src/custom_partitioning_sharding_rule.py",
            "jax/_src/shard_alike.py",
        ),
    ),
    # jit's and the lowering's modules raise for shardings, arguments and tracing alike: only
    # their sharding checks' functions (pjit_check_aval_sharding, _resolve_in_shardings,
    # _get_and_check_device_assignment, ...).
    Origin(
        Family.SHARDING,
        ("jax/_src/pjit.py", "jax/_src/interpreters/pxla.py", "jax/_src/core.py"),
        _SHARDING_FUNCTIONS,
    ),
    # Orbax restoring a checkpoint's shardings: the sharding metadata it saved (devices other
    # than those it was saved on, a sharding it cannot rebuild; the module moved under _src/),
    # and the array handlers' functions that rebuild or check a sharding.
    Origin(
        Family.SHARDING,
        ("orbax/checkpoint/_src/metadata/sharding.py", "orbax/checkpoint/metadata/sharding.py"),
    ),
    Origin(
        Family.SHARDING,
        ("orbax/checkpoint/",),
        _functions(
            r"^(?:_deserialize_sharding_from_json_string|_construct_single_replica_sharding"
            r"|_validate_sharding_and_get_primary_replica_processes)$"
        ),
    ),
    # jax.export (and its older home) and jax2tf.
    Origin(
        Family.JAX_EXPORT,
        ("jax/_src/export/", "jax/experimental/export/", "jax/experimental/jax2tf/"),
    ),
    # The backends' start: the platform registry and plugins' loading, Cloud TPU's setup,
    # jaxlib's version check. Not xla_bridge's look-up of a platform by the name a call asked
    # for (get_backend): "Unknown backend" there is as often the call's own name.
    Origin(
        Family.BACKEND_STARTUP,
        ("jax/_src/xla_bridge.py", "jax/lib/xla_bridge.py"),
        _functions(r"^(?!(?:get_backend|_get_backend_uncached)$)"),
    ),
    Origin(
        Family.BACKEND_STARTUP,
        ("jax/_src/cloud_tpu_init.py", "jax/_src/lib/__init__.py", "jax_plugins/"),
    ),
    # jax.errors' tracing errors failing as they are built: their __init__ formats the tracer
    # (a Keras symbolic tensor is none, and has no _error_repr), so the program converted a
    # traced value, whatever the exception raised instead.
    Origin(Family.JAX_TRACING, ("jax/_src/errors.py",), _functions(r"^__init__$")),
    # Multi-host: jax.distributed's initialisation and its cluster detection.
    Origin(Family.DISTRIBUTED, ("jax/_src/distributed.py", "jax/_src/clusters/")),
    # lax's shape rules: an op's operands whose shapes do not go together.
    Origin(
        Family.JAX_SHAPE,
        ("jax/_src/lax/",),
        _functions(r"shape_rule|broadcast_shapes|broadcasting_shape"),
    ),
    # JAX's host callbacks (pure_callback, io_callback) refusing the transformation they
    # were put under ("Pure callbacks do not support JVP", "Cannot `vmap` ordered IO
    # callback"): how the program used them.
    Origin(Family.JAX_CALL, ("jax/_src/callback.py",)),
    # jaxlib's wrappers of the kernels XLA calls (LAPACK on the CPU, cuSOLVER and cuBLAS on
    # the GPU) refusing an operand's type or shape as the call is built ("Unsupported dtype
    # float16"): a kernel's limit, as XLA's status says one.
    Origin(
        Family.XLA_STATUS,
        ("jaxlib/lapack.py", "jaxlib/gpu_solver.py", "jaxlib/gpu_linalg.py", "jaxlib/hipsolver"),
    ),
)


def raising_frame(frames: Sequence[StackFrame]) -> StackFrame | None:
    """The frame the exception was raised in: the innermost (``frames`` innermost first)."""
    return frames[0] if frames else None


def origin_of(frames: Sequence[StackFrame]) -> Origin | None:
    """The row of the module that raised the exception whose traceback is ``frames``
    (innermost first), or ``None`` where no row holds it."""
    frame = raising_frame(frames)
    if frame is None:
        return None
    return next((origin for origin in ORIGINS if origin.holds(frame)), None)


# Pallas's own modules (jax/_src/pallas/..., jax/experimental/pallas/...).
_PALLAS_OWN = re.compile(r"[\\/](?:_src|experimental)[\\/]pallas[\\/]")


def in_kernel_trace(frames: Sequence[StackFrame], is_users: Callable[[StackFrame], bool]) -> bool:
    """Whether the exception whose traceback is ``frames`` (innermost first) was raised as
    Pallas traced a kernel's body: a frame of Pallas's own modules (pallas_call tracing the
    kernel) outside the program's innermost frame."""
    users = [i for i, frame in enumerate(frames) if is_users(frame)]
    if not users:
        return False
    return any(_PALLAS_OWN.search(frame.file) for frame in frames[users[0] + 1 :])
