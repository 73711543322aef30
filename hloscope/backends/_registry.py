"""Which backend compiles for a device: an ordered table of rows, the first that claims wins.

Each :class:`BackendRow` declares its ``label`` (recorded in every capture it makes), what it
claims (a predicate on the device asked for and the function), how to make it, what its
compiles are cached by, and how people call its compiler. The rows, in order:

* ``tensorflow``: a ``tf.function`` or Keras model, whatever the device;
* ``xla-tpu``: a TPU ``--device`` (``tpu-v5e``, ``tpu-v5e:2x4``) with libtpu installed,
  XLA:TPU's own compile for that chip or slice;
* ``jax``: anything else, the JAX here. When a device was asked for that the local compile is
  not for (a TPU without libtpu, a GPU on a CPU machine), the capture is an **estimate**: its
  ``compiled_for`` is ``None`` and ``estimate_note`` says which compile stands in and how to
  get the real one.

A new backend is one row: :func:`register_backend` puts it before the built-in ones, in this
process; a package makes it every process's (the capture children's too) with an entry point
in the ``hloscope.backends`` group naming its row (or a list of rows)::

    [project.entry-points."hloscope.backends"]
    xla-gpu = "my_package.backend:ROW"
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..devices import DeviceSpec, Platform, parse_device
from ._base import LOCAL_XLA, Backend, BackendName
from ._local import LocalJax, TensorFlow
from ._xla_tpu import TPU_EXTRA_HINT, XlaTpu
from .compile_timing import CompileClock
from .errors import CaptureError

if TYPE_CHECKING:  # pragma: no cover
    from .record import Capture

# What it exports is listed once, in the package's lazy-export table (hloscope.backends).

#: The entry-point group a package declares its backend rows in.
ENTRY_POINT_GROUP = "hloscope.backends"


def _compiler_versions(spec: DeviceSpec | None) -> dict[str, Any]:
    # libtpu is the compiler of a TPU compile, offline or on the chip (jax and jaxlib are in
    # every capture's key already).
    from .record import package_versions

    return {"compiler": package_versions("libtpu")}


@dataclass(frozen=True, slots=True)
class BackendRow:
    """One backend in the table: ``claims(spec, fn)`` says whether it compiles ``fn`` for
    the device ``spec`` (``None``: none asked for; ``fn`` is ``None`` when only the device is
    known, as when a capture child's environment is chosen), ``make(spec, mesh)`` builds it,
    ``cache_key(spec)`` is what its compiles are cached by beside the label, and ``words``
    how the "compiled for ... by" line names its compiler."""

    label: str
    claims: Callable[[DeviceSpec | None, Any], bool]
    make: Callable[[DeviceSpec | None, Mapping[str, int] | None], Backend]
    cache_key: Callable[[DeviceSpec | None], dict[str, Any]] = _compiler_versions
    words: str = LOCAL_XLA


def _is_tensorflow(spec: DeviceSpec | None, fn: Any) -> bool:
    from .tf_compile import is_tensorflow_function

    return fn is not None and is_tensorflow_function(fn)


def _tpu_compiles_here(spec: DeviceSpec | None, fn: Any) -> bool:
    return (
        spec is not None
        and spec.device.platform is Platform.TPU
        and XlaTpu(spec).unavailable() is None
    )


_BUILT_IN = (
    BackendRow(BackendName.TENSORFLOW, _is_tensorflow, lambda spec, mesh: TensorFlow()),
    BackendRow(
        BackendName.XLA_TPU,
        _tpu_compiles_here,
        lambda spec, mesh: XlaTpu(spec, mesh),  # type: ignore[arg-type]  # claimed: a spec
        words=XlaTpu.words,
    ),
    BackendRow(BackendName.LOCAL_JAX, lambda spec, fn: True, lambda spec, mesh: LocalJax()),
)
_registered: list[BackendRow] = []
_plugins_loaded = False


def register_backend(row: BackendRow) -> BackendRow:
    """Put ``row`` first in this process's table (before any row registered earlier and the
    built-in ones); a row of the same label is replaced."""
    unregister_backend(row.label)
    _registered.insert(0, row)
    return row


def unregister_backend(label: str) -> None:
    """Take the registered row ``label`` out of the table (the built-in rows stay)."""
    _registered[:] = [row for row in _registered if row.label != label]


def _load_plugins() -> None:
    """Register the rows packages declare in :data:`ENTRY_POINT_GROUP`, once."""
    global _plugins_loaded
    if _plugins_loaded:
        return
    _plugins_loaded = True
    from importlib.metadata import entry_points

    for point in entry_points(group=ENTRY_POINT_GROUP):
        try:
            value = point.load()
        except Exception as error:  # noqa: BLE001 - a broken plug-in says itself in one line
            raise CaptureError(
                f"backend entry point {point.name} ({point.value}) cannot be loaded: "
                f"{type(error).__name__}: {error}"
            ) from None
        for row in reversed(value if isinstance(value, (list, tuple)) else [value]):
            register_backend(row)


def backend_rows() -> Iterator[BackendRow]:
    """The table, in the order rows are asked: registered ones, then the built-in ones."""
    _load_plugins()
    yield from list(_registered)
    yield from _BUILT_IN


def _spec(device: DeviceSpec | str | None) -> DeviceSpec | None:
    return parse_device(device) if isinstance(device, str) else device


def backend_row(device: DeviceSpec | str | None, fn: Any = None) -> BackendRow:
    """The first row that claims ``fn`` for ``device``."""
    spec = _spec(device)
    return next(row for row in backend_rows() if row.claims(spec, fn))


def backend_for(
    device: DeviceSpec | str | None,
    fn: Any = None,
    mesh: Mapping[str, int] | None = None,
) -> Backend:
    """The backend that compiles ``fn`` for ``device`` (see the module doc for the table)."""
    spec = _spec(device)
    return backend_row(spec, fn).make(spec, mesh)


def built_in(row: BackendRow) -> bool:
    """Whether ``row`` is one of hloscope's own rows, not one registered or declared by a
    package (a command may ask more of a compiler it does not know: ``check`` compiles the
    whole program with it)."""
    return row in _BUILT_IN


def not_compiled_for(device: DeviceSpec | str) -> str | None:
    """Why no backend compiles for ``device``'s own chip here, when the table leaves it to the
    local JAX standing in (libtpu missing, or unable to compile for the chip); ``None`` when
    the row that claims it compiles for it."""
    spec = _spec(device)
    assert spec is not None
    if backend_row(spec).label != BackendName.LOCAL_JAX:
        return None
    if spec.device.platform is Platform.TPU:
        return XlaTpu(spec).unavailable() or TPU_EXTRA_HINT
    return f"no {spec.device.name} here"


def cache_key_for(device: DeviceSpec | str | None) -> dict[str, Any]:
    """What a cached compile of a function for ``device`` is keyed by: the label of the
    backend that compiles it and its row's own part (the compiler's version)."""
    spec = _spec(device)
    row = backend_row(spec)
    return {"backend": str(row.label), **row.cache_key(spec)}


def estimate_note(spec: DeviceSpec, backend: Backend, compiled_for: str | None) -> str | None:
    """The one line an estimate carries (``None`` when the compile is for ``spec`` itself)."""
    if compiled_for is not None and spec.device.matches_kind(compiled_for):
        return None
    where = compiled_for or "this machine's default device"
    compile_ = "compile" if backend.words == LOCAL_XLA else f"compile by {backend.words}"
    if spec.device.platform is Platform.TPU:
        tpu = XlaTpu(spec)
        fix = tpu.unavailable() or TPU_EXTRA_HINT
        if backend.name == BackendName.TENSORFLOW:
            fix = "TensorFlow programs compile on this machine's devices only"
        return f"an estimate for {spec} from a {where} {compile_} ({fix})"
    return f"an estimate for {spec} from a {where} {compile_} (no {spec.device.name} here)"


def capture_for(
    fn: Any,
    args: Sequence[Any],
    kwargs: Mapping[str, Any],
    device: DeviceSpec | str | None = None,
    passes: str | None = None,
    mesh: Mapping[str, int] | None = None,
) -> Capture:
    """Capture ``fn`` with the backend :func:`backend_for` picks; the capture says what
    compiled it (``compiled_for``, ``backend``, ``compiled_by``), which device was asked for
    (``device``) and, when the compile only stands in for that device, why
    (``estimate_note``)."""
    spec = _spec(device)
    backend = backend_for(spec, fn, mesh)
    with CompileClock() as clock:  # JAX's own stage durations, for `compile-time`
        capture = backend.capture(fn, args, kwargs, passes)
    capture.compile_time = clock.to_dict()
    capture.backend = str(backend.name)
    capture.compiled_by = backend.words
    if spec is not None:
        capture.device = str(spec)
        note = estimate_note(spec, backend, capture.compiled_for)
        if note is not None:
            capture.estimate_note = note
            capture.compiled_for = None
    return capture
