"""JAX through its ahead-of-time API: lower a function, compile it, read this compile's dump.

How the JAX capture stays out of the user's way: the function is traced, lowered and compiled
once through JAX's ahead-of-time API, with *per-compile* XLA options
(``Lowered.compile(compiler_options={"xla_dump_to": <private temp folder>, ...})``, the options
of :mod:`.dump_options`), so it works
after XLA is initialised, never reads or writes ``os.environ["XLA_FLAGS"]``, never writes into a
dump folder the user configured, and never clears or fills the user's jit dispatch cache. The
temp folder is read with the dump-file grammar of :mod:`hloscope.dump` and deleted.

Nothing here imports jax until :func:`lower_jax` is called.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .dump_options import compile_dumping
from .errors import CaptureError
from .record import Capture, PassSnapshot, module_name, package_versions
from .traceable import traceable

__all__ = ["JaxLowering", "JaxExecutable", "lower_jax", "compile_jax"]

# XLA report files kept from the private dump, by dump-file kind.
_REPORT_KINDS = {
    "buffer-assignment": "buffer_assignment",
    "memory-usage-report": "memory_usage_report",
    # The live range gives `hloscope memory` XLA's own peak for a captured function.
    "live-range": "live_range",
    # XLA's pass timestamps (--xla_dump_module_metadata): what `compile-time` ranks.
    "metadata": "module_metadata",
}


@dataclass(slots=True)
class JaxLowering:
    """What :func:`lower_jax` made: JAX's ``Traced`` and ``Lowered``, the jaxpr and StableHLO
    stages' texts, and the static arguments (positions, names) the executable will not take."""

    traced: Any
    lowered: Any
    stages: dict[str, str]
    static_argnums: tuple[int, ...] = ()
    static_argnames: tuple[str, ...] = ()


class JaxExecutable:
    """JAX's compiled executable, called as the function was: with every argument it was
    lowered with, static ones included (``jax.stages.Compiled`` takes the others alone). The
    call returns the outputs without waiting for them, as a jitted call does."""

    __slots__ = ("compiled", "_numbers", "_names")

    def __init__(self, compiled: Any, numbers: tuple[int, ...], names: tuple[str, ...]) -> None:
        self.compiled = compiled
        self._numbers = numbers
        self._names = frozenset(names)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        static = {n % len(args) for n in self._numbers if -len(args) <= n < len(args)}
        dynamic = [a for i, a in enumerate(args) if i not in static]
        named = {k: v for k, v in kwargs.items() if k not in self._names}
        return self.compiled(*dynamic, **named)


def lower_jax(
    fn: Callable[..., Any], args: Sequence[Any], kwargs: Mapping[str, Any]
) -> JaxLowering:
    """Trace and lower ``fn`` (see :class:`JaxLowering`)."""
    from . import _jaxlib
    from .frameworks import require_jax

    require_jax()

    # A user's jitted function is traced through its own wrapper (so its static_argnums and
    # shardings apply, and the text equals `fn.lower(...).compile().as_text()`); AOT tracing
    # shares JAX's tracing cache but never touches the C++ dispatch cache behind `fn(...)`.
    _jaxlib.hide_hloscope_frames()
    # jax.jit's own wrapper, jax.jit(fn), or a function of the array leaves (traceable.py).
    jitted, args, kwargs = traceable(fn, args, kwargs)
    # Every user frame, however deep the call: JAX's frame limit is lifted while tracing and
    # lowering (the locations are written then), and the user's setting restored after.
    with _jaxlib.full_traceback_locations():
        traced = jitted.trace(*args, **kwargs)
        lowered = _jaxlib.lower_afresh(traced)  # not a cached lowering with cut stacks
    stages: dict[str, str] = {
        "jaxpr": str(traced.jaxpr),
        "stablehlo": _jaxlib.stablehlo_text(lowered),
    }
    return JaxLowering(traced, lowered, stages, *_jaxlib.static_arguments(jitted))


def compile_jax(
    lowering: JaxLowering,
    passes: str | None,
    keep_refused: Callable[[Exception], bool] | None = None,
    dumped_after: bool = False,
) -> tuple[Capture, JaxExecutable | None]:
    """Compile what :func:`lower_jax` lowered, dumping this compile alone, into a capture,
    with the executable it made (``None`` when the compiler refused: see below).

    A compile error propagates unchanged, unless ``keep_refused(error)`` says the compiler's
    refusal is itself the answer (a program that does not fit) and the compiler dumped its
    optimized module before refusing: then the capture holds what was dumped, with the
    refusal in ``compile_error``. ``dumped_after``: the optimized stage is the module the
    compiler dumped after optimizations (the one its buffer assignment and live range name)
    rather than ``Compiled.as_text()``, which XLA:TPU prints with other instruction names."""
    from . import _jaxlib

    traced, lowered, stages = lowering.traced, lowering.lowered, dict(lowering.stages)
    with tempfile.TemporaryDirectory(prefix="hloscope-capture-") as folder:
        try:
            with _jaxlib.private_compile_dumps(folder):
                compiled = compile_dumping(lowered, folder, passes)
        except Exception as error:
            if keep_refused is None or not keep_refused(error):
                raise
            refused = _refused_capture(traced, stages, _read_private_dump(folder), error)
            if refused is None:
                raise
            return refused, None
        dumped = _read_private_dump(folder)
    stages["hlo"] = _before_optimizations(lowered, dumped, passes)
    stages["optimized_hlo"] = (
        dumped.after if dumped_after and dumped.after is not None else compiled.as_text()
    )
    memory, buffer_proto = _memory_dict(compiled.memory_analysis())
    capture = Capture(
        frontend="jax",
        name=module_name(stages["optimized_hlo"]) or f"jit_{getattr(traced, 'fun_name', 'fn')}",
        stages=stages,
        serialized={"buffer_assignment_proto": buffer_proto} if buffer_proto else {},
        reports=dumped.reports,
        cost=_cost_dict(compiled.cost_analysis()),
        memory=memory,
        passes=dumped.passes,
        versions=package_versions("jax", "jaxlib"),
        kernel_estimates=_kernel_estimates(traced, stages),
    )
    return capture, JaxExecutable(compiled, lowering.static_argnums, lowering.static_argnames)


