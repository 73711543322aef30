"""The XLA options of a capture's private dump: what XLA writes there, whatever XLA_FLAGS says.

A capture compiles with per-compile options (``Lowered.compile(compiler_options=...)``) that
send this compile's dump to a private folder, and pin every option a user's ``XLA_FLAGS`` could
set to change what is written there: the capture reads the same files, and XLA prints no more
than it does by default, with or without them.

What XLA:TPU writes there (libtpu 0.0.42.1, jaxlib 0.10.2, one module; the names after
``module_NNNN.<name>.``), and who reads it:

* ``before_optimizations.txt``: the capture's ``hlo`` stage;
* ``after_optimizations.txt``: the ``optimized_hlo`` stage on XLA:TPU (parsed while the compile
  still runs, :mod:`hloscope.capture.parse_ahead`);
* ``after_optimizations-buffer-assignment.txt``, ``-memory-usage-report.txt`` and
  ``-live-range.txt``: ``memory`` (the live range holds XLA's own peak);
* ``module_NNNN.metadata.textproto``: each pass's timestamps, for ``compile-time``;
* ``*.<step>.<pipeline>.after_<pass>...txt`` with ``passes``: ``passes`` and ``capture --passes``;
* read by no command: ``after_optimizations-buffer-assignment-values.txt`` (XLA writes it with
  the live range, under the one option ``xla_dump_buffer_assignment_analysis``), the module
  again as ``after_optimizations_before_buffer_assignment``, ``..._after_buffer_assignment``
  (the same bytes as ``after_optimizations``) and ``after_codegen``, libtpu's
  ``flagfile``, ``tpu_comp_env``, ``hlo_module_config``, ``execution_options``,
  ``debug_options``, ``target_arguments``, ``transfer_stats``, ``basic_compiler_metadata``, and
  PJRT's compile inputs (``module_NNNN.<name>/module.mlir``, ``compile_options.textproto``,
  ``topology.textproto``). No per-compile option stops those: libtpu writes them whenever it
  dumps HLO text, its ``xla_jf_*`` flags are no compile options (``No such compile option``)
  and, in ``LIBTPU_INIT_ARGS``, removed none of them; PJRT writes its inputs wherever
  ``xla_dump_to`` points. Printing all of them is a small part of the compile (benchmarks/
  bench_dump_cost.py measures it).

Options that older XLA does not know (jaxlib 0.5 refuses ``xla_dump_buffer_assignment_analysis``
and ``xla_dump_hlo_to_subfolder``: it writes the live range inside the buffer assignment and has
no subfolders) are left out once XLA refused them: :func:`compile_dumping`. XLA reads
``XLA_FLAGS`` once, when it starts; the flags it names are read here when a capture compiles.
"""

from __future__ import annotations

import os
import re
import shutil
from typing import Any

__all__ = ["capture_dump_options", "compile_dumping", "refused_option", "PINNED_WHEN_SET"]

#: Pinned when the user's ``XLA_FLAGS`` names them, each against what that flag does; left
#: alone otherwise: JAX's persistent cache key counts them (``jax._src.cache_key`` excludes the
#: other dump options), so pinning them always would make every capture miss the entries of the
#: user's own compiles.
PINNED_WHEN_SET: dict[str, Any] = {
    # --xla_dump_large_constants=true prints every constant's values: a program's tables,
    # megabytes of text, slower, in the capture's `hlo` stage.
    "xla_dump_large_constants": False,
    # --xla_dump_buffer_assignment_analysis=false drops the live range: `memory` loses the peak.
    "xla_dump_buffer_assignment_analysis": True,
    # --xla_dump_hlo_to_subfolder=true moves the dump into <name>/vm_<pid>/: the capture then
    # finds no dump and takes JAX's own text for the module XLA was given.
    "xla_dump_hlo_to_subfolder": False,
}

#: Options the installed XLA refused (``No such compile option``): asked for no more.
_refused: set[str] = set()
_REFUSED = re.compile(r"No such compile option: '([^']+)'")


def capture_dump_options(folder: str, passes: str | None) -> dict[str, Any]:
    """Per-compile XLA options that send this compile's dumps, and only them, to ``folder``.

    Everything the user's XLA_FLAGS might set to change *what* gets dumped is pinned, so a
    ``--xla_dump_hlo_module_re`` or ``--xla_dump_disable_metadata`` there cannot empty or strip
    the capture, a ``--xla_dump_large_constants=true`` cannot make XLA print every constant's
    values (a program's tables, megabytes of text, slower), and a ``--xla_dump_hlo_pass_re=.*``
    there cannot slow down a capture that did not ask for passes. Without such flags the
    options hold only what JAX's persistent cache key leaves out: a capture finds the entries
    of the user's own compiles there.
    """
    options: dict[str, Any] = {
        "xla_dump_to": folder,
        "xla_dump_hlo_as_text": True,
        # The long form: operand shapes, metadata and backend configs, which the analyses read.
        "xla_dump_hlo_as_long_text": True,
        "xla_dump_hlo_module_re": ".*",
        "xla_dump_max_hlo_modules": -1,
        "xla_dump_disable_metadata": False,
        "xla_dump_hlo_as_proto": False,
        "xla_dump_hlo_as_dot": False,
        "xla_dump_hlo_as_html": False,
        "xla_dump_hlo_as_url": False,
        "xla_dump_hlo_snapshots": False,
        "xla_dump_fusion_visualization": False,
        "xla_dump_include_timestamp": False,
        "xla_dump_hlo_pass_re": passes or "",
        "xla_dump_module_metadata": True,  # each pass's timestamps (XLA:TPU writes them)
    }
    named = _flags_named()
    options.update({k: v for k, v in PINNED_WHEN_SET.items() if k in named and k not in _refused})
    if passes is not None:
        options["xla_dump_hlo_pipeline_re"] = ".*"
    return options


def compile_dumping(lowered: Any, folder: str, passes: str | None) -> Any:
    """``lowered.compile(...)`` with :func:`capture_dump_options`; an option of
    :data:`PINNED_WHEN_SET` the installed XLA refuses is left out, here and from then on (the
    refusal comes before the compile: nothing is compiled twice)."""
    while True:
        try:
            return lowered.compile(compiler_options=capture_dump_options(folder, passes))
        except Exception as error:
            name = refused_option(error)
            if name not in PINNED_WHEN_SET or name in _refused:
                raise
            _refused.add(name)
            _empty(folder)


def refused_option(error: BaseException) -> str | None:
    """The option XLA named in a ``No such compile option`` error (``None`` for another)."""
    found = _REFUSED.search(str(error))
    return found.group(1) if found else None


def _flags_named() -> set[str]:
    """The options the ``XLA_FLAGS`` of this process names (XLA read it when it started)."""
    return {flag.lstrip("-").split("=", 1)[0] for flag in os.environ.get("XLA_FLAGS", "").split()}


def _empty(folder: str) -> None:
    """Remove what a refused compile left in ``folder`` (PJRT may write its inputs first)."""
    with os.scandir(folder) as entries:
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path, ignore_errors=True)
            else:
                os.unlink(entry.path)
