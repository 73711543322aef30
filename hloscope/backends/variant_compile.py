"""A function compiled with the changes a user would make to it: a mesh, the shardings of its
arguments, a remat policy, donated arguments, arguments in another dtype (``hloscope try``).

:class:`Changes` says what to change; :func:`compile_variant` applies it to a function and its
example arguments (global shapes, as the script gives them) and compiles the result for a TPU
chip or slice with the backend the registry gives the device (:func:`slice_row`: XLA:TPU, or a
registered backend claiming the device ahead of it, if it lays out the slice's devices):

* **mesh and shardings**: a :class:`jax.sharding.Mesh` of the slice's devices shaped as
  ``mesh`` says, and each argument leaf a ``ShapeDtypeStruct`` with a ``NamedSharding`` on it,
  its ``PartitionSpec`` from ``shard``: a preset (:class:`Preset`) or rules
  ``REGEX=SPEC;REGEX=SPEC`` matched against each leaf's path (``params.layers.w1``: the
  parameter's name, then dict keys, sequence indices and attribute names, joined by dots; the
  first rule whose regular expression matches the whole path wins; a leaf no rule matches is
  replicated). ``SPEC`` is one entry per dimension: an axis name, ``None``, or ``a+b`` for
  several axes. A mesh without ``shard`` reshapes the meshes the arguments already carry;
* **remat**: ``POLICY`` wraps the function in ``jax.checkpoint(fn, policy=...)`` (a policy
  with arguments is read by :mod:`.remat_policy`'s small grammar, never run as Python),
  ``POLICY@NAME`` wraps the script's module-level function ``NAME`` instead (the one the
  program differentiates: a layer, a loss), replaced in the script's module before tracing;
* **donate**: ``jax.jit(fn, donate_argnames=...)``;
* **cast**: every floating leaf of the named arguments in another dtype.

A change that cannot apply to this program (a mesh that does not divide a dimension, an axis
the mesh lacks) raises :class:`NotApplicable`, saying why. XLA:TPU's own refusal is a
:class:`~hloscope.backends.errors.TpuCompileError`; one for want of memory is a capture whose
``compile_error`` holds XLA's words (the program does not fit: an answer, not a failure).
"""

from __future__ import annotations

import hashlib
import inspect
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from types import ModuleType
from typing import Any

from ..devices import DeviceSpec, Platform
from ._base import Backend, BackendName
from ._registry import ENTRY_POINT_GROUP, BackendRow, backend_row, backend_rows
from .errors import CaptureUsageError
from .errors import VariantNotApplicable as NotApplicable
from .record import Capture
from .remat_policy import POLICIES, parse_policy, split_target

__all__ = [
    "BATCH_NAMES",
    "Changes",
    "NotApplicable",
    "Preset",
    "REMAT_POLICIES",
    "VariantCompile",
    "canonical_fingerprint",
    "compile_variant",
    "compiles_slices",
    "leaf_path",
    "mesh_axes_of",
    "mesh_of",
    "parse_rules",
    "slice_row",
    "spell_mesh",
]

#: Arguments taken for the batch by the presets when ``Changes.batch`` names none.
BATCH_NAMES = (
    "batch",
    "inputs",
    "x",
    "y",
    "tokens",
    "targets",
    "labels",
    "images",
    "data",
    "examples",
    "input_ids",
)

#: ``jax.checkpoint_policies``' policies ``--remat`` takes (with their arguments: see
#: :mod:`.remat_policy`).
REMAT_POLICIES = tuple(POLICIES)


#: Short dtype names users write, as numpy spells them.
_DTYPE_NAMES = {"bf16": "bfloat16", "f16": "float16", "f32": "float32", "f64": "float64"}


