"""Capture every stage XLA takes one function through, inside this Python process::

    cap = hloscope.capture(f, x)  # f: a JAX function (jitted or not)
    list(cap.stages)  # ['jaxpr', 'stablehlo', 'hlo', 'optimized_hlo']
    cap.module("after").fusion_computations()  # parsed lazily with hloscope.parse
    cap.cost["flops"], cap.memory["temp_size_in_bytes"]
    cap = hloscope.capture(f, x, passes="fusion|algsimp")  # plus per-pass snapshots

What a capture holds, for JAX:

* ``jaxpr``: the traced program (``Traced.jaxpr``);
* ``stablehlo``: the lowered module with source locations (``Lowered.as_text(debug_info=True)``);
* ``hlo``: HLO before optimizations, exactly the text XLA dumps as ``before_optimizations``;
* ``optimized_hlo``: HLO after optimizations, ``Compiled.as_text()``;
* ``reports``: XLA's buffer-assignment, live-range and memory-usage reports of the compiled module;
* ``cost`` / ``memory``: ``Compiled.cost_analysis()`` and ``Compiled.memory_analysis()`` as dicts;
* ``passes``: with ``passes=REGEX``, the module after every XLA pass whose name matches.

For a ``tf.function(jit_compile=True)`` (or a Keras model, which is wrapped in one), the stages
are what TensorFlow offers through ``experimental_get_compiler_ir``: ``hlo`` and
``optimized_hlo`` as text and ``hlo_serialized`` (an ``HloModuleProto``) as bytes.

How the JAX capture stays out of the user's way: the function is traced, lowered and compiled
once through JAX's ahead-of-time API, with *per-compile* XLA options
(``Lowered.compile(compiler_options={"xla_dump_to": <private temp folder>, ...})``), so it works
after XLA is initialised, never reads or writes ``os.environ["XLA_FLAGS"]``, never writes into a
dump folder the user configured, and never clears or fills the user's jit dispatch cache. The
temp folder is read with the dump-file grammar of :mod:`hloscope.dump` and deleted.

Nothing here imports jax or tensorflow until :func:`capture` is called.
"""

from __future__ import annotations

import json
import re
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

from ..dump.passes import PassStep
from ..stages import Stage, UnknownStageError
from .errors import CaptureError, CaptureUsageError, MissingStageError, NotHloStageError
from .traceable import traceable

if TYPE_CHECKING:  # pragma: no cover
    from ..hlo.model import Module

__all__ = [
    "is_tensorflow_function",
    "Capture",
    "PassSnapshot",
    "capture",
    "JAX_STAGES",
    "TF_STAGES",
]

#: Stage names of a JAX capture, in compiler order.
JAX_STAGES: tuple[str, ...] = ("jaxpr", "stablehlo", "hlo", "optimized_hlo")
#: Text stages of a TensorFlow capture, in compiler order (``hlo_serialized`` is in ``serialized``).
TF_STAGES: tuple[str, ...] = ("hlo", "optimized_hlo")
# XLA report files kept from the private dump, by dump-file kind.
_REPORT_KINDS = {
    "buffer-assignment": "buffer_assignment",
    "memory-usage-report": "memory_usage_report",
    # The live range gives `hloscope memory` XLA's own peak for a captured function.
    "live-range": "live_range",
    # XLA's pass timestamps (--xla_dump_module_metadata): what `compile-time` ranks.
    "metadata": "module_metadata",
}
_CAPTURE_FILE = "capture.json"


@dataclass(slots=True)
class PassSnapshot(PassStep):
    """The module as it was at one point of XLA's pass pipeline (``--xla_dump_hlo_pass_re``):
    where (the :class:`~hloscope.dump.passes.PassStep` fields), its ``text`` and the dump file
    name it was read from."""

    text: str = ""
    filename: str = ""

    def module(self) -> Module:
        """This snapshot parsed with :func:`hloscope.parse`."""
        from ..hlo.parser import parse

        return parse(self.text)


