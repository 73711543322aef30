"""The op a JAX message names in passing, where its family's sentence names none.

JAX's messages about an op's rules name the op in a few stable shapes whatever the sentence
around them: ``sharding rule for scatter-add is not implemented``, ``For primitive
broadcast_in_dim``, ``PartitionSpec passed to broadcast_in_dim``, ``Input 0 to qr must be
unsharded``, an MLIR location's name stack (``loc("jit(f)/pure_callback"(...``), the API a
message refuses by name at its start (```jax.make_mesh` does not support ...``); a GPU driver
names the kernel it could not find (``failed to get PTX kernel "x" from module``). Where the
message says none, the traceback does: the rule that raised it is a function of JAX's named
after its primitive (``_dot_general_unreduced_rule``, ``_sort_abstract_eval``,
``_scatter_sharding_rule``). TensorFlow's kernel registry names the op it has no kernel of
(``No registered 'Op' OpKernel for XLA_GPU_JIT devices``) and its runtime the node that
failed (``[[{{node StatefulPartitionedCall}}]]``); PyTorch/XLA the IR node it was lowering
(``Error while lowering: [] aten::inverse``). Whatever the framework, XLA's words call an HLO
op an operation or instruction (``Cannot infer shape for dot operation``, ``PartitionId
instruction is not supported``), MLIR prints an XLA dialect's op in its generic form
(``"stablehlo.dynamic_update_slice"(...)``), and a C++ stack trace shows the visitor's handler
of the op it was on (``SpmdPartitioningVisitor::HandleDynamicUpdateSlice()``).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ...hlo.metadata import StackFrame
from ...hlo.opcodes import OPCODES

__all__ = [
    "api_calls",
    "current_operation",
    "generic_op",
    "mosaic_op",
    "op_called",
    "op_on_line",
    "TRANSFORMS",
    "op_named",
    "op_of_rule_frames",
    "opcode_in",
    "traced_primitive",
]

_NAMED = re.compile(
    r"\bsharding rule for (?P<rule>[a-z][\w-]*[a-z0-9])"
    # A transformation's rule JAX lacks for a primitive, in its stable shapes: shard_map's "No
    # replication rule for erf", vmap's "Batching rule for 'cumsum' not implemented", AD's
    # "Differentiation rule for 'custom_lin' not implemented", "Transpose rule (for
    # reverse-mode differentiation) for 'while' not implemented".
    r"|\bNo (?:replication|check_rep|vma|batching|transpose) rule for (?P<no_rule>[a-z_]\w*)"
    r"|\b(?:Batching|Differentiation|Transpose) rule (?:\([^)\n]*\) )?for '(?P<quoted_rule>\w+)'"
    r" not implemented\b"
    # (Not a qualified name's last part: "jax.core.Primitive was removed" names a class.)
    r"|(?<![\w.])[Pp]rimitive (?P<prim>[a-z_][a-z0-9_]*)\b"
    # "PartitionSpec passed to broadcast_in_dim", "passed to jnp.zeros" (its last name).
    r"|\b(?:passed|given) to (?!(?:the|a|an|this|that|it)\b)(?:[a-z_]+\.)*"
    r"(?P<passed>[a-z_][a-z0-9_]*)\b(?![.(-])"
    # "Input 0 to qr must be unsharded", "Arguments to sort must be unsharded".
    r"|\b(?:[Ii]nputs?(?: \d+)?|[Aa]rguments?) to (?P<to>[a-z_][a-z0-9_]*) must\b"
    r"|loc\(\"[^\"\n]*/(?P<loc>[a-z_][a-z0-9_]*)\""
    # The instruction a compiler was compiling when it failed, as XLA names it: "Failure
    # occured when compiling fusion gemm_fusion_dot.1", "while compiling %call.1 = ...".
    r"|\b(?:while|when) compiling (?:(?:fusion|instruction|kernel) %?|%)(?P<hlo>[\w.-]*\w)"
    # A kernel a GPU driver could not find in the module XLA loaded, quoted: CUDA's "failed
    # to get PTX kernel "shift_right_logical" from module", ROCm's "failed to get kernel
    # "fusion_3" from module".
    r"|\bkernel \"(?P<kernel>[\w.$-]+)\" from module"
    # The op TensorFlow has no kernel of for a device, quoted: "No registered
    # 'ImageProjectiveTransformV3' OpKernel for XLA_GPU_JIT devices", "No registered
    # 'NcclAllReduce' OpKernel for GPU devices".
    r"|\bNo registered '(?P<registered>[A-Z]\w*)' OpKernel for\b"
    # The op a sharding-in-types rule could not give an output sharding: "to provide output
    # PartitionSpec for the scatter update", "... for the gather indexing".
    r"|\bPartitionSpec\s+for\s+the\s+(?P<spec_for>[a-z_][a-z0-9_]*)\s+"
    r"(?:update|indexing|operation)\b"
    # A message whose subject is the API it refuses, quoted at its start: "`jax.make_mesh`
    # does not support multi-slice topologies", "`jax.pmap` is not supported ...".
    r"|^(?:[\w.]+(?:Error|Exception): )?`(?P<api>[a-z_]\w*(?:\.[a-z_]\w*)+)` "
    r"(?:does not|doesn't|is not|cannot|can't|only)\b"
    # The jitted function a static argument it could not hash was given to, as JAX named it:
    # "An error occurred during a call to '_one_hot' while trying to hash", jax 0.2's
    # "Static argument (index 2) of type <...> for function minimal_dft_prim is non-hashable".
    r"|\bduring a call to '(?P<call>[\w.]*\w)' while trying to hash\b"
    r"|\bfor function (?P<static_of>[\w.]*\w) is non-hashable\b"
    # The instruction the TPU runtime was running when the core halted, and its computation:
    # "... no debugging message found for this tag:pc. HLO: fusion.1; HLO computation: ...".
    r"|\bHLO: (?P<running>[\w.-]*\w); HLO computation\b"
    # The IR node PyTorch/XLA was lowering when it failed, after its scope or shape: "Error
    # while lowering: [] aten::inverse, xla_shape=...", "Error while lowering: s32[1,49]{1,0}
    # aten::view, output_size=...", 2.9's "Error lowering node: [] aten::inverse, ...".
    r"|\bError (?:while lowering|lowering node): [^\n]*?(?<![\w:])(?P<lowering>[a-z_]\w*::\w+)"
    # The node TensorFlow's runtime names under its error, the op its name's last part:
    # "[[{{node StatefulPartitionedCall}}]]", "[[{{node resnet_v1_50/conv1/ExtractImagePatches}}]]".
    r"|\[\[\{\{node (?:[^}\s/]+/)*(?P<tf_node>[^}\s/]+)\}\}"
    # The API whose argument JAX refuses, by its name: "device_put's second argument must
    # be ...", today's "When the second argument to `device_put` is a Device, ...".
    # (A name with an underscore, an API's: not an English noun's "the function's argument".)
    r"|(?<![\w.])(?P<owns_arg>[a-z_][a-z0-9_]*_[a-z0-9_]+)'s"
    r" (?:first|second|third|fourth) argument\b"
    r"|\bargument to `(?P<arg_to>[a-z_][\w.]*)`"
    # The op TensorFlow's eager runtime ran, by the function it wrapped it in for its device:
    # "{{function_node __wrapped__AddV2_device_/job:localhost/replica:0/task:0/device:GPU:0}}".
    r"|\{\{function_node __wrapped__(?P<wrapped>[A-Z]\w*?)_device_"
    # The custom-derivative function JAX refuses a use of, by its decorator's name: "passed
    # as an argument to a custom_vjp function", "No JVP defined for custom_jvp function f".
    r"|\b(?P<custom>custom_(?:vjp|jvp)) functions?\b"
    # PyTorch/XLA's C++ stack trace under a failed XLA_CHECK: the aten op its dispatcher was
    # running, innermost first ("torch_xla::XLANativeFunctions::mul(at::Tensor const&, ...)";
    # before 2021 the class was "AtenXlaType").
    r"|\btorch_xla::(?:XLANativeFunctions|AtenXlaType)::(?P<aten>[a-z_]\w*)\("
    # The node PyTensor ran when its backend (JAX, Numba, C) raised, its op's class first:
    # "Apply node that caused the error: Elemwise{add,no_inplace}(x, y)". A copy of an
    # output (DeepCopyOp) computes nothing: the op of its input made the value, and in JAX
    # mode, where the whole graph is one jitted function, it is the node PyTensor names for
    # any error inside it ("DeepCopyOp(Subtensor{start:stop}.0)").
    r"|\bApply node that caused the error: (?:DeepCopyOp\()?(?P<apply>[A-Z]\w*)",
    re.M,
)
# A JAX rule's function: `_<primitive>[_<kind>]_rule`, `_<primitive>_abstract_eval`.
_RULE = re.compile(
    r"_(?P<prim>[a-z][a-z0-9_]*?)_(?:(?:sharding|unreduced|reduced|shape|dtype|weak_type"
    r"|batch(?:ing)?|transpose|jvp|vma|memory_space)_)?rule"
    r"|_(?P<eval>[a-z][a-z0-9_]*?)_abstract_eval"
)
_JAX_FILE = re.compile(r"[\\/]jax[\\/]")


# One of those rules named in a message's own words, called: "_psum_invariant_abstract_eval()
# got an unexpected keyword argument" (a jax and jaxlib, or a library and jax, out of step).
_RULE_CALLED = re.compile(rf"(?<![\w.])(?:{_RULE.pattern})\(\)")


# XLA's shape inference opens a refusal with the op's name in words and the part of it at
# fault, after the status: "INVALID_ARGUMENT: Transpose dimensions [0,1,-2,-1] are not a
# permutation", "Slice index count does not match", "Dynamic update slice update rank ...".
_OPCODE_WORDS = {opcode.replace("-", " "): opcode for opcode in OPCODES}
_SHAPE_REFUSAL = re.compile(
    r"(?:^|: )(?P<op>"
    + "|".join(sorted(map(re.escape, _OPCODE_WORDS), key=len, reverse=True))
    + r") (?:dimensions?|index|indices|operands?|operation|start|update|window|sizes?)\b",
    re.I | re.M,
)


# An HLO op a message calls an operation or instruction by its opcode, as XLA's words have it
# ("Cannot infer shape for dot operation", "the outfeed operation parameter buffer size") or
# its C++ class's ("PartitionId instruction is not supported for SPMD partitioning"). The
# opcodes that are also English words ("and", "copy", "while", "call", "map") are left out:
# "the copy operation" may be anything's.
_ENGLISH_OPCODES = frozenset(
    {
        "and",
        "or",
        "not",
        "xor",
        "call",
        "copy",
        "map",
        "send",
        "recv",
        "while",
        "domain",
        "trace",
        "sign",
        "log",
        "real",
        "round-nearest-afz",
        "constant",
        "parameter",
        "tuple",
        "complex",
        "conditional",
        "reverse",
    }
)


def _camel(opcode: str) -> str:
    """XLA's C++ name of an opcode: ``partition-id`` is ``PartitionId``."""
    return "".join(part.capitalize() for part in opcode.split("-"))


