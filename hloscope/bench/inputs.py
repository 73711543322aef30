"""What a compiled module is fed: its entry parameters, described and filled with random data.

A module's entry computation says everything a runner needs: each parameter's element type,
dimensions and layout (from ``entry_computation_layout`` when the header has it, else from the
parameter instruction's own shape), and whether the module donates it (``input_output_alias``
or ``buffer_donor`` in the header: XLA may write the output into that buffer, so the caller
must hand over a fresh copy for every run). :func:`parameter_specs` reads them into
:class:`ParameterSpec` rows, refusing what a plain list of arrays cannot feed (tuple-shaped,
token or dynamic parameters) with :class:`UnfeedableModule`.

:func:`random_value` fills one parameter: floats uniform in [0.5, 1.5) (positive, so ``log``
and ``sqrt`` stay finite, and away from zero, so divisions do too), integers in
[0, :data:`SAFE_INT_LIMIT`) (small and non-negative: as gather and dynamic-slice indices they
land in range or are clamped the way XLA clamps them, and as loop bounds they stay short),
booleans at random, complex numbers with both parts as floats are. The same seed gives the same
inputs. :func:`device_arrays` puts them on a device in the parameters' layouts: PJRT reads a
buffer's bytes in the layout the executable was compiled for, so an array in the default
layout handed to a ``{0,1}`` parameter would be silently transposed.

Nothing here imports jax at module level; :func:`device_arrays` does, when called.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..hlo.errors import DecodeError
from ..hlo.literals import numpy_dtype as literal_dtype
from .errors import UnfeedableModule

if TYPE_CHECKING:  # pragma: no cover
    from ..hlo.model import Module
    from ..hlo.shape import Shape

__all__ = [
    "ParameterSpec",
    "UnfeedableModule",
    "parameter_specs",
    "spec_of_shape",
    "numpy_dtype",
    "random_value",
    "random_like",
    "random_inputs",
    "device_arrays",
    "SAFE_INT_LIMIT",
]

#: Random integers are drawn from [0, SAFE_INT_LIMIT).
SAFE_INT_LIMIT = 8


def numpy_dtype(element_type: str) -> np.dtype:
    """The numpy dtype of an HLO element type (the parser's table: ``bf16``, the f8 and int4
    types via ml_dtypes), or :class:`UnfeedableModule` for one that holds no data."""
    try:
        return literal_dtype(element_type)
    except DecodeError:
        raise UnfeedableModule(
            f"element type {element_type} has no numpy dtype to feed it with"
        ) from None


@dataclass(frozen=True, slots=True)
class ParameterSpec:
    """One entry parameter: number, name, element type, dimensions, layout, donation."""

    number: int
    name: str
    element_type: str
    dims: tuple[int, ...]
    minor_to_major: tuple[int, ...]
    donated: bool = False

    @property
    def dtype(self) -> np.dtype:
        return numpy_dtype(self.element_type)

    @property
    def major_to_minor(self) -> tuple[int, ...]:
        return tuple(reversed(self.minor_to_major))

    @property
    def default_layout(self) -> bool:
        """Whether the layout is the row-major one numpy and jax use by default."""
        return self.minor_to_major == tuple(range(len(self.dims) - 1, -1, -1))

    @property
    def byte_size(self) -> int:
        return int(np.prod(self.dims, dtype=np.int64)) * self.dtype.itemsize

    def describe(self) -> str:
        """``f32[64,16]{0,1}``: the shape as HLO writes it."""
        layout = "{" + ",".join(map(str, self.minor_to_major)) + "}" if self.dims else ""
        return f"{self.element_type}[{','.join(map(str, self.dims))}]{layout}"


def spec_of_shape(number: int, name: str, shape: Shape, donated: bool = False) -> ParameterSpec:
    """A :class:`ParameterSpec` for an array ``shape`` (its layout, else the default)."""
    if shape.is_tuple or shape.is_buffer:
        raise UnfeedableModule(f"parameter {name} is a tuple ({shape}): feed its elements instead")
    if shape.is_token or not shape.dtype.is_array_type:
        raise UnfeedableModule(f"parameter {name} is a {shape.element_type}, not an array")
    if shape.is_dynamic or any(d is None for d in shape.dims):
        raise UnfeedableModule(f"parameter {name} has a dynamic shape ({shape})")
    dims = tuple(int(d) for d in shape.dims)  # type: ignore[arg-type]
    layout = shape.layout.minor_to_major if shape.layout is not None else ()
    if len(layout) != len(dims):
        layout = tuple(range(len(dims) - 1, -1, -1))
    numpy_dtype(shape.element_type)  # refuse an element type numpy cannot hold, here
    return ParameterSpec(number, name, shape.element_type, dims, tuple(layout), donated)


def _donated_parameters(module: Module) -> set[int]:
    header = module.header_attrs
    donated = {alias.parameter for alias in header.get("input_output_alias") or ()}
    donated |= {donor.parameter for donor in header.get("buffer_donor") or ()}
    return donated


def parameter_specs(module: Module) -> list[ParameterSpec]:
    """The entry parameters of ``module`` in parameter-number order (see the module docstring).

    Layouts come from the header's ``entry_computation_layout`` where it has one (that is the
    layout callers must use), else from each parameter instruction's shape.
    """
    entry = module.entry
    if entry is None:
        raise UnfeedableModule(f"module {module.name} has no entry computation")
    layout = module.header_attrs.get("entry_computation_layout")
    declared = tuple(getattr(layout, "parameters", ()) or ())
    donated = _donated_parameters(module)
    specs = []
    for inst in sorted(entry.parameters, key=lambda p: p.parameter_number or 0):
        number = inst.parameter_number or 0
        shape = declared[number] if number < len(declared) else inst.shape
        specs.append(spec_of_shape(number, inst.name, shape, number in donated))
    return specs


def random_like(shape: tuple[int, ...], dtype: np.dtype, rng: np.random.Generator) -> np.ndarray:
    """A random array of ``shape`` and ``dtype`` (ranges in the module docstring)."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    if dtype.kind in "iu" or dtype.name in ("int4", "uint4", "int2", "uint2"):
        return rng.integers(0, SAFE_INT_LIMIT, size=shape).astype(dtype)
    if dtype.kind == "c":
        real = rng.uniform(0.5, 1.5, size=shape)
        imag = rng.uniform(0.5, 1.5, size=shape)
        return (real + 1j * imag).astype(dtype)
    return rng.uniform(0.5, 1.5, size=shape).astype(dtype)