def _before_optimizations(lowered: Any, dumped: _PrivateDump, passes: str | None) -> str:
    """The module XLA was given: as it dumped it, or, when XLA did not compile (JAX's
    persistent compilation cache answered: its key ignores dump options), JAX's own
    conversion of the lowered module."""
    if dumped.before is not None:
        return dumped.before
    if passes is not None:
        raise CaptureError(
            "XLA did not run its passes for this function: JAX's persistent compilation cache "
            "returned a compiled executable. Turn the cache off for the capture "
            "(jax.config.update('jax_enable_compilation_cache', False) before the first "
            "compile) or use `hloscope capture SCRIPT.py --passes REGEX`"
        )
    return str(lowered.compiler_ir("hlo").as_hlo_module().to_string())


def _kernel_estimates(traced: Any, stages: Mapping[str, str]) -> list[dict[str, Any]]:
    """The estimates of the program's Pallas kernels without a cost_estimate (the jaxpr is
    walked only when the lowered module calls such a kernel)."""
    from .pallas_kernels import calls_kernels, kernel_estimates

    if not calls_kernels(stages.get("stablehlo", "")):
        return []
    return kernel_estimates(getattr(traced, "jaxpr", None))


def _refused_capture(
    traced: Any, stages: dict[str, str], dumped: _PrivateDump, error: Exception
) -> Capture | None:
    """The capture of a compile the compiler refused after optimizing, from its dump."""
    if dumped.before is None or dumped.after is None:
        return None
    stages = {**stages, "hlo": dumped.before, "optimized_hlo": dumped.after}
    return Capture(
        frontend="jax",
        name=module_name(dumped.after) or f"jit_{getattr(traced, 'fun_name', 'fn')}",
        stages=stages,
        reports=dumped.reports,
        passes=dumped.passes,
        versions=package_versions("jax", "jaxlib"),
        compile_error=" ".join(str(error).split()),
    )


@dataclass(slots=True)
class _PrivateDump:
    before: str | None
    reports: dict[str, str]
    passes: list[PassSnapshot]
    after: str | None = None


def _read_private_dump(folder: str) -> _PrivateDump:
    """Read the one compile's files from the private dump folder with :func:`hloscope.load_dump`."""
    from ..dump.index import load_dump

    index = load_dump(folder)
    # One compile: the module of the text before optimizations, and the module of the text
    # after them with its reports. They are one module id mostly, but XLA:TPU may number the
    # optimized module anew (a Flax train step's `module_0000...before_optimizations` and
    # `module_0003...after_optimizations`, buffer assignment and live range).
    found = next(((m, m.before_file) for m in index.modules if m.before_file is not None), None)
    if found is None:
        return _PrivateDump(before=None, reports={}, passes=[])
    module, before_file = found
    optimized = next((m for m in reversed(index.modules) if m.after_file is not None), module)
    reports: dict[str, str] = {}
    for kind, report in _REPORT_KINDS.items():
        files = optimized.companions(kind) or module.companions(kind)
        if files:
            reports[report] = files[0].path.read_text()
    passes: list[PassSnapshot] = []
    steps = [*module.passes, *(optimized.passes if optimized is not module else [])]
    for step in steps:
        text_file = step.text_file
        if text_file is None:
            continue
        passes.append(
            PassSnapshot(
                step.step,
                step.pipeline,
                step.pass_name,
                step.next_pass,
                text=text_file.path.read_text(),
                filename=text_file.path.name,
            )
        )
    after_file = optimized.after_file
    return _PrivateDump(
        before=before_file.path.read_text(),
        reports=reports,
        passes=passes,
        after=after_file.path.read_text() if after_file is not None else None,
    )


def _cost_dict(costs: Any) -> dict[str, float] | None:
    # jax >= 0.4.38 returns one dict; older versions a one-element list; None when unsupported.
    if isinstance(costs, Sequence) and not isinstance(costs, (str, bytes)):
        costs = costs[0] if costs else None
    if not isinstance(costs, Mapping):
        return None
    return {str(k): float(v) for k, v in costs.items()}


def _memory_dict(stats: Any) -> tuple[dict[str, int] | None, bytes | None]:
    """``CompiledMemoryStats`` as ``{field: bytes}``, plus its serialized buffer assignment."""
    if stats is None:
        return None, None
    values: dict[str, int] = {}
    proto: bytes | None = None
    for attribute in dir(stats):
        if attribute.startswith("_"):
            continue
        value = getattr(stats, attribute)
        if attribute == "serialized_buffer_assignment_proto":
            proto = bytes(value) if value else None
        elif isinstance(value, int) and not isinstance(value, bool):
            values[attribute] = value
    return values, proto