_OPCODE_NOUNS = {
    name
    for opcode in OPCODES.keys() - _ENGLISH_OPCODES
    for name in (opcode, opcode.replace("-", "_"), _camel(opcode))
}
_OPCODE_NAMED = re.compile(
    r"(?<![\w.%-])(?P<op>"
    + "|".join(sorted(map(re.escape, _OPCODE_NOUNS), key=len, reverse=True))
    + r") (?:operation|instruction)s?\b"
)
# An XLA dialect's op MLIR prints in its generic form, quoted, as a verifier or type inference
# shows it: "Failed to infer result type(s):\n"stablehlo.dynamic_update_slice"(". (The
# dialect is dropped: the op is XLA's, as HLO names it.)
_GENERIC = re.compile(r"\"(?:stablehlo|mhlo|chlo)\.(?P<op>[a-z_]\w*)\"\(")


# The JAX primitive an HLO instruction was lowered from, as JAX's lowering records it in the
# instruction's metadata: the last part of its name stack ("metadata={op_name=
# \"jit(f)/dot_general\""). An instruction without it (another frontend's, a pass's) has only
# its opcode.
_METADATA_OP = re.compile(r"\bmetadata=\{op_name=\"[^\"\n]*?(?<![\w.-])(?P<op>[a-z_][a-z0-9_]*)\"")
# An instruction's name and opcode as HLO prints them: "%pallas_call.1 = f64[...] custom-call(".
_INSTRUCTION = re.compile(r"%(?P<name>[\w-]+?)(?:\.\d+)* = [^\n]*?\s(?P<opcode>[a-z][\w-]*)\(")