@dataclass(slots=True, eq=False)
class Capture:
    """Everything one capture produced. Build it with :func:`capture` (or :meth:`load`).

    ``stages`` maps a stage name to its text, in compiler order (see :data:`JAX_STAGES` and
    :data:`TF_STAGES`). ``serialized`` holds binary stages (TensorFlow's ``hlo_serialized``
    HloModuleProto, JAX's serialized buffer-assignment proto). ``reports`` holds XLA's text
    reports of the optimized module (``buffer_assignment``, ``live_range``,
    ``memory_usage_report``). ``cost`` and ``memory`` are ``None`` when the frontend does not
    offer them (TensorFlow).
    """

    frontend: str
    name: str
    stages: dict[str, str]
    serialized: dict[str, bytes] = field(default_factory=dict)
    reports: dict[str, str] = field(default_factory=dict)
    cost: dict[str, float] | None = None
    memory: dict[str, int] | None = None
    passes: list[PassSnapshot] = field(default_factory=list)
    versions: dict[str, str] = field(default_factory=dict)
    #: JAX's device kind of what compiled the optimized module (``"TPU v5 lite"``, ``"cpu"``);
    #: ``None`` for an estimate: a compile standing in for another device (``estimate_note``).
    compiled_for: str | None = None
    #: The ``--device`` asked for (``"tpu-v5e:2x4"``), ``None`` when none was.
    device: str | None = None
    #: Why the compile is only an estimate for ``device`` and how to get the real one.
    estimate_note: str | None = None
    #: The backend that compiled it (:class:`~hloscope.capture.backends.BackendName`).
    backend: str | None = None
    #: The compiler's refusal when it gave up after optimizing (XLA:TPU's RESOURCE_EXHAUSTED:
    #: the program does not fit); the stages are what it had dumped by then.
    compile_error: str | None = None
    #: Cost estimates of the Pallas kernels given no ``cost_estimate``, from their jaxprs
    #: (:func:`hloscope.capture.pallas_kernels.kernel_estimates`); the cost model reads them.
    kernel_estimates: list[dict[str, Any]] = field(default_factory=list)
    #: How long tracing, lowering and compiling took (:mod:`hloscope.capture.compile_timing`).
    compile_time: dict[str, Any] | None = None
    #: The user's source files as they were when it ran (the snapshot beside a cached or saved
    #: capture, :mod:`hloscope.capture.source_snapshot`; not saved with the capture itself).
    source_files: dict[str, str] = field(default_factory=dict, repr=False)
    _modules: dict[str, Module] = field(default_factory=dict, repr=False)

    def __repr__(self) -> str:  # the texts are megabytes: show their sizes instead
        stages = ", ".join(f"{k}: {len(v):,} chars" for k, v in self.stages.items())
        return (
            f"Capture(frontend={self.frontend!r}, name={self.name!r}, "
            f"stages={{{stages}}}, passes={len(self.passes)})"
        )

    # -- reading ------------------------------------------------------------------------------

    def stage_name(self, stage: str | Stage) -> Stage:
        """The :class:`~hloscope.stages.Stage` ``stage`` names (``"after"`` is
        ``optimized_hlo``), checked against what this capture holds."""
        try:
            name = Stage.parse(stage)
        except UnknownStageError:
            name = None
        if name is None or name not in self.stages:
            known = ", ".join(self.stages)
            raise MissingStageError(
                f"this {self.frontend} capture has no stage {str(stage)!r} (stages: {known}; "
                "'before' and 'after' name the HLO ones)"
            )
        return name

    def text(self, stage: str | Stage = Stage.OPTIMIZED_HLO) -> str:
        """The text of one stage (aliases: ``before``/``after``)."""
        return self.stages[self.stage_name(stage)]

    def module(self, stage: str | Stage = Stage.OPTIMIZED_HLO) -> Module:
        """One HLO stage parsed with :func:`hloscope.parse`; parsed once, then cached."""
        name = self.stage_name(stage)
        if not name.is_hlo:
            raise NotHloStageError(
                f"stage {str(stage)!r} is not HLO; HLO stages are 'hlo' and 'optimized_hlo'"
            )
        module = self._modules.get(name)
        if module is None:
            from ..hlo.parser import parse

            module = self._modules[name] = parse(
                self.stages[name], path=f"<capture {self.name}:{name}>"
            )
            module.kernel_estimates = list(self.kernel_estimates)
            module.source_files = self.source_files
        return module

    # -- saving -------------------------------------------------------------------------------

    def save(self, directory: str | Path) -> Path:
        """Write this capture into ``directory`` (created): a file per stage, ``capture.json``.

        The files are plain text an editor or ``hloscope`` can open (``hlo.txt``,
        ``optimized_hlo.txt``, ``stablehlo.mlir``, ``passes/0007.<pipeline>.<pass>.txt``...);
        :meth:`load` reads the folder back.
        """
        root = Path(directory)
        root.mkdir(parents=True, exist_ok=True)
        index: dict[str, Any] = {
            "format": 1,
            "frontend": self.frontend,
            "name": self.name,
            "stages": {},
            "serialized": {},
            "reports": {},
            "cost": self.cost,
            "memory": self.memory,
            "passes": [],
            "versions": self.versions,
            "compiled_for": self.compiled_for,
            "device": self.device,
            "estimate_note": self.estimate_note,
            "backend": self.backend,
            "compile_error": self.compile_error,
            "kernel_estimates": self.kernel_estimates,
            "compile_time": self.compile_time,
        }
        for stage, text in self.stages.items():
            index["stages"][stage] = _write(root, _stage_filename(stage), text)
        for stage, blob in self.serialized.items():
            index["serialized"][stage] = _write(root, f"{stage}.pb", blob)
        for report, text in self.reports.items():
            index["reports"][report] = _write(root, f"{report}.txt", text)
        for snap in self.passes:
            filename = f"passes/{snap.step:04d}.{_safe(snap.pipeline)}.{_safe(snap.pass_name)}.txt"
            entry = {
                "step": snap.step,
                "pipeline": snap.pipeline,
                "pass_name": snap.pass_name,
                "next_pass": snap.next_pass,
                "dump_filename": snap.filename,
                "file": _write(root, filename, snap.text),
            }
            index["passes"].append(entry)
        (root / _CAPTURE_FILE).write_text(json.dumps(index, indent=2) + "\n")
        return root

    @classmethod
    def load(cls, directory: str | Path) -> Self:
        """Read a folder written by :meth:`save`."""
        root = Path(directory)
        try:
            index = json.loads((root / _CAPTURE_FILE).read_text())
        except (OSError, ValueError) as error:
            raise CaptureError(f"{root}: not a saved hloscope capture ({error})") from None
        passes = [
            PassSnapshot(
                step=e["step"],
                pipeline=e["pipeline"],
                pass_name=e["pass_name"],
                next_pass=e.get("next_pass"),
                text=(root / e["file"]).read_text(),
                filename=e.get("dump_filename", e["file"]),
            )
            for e in index.get("passes", [])
        ]
        return cls(
            frontend=index["frontend"],
            name=index["name"],
            stages={k: (root / v).read_text() for k, v in index["stages"].items()},
            serialized={k: (root / v).read_bytes() for k, v in index.get("serialized", {}).items()},
            reports={k: (root / v).read_text() for k, v in index.get("reports", {}).items()},
            cost=index.get("cost"),
            memory=index.get("memory"),
            passes=passes,
            versions=index.get("versions", {}),
            compiled_for=index.get("compiled_for"),
            device=index.get("device"),
            estimate_note=index.get("estimate_note"),
            backend=index.get("backend"),
            compile_error=index.get("compile_error"),
            kernel_estimates=list(index.get("kernel_estimates") or []),
            compile_time=index.get("compile_time"),
        )

    @staticmethod
    def read_index(directory: str | Path) -> dict[str, Any]:
        """The saved capture's ``capture.json`` alone (``{}`` when unreadable): what compiled
        it, without reading its stages."""
        try:
            index = json.loads((Path(directory) / _CAPTURE_FILE).read_text())
        except (OSError, ValueError):
            return {}
        return index if isinstance(index, dict) else {}

    @staticmethod
    def is_saved(directory: str | Path) -> bool:
        """Whether ``directory`` holds a capture written by :meth:`save`."""
        return (Path(directory) / _CAPTURE_FILE).is_file()


