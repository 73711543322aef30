"""Which backend compiles for a device, the way sqlglot picks a dialect: one table, one rule.

* a ``tf.function`` or Keras model: :class:`TensorFlow`;
* a TPU ``--device`` (``tpu-v5e``, ``tpu-v5e:2x4``) with libtpu installed: :class:`XlaTpu`,
  XLA:TPU's own compile for that chip or slice;
* anything else: :class:`LocalJax`, the JAX here. When a device was asked for that the local
  compile is not for (a TPU without libtpu, a GPU on a CPU machine), the capture is an
  **estimate**: its ``compiled_for`` is ``None`` and ``estimate_note`` says which compile
  stands in and how to get the real one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..devices import DeviceSpec, Platform, parse_device
from ._base import Backend, BackendName
from ._local import LocalJax, TensorFlow
from ._xla_tpu import TPU_EXTRA_HINT, XlaTpu
from .compile_timing import CompileClock

if TYPE_CHECKING:  # pragma: no cover
    from .record import Capture

__all__ = ["backend_for", "capture_for", "estimate_note", "BACKENDS"]

#: Each backend by name, with how to make it for a device (``None``: any device).
BACKENDS: dict[BackendName, Callable[..., Backend]] = {
    BackendName.LOCAL_JAX: lambda spec=None, mesh=None: LocalJax(),
    BackendName.TENSORFLOW: lambda spec=None, mesh=None: TensorFlow(),
    BackendName.XLA_TPU: lambda spec, mesh=None: XlaTpu(spec, mesh),
}


def _spec(device: DeviceSpec | str | None) -> DeviceSpec | None:
    return parse_device(device) if isinstance(device, str) else device


def backend_for(
    device: DeviceSpec | str | None,
    fn: Any = None,
    mesh: Mapping[str, int] | None = None,
) -> Backend:
    """The backend that compiles ``fn`` for ``device`` (see the module doc for the rule)."""
    if fn is not None:
        from .tf_compile import is_tensorflow_function

        if is_tensorflow_function(fn):
            return BACKENDS[BackendName.TENSORFLOW]()
    spec = _spec(device)
    if spec is not None and spec.device.platform is Platform.TPU:
        tpu = BACKENDS[BackendName.XLA_TPU](spec, mesh)
        if tpu.unavailable() is None:
            return tpu
    return BACKENDS[BackendName.LOCAL_JAX]()


def estimate_note(spec: DeviceSpec, backend: Backend, compiled_for: str | None) -> str | None:
    """The one line an estimate carries (``None`` when the compile is for ``spec`` itself)."""
    if compiled_for is not None and spec.device.matches_kind(compiled_for):
        return None
    where = compiled_for or "this machine's default device"
    if spec.device.platform is Platform.TPU:
        tpu = XlaTpu(spec)
        fix = tpu.unavailable() or TPU_EXTRA_HINT
        if backend.name is BackendName.TENSORFLOW:
            fix = "TensorFlow programs compile on this machine's devices only"
        return f"an estimate for {spec} from a {where} compile ({fix})"
    return f"an estimate for {spec} from a {where} compile (no {spec.device.name} here)"


def capture_for(
    fn: Any,
    args: Sequence[Any],
    kwargs: Mapping[str, Any],
    device: DeviceSpec | str | None = None,
    passes: str | None = None,
    mesh: Mapping[str, int] | None = None,
) -> Capture:
    """Capture ``fn`` with the backend :func:`backend_for` picks; the capture says what
    compiled it (``compiled_for``), which device was asked for (``device``) and, when the
    compile only stands in for that device, why (``estimate_note``)."""
    spec = _spec(device)
    backend = backend_for(spec, fn, mesh)
    with CompileClock() as clock:  # JAX's own stage durations, for `compile-time`
        capture = backend.capture(fn, args, kwargs, passes)
    capture.compile_time = clock.to_dict()
    capture.backend = str(backend.name)
    if spec is not None:
        capture.device = str(spec)
        note = estimate_note(spec, backend, capture.compiled_for)
        if note is not None:
            capture.estimate_note = note
            capture.compiled_for = None
    return capture