def traced_primitive(instruction: str) -> str | None:
    """The op HLO ``instruction`` (one printed line) stands for to the user: the JAX
    primitive its metadata names where the instruction is that primitive's own lowering (its
    opcode the primitive's stem: ``dot`` of ``dot_general``; not a ``bitcast-convert`` that is
    one step of ``nextafter``), a custom call's name (``pallas_call``: its opcode says nothing
    of what ran); None where it shows neither."""
    printed = _INSTRUCTION.search(instruction)
    if printed is None:
        return None
    opcode = printed["opcode"]
    if opcode == "custom-call":
        return printed["name"]
    found = _METADATA_OP.search(instruction)
    if found and found["op"].startswith(opcode.replace("-", "_")):
        return found["op"]
    return None


# An op of Mosaic's TPU dialect that a message quotes in MLIR's generic form, as its compiler
# prints the op it refused ("%97 = "tpu.memref_slice"(...) :"): named with its dialect, as
# Mosaic's own messages name it ("failed to legalize operation 'tpu.reshape'").
_MOSAIC_GENERIC = re.compile(r"\"(?P<op>tpu\.[a-z_]\w*)\"\(")


def mosaic_op(text: str) -> str | None:
    """The first op of Mosaic's TPU dialect ``text`` quotes in generic form, if any."""
    found = _MOSAIC_GENERIC.search(text)
    return found["op"] if found else None