def random_value(spec: ParameterSpec, rng: np.random.Generator) -> np.ndarray:
    """A random array for ``spec``, in numpy's row-major order: :func:`device_arrays` lays it
    out."""
    return random_like(spec.dims, spec.dtype, rng)


def random_inputs(specs: Sequence[ParameterSpec], seed: int = 0) -> list[np.ndarray]:
    """One random array per parameter, the same ones for the same ``seed``."""
    rng = np.random.default_rng(seed)
    return [random_value(spec, rng) for spec in specs]


def device_arrays(values: Sequence[Any], specs: Sequence[ParameterSpec], device: Any) -> list[Any]:
    """``values`` as jax arrays on ``device``, each in its parameter's layout."""
    import jax

    wide = any(spec.dtype.itemsize == 8 and spec.dtype.kind in "iufc" for spec in specs)
    wide = wide or any(spec.dtype.kind == "c" and spec.dtype.itemsize == 16 for spec in specs)
    if not wide:
        return _put(values, specs, device)
    # Without jax_enable_x64 jax narrows 64-bit arrays on the way to the device.
    # Looked up by name: the type checker sees one jax, and only older ones have the fallback.
    enable_x64: Any = getattr(jax, "enable_x64", None)
    if enable_x64 is None:  # pragma: no cover - jax before jax.enable_x64
        enable_x64 = importlib.import_module("jax.experimental").enable_x64
    with enable_x64(True):
        return _put(values, specs, device)


def _put(values: Sequence[Any], specs: Sequence[ParameterSpec], device: Any) -> list[Any]:
    import jax

    arrays = []
    for value, spec in zip(values, specs):
        if spec.default_layout or len(spec.dims) < 2:
            arrays.append(jax.device_put(value, device))
            continue
        from jax.sharding import SingleDeviceSharding

        # By name, as above: older jax calls Format "Layout" and Layout "DeviceLocalLayout".
        layouts: Any = importlib.import_module("jax.experimental.layout")
        try:
            Format, Layout = layouts.Format, layouts.Layout
        except AttributeError:  # pragma: no cover - jax before the Format/Layout names
            Format, Layout = layouts.Layout, layouts.DeviceLocalLayout
        target = Format(Layout(major_to_minor=spec.major_to_minor), SingleDeviceSharding(device))
        arrays.append(jax.device_put(value, target))
    return arrays
