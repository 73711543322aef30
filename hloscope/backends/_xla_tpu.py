"""XLA:TPU through libtpu: a real TPU compile for a chip or slice, on a machine without one.

libtpu (``pip install 'hloscope[tpu]'``) can compile for a TPU *topology* on a plain CPU
machine (``jax.experimental.topologies``): the module, buffer assignment, memory and cost
analyses are byte for byte those of the same program compiled on the chip. It cannot run.
What it needs (``../shared/docs/tpu.md``):

* variables set **before** libtpu loads, or it stops at "unexpected worker hostname"
  (:func:`libtpu_environment`): the host it should believe it runs on, whose accelerator type
  is the chip's row's (``v6e-4`` for a v6e: libtpu looks the host's bounds up by it), and
  ``JAX_PLATFORMS=cpu`` so that JAX's own default backend stays on the CPU instead of trying a
  TPU this machine does not have. The command line sets them in the capture's child process
  only (:meth:`XlaTpu.child_environment`); libtpu reads them once, when it loads, so a process
  that compiles for several chips keeps the first one's type (the compile itself is the
  topology's: measured, libtpu compiled the same module for every chip whatever type it had);
* the slice's topology name (``v5e:2x4``) and, for a slice smaller than a host, the chips per
  host (:attr:`~hloscope.devices.DeviceSpec.host_bounds`);
* example arguments placed on the topology's devices. The script's own arguments were made on
  this machine's CPU devices (the child has as many as the slice has chips, so that a script
  building a ``Mesh`` over ``jax.devices()`` gets the shape it was written for): each
  ``NamedSharding``'s mesh is rebuilt on the topology's devices with the same axis names and
  shape (or the shape ``mesh=`` gives), and an argument without a mesh is placed on the
  first chip (one chip) or replicated over the slice.
"""

from __future__ import annotations

import importlib.util
import math
import os
import re
from collections.abc import Mapping, Sequence
from typing import Any

from ..devices import Device, DeviceSpec, default_tpu
from ._base import Backend, BackendName, Compiled, Lowered, does_not_fit
from .errors import CaptureError, CaptureUsageError, TpuCompileError
from .placement import place_arguments

__all__ = [
    "XlaTpu",
    "LIBTPU_ENVIRONMENT",
    "libtpu_environment",
    "libtpu_installed",
    "TPU_EXTRA_HINT",
]

# What libtpu reads when it loads, whatever the chip; without them it looks for TPU hosts
# and stops.
_HOST_ENVIRONMENT = {
    "TPU_WORKER_HOSTNAMES": "localhost",
    "TPU_SKIP_MDS_QUERY": "1",
    # libtpu takes /tmp/libtpu_lockfile for the chip even when there is none: without this a
    # second process (any jax process here tries the TPU backend once libtpu is installed)
    # makes the compile fail with "Internal error when accessing libtpu multi-process lockfile".
    "ALLOW_MULTIPLE_LIBTPU_LOAD": "1",
}


def libtpu_environment(device: Device) -> dict[str, str]:
    """What libtpu must read when it loads to compile for ``device`` on a machine without a
    TPU: the host variables and ``TPU_ACCELERATOR_TYPE``, the row's type of one host of the chip
    (a row without libtpu topology names gets the default TPU's, the compile then fails on the
    topology and says so)."""
    topology = device.tpu_topology or default_tpu().tpu_topology
    assert topology is not None  # the default TPU's row names its topology
    return {"TPU_ACCELERATOR_TYPE": topology.accelerator_type, **_HOST_ENVIRONMENT}


#: :func:`libtpu_environment` of the default TPU: for a process that compiles for no chip in
#: particular (a test's child, a regeneration script).
LIBTPU_ENVIRONMENT = libtpu_environment(default_tpu())
TPU_EXTRA_HINT = "pip install 'hloscope[tpu]' for XLA:TPU's own compile"


def libtpu_installed() -> bool:
    """Whether libtpu is installed here: its package and its shared library (found, not
    loaded; a package without ``libtpu.so`` cannot compile anything)."""
    spec = importlib.util.find_spec("libtpu")
    if spec is None or not spec.submodule_search_locations:
        return False
    return any(
        os.path.isfile(os.path.join(folder, "libtpu.so"))
        for folder in spec.submodule_search_locations
    )