# MLIR's note under a diagnostic, the op it was on in generic form: "note: see current
# operation: %1:4 = "stablehlo.while"(%0, ...", "note: see current operation: "func.return"(".
_CURRENT = re.compile(
    r"\bsee current operation:\s*(?:%[\w:#]+ = )?\"(?P<op>[a-z_]+\.[a-z_][\w.]*)\"\("
)


def current_operation(text: str) -> str | None:
    """The op MLIR's "see current operation" note in ``text`` shows, with its dialect."""
    found = _CURRENT.search(text)
    return found["op"] if found else None


def generic_op(text: str) -> str | None:
    """The first XLA dialect op ``text`` prints in MLIR's generic form, without its dialect."""
    found = _GENERIC.search(text)
    return found["op"] if found else None


# The handler of XLA's visitor that was running, in a C++ stack trace, innermost first: it
# is named after the op it handles ("SpmdPartitioningVisitor::HandleDynamicUpdateSlice()").
_HANDLER = re.compile(r"::Handle(?P<op>[A-Z][A-Za-z0-9]*)\(")
_BY_CAMEL = {_camel(opcode): opcode.replace("-", "_") for opcode in OPCODES}


# An HLO op named as a word, singular or plural ("take_along_axis-like gathers", "scatter"),
# not a part of another name ("gather_nd", "all-gather").
_OPCODE_WORD = re.compile(
    r"(?<![\w-])(?P<op>"
    + "|".join(sorted(map(re.escape, OPCODES.keys() - _ENGLISH_OPCODES), key=len, reverse=True))
    + r")s?(?![\w-])"
)


