"""The TensorFlow pre-flight check of a function: traced here into its graph and the installed
TensorFlow's XLA kernel registrations read (:mod:`hloscope.backends.tf_graph`), then walked by
:func:`hloscope.analysis.unsupported.tf_check.report_of_graph` (see that module for what is
found and why)."""

from __future__ import annotations

from typing import Any

from ..analysis.unsupported.findings import CheckReport, Platform
from ..analysis.unsupported.tf_check import kernels_read_for, report_of_graph

__all__ = ["check_tf"]


def check_tf(fn: Any, *args: Any, platform: str | Platform = "cpu", **kwargs: Any) -> CheckReport:
    """Every op of ``fn`` that XLA cannot compile for ``platform``, and why.

    ``fn`` is a ``tf.function``, a Keras model or a plain Python function, with example inputs
    (tensors, numpy arrays or ``tf.TensorSpec``s, positional and keyword) as you would call it.
    The function is traced, never run or compiled. Each
    :class:`~hloscope.analysis.unsupported.findings.Finding` names the op type, node, enclosing
    function (:data:`~hloscope.analysis.unsupported.findings.TOP_LEVEL` or the nested function,
    while/cond body), the reason (``no_kernel``, or ``dtype`` with the rejected dtype), the line
    of your code that created the op, and a fix. An empty report means every node has a kernel
    -- what TensorFlow checks before compiling; failures that come later (a shape that must be
    a compile-time constant, a TensorList of unknown size) are not found by reading the graph.
    """
    from ..backends import tf_graph
    from ..backends.frameworks import installed_version

    target = Platform.parse(platform)
    program = tf_graph.trace_graph(fn, *args, **kwargs)
    read = kernels_read_for(target, tf_graph.jit_device_types())
    return report_of_graph(
        program,
        target,
        kernels=tf_graph.xla_kernels(read),
        host=tf_graph.xla_kernels("CPU"),
        tensorflow=installed_version("tensorflow", "tensorflow-cpu") or "unknown",
    )
