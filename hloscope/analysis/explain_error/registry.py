"""The table of recognisers: one row per kind of log.

A new kind of log is one module under :mod:`.kinds` (its :class:`~.build.Kind` row: family,
usual reason, how its messages stand in a log; a regex for the message's opening words; a
handler that reads it into failures of that kind) and one row here. The order is
the order the families are tried in; each scans the whole text once. A family whose messages
two modules read (an older wording kept apart from the current one's module) is one row that
:func:`joined` makes of both: still one scan.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .kinds import (
    api_mismatch,
    api_spec,
    autotune_check,
    backend_startup,
    call_module_platform,
    compile_log,
    compiled_call,
    cuda_graph,
    cuda_libraries,
    debugger_stack,
    device_allocation,
    device_halt,
    distributed,
    distributed_init,
    donation,
    export_artifact,
    gpu_toolkit,
    jax_call,
    jax_export,
    jax_operands,
    jax_shape,
    jax_structure,
    jax_tracing,
    kernel_blocks,
    kernel_launch,
    last_resort,
    linalg,
    mesh_devices,
    missing_lowering,
    mlir_bridge,
    mlir_verifier,
    mosaic_names,
    native_import,
    out_of_memory,
    pallas,
    pallas_specs,
    pass_pipeline,
    plugin_api,
    recompile,
    remat_limit,
    runtime_versions,
    sharding,
    tf1_list,
    tf2xla,
    tf_kernel,
    tf_known_issue,
    tf_op,
    triton_builtin,
    triton_dot,
    tt_memory,
    xla_crash,
    xla_status,
)
from .log import Log
from .recogniser import Recogniser
from .record import Failure

__all__ = ["RECOGNISERS", "joined"]


def joined(*recognisers: Recogniser) -> Recogniser:
    """One recogniser of one family from several: their patterns as one alternation, each
    match handed to the handler of the first pattern that matches there (the alternation
    tries them in that order). Each pattern opens with literal words, so the alternation
    keeps the scan that skips to them; the modules' group names must differ."""
    family = recognisers[0].family
    if any(r.family is not family for r in recognisers):
        raise ValueError("joined recognisers must be of one family")
    flags = 0
    for recogniser in recognisers:
        flags |= recogniser.pattern.flags
    pattern = re.compile("|".join(r.pattern.pattern for r in recognisers), flags)

    def handler(log: Log, m: re.Match[str]) -> Iterable[Failure]:
        for recogniser in recognisers:
            own = recogniser.pattern.match(log.text, m.start())
            if own is not None:
                return recogniser.handler(log, own)
        return []  # found only under another module's flags: no module's match

    generic = frozenset().union(*(r.generic_ops for r in recognisers))
    return Recogniser(family, pattern, handler, generic)


#: Every family :func:`~.driver.explain_error` knows, tried in this order on the whole text.
RECOGNISERS: tuple[Recogniser, ...] = (
    joined(tf2xla.RECOGNISER, tf_kernel.RECOGNISER),
    tf1_list.RECOGNISER,
    mlir_bridge.RECOGNISER,
    tf_known_issue.RECOGNISER,
    tf_op.RECOGNISER,
    jax_tracing.RECOGNISER,
    joined(missing_lowering.RECOGNISER, linalg.RECOGNISER),
    xla_status.RECOGNISER,
    joined(jax_export.RECOGNISER, export_artifact.RECOGNISER, call_module_platform.RECOGNISER),
    joined(
        pallas.RECOGNISER,
        mosaic_names.RECOGNISER,
        pallas_specs.RECOGNISER,
        triton_dot.RECOGNISER,
        triton_builtin.RECOGNISER,
        kernel_blocks.RECOGNISER,
    ),
    joined(out_of_memory.RECOGNISER, tt_memory.RECOGNISER, remat_limit.RECOGNISER),
    device_allocation.RECOGNISER,
    joined(
        backend_startup.RECOGNISER,
        cuda_libraries.RECOGNISER,
        runtime_versions.RECOGNISER,
        native_import.RECOGNISER,
        gpu_toolkit.RECOGNISER,
        plugin_api.RECOGNISER,
    ),
    joined(recompile.RECOGNISER, compile_log.RECOGNISER),
    joined(
        jax_shape.RECOGNISER,
        jax_structure.RECOGNISER,
        jax_operands.RECOGNISER,
        jax_operands.GENERAL,
    ),
    joined(sharding.RECOGNISER, mesh_devices.RECOGNISER),
    joined(
        donation.RECOGNISER,
        jax_call.RECOGNISER,
        api_mismatch.RECOGNISER,
        api_spec.RECOGNISER,
        compiled_call.RECOGNISER,
    ),
    joined(distributed.RECOGNISER, distributed_init.RECOGNISER),
    joined(
        xla_crash.RECOGNISER,
        kernel_launch.RECOGNISER,
        mlir_verifier.RECOGNISER,
        cuda_graph.RECOGNISER,
        device_halt.RECOGNISER,
        pass_pipeline.RECOGNISER,
        debugger_stack.RECOGNISER,
        autotune_check.RECOGNISER,
        # Read last; kept only where no recogniser read a failure (its families vary).
        last_resort.RECOGNISER,
    ),
)