def _stage_filename(stage: str) -> str:
    return {"stablehlo": "stablehlo.mlir"}.get(stage, f"{stage}.txt")


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name)


def _write(root: Path, relative: str, content: str | bytes) -> str:
    """Write ``content`` to ``root/relative`` and return ``relative`` (for ``capture.json``)."""
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    return relative


# ---- entry point ---------------------------------------------------------------------------------


def capture(
    fn: Callable[..., Any],
    *args: Any,
    passes: str | None = None,
    device: Any = None,
    **kwargs: Any,
) -> Capture:
    """Capture the compiler stages of ``fn(*args, **kwargs)`` without running it.

    ``device`` (a registry name such as ``"tpu-v6e"``, a slice ``"tpu-v5e:2x4"``, or a
    :class:`~hloscope.devices.DeviceSpec`) compiles for that device through the backend that
    can (:mod:`hloscope.capture.backends`): for a TPU with libtpu installed, XLA:TPU's own
    compile in this process (libtpu loads here; the command line compiles in a child instead).
    Without it the capture is this machine's compile, marked as an estimate
    (``compiled_for`` is ``None``, ``estimate_note`` says why).

    ``fn`` is a JAX function (plain or already ``jax.jit``-ed, with its own static arguments), a
    ``tf.function(jit_compile=True)``, or a Keras model with the TensorFlow backend. ``args``
    and ``kwargs`` are example inputs (arrays, or ``jax.ShapeDtypeStruct`` for JAX): only their
    shapes and dtypes matter. ``passes`` is a regular expression of XLA pass names (RE2 syntax,
    partial match, e.g. ``"fusion"`` or ``".*"``); every matching pass yields a
    :class:`PassSnapshot`. JAX only: TensorFlow reads its XLA flags once per process, so capture
    TF passes with ``hloscope capture SCRIPT.py --passes REGEX``.

    Errors raised while tracing or compiling ``fn`` are the user's and propagate unchanged;
    misuse (a ``tf.function`` without ``jit_compile=True``, a bad ``passes`` pattern) raises
    :class:`~hloscope.capture.errors.CaptureError`.
    """
    if passes is not None:
        _check_pass_regex(passes)
    from .backends import capture_for

    return capture_for(fn, args, kwargs, device, passes)


