"""``hloscope explain-error [LOG]``: what a TensorFlow, JAX or XLA compile error means, and what
to do about it.

Reads a log file, or stdin (``-`` or no argument), hands the text to
:func:`~hloscope.analysis.explain_error.explain_error` and prints the explanation
(:mod:`hloscope.render.explain_error_text`) or its JSON. Exit status 0 when something was
explained, 2 with an honest "not recognised" line when nothing was (after what the error the
log ends with shows by its structure, where it ends with one), and 2 for a LOG that does
not exist or cannot be read (the command line's rule for paths). Never imports jax or
TensorFlow: a log from a TPU machine is explained anywhere.
"""

from __future__ import annotations

from typing import Any

import click

from ._app import cli
from ._output import json_option, output_format, show
from .errors import NotRecognisedError

__all__ = ["explain_error_command", "NotRecognisedError"]

STDIN = "-"


@cli.command("explain-error")
@click.argument("log", required=False, default=STDIN, metavar="[LOG]")
@json_option(
    "Print JSON: recognised, platform, families and one object per failure "
    "(the fields of `hloscope check --json` findings, warning among them, plus family, "
    "status, device, graph, function_chain, user_stack, allocation, framework, ...); "
    '"unread": what an error no family was read of shows.'
)
def explain_error_command(log: str, as_json: bool) -> None:
    """Explain a TensorFlow, JAX or XLA compile or out-of-memory error: what failed, on which
    device, in which function, where in your code, and what to do.

    LOG is a file holding the error (a whole run's output, a traceback, one message); '-' or
    nothing reads stdin:

    \b
        python train.py 2>&1 | hloscope explain-error
        hloscope explain-error crash.log --json

    \b
    It reads:
      TensorFlow  "Detected unsupported operations when trying to compile
                  graph ..." (TF2 per op with "The op is created at:", the
                  TF1 comma list), the MLIR bridge's "operations cannot be
                  legalized" with counts, must-be-constant inputs,
                  TensorList sizes
      JAX         tracing errors (ConcretizationTypeError,
                  TracerBoolConversionError, NonConcreteBooleanIndexError,
                  non-static shapes and slices, ...), "MLIR translation
                  rule for primitive ... not found for platform",
                  jax.export refusals and "Failed to serialize StableHLO"
                  (the MLIR detail: your file:line, the custom call),
                  Pallas kernels refused (a platform without Pallas, a
                  block shape off the (8, 128) tiles, "Mosaic kernels
                  cannot be automatically partitioned", an op Mosaic
                  cannot lower, "Mosaic failed to compile TPU kernel"
                  with its op and line, blocks too big for VMEM), shape
                  errors, TRACING CACHE MISS explanations; TF retracing
                  warnings; sharding errors (a dimension split into
                  pieces that do not divide it, arguments on different
                  devices, a mesh axis the mesh lacks, shard_map
                  out_specs against what the function computes); how
                  a function was called (a static argument it cannot
                  hash, a string where an array belongs, a plain array
                  as a random key) or an array used (after it was
                  donated; a donation XLA could not use; a transfer
                  jax.transfer_guard stopped; the NaN jax_debug_nans
                  caught)
      XLA         status errors: UNIMPLEMENTED and INVALID_ARGUMENT about
                  element types ("Element type C128 is not supported on
                  TPU."), the HLO verifier's custom element sizes
                  (float4/int4 widened in a dot), FFI handlers given
                  operands of other dtypes, ranks or counts, NOT_FOUND for
                  an FFI target the platform lacks, FAILED_PRECONDITION
                  (cuDNN that cannot start); other codes JAX raised
      memory      RESOURCE_EXHAUSTED "Out of memory while trying to
                  allocate N bytes" with "BufferAssignment OOM Debugging"
                  (GPU), TPU's "Ran out of memory in memory space hbm":
                  what was requested, what filled memory by source line,
                  and the fixes the numbers support (donation, remat, bf16,
                  sharding, a capped input length, a smaller batch); TPU
                  vmem reports (a kernel's blocks over its scoped limit);
                  runtime allocation failures (TPU HBM, CUDA, TF "OOM when
                  allocating tensor"); a BFC allocator dump pasted alone
      start-up    backends that did not start (TPU busy or missing, cuDNN)

    TensorFlow reports only the first op it cannot compile; `hloscope check` lists all.
    Colour codes, Windows line ends, pytest's "E   " prefixes and test ids, a notebook's
    JSON (.ipynb or a pasted cell output) and Ray's or vLLM's worker tags are fine. A
    warning (W0000 lines, UserWarning) is said to be one, listed after the failures. --json
    gives every number the message states (requested, free, reservable bytes, the memory
    space), the framework and the libraries around the message.

    A message none of these is, whose words make no family likely, is still read by its
    structure: its class or status code, the installed module that raised it, your line,
    the device, and the family its words come closest to, marked as a lead (JSON: "unread").

    Exit status: 0 explained; 2 nothing recognised (one line says so), or LOG cannot be read.
    """
    from ..analysis.explain_error import decode_log, explain_error
    from ..render.explain_error_text import not_recognised_line

    source = "<stdin>" if log == STDIN else log
    explanation = explain_error(decode_log(_read(log)))
    show(
        output_format(as_json),
        json=explanation.to_dict,
        text=lambda: _print_text(explanation),
    )
    if not explanation.recognised:
        raise NotRecognisedError(
            not_recognised_line(
                source, explanation.lines, unread=explanation.unread is not None and not as_json
            )
        )


def _print_text(explanation: Any) -> None:
    """The explanation as text; then, where nothing or only warnings were recognised, what
    the error the log ends with shows (after nothing recognised, one line says so)."""
    from rich.console import Console

    from ..render.explain_error_text import render_explanation, unread_view

    console = Console()
    if explanation.recognised:
        render_explanation(explanation, console)
    if explanation.unread is not None:
        if explanation.recognised:  # warnings above: the error after them is apart
            console.print()
        console.print(unread_view(explanation.unread), highlight=False)


def _read(log: str) -> bytes:
    """The bytes of LOG, or of stdin for ``-`` (click's ``open_file`` leaves stdin open); an
    ``OSError`` names the file, and the CLI makes it one line, exit 2 (a path that cannot be
    read as a file)."""
    with click.open_file(log, "rb") as handle:
        return handle.read()