class Preset(StrEnum):
    """Shardings known by name. On a mesh of several axes, "all axes" is their tuple."""

    DATA_PARALLEL = "dp"  # the batch's first dimension over all axes; the rest replicated
    FSDP = "fsdp"  # as dp, and every other leaf's largest dividing dimension over all axes
    TENSOR_PARALLEL = "tp"  # the batch over `data`; every other leaf's largest over `model`

    @property
    def default_axes(self) -> tuple[str, ...]:
        return ("model",) if self is Preset.TENSOR_PARALLEL else ("data",)


@dataclass(frozen=True, slots=True)
class Changes:
    """What a variant changes (empty: the program as the script gives it)."""

    mesh: tuple[tuple[str, int], ...] = ()
    shard: str | None = None
    batch: tuple[str, ...] = ()
    remat: str | None = None
    donate: tuple[str, ...] = ()
    cast: tuple[tuple[str, str], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "mesh": dict(self.mesh) or None,
            "shard": self.shard,
            "batch": list(self.batch),
            "remat": self.remat,
            "donate": list(self.donate),
            "cast": dict(self.cast) or None,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Changes:
        return cls(
            mesh=tuple((str(k), int(v)) for k, v in (data.get("mesh") or {}).items()),
            shard=data.get("shard"),
            batch=tuple(data.get("batch") or ()),
            remat=data.get("remat"),
            donate=tuple(data.get("donate") or ()),
            cast=tuple((str(k), str(v)) for k, v in (data.get("cast") or {}).items()),
        )


@dataclass(slots=True)
class VariantCompile:
    """A compile with changes: its capture (``compile_error`` set when XLA:TPU refused it for
    want of memory), each argument leaf's placement (``path``, ``shape``, ``spec``), the mesh,
    and the fingerprint of the optimized module (:func:`canonical_fingerprint`)."""

    capture: Capture
    placement: list[dict[str, str]] = field(default_factory=list)
    mesh: dict[str, int] | None = None
    fingerprint: str | None = None


# ---- the backend ----------------------------------------------------------------------------


def compiles_slices(backend: Backend) -> bool:
    """Whether ``backend`` lays out a slice it does not have: ``topology_devices()`` gives the
    slice's devices (the meshes of the variants are built on them) and its row's
    ``make(spec, mesh)`` rebuilds the arguments' meshes in the shape ``mesh`` says, as
    :class:`~hloscope.backends.XlaTpu` does. A backend that compiles for the devices this
    machine has (the local JAX, under any label) cannot compile for a slice."""
    return callable(getattr(backend, "topology_devices", None))


def slice_row(spec: DeviceSpec, label: str | None = None) -> BackendRow:
    """The registry's row that compiles the variants for ``spec``: the first that claims the
    device (``label``: the row the parent chose, which a compile child finds by its label).
    A usage error, in one line, when that row cannot: the local JAX standing in (no libtpu,
    or not a TPU), a backend that cannot lay out a slice (:func:`compiles_slices`), or one
    that cannot compile here."""
    if label is None:
        row = backend_row(spec)
    else:
        found = [r for r in backend_rows() if r.label == label]
        if not found:
            raise CaptureUsageError(
                f"the backend {label} is not in try's compile child: declare its row in the "
                f"{ENTRY_POINT_GROUP} entry-point group (register_backend reaches one process)"
            )
        row = found[0]
    if row.label == BackendName.LOCAL_JAX:
        from ._xla_tpu import TPU_EXTRA_HINT, XlaTpu

        if spec.device.platform is not Platform.TPU:
            raise CaptureUsageError(
                f"--device {spec}: try compiles with XLA:TPU; give a TPU chip or slice "
                "(tpu-v5e:2x2)"
            )
        raise CaptureUsageError(XlaTpu(spec).unavailable() or TPU_EXTRA_HINT)
    backend = row.make(spec, None)
    if not compiles_slices(backend):
        raise CaptureUsageError(
            f"--device {spec} compiles by {row.words} here (backend {row.label}), which "
            "cannot lay out a slice's devices: try needs a backend with topology_devices(), "
            "as XLA:TPU"
        )
    problem = backend.unavailable()
    if problem is not None:
        raise CaptureUsageError(problem)
    return row


# ---- the compile ----------------------------------------------------------------------------


def compile_variant(
    module: ModuleType | None,
    fn: Any,
    args: Sequence[Any],
    kwargs: Mapping[str, Any],
    spec: DeviceSpec,
    changes: Changes,
    backend_label: str | None = None,
) -> VariantCompile:
    """Compile ``fn(*args, **kwargs)`` for ``spec`` with ``changes`` (see the module doc);
    ``module`` is the script's module, where ``POLICY@NAME`` finds ``NAME``;
    ``backend_label``: the registry's row to compile with (default: :func:`slice_row`'s)."""
    import jax

    row = slice_row(spec, backend_label)
    names = _parameter_names(fn, args, kwargs)
    arguments = dict(zip(names, args)) | dict(kwargs)
    arguments = _cast(arguments, changes.cast)
    fn = _rematted(module, fn, changes.remat)
    fn = _donating(fn, names, changes.donate)
    # A slice backend (compiles_slices): it has topology_devices().
    backend: Any = row.make(spec, None)
    placement: list[dict[str, str]] = []
    mesh_shape: dict[str, int] | None = None
    if changes.shard is not None:
        devices = backend.topology_devices()
        mesh_shape = _mesh_shape(changes, len(devices), mesh_of(arguments))
        mesh = jax.sharding.Mesh(_grid(devices, mesh_shape), tuple(mesh_shape))
        arguments, placement = _sharded(arguments, mesh, mesh_shape, changes)
    elif changes.mesh:
        mesh_shape = dict(changes.mesh)
        if not _carries_mesh(arguments):
            raise NotApplicable(
                "the arguments carry no mesh to reshape: give --shard too (dp, fsdp, tp or "
                "REGEX=SPEC rules)"
            )
        backend = row.make(spec, mesh_shape)
    positional = tuple(arguments[n] for n in names[: len(args)])
    keywords = {n: arguments[n] for n in names[len(args) :]}
    compiled = backend.lower(fn, positional, keywords).compile()
    capture = compiled.capture
    capture.compiled_for = compiled.compiled_for
    text = capture.stages.get("optimized_hlo")
    fingerprint = None
    if text and capture.compile_error is None:
        fingerprint = canonical_fingerprint(text)
    return VariantCompile(capture, placement, mesh_shape, fingerprint)


def canonical_fingerprint(text: str) -> str:
    """A hash of an optimized module as XLA prints it for fingerprints (instruction names
    made canonical, no metadata), its own name left out: two compiles that differ only in
    names and source lines hash alike."""
    from ._jaxlib import private_symbol, xla_parse

    options = private_symbol("HloPrintOptions").fingerprint()
    printed = str(xla_parse(text).to_string(options))
    printed = re.sub(r"^HloModule [^\s,]+", "HloModule m", printed, count=1)
    return hashlib.sha256(printed.encode()).hexdigest()


# ---- each change ----------------------------------------------------------------------------


def _parameter_names(fn: Any, args: Sequence[Any], kwargs: Mapping[str, Any]) -> list[str]:
    """The names the positional arguments bind to, then the keywords'."""
    try:
        parameters = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        parameters = []
    positional = [
        p.name
        for p in parameters
        if p.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    ]
    names = [positional[i] if i < len(positional) else f"arg{i}" for i in range(len(args))]
    return names + list(kwargs)


def _cast(arguments: dict[str, Any], cast: Sequence[tuple[str, str]]) -> dict[str, Any]:
    if not cast:
        return arguments
    import jax
    import jax.numpy as jnp

    out = dict(arguments)
    for name, dtype_name in cast:
        if name not in out:
            raise CaptureUsageError(_no_argument("--cast", name, arguments))
        try:
            dtype = jnp.dtype(_DTYPE_NAMES.get(dtype_name, dtype_name))
        except TypeError:
            raise CaptureUsageError(
                f"--cast {name}={dtype_name}: not a dtype (bf16, bfloat16, float16, float32)"
            ) from None

        def cast_leaf(leaf: Any, dtype: Any = dtype) -> Any:
            if not (hasattr(leaf, "shape") and hasattr(leaf, "dtype")):
                return leaf
            if not jnp.issubdtype(leaf.dtype, jnp.floating):
                return leaf
            sharding = getattr(leaf, "sharding", None)
            return jax.ShapeDtypeStruct(leaf.shape, dtype, sharding=sharding)

        out[name] = jax.tree_util.tree_map(cast_leaf, out[name])
    return out


def _no_argument(option: str, name: str, arguments: Mapping[str, Any]) -> str:
    return (
        f"{option} {name}: the function has no argument {name!r} (it takes {', '.join(arguments)})"
    )


def _rematted(module: ModuleType | None, fn: Any, remat: str | None) -> Any:
    if remat is None:
        return fn
    import jax

    text, target = split_target(remat)
    policy = parse_policy(text).build()
    if not target:
        return jax.checkpoint(fn, policy=policy)
    inner = getattr(module, target, None) if module is not None else None
    if not callable(inner):
        raise CaptureUsageError(
            f"--remat {remat}: the script defines no function {target!r} at module level"
        )
    # The program calls NAME by its global name: replaced there, every call is rematted.
    setattr(module, target, jax.checkpoint(inner, policy=policy))
    return fn


def _donating(fn: Any, names: Sequence[str], donate: Sequence[str]) -> Any:
    if not donate:
        return fn
    import jax

    for name in donate:
        if name not in names:
            raise CaptureUsageError(
                f"--donate {name}: the function has no argument {name!r} (it takes "
                f"{', '.join(names)})"
            )
    return jax.jit(fn, donate_argnames=tuple(donate))


def mesh_axes_of(tree: Any) -> list[str]:
    """The axis names of the first mesh a leaf of ``tree`` is sharded over (``[]``: none)."""
    import jax

    for leaf in jax.tree_util.tree_leaves(tree):
        mesh = getattr(getattr(leaf, "sharding", None), "mesh", None)
        if mesh is not None and getattr(mesh, "axis_names", None):
            return [str(a) for a in mesh.axis_names]
    return []


def _carries_mesh(arguments: Mapping[str, Any]) -> bool:
    import jax

    return any(
        getattr(getattr(leaf, "sharding", None), "mesh", None) is not None
        for leaf in jax.tree_util.tree_leaves(arguments)
    )


# ---- meshes and shardings -------------------------------------------------------------------


def mesh_of(tree: Any) -> dict[str, int] | None:
    """The shape of the first mesh a leaf of ``tree`` is sharded over, its axes in order
    (``None``: none)."""
    import jax

    for leaf in jax.tree_util.tree_leaves(tree):
        mesh = getattr(getattr(leaf, "sharding", None), "mesh", None)
        if mesh is not None and getattr(mesh, "axis_names", None):
            return dict(zip((str(a) for a in mesh.axis_names), mesh.devices.shape, strict=True))
    return None


def _mesh_shape(changes: Changes, chips: int, own: Mapping[str, int] | None) -> dict[str, int]:
    rule_axes = _rule_axes(changes.shard) if _preset(changes.shard) is None else ()
    if changes.mesh:
        shape = dict(changes.mesh)
    elif own and rule_axes and set(rule_axes) <= set(own):
        shape = dict(own)  # the rules name the axes of the arguments' own mesh
    else:
        axes = _rule_axes(changes.shard) if _preset(changes.shard) is None else None
        preset = _preset(changes.shard)
        names = axes or (preset.default_axes if preset is not None else ())
        if len(names) != 1:
            raise NotApplicable(
                f"--shard {changes.shard}: the rules name axes {', '.join(names)}: give "
                "--mesh with a size for each"
            )
        shape = {names[0]: chips}
    if math.prod(shape.values()) != chips:
        raise NotApplicable(
            f"mesh {spell_mesh(shape)} has {math.prod(shape.values())} devices and the slice "
            f"{chips}"
        )
    return shape


def spell_mesh(shape: Mapping[str, int]) -> str:
    """``data=2,model=2``, as ``--mesh`` takes it."""
    return ",".join(f"{k}={v}" for k, v in shape.items())


def _grid(devices: Sequence[Any], shape: Mapping[str, int]) -> Any:
    import numpy as np

    return np.array(devices).reshape(tuple(shape.values()))


def _preset(shard: str | None) -> Preset | None:
    try:
        return Preset(shard) if shard is not None else None
    except ValueError:
        return None


def parse_rules(text: str) -> list[tuple[re.Pattern[str], tuple[Any, ...]]]:
    """``REGEX=SPEC;REGEX=SPEC`` as (compiled regex, spec entries); an entry is ``None``, an
    axis name, or a tuple of names (``a+b``)."""
    rules = []
    for part in (p.strip() for p in text.split(";")):
        if not part:
            continue
        pattern, sep, spec = part.rpartition("=")
        if not sep or not pattern:
            raise CaptureUsageError(
                f"--shard {text!r}: give a preset (dp, fsdp, tp) or REGEX=SPEC rules "
                "separated by ';' (params.*w1=None,model)"
            )
        try:
            compiled = re.compile(pattern)
        except re.error as error:
            raise CaptureUsageError(f"--shard {text!r}: {pattern!r}: {error}") from None
        entries: list[Any] = []
        for entry in (e.strip() for e in spec.split(",")) if spec.strip() else ():
            if entry in ("None", "_", ""):
                entries.append(None)
            elif "+" in entry:
                entries.append(tuple(a.strip() for a in entry.split("+")))
            else:
                entries.append(entry)
        rules.append((compiled, tuple(entries)))
    return rules


def _rule_axes(shard: str | None) -> tuple[str, ...]:
    axes: list[str] = []
    for _, entries in parse_rules(shard or ""):
        for entry in entries:
            for axis in entry if isinstance(entry, tuple) else (entry,):
                if axis is not None and axis not in axes:
                    axes.append(axis)
    return tuple(axes)


def leaf_path(name: str, path: Sequence[Any]) -> str:
    """A leaf's path as rules match it: ``params.layers.0.w1``."""
    parts = [name]
    for key in path:
        for attribute in ("key", "idx", "name"):
            if hasattr(key, attribute):
                parts.append(str(getattr(key, attribute)))
                break
        else:
            parts.append(str(key))
    return ".".join(parts)


def _sharded(
    arguments: Mapping[str, Any], mesh: Any, shape: Mapping[str, int], changes: Changes
) -> tuple[dict[str, Any], list[dict[str, str]]]:
    """Every array leaf a ``ShapeDtypeStruct`` on ``mesh`` with the spec ``changes.shard``
    gives it, and the placement rows."""
    import jax

    preset = _preset(changes.shard)
    rules = parse_rules(changes.shard or "") if preset is None else []
    batch = set(changes.batch) or set(BATCH_NAMES)
    if preset is not None and not batch & set(arguments):
        raise NotApplicable(
            f"--shard {preset}: no argument is the batch ({', '.join(sorted(batch))}): name it "
            "with --batch"
        )
    rows: list[dict[str, str]] = []
    out: dict[str, Any] = {}
    for name, value in arguments.items():
        leaves, tree = jax.tree_util.tree_flatten_with_path(value)
        placed = []
        for path, leaf in leaves:
            if not (hasattr(leaf, "shape") and hasattr(leaf, "dtype")):
                placed.append(leaf)
                continue
            where = leaf_path(name, path)
            shape_ = tuple(int(d) for d in leaf.shape)
            if preset is not None:
                entries = _preset_spec(preset, shape_, shape, name in batch, where)
            else:
                matched = [e for r, e in rules if r.fullmatch(where)]
                # No rule: its own spec, where its own mesh's axes are this mesh's.
                entries = matched[0] if matched else _own_spec(leaf, shape)
            entries = _checked(entries, shape_, shape, where)
            partition = jax.sharding.PartitionSpec(*entries)
            sharding = jax.sharding.NamedSharding(mesh, partition)
            placed.append(jax.ShapeDtypeStruct(leaf.shape, leaf.dtype, sharding=sharding))
            rows.append(
                {
                    "path": where,
                    "shape": f"{leaf.dtype}{list(shape_)}",
                    "spec": _spell_spec(entries),
                }
            )
        out[name] = jax.tree_util.tree_unflatten(tree, placed)
    return out, rows


def _own_spec(leaf: Any, mesh: Mapping[str, int]) -> tuple[Any, ...]:
    sharding = getattr(leaf, "sharding", None)
    axes = getattr(getattr(sharding, "mesh", None), "axis_names", None) or ()
    spec = getattr(sharding, "spec", None)
    if spec is None or not set(map(str, axes)) <= set(mesh):
        return ()
    return tuple(spec)


def _all_axes(mesh: Mapping[str, int]) -> Any:
    names = tuple(mesh)
    return names[0] if len(names) == 1 else names


def _preset_spec(
    preset: Preset, shape: tuple[int, ...], mesh: Mapping[str, int], is_batch: bool, where: str
) -> tuple[Any, ...]:
    if preset is Preset.TENSOR_PARALLEL and "model" not in mesh:
        raise NotApplicable(f"--shard tp needs a mesh axis named model (mesh {spell_mesh(mesh)})")
    if is_batch:
        if not shape:
            return ()
        if preset is Preset.TENSOR_PARALLEL:
            return ("data",) if "data" in mesh else ()
        return (_all_axes(mesh),)
    if preset is Preset.DATA_PARALLEL or not shape:
        return ()
    if preset is Preset.FSDP:
        axis, size = _all_axes(mesh), math.prod(mesh.values())
    else:
        if len(shape) < 2:
            return ()
        axis, size = "model", mesh["model"]
    # The largest dimension the axis divides (the first of equals): the one that saves most.
    dims = sorted(range(len(shape)), key=lambda d: (-shape[d], d))
    chosen = next((d for d in dims if shape[d] % size == 0), None)
    if chosen is None:
        return ()
    return tuple(axis if d == chosen else None for d in range(len(shape)))


def _checked(
    entries: tuple[Any, ...], shape: tuple[int, ...], mesh: Mapping[str, int], where: str
) -> tuple[Any, ...]:
    """``entries`` when they fit ``shape`` on ``mesh``; :class:`NotApplicable` saying why not."""
    if len(entries) > len(shape):
        raise NotApplicable(
            f"{where}: spec {_spell_spec(entries)} has {len(entries)} entries for "
            f"{len(shape)} dimensions"
        )
    for dim, entry in enumerate(entries):
        if entry is None:
            continue
        axes = entry if isinstance(entry, tuple) else (entry,)
        missing = [a for a in axes if a not in mesh]
        if missing:
            raise NotApplicable(
                f"{where}: axis {missing[0]!r} is not in the mesh {spell_mesh(mesh)}"
            )
        size = math.prod(mesh[a] for a in axes)
        if shape[dim] % size:
            raise NotApplicable(
                f"{where}: dimension {dim} ({shape[dim]}) is not divisible by "
                f"{'*'.join(axes)}={size}"
            )
    return entries


def _spell_spec(entries: Sequence[Any]) -> str:
    def one(entry: Any) -> str:
        if entry is None:
            return "None"
        if isinstance(entry, tuple):
            return "(" + ", ".join(repr(a) for a in entry) + ")"
        return repr(entry)

    return "P(" + ", ".join(one(e) for e in entries) + ")"
