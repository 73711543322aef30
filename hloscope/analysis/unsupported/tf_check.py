"""TensorFlow pre-flight: every op of a function that XLA will refuse, found before compiling.

TensorFlow's own check (``ValidateGraph`` in ``tensorflow/compiler/tf2xla/xla_compiler.cc``)
stops at the first bad node, so a function with four unsupported ops costs four compile-fix
rounds. This check walks the whole function instead, the way ``ValidateGraph`` walks each graph
it compiles, and reports them all (:func:`hloscope.drivers.tf_check.check_tf` traces the
function and reads the installed TensorFlow's kernels; :func:`report_of_graph` here walks
them and runs nothing)::

    report = check_tf(step, images, labels, platform="tpu")
    for finding in report.findings:
        print(finding.function, finding.op, finding.reason, finding.dtype, finding.source)

What ``ValidateGraph`` does, and so what this does for each node of a compiled graph:

* a ``SymbolicGradient`` node is skipped;
* a function call (``PartitionedCall``/``StatefulPartitionedCall`` naming a library function,
  or a node whose op *is* a library function) gets no kernel lookup: the callee is compiled in
  its place, so the callee's nodes are checked instead;
* every other node -- graph plumbing included: ``_Arg``, ``Const``, ``Identity``, ``NoOp``,
  ``While``, ``If`` all have XLA kernels -- must have a kernel registered for the device type
  whose type constraints accept the node's type attrs (``FindKernelDef``). None at all is
  ``no_kernel``; kernels that all reject one of its dtypes is ``dtype`` (a ``tf.string``
  argument is an ``_Arg`` with ``T=DT_STRING``).

``ValidateGraph`` sees the graph after TensorFlow's own rewrites, and so does this check.
Nested ``tf.function`` calls are inlined into the caller, and what inlining leaves unused is
removed; every node computed from constants alone is evaluated on the host and replaced by a
Const (so ``tf.strings.to_number(tf.constant("1"))`` compiles, and an unsupported op fed by a
constant is no finding). What the function captured -- a module-level eager tensor, a
``tf.Variable`` -- is no constant: TensorFlow passes it in as an argument at every call
(``captured_inputs``), so ops fed by it are compiled, and a captured ``tf.string`` tensor is
itself an ``_Arg`` XLA rejects (even where the Python graph shows it as a ``Const``). Constant
inputs of ``cond`` and loop-invariant ones of ``while`` are passed into their bodies. The
bodies of ``while``/``cond``/``case`` are compiled when the node that calls them is, so they
are checked when reached that way: library functions no compiled node calls (a ``tf.data``
function behind a dataset op that is itself unsupported) are not, since TensorFlow never
compiles them either. A ``Placeholder`` is what the compiler sees as an ``_Arg`` and is
reported under that name, like TensorFlow's message does.

What reading the graph cannot see: failures after the kernel lookup (an input that must be a
compile-time constant and is not, a TensorList of unknown size). Compiling shows those
(:func:`hloscope.backends.tf_graph.compile_error`), one at a time.

The kernels come from the installed TensorFlow (:mod:`hloscope.backends.tf_graph`), so the check
is as old or new as the TensorFlow that will compile the program: ``Where`` had no CPU kernel
in TF 2.5 and has one now. For GPU and TPU on a build without their kernels (tensorflow-cpu
always), the CPU registrations stand in for them: the report says ``proxy=True`` and its notes
say what differs.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from ...backends.tf_graph_records import (
    JIT_DEVICE_TYPES,
    Edge,
    TfFunction,
    TfNode,
    TfProgram,
    XlaKernels,
)
from ..provenance import is_user_frame, user_frame
from .findings import TOP_LEVEL, CheckReport, Finding, Platform, Reason
from .fixes import CAPTURED_PREFIX, suggest

__all__ = ["PROXY_DEVICE_TYPE", "kernels_read_for", "report_of_graph"]

#: Whose registrations stand in for a device type this TensorFlow build lacks.
PROXY_DEVICE_TYPE = "XLA_CPU_JIT"

# ValidateGraph skips the gradient op without a kernel lookup (FunctionLibraryDefinition::
# kGradientOp); everything else it looks up.
_SKIPPED_OPS = frozenset({"SymbolicGradient"})

# TPUs have no 64-bit floating point: XLA_TPU_JIT registers its kernels without these types
# (its type list, unlike CPU's and GPU's, leaves them out), so any node using one fails there.
_TPU_MISSING = frozenset({"DT_DOUBLE", "DT_COMPLEX128"})
# 64-bit integers compile on TPU, emulated with pairs of 32-bit ones.
_TPU_EMULATED = frozenset({"DT_INT64", "DT_UINT64"})

# REGISTER_XLA_CONV_OP (tf2xla/xla_op_registry.h; the type lists are GetXlaConvTypesFor* in
# tf2xla/kernels/conv_op_helpers.cc) registers each convolution twice:
# T in {float, bfloat16, half, double, int32} for every backend but GPU, and the same without
# int32 for XLA_GPU_JIT ("we don't support integers for convolutions for GPU").
_CONV_OP = re.compile(
    r"^(Conv\d?D?|Conv\dDBackprop\w+|DepthwiseConv2dNative\w*|ExtractImagePatches)$"
)
_GPU_CONV_REMOVED = frozenset({"DT_INT32"})

# How many user frames of the creation stack a finding's detail shows.
_DETAIL_FRAMES = 6


def kernels_read_for(platform: Platform, device_types: frozenset[str]) -> str:
    """The device type whose XLA kernel registrations the check reads for ``platform``: its
    own when this TensorFlow build has kernels for it (``device_types``), else the proxy's
    (:data:`PROXY_DEVICE_TYPE`)."""
    wanted = JIT_DEVICE_TYPES[platform.value]
    return wanted if wanted in device_types else PROXY_DEVICE_TYPE


def report_of_graph(
    program: TfProgram,
    platform: Platform,
    *,
    kernels: XlaKernels,
    host: XlaKernels,
    tensorflow: str,
) -> CheckReport:
    """Every op of the traced ``program`` that XLA cannot compile for ``platform``, and why
    (see the module doc), judged against ``kernels`` (the registrations
    :func:`kernels_read_for` names: a proxy's when they are not ``platform``'s own) and
    ``host`` (the CPU's, which constant folding runs); ``tensorflow`` is the version they come
    from, named in the notes."""
    wanted = JIT_DEVICE_TYPES[platform.value]
    proxy = kernels.device_type != wanted
    rules = _Rules.for_platform(platform, wanted, proxy)
    walk = _Walk(program=program, kernels=kernels, host=host, rules=rules)
    walk.run()
    report = CheckReport(platform=platform, program=program.python_name, proxy=proxy)
    report.extend(walk.findings)
    report.notes.extend(_notes(walk, tensorflow))
    return report


# ---- the rules of one platform -------------------------------------------------------------------


@dataclass(slots=True, frozen=True)
class _Rules:
    """What differs between platforms: whose kernels are read, and the known differences the
    registrations of a proxy cannot show."""

    platform: Platform
    device_type: str  # what the program will be compiled for
    kernels_of: str  # whose registrations are read (the device type itself, or the proxy)
    proxy: bool
    missing_dtypes: frozenset[str] = frozenset()  # rejected whatever the registrations say
    gpu_conv: bool = False  # drop int32 from the convolutions' T (the proxy's sets are wider)
    skip_outside_compilation: bool = False

    @classmethod
    def for_platform(cls, platform: Platform, device_type: str, proxy: bool) -> _Rules:
        return cls(
            platform=platform,
            device_type=device_type,
            kernels_of=PROXY_DEVICE_TYPE if proxy else device_type,
            proxy=proxy,
            missing_dtypes=_TPU_MISSING if platform is Platform.TPU else frozenset(),
            gpu_conv=proxy and platform is Platform.GPU,
            skip_outside_compilation=platform is Platform.TPU,
        )

    def allowed(self, op: str, attr: str, types: frozenset[str]) -> frozenset[str]:
        """The dtypes a registration's constraint allows on this platform."""
        if self.gpu_conv and attr == "T" and _CONV_OP.match(op):
            types = types - _GPU_CONV_REMOVED
        return types - self.missing_dtypes


# ---- what TensorFlow compiles: the graph after its rewrites ----------------------------------
#
# XlaCompiler::CompileFunction does not validate the Python graph as written. GetGraph first
# inlines nested function calls (PartitionedCall and friends) and constant-folds; CompileGraph
# then propagates constant inputs into If/While bodies, and only then does ValidateGraph look
# kernels up. A node computed from constants alone is evaluated on the host with its CPU kernel
# and replaced by a Const, so it never needs an XLA kernel: tf.strings.to_number of a constant
# compiles. The model below follows those rules (tensorflow/core/common_runtime/
# constant_folding.cc, graph_optimizer.cc, function_utils.cc; tf2xla/xla_compiler.cc GetGraph,
# tf2xla_util.cc PropagateConstIntoFunctionalNodes).

# ConstantFold refuses outputs larger than max_folded_constant_in_bytes, 10 MiB by default.
_MAX_FOLDED_BYTES = 10 * 1024 * 1024
# Replaced by a constant when their input's shape is fully known (MaybeReplaceShapeOp), and
# otherwise never folded (XLA's cf_consider_fn keeps dynamic shapes visible).
_SHAPE_OPS = frozenset({"Shape", "ShapeN", "Size", "Rank"})
_IF_OPS = frozenset({"If", "StatelessIf"})
_WHILE_OPS = frozenset({"While", "StatelessWhile"})
_IDENTITY_OPS = frozenset({"Identity", "IdentityN"})
_RESOURCE = ("DT_RESOURCE",)


@dataclass(slots=True, frozen=True)
class _Context:
    """One function as one call site compiles it.

    ``inlined``: a nested function call, whose body is pasted into the caller (its ``_Arg``
    become Identity nodes, its unused parts are removed) -- as opposed to a function XLA
    compiles on its own (the checked function, while/cond bodies); ``const_args``: argument
    positions bound to compile-time constants; ``used_returns``: for an inlined body, the
    outputs its caller reads.
    """

    function: str | None
    inlined: bool = False
    const_args: frozenset[int] = frozenset()
    used_returns: frozenset[int] = frozenset()


class _Graph:
    """One function's nodes with the edges read both ways, in topological order."""

    __slots__ = ("signature", "nodes", "by_name", "consumers", "arg_index")

    def __init__(self, program: TfProgram, function: str | None) -> None:
        self.signature = program.functions.get(function) or TfFunction(function)
        nodes = program.function_nodes(function)
        self.by_name = {node.name: node for node in nodes}
        self.arg_index = {name: i for i, name in enumerate(self.signature.args)}
        self.consumers: dict[str, list[tuple[TfNode, int]]] = {}
        for node in nodes:
            for source, index in node.inputs:
                self.consumers.setdefault(source, []).append((node, index))
        self.nodes = _topological(nodes, self.by_name)


def _topological(nodes: list[TfNode], by_name: Mapping[str, TfNode]) -> list[TfNode]:
    """Producers before consumers (Kahn's algorithm over data and control edges); a node on a
    cycle, which TF2 graphs do not have, keeps its place at the end."""
    waiting = {
        node.name: {s for s, _ in node.inputs} | set(node.control_inputs) & by_name.keys()
        for node in nodes
    }
    for name, sources in waiting.items():
        sources &= by_name.keys()
        sources.discard(name)
    users: dict[str, list[str]] = {}
    for name, sources in waiting.items():
        for source in sources:
            users.setdefault(source, []).append(name)
    ready = deque(node.name for node in nodes if not waiting[node.name])
    order: list[TfNode] = []
    while ready:
        name = ready.popleft()
        order.append(by_name[name])
        for user in users.get(name, ()):
            waiting[user].discard(name)
            if not waiting[user]:
                ready.append(user)
    placed = {node.name for node in order}
    return order + [node for node in nodes if node.name not in placed]


class _Body:
    """Which nodes of one function, in one context, reach XLA's kernel lookup.

    ``constant[name]``: TensorFlow can compute the node from constants on the host;
    ``compiled[name]``: the node is still in the graph when ``ValidateGraph`` runs -- not
    folded into a Const, not removed as dead.
    """

    __slots__ = ("context", "graph", "constant", "compiled")

    def __init__(self, walk: _Walk, context: _Context) -> None:
        self.context = context
        self.graph = walk.graph(context.function)
        self.constant: dict[str, bool] = {}
        for node in self.graph.nodes:  # producers first
            self.constant[node.name] = self._is_constant(node, walk)
        live = self._live() if context.inlined else None
        self.compiled: dict[str, bool] = {}
        for node in reversed(self.graph.nodes):  # consumers first
            alive = live is None or node.name in live
            self.compiled[node.name] = alive and self._survives_folding(node, live)

    def _is_constant(self, node: TfNode, walk: _Walk) -> bool:
        if node.op == "_Arg":
            return self.graph.arg_index.get(node.name, -1) in self.context.const_args
        if node.op == "Const":
            return node.type_attrs.get("dtype") != ("DT_RESOURCE",)
        if node.op in _SHAPE_OPS:
            return bool(node.inputs) and all(self._static(edge) for edge in node.inputs)
        if node.is_call:
            return bool(node.calls) and walk.returns_constant(self._callee(node, walk.graph))
        if (
            node.stateful
            or node.calls
            or node.variant_output
            or not node.inputs
            or (node.output_bytes or 0) > _MAX_FOLDED_BYTES
            or not walk.host_can_run(node)
        ):
            return False
        return all(self.constant.get(source, False) for source, _ in node.inputs)

    def _static(self, edge: Edge) -> bool:
        source = self.graph.by_name.get(edge[0])
        if source is None:
            return False
        return edge[1] < len(source.static_outputs) and source.static_outputs[edge[1]]

    def _live(self) -> set[str]:
        """Inlined: what is left after the dead-node removal that follows inlining -- what the
        used outputs, the control outputs and the stateful nodes depend on."""
        signature = self.graph.signature
        seeds = [signature.returns[i][0] for i in self.context.used_returns]
        seeds += list(signature.control_returns)
        seeds += [node.name for node in self.graph.nodes if node.stateful]
        live: set[str] = set()
        pending = [name for name in seeds if name in self.graph.by_name]
        while pending:
            name = pending.pop()
            if name in live:
                continue
            live.add(name)
            node = self.graph.by_name[name]
            pending.extend(s for s, _ in node.inputs if s in self.graph.by_name)
            pending.extend(c for c in node.control_inputs if c in self.graph.by_name)
        return live

    def _survives_folding(self, node: TfNode, live: set[str] | None) -> bool:
        """A constant node disappears when every consumer takes its value as a Const instead;
        it stays when a compiled-alone function has nothing consuming it (then it still hangs
        off the graph's sink) or when a consumer that stays needs it."""
        if not self.constant[node.name] or node.op == "Const":
            return True
        if node.op == "_Arg" and not self.context.inlined:
            return True  # the argument node stays; only its uses are rewired to the Const
        consumers = [
            c for c, _ in self.graph.consumers.get(node.name, ()) if live is None or c.name in live
        ]
        if not consumers:
            return not self.context.inlined
        return any(self.constant[c.name] and self.compiled.get(c.name, True) for c in consumers)

    def _callee(self, node: TfNode, graphs: Any) -> _Context:
        """The context of an inlined call: which arguments are constants, which outputs used."""
        callee = node.calls[0]
        const_args = frozenset(
            i for i, (source, _) in enumerate(node.inputs) if self.constant.get(source, False)
        )
        used = {index for _, index in self.graph.consumers.get(node.name, ())}
        returns = len(graphs(callee).signature.returns)
        return _Context(callee, True, const_args, frozenset(i for i in used if i < returns))

    def captured_value(self, node: TfNode) -> bool:
        """Whether the node is a captured value, or reads a variable the function captured
        (a ``ReadVariableOp`` of a module-level ``tf.Variable``): its fix is where that value
        is made."""
        if node.captured:
            return True
        sources = (self.graph.by_name.get(source) for source, _ in node.inputs)
        return any(
            source is not None and source.captured and source.type_attrs.get("T") == _RESOURCE
            for source in sources
        )

    def children(self, node: TfNode, walk: _Walk) -> Iterator[_Context]:
        """The bodies a compiled node makes XLA compile, each in its context."""
        if node.is_call:
            if node.calls:
                yield self._callee(node, walk.graph)
            return
        const_inputs = [self.constant.get(source, False) for source, _ in node.inputs]
        for callee in node.calls:
            const_args: frozenset[int] = frozenset()
            if node.op in _IF_OPS:  # input 0 is the predicate
                const_args = frozenset(i - 1 for i, c in enumerate(const_inputs) if c and i)
            elif node.op in _WHILE_OPS:
                body = dict(zip(node.call_attrs, node.calls)).get("body", callee)
                const_args = frozenset(
                    i for i, c in enumerate(const_inputs) if c and walk.loop_invariant(body, i)
                )
            yield _Context(callee, False, const_args)


@dataclass(slots=True)
class _Walk:
    """The whole check: every compiled body of the program, each node judged once per body."""

    program: TfProgram
    kernels: XlaKernels
    host: XlaKernels
    rules: _Rules
    findings: list[Finding] = field(default_factory=list)
    functions: list[str | None] = field(default_factory=list)
    checked: set[tuple[str | None, str]] = field(default_factory=set)
    folded: set[tuple[str | None, str]] = field(default_factory=set)
    emulated: set[tuple[str | None, str]] = field(default_factory=set)
    outside: set[tuple[str | None, str]] = field(default_factory=set)
    _graphs: dict[str | None, _Graph] = field(default_factory=dict)
    _bodies: dict[_Context, _Body] = field(default_factory=dict)

    def graph(self, function: str | None) -> _Graph:
        if function not in self._graphs:
            self._graphs[function] = _Graph(self.program, function)
        return self._graphs[function]

    def body(self, context: _Context) -> _Body:
        if context not in self._bodies:
            self._bodies[context] = _Body(self, context)
        return self._bodies[context]

    def returns_constant(self, context: _Context) -> bool:
        body = self.body(context)
        returns = body.graph.signature.returns
        return bool(returns) and all(body.constant.get(source, False) for source, _ in returns)

    def host_can_run(self, node: TfNode) -> bool:
        """Constant folding runs the node with its CPU kernel: is there one for its dtypes?"""
        return any(_rejected(node, r.allowed) is None for r in self.host.registrations(node.op))

    def loop_invariant(self, body: str, index: int) -> bool:
        """Whether a while body passes argument ``index`` through unchanged (its output
        ``index`` is that argument, through Identity nodes only)."""
        graph = self.graph(body)
        if index >= len(graph.signature.returns) or index >= len(graph.signature.args):
            return False
        name, output = graph.signature.returns[index]
        for _ in range(len(graph.nodes) + 1):
            node = graph.by_name.get(name)
            if node is None or node.op not in _IDENTITY_OPS or not node.inputs:
                break
            name, output = node.inputs[output if node.op == "IdentityN" else 0]
        return name == graph.signature.args[index]

    def run(self) -> None:
        pending = deque([_Context(None)])
        seen = {pending[0]}
        while pending:
            context = pending.popleft()
            if context.function not in self.functions:
                self.functions.append(context.function)
            body = self.body(context)
            for node in body.graph.nodes:
                for child in self._visit(node, body):
                    if child not in seen:
                        seen.add(child)
                        pending.append(child)

    def _visit(self, node: TfNode, body: _Body) -> Iterator[_Context]:
        key = (node.function, node.name)
        if self.rules.skip_outside_compilation and node.outside_compilation:
            self.outside.add(key)
            return  # runs on the host, body and all
        if not body.compiled[node.name]:
            if body.constant[node.name] and node.op not in self.kernels:
                self.folded.add(key)  # an unsupported op TF computes on the host instead
            return
        self.checked.add(key)
        if _uses(node, _TPU_EMULATED):
            self.emulated.add(key)
        finding = _judge(node, self.kernels, self.rules, self.program, body.captured_value(node))
        if finding is not None:
            self.findings.append(finding)
        if finding is None or finding.reason is Reason.DTYPE:
            # The node compiles (or would, with another dtype): so do its bodies. A node
            # with no kernel never compiles, and TF never compiles what it calls either.
            yield from body.children(node, self)


# ---- one node against the kernels ---------------------------------------------------------------


def _judge(
    node: TfNode,
    kernels: XlaKernels,
    rules: _Rules,
    program: TfProgram,
    captured: bool = False,
) -> Finding | None:
    """The finding for one node, or ``None`` when it passes the kernel lookup; ``captured``:
    the node is (or reads) a value the function captured from outside."""
    if node.op in _SKIPPED_OPS or node.is_call:
        return None
    registrations = kernels.registrations(node.op)
    if not registrations:
        text = f"no {rules.device_type} kernel is registered for {node.op}"
        if rules.proxy:
            text += f" [{rules.kernels_of} registrations standing in]"
        return _finding(node, Reason.NO_KERNEL, None, text, program, captured)
    rejections = [_rejected(node, r.allowed, rules) for r in registrations]
    if all(rejections):
        attr, dtype, allowed = next(r for r in rejections if r)
        text = (
            f"{rules.device_type} has kernels for {node.op}, but none with {attr}={dtype}"
            f" (allowed: {', '.join(sorted(allowed)) or 'none'})"
        )
        if rules.proxy:
            text += f" [{rules.kernels_of} registrations standing in]"
        return _finding(node, Reason.DTYPE, dtype, text, program, captured)
    for attr, dtypes in node.type_attrs.items():
        for dtype in dtypes:
            if dtype in rules.missing_dtypes:
                text = f"{rules.device_type} has no {dtype}: {node.op} uses it in {attr}"
                return _finding(node, Reason.DTYPE, dtype, text, program, captured)
    return None


def _rejected(
    node: TfNode, allowed: Mapping[str, frozenset[str]], rules: _Rules | None = None
) -> tuple[str, str, frozenset[str]] | None:
    """The first ``(attr, dtype, allowed)`` of the node that a registration's constraints
    reject, as FindKernelDef matches them (every dtype of a ``list(type)`` attr must be
    allowed); ``None`` when the registration accepts the node. ``rules`` narrow the allowed
    dtypes to a platform's."""
    for attr, types in allowed.items():
        usable = rules.allowed(node.op, attr, types) if rules else types
        for dtype in node.type_attrs.get(attr, ()):
            if dtype not in usable:
                return attr, dtype, usable
    return None


def _uses(node: TfNode, dtypes: frozenset[str]) -> bool:
    return any(d in dtypes for values in node.type_attrs.values() for d in values)


def _finding(
    node: TfNode,
    reason: Reason,
    dtype: str | None,
    text: str,
    program: TfProgram,
    captured: bool = False,
) -> Finding:
    stack = program.stack(node)
    source = user_frame(stack)
    # A dtype problem is about the type wherever it appears: the dtype row of the fixes table
    # says what to do with it (a string, a float64 on TPU); else the op's own row. A captured
    # value has its own row first: the fix is where the value is made, not in the caller.
    advice = (
        (suggest(f"{CAPTURED_PREFIX}{dtype}") if dtype and captured else "")
        or (suggest(dtype) if dtype else "")
        or suggest(node.op, reason)
    )
    if captured:
        what = "is" if node.captured else "reads"
        text += (
            f"; it {what} a value the function captured from outside (an eager tensor or a "
            "variable), which TensorFlow passes in as an input at every call, not a constant"
        )
    return Finding(
        op=node.op,
        node=node.name,
        function=node.function or TOP_LEVEL,
        reason=reason,
        dtype=dtype,
        source=f"{source.file}:{source.line}" if source else None,
        suggestion=advice,
        detail=text + _created_at(stack),
    )


def _created_at(stack: Iterable[Any]) -> str:
    """The user frames of a creation stack, outermost first like TensorFlow prints them."""
    frames = [frame for frame in stack if is_user_frame(frame)][:_DETAIL_FRAMES]
    if not frames:
        return ""
    lines = [
        f'  File "{f.file}", line {f.line}' + (f", in {f.function}" if f.function else "")
        for f in reversed(frames)
    ]
    return "\nThe op is created at:\n" + "\n".join(lines)


# ---- notes ---------------------------------------------------------------------------------------


def _notes(walk: _Walk, version: str) -> Iterator[str]:
    program, rules = walk.program, walk.rules
    nested = len(walk.functions) - 1
    yield (
        f"checked {len(walk.checked)} nodes of {program.name} and {nested} nested function"
        f"{'' if nested == 1 else 's'} against the {len(walk.kernels)} ops with "
        f"{rules.kernels_of} kernels in TensorFlow {version}"
    )
    captured = [n for n in program.function_nodes(None) if n.captured]
    if captured:
        yield (
            f"{program.name} captures {_count(len(captured), 'value')} from outside (eager "
            "tensors, variables): TensorFlow passes them in at every call, so they are inputs "
            "of the compiled function and what they feed is compiled, not folded"
        )
    if walk.folded:
        yield (
            f"{_count(len(walk.folded), 'node')} without an XLA kernel "
            f"{'is' if len(walk.folded) == 1 else 'are'} computed from constants only: "
            "TensorFlow folds them on the host before compiling, so they are not findings"
        )
    unreached = [f for f in program.library if f not in walk.functions]
    if unreached:
        shown = ", ".join(unreached[:4]) + (", ..." if len(unreached) > 4 else "")
        yield (
            f"{_count(len(unreached), 'library function')} that no compiled node calls "
            f"{'was' if len(unreached) == 1 else 'were'} not checked (TensorFlow does not "
            f"compile them either): {shown}"
        )
    if rules.proxy:
        yield from _proxy_notes(rules)
    if rules.platform is Platform.TPU:
        yield from _tpu_notes(walk)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _proxy_notes(rules: _Rules) -> Iterator[str]:
    source = "libtpu" if rules.platform is Platform.TPU else "a TensorFlow build with CUDA"
    yield (
        f"PROXY: this TensorFlow has no {rules.device_type} kernels (they come with {source}), "
        f"so the {rules.kernels_of} registrations stood in for them. Kernels registered "
        f"without a device restriction exist for every backend, so most results carry over, "
        f"but this is not a check against {rules.platform.value.upper()} itself."
    )
    yield (
        f"PROXY: ops registered for one device type only are invisible here: an op TensorFlow "
        f"registers only for {rules.device_type} is reported no_kernel although "
        f"{rules.platform.value.upper()} has it, and one registered only for "
        f"{rules.kernels_of} passes here but fails there (history: Where was once TPU-only). "
        f"Confirm on the device with tf.function(..., jit_compile=True)."
    )
    if rules.platform is Platform.GPU:
        yield (
            "PROXY: GPU dtype sets differ from CPU's: convolutions (Conv2D, Conv3D, "
            "DepthwiseConv2dNative, their backprops, ExtractImagePatches) have no DT_INT32 "
            "kernel on GPU, applied here; some TensorFlow versions also lack DT_COMPLEX128 "
            "kernels on GPU."
        )


def _tpu_notes(walk: _Walk) -> Iterator[str]:
    yield (
        "TPU: no 64-bit floating point -- nodes using DT_DOUBLE or DT_COMPLEX128 are reported "
        "as dtype problems; DT_INT64/DT_UINT64 compile but are emulated with pairs of 32-bit "
        "integers (slower)"
        + (f" ({_count(len(walk.emulated), 'node')} use them)." if walk.emulated else ".")
    )
    yield (
        "TPU: with tf.config.set_soft_device_placement(True), TPUStrategy moves unsupported "
        "ops to the host (tf.tpu.outside_compilation does it explicitly), at a cost in speed"
        + (
            f"; {_count(len(walk.outside), 'node')} already marked for outside compilation "
            "were not checked."
            if walk.outside
            else "."
        )
    )