def _check_pass_regex(pattern: str) -> None:
    # XLA compiles the pattern with RE2 inside the compiler; a malformed one must be caught here.
    # Python's `re` accepts a superset of what matters (RE2 lacks backreferences and lookaround).
    if not pattern:
        raise CaptureUsageError(
            "--passes needs a non-empty regular expression (use '.*' for every pass)"
        )
    if re.search(r"\(\?[=!<]|\\[1-9]", pattern):
        raise CaptureUsageError(
            f"pass pattern {pattern!r} uses lookaround or backreferences, which XLA's RE2 lacks"
        )
    try:
        re.compile(pattern)
    except re.error as error:
        raise CaptureUsageError(
            f"pass pattern {pattern!r} is not a regular expression: {error}"
        ) from None


def package_versions(*packages: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for package in packages:
        try:
            found[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            continue
    return found


# ---- JAX -----------------------------------------------------------------------------------------


def lower_jax(
    fn: Callable[..., Any], args: Sequence[Any], kwargs: Mapping[str, Any]
) -> tuple[Any, Any, dict[str, str]]:
    """Trace and lower ``fn``: JAX's ``Traced`` and ``Lowered``, and the jaxpr and StableHLO
    stages' texts."""
    from . import jaxlib_adapter
    from .frameworks import require_jax

    require_jax()

    # A user's jitted function is traced through its own wrapper (so its static_argnums and
    # shardings apply, and the text equals `fn.lower(...).compile().as_text()`); AOT tracing
    # shares JAX's tracing cache but never touches the C++ dispatch cache behind `fn(...)`.
    jaxlib_adapter.hide_hloscope_frames()
    # jax.jit's own wrapper, jax.jit(fn), or a function of the array leaves (traceable.py).
    jitted, args, kwargs = traceable(fn, args, kwargs)
    # Every user frame, however deep the call: JAX's frame limit is lifted while tracing and
    # lowering (the locations are written then), and the user's setting restored after.
    with jaxlib_adapter.full_traceback_locations():
        traced = jitted.trace(*args, **kwargs)
        lowered = jaxlib_adapter.lower_afresh(traced)  # not a cached lowering with cut stacks
    stages: dict[str, str] = {
        "jaxpr": str(traced.jaxpr),
        "stablehlo": jaxlib_adapter.stablehlo_text(lowered),
    }
    return traced, lowered, stages


def compile_jax(
    traced: Any,
    lowered: Any,
    stages: dict[str, str],
    passes: str | None,
    keep_refused: Callable[[Exception], bool] | None = None,
    dumped_after: bool = False,
) -> Capture:
    """Compile what :func:`lower_jax` lowered, dumping this compile alone, into a capture.

    A compile error propagates unchanged, unless ``keep_refused(error)`` says the compiler's
    refusal is itself the answer (a program that does not fit) and the compiler dumped its
    optimized module before refusing: then the capture holds what was dumped, with the
    refusal in ``compile_error``. ``dumped_after``: the optimized stage is the module the
    compiler dumped after optimizations (the one its buffer assignment and live range name)
    rather than ``Compiled.as_text()``, which XLA:TPU prints with other instruction names."""
    from . import jaxlib_adapter

    with tempfile.TemporaryDirectory(prefix="hloscope-capture-") as folder:
        try:
            with jaxlib_adapter.private_compile_dumps(folder):
                compiled = lowered.compile(compiler_options=_dump_options(folder, passes))
        except Exception as error:
            if keep_refused is None or not keep_refused(error):
                raise
            refused = _refused_capture(traced, stages, _read_private_dump(folder), error)
            if refused is None:
                raise
            return refused
        dumped = _read_private_dump(folder)
    if dumped.before is None:
        # XLA did not compile: JAX's persistent compilation cache answered (its key ignores
        # dump options). The pre-optimization module is still JAX's own conversion.
        if passes is not None:
            raise CaptureError(
                "XLA did not run its passes for this function: JAX's persistent compilation cache "
                "returned a compiled executable. Turn the cache off for the capture "
                "(jax.config.update('jax_enable_compilation_cache', False) before the first "
                "compile) or use `hloscope capture SCRIPT.py --passes REGEX`"
            )
        stages["hlo"] = lowered.compiler_ir("hlo").as_hlo_module().to_string()
    else:
        stages["hlo"] = dumped.before
    stages["optimized_hlo"] = (
        dumped.after if dumped_after and dumped.after is not None else compiled.as_text()
    )
    memory, buffer_proto = _memory_dict(compiled.memory_analysis())
    return Capture(
        frontend="jax",
        name=_module_name(stages["optimized_hlo"]) or f"jit_{getattr(traced, 'fun_name', 'fn')}",
        stages=stages,
        serialized={"buffer_assignment_proto": buffer_proto} if buffer_proto else {},
        reports=dumped.reports,
        cost=_cost_dict(compiled.cost_analysis()),
        memory=memory,
        passes=dumped.passes,
        versions=package_versions("jax", "jaxlib"),
        kernel_estimates=_kernel_estimates(traced, stages),
    )


def _kernel_estimates(traced: Any, stages: Mapping[str, str]) -> list[dict[str, Any]]:
    """The estimates of the program's Pallas kernels without a cost_estimate (the jaxpr is
    walked only when the lowered module calls such a kernel)."""
    from .pallas_kernels import calls_kernels, kernel_estimates

    if not calls_kernels(stages.get("stablehlo", "")):
        return []
    return kernel_estimates(getattr(traced, "jaxpr", None))


def _dump_options(folder: str, passes: str | None) -> dict[str, Any]:
    """Per-compile XLA options that send this compile's dumps, and only them, to ``folder``.

    Everything the user's XLA_FLAGS might set to change *what* gets dumped is pinned, so a
    ``--xla_dump_hlo_module_re`` or ``--xla_dump_disable_metadata`` there cannot empty or strip
    the capture, and a ``--xla_dump_hlo_pass_re=.*`` there cannot slow down a capture that did
    not ask for passes.
    """
    options: dict[str, Any] = {
        "xla_dump_to": folder,
        "xla_dump_hlo_as_text": True,
        "xla_dump_hlo_as_long_text": True,
        "xla_dump_hlo_module_re": ".*",
        "xla_dump_max_hlo_modules": -1,
        "xla_dump_disable_metadata": False,
        "xla_dump_hlo_as_proto": False,
        "xla_dump_hlo_as_dot": False,
        "xla_dump_hlo_as_html": False,
        "xla_dump_hlo_as_url": False,
        "xla_dump_hlo_snapshots": False,
        "xla_dump_include_timestamp": False,
        "xla_dump_hlo_pass_re": passes or "",
        "xla_dump_module_metadata": True,  # each pass's timestamps (XLA:TPU writes them)
    }
    if passes is not None:
        options["xla_dump_hlo_pipeline_re"] = ".*"
    return options


def _refused_capture(
    traced: Any, stages: dict[str, str], dumped: _PrivateDump, error: Exception
) -> Capture | None:
    """The capture of a compile the compiler refused after optimizing, from its dump."""
    if dumped.before is None or dumped.after is None:
        return None
    stages = {**stages, "hlo": dumped.before, "optimized_hlo": dumped.after}
    return Capture(
        frontend="jax",
        name=_module_name(dumped.after) or f"jit_{getattr(traced, 'fun_name', 'fn')}",
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


_MODULE_NAME = re.compile(r"^HloModule\s+([^\s,]+)", re.M)


def _module_name(text: str) -> str | None:
    found = _MODULE_NAME.search(text)
    return found.group(1) if found else None


# ---- TensorFlow ----------------------------------------------------------------------------------


def is_tensorflow_function(fn: Any) -> bool:
    """A ``tf.function`` or a Keras model, recognised without importing TensorFlow."""
    if callable(getattr(fn, "experimental_get_compiler_ir", None)):
        return True
    return _is_keras_model(fn)


def _is_keras_model(fn: Any) -> bool:
    modules = [klass.__module__ for klass in type(fn).__mro__]
    return any(m.startswith(("keras.", "tf_keras.")) for m in modules) and hasattr(fn, "call")


def capture_tf(
    fn: Any, args: Sequence[Any], kwargs: Mapping[str, Any], passes: str | None
) -> Capture:
    if passes is not None:
        raise CaptureError(
            "per-pass snapshots of a tf.function need XLA_FLAGS set before TensorFlow starts: "
            "use `hloscope capture SCRIPT.py --passes REGEX`"
        )
    from .frameworks import require_tensorflow

    tf = require_tensorflow()

    if _is_keras_model(fn) and not callable(getattr(fn, "experimental_get_compiler_ir", None)):
        fn = tf.function(fn, jit_compile=True)
    try:
        compiler_ir = fn.experimental_get_compiler_ir(*args, **kwargs)
    except ValueError as error:
        if "jit_compile" in str(error):
            raise CaptureError(
                "this tf.function is not XLA-compiled: "
                "define it with tf.function(..., jit_compile=True)"
            ) from None
        raise
    stages = {stage: compiler_ir(stage=stage) for stage in TF_STAGES}
    serialized = {"hlo_serialized": compiler_ir(stage="hlo_serialized")}
    fallback_name: str = getattr(fn, "__name__", "function")
    return Capture(
        frontend="tensorflow",
        name=_module_name(stages["hlo"]) or fallback_name,
        stages=stages,
        serialized=serialized,
        versions=package_versions("tensorflow", "tensorflow-cpu", "keras"),
    )