class XlaTpu(Backend):
    """Compiles for ``spec`` (a TPU chip or slice) with XLA:TPU; ``mesh`` overrides the shape
    of the mesh the example arguments are rebuilt on (``{"data": 8, "model": 4}``)."""

    name = BackendName.XLA_TPU
    words = "XLA:TPU"

    def __init__(self, spec: DeviceSpec, mesh: Mapping[str, int] | None = None) -> None:
        self.spec = spec
        self.mesh = dict(mesh) if mesh else None

    def unavailable(self) -> str | None:
        if not libtpu_installed():
            return f"libtpu is not installed: {TPU_EXTRA_HINT}"
        if self.spec.topology_name is None:
            return (
                f"the installed libtpu cannot compile for {self.spec.device.name}"
                f"{': ' + self.spec.device.note if self.spec.device.note else ''}"
            )
        return None

    def child_environment(self, environment: Mapping[str, str]) -> dict[str, str]:
        env = dict(environment)
        for name, value in libtpu_environment(self.spec.device).items():
            env.setdefault(name, value)
        env["JAX_PLATFORMS"] = "cpu"
        # As many CPU devices as the slice shows JAX devices: a script that builds its Mesh
        # over jax.devices() makes the mesh it was written for.
        flag = f"--xla_force_host_platform_device_count={self.spec.jax_devices}"
        flags = [f for f in env.get("XLA_FLAGS", "").split() if "device_count" not in f]
        env["XLA_FLAGS"] = " ".join([*flags, flag]).strip()
        return env

    # -- the compile ----------------------------------------------------------------------------

    def topology_devices(self) -> list[Any]:
        """The slice's devices, as libtpu describes them (loading libtpu if it is not yet)."""
        problem = self.unavailable()
        if problem is not None:
            raise CaptureUsageError(problem)
        for variable, value in libtpu_environment(self.spec.device).items():
            os.environ.setdefault(variable, value)  # read once, when libtpu loads
        from jax.experimental import topologies

        spec = self.spec
        name = spec.topology_name
        assert name is not None  # unavailable() said so otherwise
        options: dict[str, Any] = {}
        if spec.chips < 4 or math.prod(spec.host_bounds) < 4:
            options["chips_per_host_bounds"] = spec.host_bounds
        try:
            topology = topologies.get_topology_desc(platform="tpu", topology_name=name, **options)
        except Exception as error:  # libtpu's own words: an unknown name, a version mismatch
            raise CaptureError(
                f"libtpu cannot describe {spec} (topology {spec.topology_name}): "
                f"{_first_line(error)}"
            ) from None
        return list(topology.devices)

    def lower(self, fn: Any, args: Sequence[Any], kwargs: Mapping[str, Any]) -> Lowered:
        from .jax_compile import compile_jax, lower_jax
        from .record import package_versions

        devices = self.topology_devices()
        placed_args, placed_kwargs = place_arguments(args, kwargs, devices, self.spec, self.mesh)
        try:
            lowering = lower_jax(fn, placed_args, placed_kwargs)
        except ValueError as error:
            if "incompatible devices" not in str(error) or "CPU" not in str(error):
                raise
            raise CaptureUsageError(
                f"the function uses a Mesh of this machine's devices itself (an out_sharding, "
                f"a sharding constraint or shard_map(mesh=...) over a module-level mesh): "
                f"hloscope rebuilds on {self.spec} only the meshes its example arguments carry; "
                "give the function its mesh as an argument, or write its shardings as "
                f"PartitionSpecs under jax.set_mesh ({_first_line(error)})"
            ) from None
        kind = str(devices[0].device_kind)

        def compile_(passes: str | None) -> Compiled:
            try:
                capture, _ = compile_jax(
                    lowering, passes, keep_refused=does_not_fit, dumped_after=True
                )
            except Exception as error:
                raise _compile_error(error, self.spec) from None
            capture.versions.update(package_versions("libtpu"))
            # Compiled for the topology's devices, which this machine does not have: nothing
            # here can run it.
            return Compiled(capture, kind, executable=None)

        return Lowered(self, dict(lowering.stages), compile_)


#: Where XLA's status text turns into its C++ stack (absl's frames ``@ 0x7f...`` or a
#: ``*** Begin stack trace ***`` block): addresses a user cannot act on.
_STACK_START = re.compile(r"\s*(?:@\s+0x[0-9a-fA-F]+|\*\*\* Begin stack trace)")


def _first_line(error: BaseException) -> str:
    """The refusal's first line, without the C++ stack XLA may append to it."""
    text = _STACK_START.split(str(error).strip(), maxsplit=1)[0].strip()
    return text.splitlines()[0].rstrip(" :;") if text else type(error).__name__


def _compile_error(error: BaseException, spec: DeviceSpec) -> Exception:
    """XLA:TPU's refusal in its own words (RESOURCE_EXHAUSTED stays whole: memory reads it)."""
    text = str(error).strip()
    if "RESOURCE_EXHAUSTED" in text:
        return TpuCompileError(" ".join(text.split()))
    if not isinstance(error, Exception) or type(error).__module__.startswith("hloscope"):
        return error if isinstance(error, Exception) else CaptureError(text)
    return TpuCompileError(f"XLA:TPU ({spec}) refused the program: {_first_line(error)}")
