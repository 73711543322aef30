"""The grammar of XLA dump file names (``--xla_dump_to``).

XLA names every file it dumps with ``FilenameFor`` (``xla/service/dump.cc``)::

    [<prefix>.]module_<%04d id>[.<module name>][.cl_<CL>].<suffix>

``<prefix>`` is a microsecond timestamp (``--xla_dump_include_timestamp``) or, for a few GPU
files, a computation name. ``<suffix>`` says what the file holds: an HLO stage
(``before_optimizations``, ``cpu_after_optimizations``, a per-pass step such as
``0007.simplification.after_algsimp.before_dce``), a companion of a stage
(``-buffer-assignment``, ``-memory-usage-report``, ``.dot``, ``.hlo.pb``...), or a stage-less
artefact (``debug_options``, ``ir-no-opt.ll``, ``obj-file.o``, ``ptx``...).

The hard part is that module names may contain dots (TensorFlow's
``a_inference_train_step_7379__.217``; GPU backends even put one in the stage,
``sm_9.0_gpu_after_optimizations``). So the name is split from the right: the module name is the
*shortest* leading part after which the rest is one of the known suffixes (no module name at all
is tried last). Every suffix pattern
is strict (pass and pipeline names start with a letter, extensions come from a fixed list), so a
trailing ``.217`` can never be read as part of a suffix and stays in the module name.

:func:`parse_dump_filename` never raises: a name that does not follow the grammar gives ``None``
and the caller lists it as unknown.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

__all__ = [
    "DumpFileName",
    "parse_dump_filename",
    "parse_module_folder_entry",
    "function_name",
    "BEFORE_OPTIMIZATIONS",
    "AFTER_OPTIMIZATIONS",
    "PASS",
]

BEFORE_OPTIMIZATIONS = "before_optimizations"
AFTER_OPTIMIZATIONS = "after_optimizations"
PASS = "pass"

# `module_<id>` must start the name or follow the `<prefix>.`. The prefix is taken non-greedily so
# that a computation-name prefix cannot swallow the module part.
_HEAD = re.compile(r"^(?:(?P<prefix>.+?)\.)?module_(?P<id>\d{4,})(?:\.(?P<rest>.+))?$")
_HEAD_PLAIN = re.compile(r"^module_(?P<id>\d{4,})(?P<prefix>)(?:\.(?P<rest>.+))?$")

# What a stage-bound file holds, by its extension. Longest alternatives first (`top_level.html`
# before `html`, `hlo.pb.gz` before `pb.gz`), although `fullmatch` would backtrack anyway.
_STAGE_EXTENSIONS = {
    "txt": "hlo",
    "hlo.pb.gz": "hlo-proto",
    "hlo.pb": "hlo-proto",
    "pb.gz": "proto",
    "pb": "proto",
    "pbtxt": "proto-text",
    "dot": "dot",
    "top_level.html": "top-level-html",
    "html": "html",
    "url": "url",
    "mlir": "mlir",
}
_STAGE_EXT_RE = "|".join(re.escape(e) for e in sorted(_STAGE_EXTENSIONS, key=len, reverse=True))

# Files written next to the after-optimization HLO text, named `<stage>-<companion>.txt`.
_COMPANIONS = (
    "buffer-assignment-values",
    "buffer-assignment",
    "live-range",
    "memory-usage-report",
)

# A pass or pipeline name: starts with a letter or underscore (so a TensorFlow `.217` never
# passes for one) and has no dot.
_NAME = r"[A-Za-z_][^.]*"

_STAGE_RE = re.compile(
    r"(?:"
    r"(?P<before>before_optimizations)"
    # `cpu_after_optimizations`, `cpu_aot_...`, `sm_9.0_gpu_...` (the one backend with a dot),
    # `gfx90a_gpu_...`, TPU's unchecked names: anything without a dot ending in the stage name.
    r"|(?:(?P<backend>sm_\d+\.\d+[A-Za-z]*_gpu|[A-Za-z][^.]*?)_)?(?P<after>after_optimizations)"
    # Between two passes: NNNN.<pipeline>.after_<pass>.before_<pass>
    r"|(?P<step>\d{4,})\.(?:"
    rf"(?P<pipeline>{_NAME})\.after_(?P<after_pass>[^.]+)\.before_(?P<before_pass>[^.]+)"
    # During one pass: NNNN.<pass>.<step name> (copy-insertion's `after_removing_...`).
    rf"|(?P<pass_name>{_NAME})\.(?P<step_name>{_NAME})"
    r")"
    r")"
    rf"(?:-(?P<companion>{'|'.join(_COMPANIONS)}))?"
    rf"\.(?P<ext>{_STAGE_EXT_RE})"
)

# Stage-less artefacts: (kind, pattern). Each pattern may bind `sub` (a sub-id) and `ext`.
_OTHER_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (kind, re.compile(pattern))
    for kind, pattern in (
        ("debug-options", r"debug_options"),
        ("metadata", r"metadata\.(?P<ext>textproto)"),
        # LLVM IR: `ir-no-opt.ll`, per kernel module `<kernel>.ir-no-opt.ll` (jaxlib 0.10's CPU
        # backend), or `ir-no-opt.<suffix>.ll` (older XLA). A leading sub-id must hold a
        # non-digit, so TensorFlow's `.217` stays in the module name.
        (
            "llvm-ir",
            r"(?:(?P<sub>[^.]*[^.\d][^.]*)\.)?(?P<variant>ir-(?:no|with)-opt)"
            r"(?:\.(?P<sub2>[^.]+?))?(?P<noconst>-noconst)?\.(?P<ext>ll)",
        ),
        ("object", r"obj-file(?:\.(?P<sub>.+?))?\.(?P<ext>o)"),
        ("ptx", r"(?P<ext>ptx)"),
        ("thunk-sequence", r"thunk_sequence\.(?P<ext>txt)"),
        ("autotune-results", r"autotune_results\.(?P<ext>pbtxt|textproto|txt)"),
        ("gpu-target-config", r"gpu_target_config\.(?P<ext>pbtxt|textproto|txt)"),
        ("config", r"config\.(?P<ext>pbtxt|textproto|txt)"),
        ("hlo-snapshot", r"execution_(?P<sub>\d+)\.hlo_snapshot\.(?P<ext>pb|pb\.gz|txt)"),
        (
            "hlo-unoptimized-snapshot",
            r"execution_(?P<sub>\d+)\.hlo_unoptimized_snapshot\.(?P<ext>pb|pb\.gz|txt)",
        ),
        ("fdo-profile", r"fdo_profile(?:\.(?P<ext>[A-Za-z]+))?"),
        ("fusion-html", r"_fusion\.(?P<ext>html)"),
        ("mlir", r"(?P<ext>mlir)"),
    )
)

_CL = re.compile(r"^(?P<name>.*?)(?:^|\.)cl_(?P<cl>\d+)$")

# Function names hidden in module names.
# TensorFlow: `a_inference_<function>_<uid>__<sorted attributes>_.<n>`; the leading `__` of
# `__inference_...` is rewritten to `a_` because XLA module names must start with a letter.
_TF_NAME = re.compile(
    r"^(?:a_|__|_)?(?:inference|forward|backward)_(?P<fn>.+?)_(?P<uid>\d+)(?:__|$|\.)"
)
# JAX: `jit_<function>` (also pmap_/xmap_/pjit_), possibly made unique with `.<n>`.
_JAX_NAME = re.compile(r"^(?:jit|pmap|xmap|pjit)_(?P<fn>.+?)(?:\.\d+)?$")
_UNIQUE_SUFFIX = re.compile(r"\.\d+$")


@dataclass(frozen=True, slots=True)
class DumpFileName:
    """One dump file name, split into its parts.

    ``stage`` is ``"before_optimizations"``, ``"after_optimizations"`` (with the compiler in
    ``backend``: ``"cpu"``, ``"cpu_aot"``, ``"sm_9.0_gpu"``, ``"gfx90a_gpu"``...), ``"pass"`` for
    per-pass dumps, or ``None`` for stage-less files (``debug_options``, LLVM IR, object code...).

    ``kind`` says what the file holds: ``"hlo"`` (HLO text, the one kind :func:`hloscope.parse`
    reads), ``"hlo-proto"``, ``"buffer-assignment"``, ``"buffer-assignment-values"``,
    ``"live-range"``, ``"memory-usage-report"``, ``"dot"``, ``"html"``, ``"top-level-html"``,
    ``"url"``, ``"llvm-ir"``, ``"object"``, ``"ptx"``, ``"mlir"``, ``"debug-options"``, ...

    Per-pass dumps come in two forms. Between two passes
    (``0007.<pipeline>.after_<pass>.before_<pass>``) fill ``pipeline``, ``after_pass`` and
    ``before_pass``; during one pass (``0015.copy-insertion.after_removing_unnecessary_copies``)
    fill ``pass_name`` and ``step_name``. ``step`` orders them within one module.
    """

    filename: str
    module_id: int
    module_name: str | None
    kind: str
    extension: str
    stage: str | None = None
    backend: str | None = None
    prefix: str | None = None
    cl: int | None = None
    step: int | None = None
    pipeline: str | None = None
    after_pass: str | None = None
    before_pass: str | None = None
    pass_name: str | None = None
    step_name: str | None = None
    sub_id: str | None = None
    variant: str | None = None

    @property
    def timestamp(self) -> int | None:
        """The ``--xla_dump_include_timestamp`` prefix (microseconds), if that is what it is."""
        if self.prefix is not None and self.prefix.isdigit():
            return int(self.prefix)
        return None

    @property
    def is_hlo_text(self) -> bool:
        return self.kind == "hlo"

    @property
    def is_pass_dump(self) -> bool:
        return self.stage == PASS

    @property
    def function(self) -> str | None:
        """The user-level function the module was compiled from (see :func:`function_name`)."""
        return function_name(self.module_name) if self.module_name else None

    @property
    def pass_label(self) -> str | None:
        """A short human label of a per-pass step: ``simplification: algsimp -> dce``."""
        if self.pipeline is not None:
            return f"{self.pipeline}: {self.after_pass} -> {self.before_pass}"
        if self.pass_name is not None:
            return f"{self.pass_name}: {self.step_name}"
        return None


def parse_dump_filename(filename: str) -> DumpFileName | None:
    """Split an XLA dump file name into its parts, or return ``None`` if it is not one.

    >>> n = parse_dump_filename("module_0004.jit_f.cpu_after_optimizations-buffer-assignment.txt")
    >>> n.module_id, n.module_name, n.stage, n.backend, n.kind
    (4, 'jit_f', 'after_optimizations', 'cpu', 'buffer-assignment')
    >>> parse_dump_filename("SOURCE.py") is None
    True
    """
    # Most names start with `module_`; matching that directly skips the prefix search.
    head = _HEAD_PLAIN.match(filename) if filename.startswith("module_") else None
    if head is None:
        head = _HEAD.match(filename)
    if head is None or head.group("rest") is None:
        return None
    rest = head.group("rest")
    common: dict[str, Any] = {
        "filename": filename,
        "module_id": int(head.group("id")),
        "prefix": head.group("prefix") or None,
    }
    # Try ever longer module names, and "no module name" last (XLA drops the name when the file
    # name would exceed 255 characters, and `metadata.textproto` never has one).
    split = rest.find(".")
    while True:
        module_part = rest[:split] if split >= 0 else None
        parsed = _parse_suffix(rest[split + 1 :] if split >= 0 else rest)
        if parsed is not None:
            name, cl = _split_cl(module_part)
            return DumpFileName(module_name=name, cl=cl, **common, **parsed)
        if split < 0:
            return None
        split = rest.find(".", split + 1)


# Files PjRt (jaxlib 0.10) writes into a per-module folder `module_NNNN.<name>/`.
_MODULE_FOLDER_FILES = {
    "module.mlir": "mlir",
    "compile_options.textproto": "compile-options",
    "topology.textproto": "topology",
}


def parse_module_folder_entry(folder: str, filename: str) -> DumpFileName | None:
    """Name a file inside a per-module folder (``module_0006.jit_f/module.mlir``).

    jaxlib 0.10 writes the StableHLO it compiled, the compile options and the device topology
    into a folder named like a dump file without a suffix. Returns ``None`` when ``folder`` is
    not such a name.
    """
    head = _HEAD.match(folder)
    if head is None or parse_dump_filename(folder) is not None:
        return None
    name, cl = _split_cl(head.group("rest"))
    extension = filename.split(".", 1)[1] if "." in filename else ""
    return DumpFileName(
        filename=f"{folder}/{filename}",
        module_id=int(head.group("id")),
        module_name=name,
        kind=_MODULE_FOLDER_FILES.get(filename, "artifact"),
        extension=extension,
        prefix=head.group("prefix"),
        cl=cl,
        sub_id=filename,
    )


def _parse_suffix(suffix: str) -> dict[str, Any] | None:
    m = _STAGE_RE.fullmatch(suffix)
    if m is not None:
        g = m.groupdict()
        ext = g["ext"]
        if g["before"]:
            stage = BEFORE_OPTIMIZATIONS
        elif g["after"]:
            stage = AFTER_OPTIMIZATIONS
        else:
            stage = PASS
        kind = g["companion"] or _STAGE_EXTENSIONS[ext]
        if g["companion"] and ext != "txt":  # companions are text reports; anything else is odd
            return None
        return {
            "kind": kind,
            "extension": ext,
            "stage": stage,
            "backend": g["backend"],
            "step": int(g["step"]) if g["step"] else None,
            "pipeline": g["pipeline"],
            "after_pass": g["after_pass"],
            "before_pass": g["before_pass"],
            "pass_name": g["pass_name"],
            "step_name": g["step_name"],
        }
    for kind, pattern in _OTHER_PATTERNS:
        m = pattern.fullmatch(suffix)
        if m is not None:
            g = m.groupdict()
            variant = g.get("variant")
            if variant and g.get("noconst"):
                variant += "-noconst"
            return {
                "kind": kind,
                "extension": g.get("ext") or "",
                "sub_id": g.get("sub") or g.get("sub2"),
                "variant": variant,
            }
    return None


def _split_cl(module_part: str | None) -> tuple[str | None, int | None]:
    """Remove the Google-internal ``.cl_<CL>`` tag from the module part of a name."""
    if not module_part:
        return None, None
    m = _CL.match(module_part)
    if m is None:
        return module_part, None
    return (m.group("name") or None), int(m.group("cl"))


def function_name(module_name: str) -> str:
    """The function a module was compiled from, decoded from the module name.

    * JAX: ``jit_f`` -> ``f``, ``jit__threefry_seed`` -> ``_threefry_seed``, ``pmap_f`` -> ``f``.
    * TensorFlow: ``a_inference_train_step_7379__XlaMustCompile_true_..._.217`` -> ``train_step``,
      ``a_inference_fwd_123__.45`` -> ``fwd`` (the number after the name is TF's function uid,
      the tail after ``__`` its attributes, the ``.217`` XLA's unique-name suffix).
    * Anything else: the module name without a trailing ``.<n>`` unique-name suffix.

    Names in file names went through XLA's ``SanitizeFileName`` (``/ \\ [ ]`` and space became
    ``_``), which cannot be undone.
    """
    m = _TF_NAME.match(module_name)
    if m is not None:
        return m.group("fn")
    m = _JAX_NAME.match(module_name)
    if m is not None:
        return m.group("fn")
    return _UNIQUE_SUFFIX.sub("", module_name) or module_name
