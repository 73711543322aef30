"""The facts a TensorFlow pre-flight check needs, read from TensorFlow itself: the graph of a
function (nested functions included), the XLA kernels registered for a device type, and what
TensorFlow says when asked to compile.

This module gathers and judges nothing; :mod:`hloscope.analysis.unsupported.tf_check` decides
what is unsupported, and everything it asks TensorFlow goes through here. TensorFlow is imported
inside the functions (through :func:`~hloscope.backends.frameworks.require_tensorflow`), never
when this module is imported::

    program = trace_graph(tf.function(tf.sin), tf.TensorSpec([2], tf.float32))
    [(n.function, n.op, n.name) for n in program.nodes]
    # [(None, '_Arg', 'x'), (None, 'Sin', 'Sin'), (None, 'Identity', 'Identity')]
    xla_kernels("XLA_CPU_JIT").registrations("MatMul")[0].allowed["T"]
    # frozenset({'DT_FLOAT', 'DT_DOUBLE', 'DT_BFLOAT16', ...})
    compile_error(f, x)  # TensorFlow's own verdict: the error text, or None

What TensorFlow compiles is not quite the Python graph: the compiler sees a function's inputs
as ``_Arg`` nodes (a ``Placeholder`` in the Python graph, an ``input_arg`` in a FunctionDef), and
the bodies of ``while``/``cond`` and of nested ``tf.function`` calls as separate library
functions, each compiled when the node that calls it is. The nodes here are shaped the way the
compiler sees them: ``Placeholder`` is given as ``_Arg`` (``graph_op`` keeps the original), a
library function's inputs become ``_Arg`` nodes of that function, and every node names the
library functions it calls (``calls``).

Captures are inputs too. A function that reads a module-level eager tensor or a ``tf.Variable``
gets it as an extra input at every call (``ConcreteFunction.captured_inputs``): the compiler
sees an ``_Arg`` and cannot fold it, although the Python graph shows a small captured eager
tensor as a ``Const``. Such nodes are given as ``_Arg`` with ``captured=True``.

Private TensorFlow API, all here: ``ConcreteFunction.graph._functions`` (the Python function
objects behind the library, the only place that keeps the Python stack of a nested function's
nodes) and ``tensorflow.python.framework.kernels`` / ``op_def_registry`` (public modules, but
not in the ``tf.*`` namespace).
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from functools import cache
from typing import Any

from ..hlo.metadata import StackFrame
from .errors import CaptureError
from .frameworks import require_tensorflow
from .tf_graph_records import (
    Edge,
    KernelRegistration,
    TfFunction,
    TfNode,
    TfProgram,
    XlaKernels,
)

# The records it builds (TfProgram, XlaKernels...) are imported from tf_graph_records.
__all__ = [
    "trace_graph",
    "concrete_function",
    "jit_device_types",
    "xla_kernels",
    "compile_error",
]

# Ops that call a library function by their "f" attr. ValidateGraph treats them as function
# calls (GetPotentialFunctionName in tf2xla/xla_compiler.cc): the callee is compiled in its
# place, no kernel is looked up for the call node itself.
_CALL_OPS = frozenset({"PartitionedCall", "StatefulPartitionedCall"})

# types.proto's DT_VARIANT: XLA never constant-folds an op with a variant output.
_DT_VARIANT = 21

# ---- tracing -------------------------------------------------------------------------------------


def concrete_function(fn: Any, *args: Any, **kwargs: Any) -> Any:
    """The ``ConcreteFunction`` of ``fn`` for these example inputs.

    ``fn`` is a ``tf.function``, a Keras model (traced through its ``__call__``) or a plain
    Python function (wrapped in ``tf.function``); the inputs are tensors, numpy arrays (taken
    as ``tf.TensorSpec`` of their shape and dtype), ``tf.TensorSpec``s, or Python values
    (which ``tf.function`` treats as constants). Tracing builds the graph and runs nothing.
    """
    tf = require_tensorflow()
    function = _as_tf_function(tf, fn)
    specs, keyword_specs = _specs(tf, args), dict(zip(kwargs, _specs(tf, kwargs.values())))
    try:
        return function.get_concrete_function(*specs, **keyword_specs)
    except (TypeError, ValueError) as error:
        raise CaptureError(f"cannot trace {_name(fn)} with these inputs: {error}") from error


def trace_graph(fn: Any, *args: Any, **kwargs: Any) -> TfProgram:
    """Trace ``fn`` (see :func:`concrete_function`) and return every node of its graph and of
    every library function of its GraphDef, shaped the way the XLA compiler sees them."""
    cf = concrete_function(fn, *args, **kwargs)
    graph = cf.graph
    gdef = graph.as_graph_def()
    library = {fdef.signature.name: fdef for fdef in gdef.library.function}
    names = frozenset(library)
    program = TfProgram(
        name=_text(getattr(cf, "name", "")) or _name(fn),
        nodes=[],
        library=list(library),
        python_name=_name(fn),
        _defined_at=_definition(_python_function(fn)),
    )
    arguments = {t.op.name for t in graph.inputs}
    captured = _captured_names(graph)
    for op in graph.get_operations():
        inputs = tuple((t.op.name, t.value_index) for t in op.inputs)
        controls = tuple(c.name for c in op.control_inputs)
        node = _node(op.node_def, None, names, inputs, controls, op)
        if op.name in arguments:
            node = _as_argument(node, captured=op.name in captured)
        program.nodes.append(node)
        program._ops[(None, op.name)] = op
    program.functions[None] = TfFunction(
        name=None,
        args=tuple(t.op.name for t in graph.inputs),
        returns=tuple((t.op.name, t.value_index) for t in graph.outputs),
        control_returns=tuple(op.name for op in graph.control_outputs),
    )
    python_graphs = _library_graphs(graph)
    for fname, fdef in library.items():
        fgraph = python_graphs.get(fname)
        program.nodes.extend(_function_nodes(fdef, fname, names, fgraph, program._ops))
        program.functions[fname] = _signature(fdef)
    return program


def _captured_names(graph: Any) -> frozenset[str]:
    """The names of the nodes through which ``graph`` receives what it captured.

    ``FuncGraph.internal_captures`` are those tensors (the trailing ``graph.inputs``); a small
    captured eager tensor is among them although its node is a ``Const``.
    """
    return frozenset(t.op.name for t in getattr(graph, "internal_captures", None) or ())


def _as_argument(node: TfNode, captured: bool) -> TfNode:
    """A node that is an input of its function, as the compiler sees it: an ``_Arg`` of the
    node's dtype, with no data inputs (a captured ``Const`` keeps no value: the caller passes
    one in at every call)."""
    attrs = dict(node.type_attrs)
    dtype = attrs.pop("T", None) or attrs.pop("dtype", ())
    return replace(
        node,
        op="_Arg",
        type_attrs={"T": dtype},
        inputs=(),
        control_inputs=(),
        stateful=False,
        captured=captured,
    )


def _as_tf_function(tf: Any, fn: Any) -> Any:
    if callable(getattr(fn, "get_concrete_function", None)):
        return fn
    if not callable(fn):
        raise CaptureError(f"{_name(fn)} is not callable: give a tf.function, model or function")
    # A Keras model or plain function: tf.function traces its __call__ like any callable.
    return tf.function(fn)


def _specs(tf: Any, values: Any) -> list[Any]:
    """numpy arrays become TensorSpecs (tracing needs only shape and dtype); the rest stay."""
    import numpy as np

    return [
        tf.TensorSpec(value.shape, tf.as_dtype(value.dtype))
        if isinstance(value, np.ndarray)
        else value
        for value in values
    ]


def _python_function(fn: Any) -> Any:
    """The user's Python function behind ``fn``; ``None`` for a model or other callable object
    (its ``call`` is framework code, not where the user wrote the inputs)."""
    inner = getattr(fn, "python_function", fn)
    if not inspect.isfunction(inner) and not inspect.ismethod(inner):
        return None
    try:
        return inspect.unwrap(inner)
    except ValueError:  # a wrapper cycle
        return inner


def _definition(function: Any) -> StackFrame | None:
    """The ``def`` line of a Python function (not its first decorator's line)."""
    code = getattr(function, "__code__", None)
    if code is None:
        return None
    line = code.co_firstlineno
    try:
        lines, first = inspect.getsourcelines(function)
    except (OSError, TypeError):
        lines, first = [], line
    for offset, text in enumerate(lines):
        if text.lstrip().startswith(("def ", "async def ")):
            line = first + offset
            break
    return StackFrame(code.co_filename, line, code.co_name)


def _node(
    node_def: Any,
    function: str | None,
    library: frozenset[str],
    inputs: tuple[Edge, ...],
    control_inputs: tuple[str, ...],
    op: Any = None,
) -> TfNode:
    """A node from its NodeDef (and its Python op, when there is one, for output shapes)."""
    kind = node_def.op
    attrs = _type_attrs(node_def)
    if kind == "Placeholder":  # the compiler's name for a function input; its dtype is T
        kind = "_Arg"
        attrs = {"T": attrs.pop("dtype", ()), **attrs}
    called = list(_called_functions(node_def, library))
    calls = tuple(name for _, name in called)
    is_call = node_def.op in library or (node_def.op in _CALL_OPS and bool(calls))
    op_def = _op_def(node_def.op)
    static, size = _output_sizes(op)
    return TfNode(
        op=kind,
        name=node_def.name,
        function=function,
        type_attrs=attrs,
        inputs=inputs,
        control_inputs=control_inputs,
        calls=calls,
        call_attrs=tuple(attr for attr, _ in called),
        is_call=is_call,
        stateful=op_def is None or bool(op_def.is_stateful),
        variant_output=op_def is not None
        and any(arg.type == _DT_VARIANT for arg in op_def.output_arg),
        static_outputs=static,
        output_bytes=size,
        outside_compilation="_xla_outside_compilation" in node_def.attr,
        graph_op=node_def.op,
    )


def _function_nodes(
    fdef: Any,
    fname: str,
    library: frozenset[str],
    fgraph: Any,
    ops: dict[tuple[str | None, str], Any],
) -> Iterator[TfNode]:
    """The ``_Arg`` nodes of a library function's inputs, then its body's nodes."""
    placeholders = list(getattr(fgraph, "inputs", None) or [])
    captured = _captured_names(fgraph)
    for index, arg in enumerate(fdef.signature.input_arg):
        dtype = _dtype_name(arg.type) if arg.type else _attr_type(fdef, arg.type_attr)
        placeholder = placeholders[index].op if index < len(placeholders) else None
        static, size = _output_sizes(placeholder)
        yield TfNode(
            op="_Arg",
            name=arg.name,
            function=fname,
            type_attrs={"T": (dtype,)} if dtype else {},
            static_outputs=static,
            output_bytes=size,
            graph_op="_Arg",
            captured=placeholder is not None and placeholder.name in captured,
        )
        if placeholder is not None:  # FuncGraph.inputs are in signature order
            ops[(fname, arg.name)] = placeholder
    by_name = _ops_by_name(fgraph)
    node_defs = {node_def.name: node_def for node_def in fdef.node_def}
    for node_def in fdef.node_def:
        inputs = tuple(
            _function_edge(text, node_defs) for text in node_def.input if not text.startswith("^")
        )
        controls = tuple(text[1:] for text in node_def.input if text.startswith("^"))
        op = by_name.get(node_def.name)
        yield _node(node_def, fname, library, inputs, controls, op)
        if op is not None:
            ops[(fname, node_def.name)] = op


def _signature(fdef: Any) -> TfFunction:
    node_defs = {node_def.name: node_def for node_def in fdef.node_def}
    return TfFunction(
        name=fdef.signature.name,
        args=tuple(arg.name for arg in fdef.signature.input_arg),
        returns=tuple(
            _function_edge(fdef.ret[arg.name], node_defs) for arg in fdef.signature.output_arg
        ),
        control_returns=tuple(fdef.control_ret[name] for name in fdef.control_ret),
    )


def _function_edge(text: str, node_defs: Mapping[str, Any]) -> Edge:
    """A FunctionDef input (``x``, ``node:output_arg:i``) as ``(node, output index)``.

    Inside a FunctionDef an input names the producer's output *argument* and an index into
    it; the node's output index counts the sizes of the output arguments before it.
    """
    parts = text.split(":")
    if len(parts) < 3:  # a function argument (or a graph-style "node:i")
        return parts[0], int(parts[1]) if len(parts) == 2 and parts[1].isdigit() else 0
    name, arg_name, index = parts[0], parts[1], int(parts[2]) if parts[2].isdigit() else 0
    node_def = node_defs.get(name)
    op_def = _op_def(node_def.op) if node_def is not None else None
    if op_def is None:
        return name, index
    offset = 0
    for arg in op_def.output_arg:
        if arg.name == arg_name:
            break
        offset += _arg_size(arg, node_def)
    return name, offset + index


def _arg_size(arg: Any, node_def: Any) -> int:
    """How many tensors one output argument of an op definition stands for at this node."""
    if arg.number_attr:
        return int(node_def.attr[arg.number_attr].i)
    if arg.type_list_attr:
        return len(node_def.attr[arg.type_list_attr].list.type)
    return 1


def _output_sizes(op: Any) -> tuple[tuple[bool, ...], int | None]:
    """Whether each output's shape is fully known, and their total size in bytes when every
    one is (``None`` otherwise, and for strings, resources and variants, whose size is not
    in their shape)."""
    if op is None:
        return (), None
    static: list[bool] = []
    total: int | None = 0
    for tensor in op.outputs:
        shape = tensor.shape
        known = shape.rank is not None and shape.is_fully_defined()
        static.append(known)
        dtype = tensor.dtype
        if not known or dtype.name in ("string", "resource", "variant") or total is None:
            total = None
            continue
        try:
            total += int(shape.num_elements()) * dtype.size
        except (TypeError, ValueError):
            total = None
    return tuple(static), total


def _attr_type(fdef: Any, attr: str) -> str | None:
    value = fdef.attr.get(attr) if attr else None
    return _dtype_name(value.type) if value is not None and value.type else None


def _ops_by_name(fgraph: Any) -> dict[str, Any]:
    if fgraph is None:
        return {}
    try:
        return {op.name: op for op in fgraph.get_operations()}
    except Exception:  # a graph TF cannot rebuild (a gradient function without Python): no stacks
        return {}


def _library_graphs(graph: Any) -> dict[str, Any]:
    """name -> Python FuncGraph of every function the graph knows, nested ones included.

    Private TF: ``FuncGraph._functions`` maps each function added to the graph (while and cond
    bodies, nested tf.functions) to its ``AtomicFunction``, whose ``.graph`` is the FuncGraph
    with the ops (and their tracebacks) that the GraphDef's library lost.
    """
    found: dict[str, Any] = {}
    pending = [graph]
    while pending:
        current = pending.pop()
        for name, function in dict(getattr(current, "_functions", {}) or {}).items():
            key = _text(name)
            if key in found:
                continue
            try:
                fgraph = function.graph
            except Exception:  # no Python graph behind this function (imported FunctionDef)
                fgraph = None
            found[key] = fgraph
            if fgraph is not None:
                pending.append(fgraph)
    return found


def _type_attrs(node_def: Any) -> dict[str, tuple[str, ...]]:
    """attr -> DT_ names for every ``type``/``list(type)`` attr, op-definition defaults filled."""
    found: dict[str, tuple[str, ...]] = {}
    for name, value in node_def.attr.items():
        kind = value.WhichOneof("value")
        if kind == "type":
            found[name] = (_dtype_name(value.type),)
        elif kind == "list" and (value.list.type or _is_type_list(node_def.op, name)):
            found[name] = tuple(_dtype_name(t) for t in value.list.type)
    for attr in _op_type_attrs(node_def.op):
        if attr.name not in found and attr.HasField("default_value"):
            default = attr.default_value
            if attr.type == "type":
                found[attr.name] = (_dtype_name(default.type),)
            else:
                found[attr.name] = tuple(_dtype_name(t) for t in default.list.type)
    return found


def _is_type_list(op: str, attr: str) -> bool:
    return any(a.name == attr and a.type == "list(type)" for a in _op_type_attrs(op))


@cache
def _op_def(op: str) -> Any:
    """The registered OpDef of ``op``; ``None`` for a library function (or an unknown op)."""
    from tensorflow.python.framework import op_def_registry

    return op_def_registry.get(op)


@cache
def _op_type_attrs(op: str) -> tuple[Any, ...]:
    """The ``type``/``list(type)`` attr definitions of ``op`` (none for a library function)."""
    op_def = _op_def(op)
    if op_def is None:
        return ()
    return tuple(a for a in op_def.attr if a.type in ("type", "list(type)"))


def _called_functions(node_def: Any, library: frozenset[str]) -> Iterator[tuple[str, str]]:
    """``(attr, function)`` for each library function the node refers to: its ``func`` and
    ``list(func)`` attrs, or its op itself (attr ``""``)."""
    if node_def.op in library:
        yield "", node_def.op
    for attr, value in sorted(node_def.attr.items()):
        kind = value.WhichOneof("value")
        if kind == "func" and value.func.name in library:
            yield attr, value.func.name
        elif kind == "list":
            yield from ((attr, f.name) for f in value.list.func if f.name in library)


@cache
def _dtype_name(enum: int) -> str:
    from tensorflow.core.framework import types_pb2

    try:
        return types_pb2.DataType.Name(enum)
    except ValueError:
        return f"DT_{enum}"


def _text(name: Any) -> str:
    return name.decode() if isinstance(name, bytes) else str(name)


def _name(fn: Any) -> str:
    return str(getattr(fn, "__name__", None) or getattr(fn, "name", None) or type(fn).__name__)


# ---- kernels -------------------------------------------------------------------------------------


def jit_device_types() -> frozenset[str]:
    """The ``XLA_*_JIT`` device types this TensorFlow build has kernels for (after forcing
    their registration): ``{"XLA_CPU_JIT"}`` on tensorflow-cpu; GPU builds add
    ``XLA_GPU_JIT``; ``XLA_TPU_JIT`` needs libtpu."""
    return frozenset(
        kernel.device_type for kernel in _all_kernels() if kernel.device_type.endswith("_JIT")
    )


@cache
def xla_kernels(device_type: str) -> XlaKernels:
    """The kernels registered for ``device_type`` with their type constraints: the XLA ones
    for ``XLA_CPU_JIT``/``XLA_GPU_JIT``/``XLA_TPU_JIT``, TensorFlow's own for ``CPU`` (what
    constant folding on the host can run).

    Empty when this build has none for it (``XLA_TPU_JIT`` without libtpu); check
    :func:`jit_device_types` first.
    """
    by_op: dict[str, list[KernelRegistration]] = {}
    for kernel in _all_kernels():
        if kernel.device_type != device_type:
            continue
        allowed = {
            c.name: frozenset(_dtype_name(t) for t in c.allowed_values.list.type)
            for c in kernel.constraint
        }
        by_op.setdefault(kernel.op, []).append(KernelRegistration(kernel.op, allowed))
    return XlaKernels(device_type, by_op)


def _all_kernels() -> Sequence[Any]:
    _register_jit_kernels()
    from tensorflow.python.framework import kernels

    return kernels.get_all_registered_kernels().kernel


@cache
def _register_jit_kernels() -> None:
    """Force TensorFlow to register its XLA JIT kernels, once per process.

    They are registered lazily (``XlaOpRegistry::RegisterCompilationKernels``), the first time
    anything is compiled with XLA: right after ``import tensorflow`` there are none, and every
    op would look unsupported. Asking for the HLO of a tiny ``jit_compile`` function is the
    cheapest trigger: it compiles the graph to HLO and runs nothing.
    """
    tf = require_tensorflow()
    from tensorflow.python.framework import kernels

    if any(k.device_type.endswith("_JIT") for k in kernels.get_all_registered_kernels().kernel):
        return
    trigger = tf.function(lambda x: x * 2, jit_compile=True)
    trigger.experimental_get_compiler_ir(tf.TensorSpec([2], tf.float32))(stage="hlo")


# ---- asking TensorFlow ---------------------------------------------------------------------------


def compile_error(fn: Any, *args: Any, **kwargs: Any) -> str | None:
    """What TensorFlow says when asked to compile ``fn`` for these inputs with XLA on CPU:
    the error text, or ``None`` when it compiles.

    Uses ``experimental_get_compiler_ir(...)(stage="hlo")``, which builds the HLO and runs
    nothing; a function without ``jit_compile=True`` is wrapped in one that has it. TensorFlow
    stops at the first unsupported op, so the text names one offender at most. Inputs must
    have static shapes.
    """
    tf = require_tensorflow()
    function = fn
    if getattr(fn, "_jit_compile", None) is not True:
        function = tf.function(fn, jit_compile=True)
    specs, keyword_specs = _specs(tf, args), dict(zip(kwargs, _specs(tf, kwargs.values())))
    try:
        function.experimental_get_compiler_ir(*specs, **keyword_specs)(stage="hlo")
    except ValueError as error:
        if "Only support static input shape" in str(error):
            raise CaptureError(
                f"compiling {_name(fn)} needs inputs of static shape: {error}"
            ) from error
        return str(error)
    except tf.errors.OpError as error:
        return str(error)
    return None