def opcode_in(words: str) -> str | None:
    """The first HLO op ``words`` name as a word (a kernel language's "Only take_along_axis-like
    gathers supported": ``gather``), if any."""
    found = _OPCODE_WORD.search(words)
    return found["op"] if found else None


def op_named(text: str) -> str | None:
    """The op ``text`` names in one of JAX's stable shapes, the first one; else the primitive
    of a rule of JAX's it names as called; else the HLO op it calls an operation or
    instruction; else the HLO op XLA's shape inference names at the start of its refusal;
    else the op whose handler of XLA's its stack trace shows running."""
    found = _NAMED.search(text)
    if found:
        return next(g for g in found.groups() if g)
    called = _RULE_CALLED.search(text)
    if called:
        return called["prim"] or called["eval"]
    named = _OPCODE_NAMED.search(text)
    if named:
        return named["op"]
    refused = _SHAPE_REFUSAL.search(text)
    if refused:
        return _OPCODE_WORDS[refused["op"].lower()]
    return next((_BY_CAMEL[h["op"]] for h in _HANDLER.finditer(text) if h["op"] in _BY_CAMEL), None)


def op_of_rule_frames(stack: list[StackFrame]) -> str | None:
    """The primitive whose rule raised, from the innermost frame of JAX's (``stack``
    innermost first) that is one of its rules."""
    for frame in stack:
        if _JAX_FILE.search(frame.file):
            rule = _RULE.fullmatch(frame.function)
            if rule is not None:
                return rule["prim"] or rule["eval"]
    return None


# JAX's modules of the ops a user calls (jax.numpy, jax.lax, jax.nn, jax.random, jax.scipy,
# jax.image), in the layout of any release: `jax/_src/numpy/lax_numpy.py`, jax 0.2's
# `jax/numpy/lax_numpy.py`, `jax/_src/random.py`, jax 0.10's `jax/_src/random/core.py`. Not
# its transformations' or dispatch's (`api.py`, `pjit.py`, `traceback_util.py`): a frame of
# those is no op the user called.
_API_FILE = re.compile(
    r"[\\/]jax[\\/](?:_src[\\/])?(?:(?:numpy|lax|nn|scipy|image|random)[\\/]|random\.py$"
    # (jax.pure_callback's and io_callback's home)
    r"|callback\.py$)"
)
# A public function's name: not a helper's (`_arange`), an operator's method
# (`deferring_binary_op`, `op`), or a closure (`<lambda>`).
_PUBLIC = re.compile(r"[a-z][a-z0-9_]*\Z")
_NOT_OPS = frozenset({"op", "deferring_binary_op", "wrapper", "fn", "fun", "f"})
# jax.Array's operator methods (``_operator_matmul``, ``_operator_add``): an operator's way in.
_OPERATOR = re.compile(r"_operator_\w+\Z|_defer_to_unrecognized_arg\Z")


# JAX's own files, whatever calls them: its installed package, its sources (`jax/_src/`), and
# the subpackages of a release before `_src` (`jax/numpy/lax_numpy.py`). A user's folder that
# happens to be named `jax` (`~/sandbox/jax/script.py`) is none of these.
_JAX_OWN = re.compile(
    r"[\\/](?:site|dist)-packages[\\/]jax[\\/]"
    r"|[\\/]jax[\\/](?:_src|numpy|lax|nn|scipy|image|interpreters|experimental)[\\/]"
)


