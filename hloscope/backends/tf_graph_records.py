"""A TensorFlow function's graph and TensorFlow's XLA kernel registrations, as data: the
nodes the XLA compiler will see (:class:`TfNode`, :class:`TfFunction`, :class:`TfProgram`) and
the kernels of a device type (:class:`XlaKernels`). :mod:`hloscope.backends.tf_graph` reads them
from TensorFlow; the pre-flight check (:mod:`hloscope.analysis.unsupported.tf_check`) walks
them and imports no TensorFlow."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..hlo.metadata import StackFrame

__all__ = [
    "JIT_DEVICE_TYPES",
    "Edge",
    "TfNode",
    "TfFunction",
    "TfProgram",
    "KernelRegistration",
    "XlaKernels",
]

#: The XLA device types TensorFlow compiles for, by platform name.
JIT_DEVICE_TYPES: dict[str, str] = {
    "cpu": "XLA_CPU_JIT",
    "gpu": "XLA_GPU_JIT",
    "tpu": "XLA_TPU_JIT",
}

# Frames of hloscope itself (the check calling get_concrete_function) are nobody's source.
_HLOSCOPE_DIR = str(Path(__file__).resolve().parent.parent) + os.sep


#: An edge into a node: the producing node's name and which of its outputs.
Edge = tuple[str, int]


@dataclass(slots=True, frozen=True)
class TfNode:
    """One node as the XLA compiler will see it.

    ``op`` is the op type the compiler looks a kernel up for (``_Arg`` for a function input,
    whatever the Python graph called it; ``graph_op`` is the Python graph's op type);
    ``function`` the library function the node sits in, ``None`` for the checked function
    itself; ``type_attrs`` every attr of type ``type`` or ``list(type)``, defaults filled in
    from the op's definition, as ``DT_`` names (a single type is a one-tuple).

    The graph around it: ``inputs`` its data inputs in order, ``control_inputs`` the nodes it
    waits for; ``calls`` the library functions it refers to through function-valued attrs (a
    ``While``'s ``cond`` and ``body``, an ``If``'s branches, a ``PartitionedCall``'s ``f``);
    ``call_attrs`` the attr each of them came from (``""`` for a call by op name);
    ``is_call`` whether the node *is* a function call (a ``PartitionedCall``/
    ``StatefulPartitionedCall``, or an op named after a library function), which the compiler
    replaces by the callee's body.

    What decides whether TensorFlow can compute it on the host before compiling: ``stateful``
    (the op definition says so, or it is a function call), ``variant_output`` (an output of
    type ``DT_VARIANT`` in the op definition), ``static_outputs`` whether each output's shape
    is fully known and ``output_bytes`` their total size when it is (``None``: unknown).
    ``outside_compilation`` marks a node to run on the host (``tf.tpu.outside_compilation``).
    ``captured``: an input the function captured from outside (an eager tensor, a variable's
    handle) rather than one of its parameters; TensorFlow passes its value in at every call.
    """

    op: str
    name: str
    function: str | None
    type_attrs: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    inputs: tuple[Edge, ...] = ()
    control_inputs: tuple[str, ...] = ()
    calls: tuple[str, ...] = ()
    call_attrs: tuple[str, ...] = ()
    is_call: bool = False
    stateful: bool = False
    variant_output: bool = False
    static_outputs: tuple[bool, ...] = ()
    output_bytes: int | None = None
    outside_compilation: bool = False
    graph_op: str = ""
    captured: bool = False


@dataclass(slots=True, frozen=True)
class TfFunction:
    """The signature of one compiled function: ``name`` (``None`` for the checked function),
    its ``args`` (the ``_Arg`` node names, in order), ``returns`` (the edge behind each
    output, in order) and ``control_returns`` (nodes that must run even though no output
    depends on them: stateful ops, by automatic control dependencies)."""

    name: str | None
    args: tuple[str, ...] = ()
    returns: tuple[Edge, ...] = ()
    control_returns: tuple[str, ...] = ()


@dataclass(slots=True)
class TfProgram:
    """The traced function: its nodes and those of every library function of its GraphDef.

    ``name`` is the concrete function's name (``__inference_f_53``), ``python_name`` the
    Python function's (``f``), ``library`` the names of the library functions in GraphDef
    order, ``functions`` the signature of each (and of the checked function, under ``None``).
    :meth:`stack` gives the Python stack a node was created at; it is read on demand, since a
    training step has thousands of nodes and only the offenders' stacks are wanted.
    """

    name: str
    nodes: list[TfNode]
    library: list[str]
    functions: dict[str | None, TfFunction] = field(default_factory=dict)
    python_name: str = ""
    _ops: dict[tuple[str | None, str], Any] = field(default_factory=dict, repr=False)
    _defined_at: StackFrame | None = field(default=None, repr=False)

    def function_nodes(self, function: str | None) -> list[TfNode]:
        """The nodes of one function (``None``: the checked function itself), in order."""
        return [node for node in self.nodes if node.function == function]

    def stack(self, node: TfNode) -> tuple[StackFrame, ...]:
        """The Python stack where ``node`` was created, innermost frame first, hloscope's own
        frames left out; ``()`` when TensorFlow kept none (functions built from a FunctionDef,
        such as some gradient functions).

        A parameter of the checked function is created by TensorFlow's tracing machinery, so
        its stack says nothing about the user's code: its source is the ``def`` line of the
        Python function instead. A captured input is created where the function first used
        the outside value, and that is its source.
        """
        parameter = node.graph_op == "Placeholder" and not node.captured
        if node.function is None and parameter and self._defined_at:
            return (self._defined_at,)
        op = self._ops.get((node.function, node.name))
        if op is None:
            return ()
        return _stack_of(op)


@dataclass(slots=True, frozen=True)
class KernelRegistration:
    """One XLA kernel registration of an op: ``allowed[attr]`` is the set of ``DT_`` names the
    kernel accepts for that type attr; attrs it does not constrain accept anything."""

    op: str
    allowed: Mapping[str, frozenset[str]]


@dataclass(slots=True)
class XlaKernels:
    """The XLA kernels registered for one device type (``XLA_CPU_JIT``, ...)."""

    device_type: str
    by_op: dict[str, list[KernelRegistration]]

    def __contains__(self, op: str) -> bool:
        return op in self.by_op

    def __len__(self) -> int:
        return len(self.by_op)

    def registrations(self, op: str) -> list[KernelRegistration]:
        """The registrations of ``op`` (empty when the device has no kernel for it)."""
        return self.by_op.get(op, [])


def _stack_of(op: Any) -> tuple[StackFrame, ...]:
    """``op.traceback`` (outermost first) as StackFrames innermost first, without hloscope's."""
    try:
        frames = list(op.traceback or ())
    except Exception:  # ops rebuilt from a FunctionDef may have no traceback
        return ()
    stack = []
    for frame in reversed(frames):
        path = str(frame.filename)
        if path.startswith(_HLOSCOPE_DIR):
            continue
        stack.append(StackFrame(path, int(frame.lineno), str(frame.name)))
    return tuple(stack)
