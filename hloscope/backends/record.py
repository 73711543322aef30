"""The record of one capture: every stage XLA took one function through, and what compiled it.

A backend's compile (:mod:`hloscope.backends`) fills a :class:`Capture`; :meth:`Capture.save`
writes it as plain files and :meth:`Capture.load` reads them back. What a capture holds, for
JAX:

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
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

from ..dump.passes import PassStep
from ..stages import Stage, UnknownStageError
from .errors import CaptureError, MissingStageError, NotHloStageError

if TYPE_CHECKING:  # pragma: no cover
    from ..hlo.model import Module

__all__ = ["Capture", "PassSnapshot", "JAX_STAGES", "TF_STAGES", "package_versions", "module_name"]

#: Stage names of a JAX capture, in compiler order.
JAX_STAGES: tuple[str, ...] = ("jaxpr", "stablehlo", "hlo", "optimized_hlo")
#: Text stages of a TensorFlow capture, in compiler order (``hlo_serialized`` is in ``serialized``).
TF_STAGES: tuple[str, ...] = ("hlo", "optimized_hlo")
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
    """Everything one capture produced, built by a backend's compile (or :meth:`load`).

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
    #: The label of the backend that compiled it (:class:`~hloscope.backends.BackendName`, or
    #: a registered backend's own).
    backend: str | None = None
    #: How people call that backend's compiler (``"XLA:TPU"``, ``"this machine's XLA"``).
    compiled_by: str | None = None
    #: The compiler's refusal when it gave up after optimizing (XLA:TPU's RESOURCE_EXHAUSTED:
    #: the program does not fit); the stages are what it had dumped by then.
    compile_error: str | None = None
    #: Cost estimates of the Pallas kernels given no ``cost_estimate``, from their jaxprs
    #: (:func:`hloscope.backends.pallas_kernels.kernel_estimates`); the cost model reads them.
    kernel_estimates: list[dict[str, Any]] = field(default_factory=list)
    #: How long tracing, lowering and compiling took (:mod:`hloscope.backends.compile_timing`).
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

            module = parse(self.stages[name], path=self.parse_path(name))
            self.use_module(name, module)
        return module

    def parse_path(self, stage: str | Stage) -> str:
        """The path :meth:`module` parses ``stage``'s text with (what its errors name)."""
        return f"<capture {self.name}:{self.stage_name(stage)}>"

    def use_module(self, stage: str | Stage, module: Module) -> None:
        """Take ``module`` as :meth:`module`'s parse of ``stage``: this capture's text of it,
        parsed with :meth:`parse_path` (by the caller, earlier: while the compile still ran)."""
        name = self.stage_name(stage)
        module.kernel_estimates = list(self.kernel_estimates)
        module.source_files = self.source_files
        self._modules[name] = module

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
            "compiled_by": self.compiled_by,
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
            compiled_by=index.get("compiled_by"),
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


def package_versions(*packages: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for package in packages:
        try:
            found[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            continue
    return found


_MODULE_NAME = re.compile(r"^HloModule\s+([^\s,]+)", re.M)


def module_name(text: str) -> str | None:
    """The ``HloModule`` name an HLO text declares (``None`` when it declares none)."""
    found = _MODULE_NAME.search(text)
    return found.group(1) if found else None