def op_called(stack: list[StackFrame], is_users: Callable[[StackFrame], bool]) -> str | None:
    """The op of JAX's that the code outside JAX called, where the error was raised inside
    JAX (``stack`` innermost first): the outermost frame of the innermost run of JAX's own
    frames, where that is a public function of jax.numpy, jax.lax, jax.nn, jax.random,
    jax.scipy or jax.image (``lax_numpy.py ... in tile`` under the user's line, above
    ``broadcast_to`` and the helper that raised), or the first such inside an operator's
    method (``x @ w``: ``op``, ``_operator_matmul``, then ``matmul``). Where the message names
    no op, that call is the one to change (a traceback that stops at JAX's frames, as a
    chain's first exception's does, ends the run too). None where the user's own frame
    raised, or the run ends in JAX's dispatch (``pjit.py``, ``api.py``)."""
    last = None
    for i, frame in enumerate(stack):
        if _JAX_OWN.search(frame.file):
            last = i
        elif last is not None:
            break  # the caller of the run's outermost frame
        elif is_users(frame):
            return None
    if last is None:
        return None
    # The call's outermost public op of jax.numpy and the others; past an operator's method
    # (``x @ w`` enters JAX by op and _operator_matmul, then matmul).
    for callee in stack[last::-1]:
        if not _API_FILE.search(callee.file):
            return None
        if callee.function in _NOT_OPS or _OPERATOR.match(callee.function):
            continue
        return callee.function if _PUBLIC.match(callee.function) else None
    return None


# A call of JAX's API in a line of code (``jax.lax.conv_general_dilated(``, ``jnp.einsum(``):
# its function's name.
#: jax's transformations, as :func:`op_on_line` names them: a call of one says the program
#: called into JAX, but not which op failed inside it (the message may name that).
TRANSFORMS = frozenset(
    ("jit", "vmap", "pmap", "grad", "value_and_grad", "jacfwd", "jacrev", "hessian")
    + ("checkpoint", "remat", "eval_shape", "device_put", "custom_vjp", "custom_jvp")
    + ("jvp", "vjp", "linearize", "make_jaxpr")
)
_API_CALL = re.compile(
    r"\b(?:jax\.(?:numpy|lax|nn|random|scipy\.\w+|image)|jnp|lax)\.(?:linalg\.|fft\.)?"
    r"(?P<fn>[a-z_]\w*)\s*\("
    # Pallas (as its users import it: pl, pltpu, plgpu), shard_map and jax.export, whose
    # calls own a family of their own.
    # (Its classes too: pl.BlockSpec, pltpu.VMEM, pltpu.CompilerParams.)
    r"|\b(?:pl|pltpu|plgpu|pallas|jax\.experimental\.pallas)\.(?P<pallas>[A-Za-z_]\w*)\s*\("
    r"|\b(?:jax\.)?(?P<shard_map>shard_map)\s*\(|\b(?:jax\.)?export\.(?P<export>export)\s*\("
    # jax's transformations, called or as a decorator (``@jax.jit``).
    rf"|(?:^@|\b)jax\.(?P<transform>{'|'.join(sorted(TRANSFORMS))})\b"
)


def api_calls(code: str) -> list[str]:
    """Every function of JAX's API (as :func:`op_on_line` reads them) a line of ``code``
    calls, in order."""
    return [name for name, _ in _calls_on_line(code)]


def op_on_line(code: str) -> str | None:
    """The function of JAX's API (jax.numpy, jax.lax, jax.nn, jax.random, jax.scipy,
    jax.image, Pallas, shard_map, jax.export, or a transformation, decorating too) that a
    line of the program's ``code``
    calls, the first where it calls several; ``None`` where it calls none or raises (a
    ``raise`` of the program's own)."""
    if code.startswith("raise "):
        return None
    calls = _calls_on_line(code)
    # An op the line calls before the transformation that wraps it (``jax.jit(lambda x:
    # jax.lax.all_gather(x, "i"))``: the op raised, not jit).
    ops = [name for name, transform in calls if not transform] or [name for name, _ in calls]
    return ops[0] if ops else None


def _calls_on_line(code: str) -> list[tuple[str, bool]]:
    """Each call of JAX's API in ``code``, in order: its name, and whether it is one of
    :data:`TRANSFORMS` (jax.jit, jax.vmap, ... rather than an op)."""
    return [
        (m["transform"], True) if m["transform"] else (next(n for n in m.groups() if n), False)
        for m in _API_CALL.finditer(code)
    ]
