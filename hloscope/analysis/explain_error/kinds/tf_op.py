"""TensorFlow refusing an op's inputs: shapes or element types the op does not take, said by
TensorFlow itself (not XLA) as a ``tf.function`` builds its graph, as a kernel runs eagerly,
or as a graph's node runs:

* ``ValueError: Dimensions must be equal, but are 3 and 4 for '{{node MatMul}} = MatMul[...]
  (a, b)' with input shapes: [2,3], [4,5].`` (shape inference, under ``tf.function``);
* ``TypeError: Input 'y' of 'Mul' Op has type int32 that does not match type float32 of
  argument 'x'.`` (the op's definition);
* ``InvalidArgumentError: {{function_node __wrapped__AddV2_device_/job:localhost/replica:0/
  task:0/device:CPU:0}} Incompatible shapes: [2,3] vs. [4] [Op:AddV2]`` (eager);
* ``InvalidArgumentError: Incompatible shapes: [2] vs. [3]`` then ``[[{{node add}}]]`` (a
  graph's node, or its XLA kernel under ``jit_compile=True``).

Keyed on TensorFlow's own tags (``for '{{node N}} = OP[``, ``Input 'X' of 'OP' Op``,
``{{function_node __wrapped__...}} ... [Op:OP]``, ``[[{{node N}}]]``), not on the sentence:
the op, node and device are read from the tags, and the fix from what the sentence points to
(shapes, an element type, an index). The user's line is the innermost of the program's
frames: under ``tf.function``, TensorFlow's "in user code" frame where the op was made.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...unsupported.findings import Reason
from ..advice import Advice, AdviceKind
from ..build import Kind, own_line
from ..catalogue import words_of
from ..device import platform_of
from ..functions import tf_chain, tf_layer
from ..log import Log
from ..message_fixes import pointed_fixes
from ..recogniser import Recogniser
from ..record import Failure, Family

__all__ = ["RECOGNISER"]

_RE, _TEXT = words_of(__name__)


def _tf_op(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    words = m["tg_words"] or m["te_words"] or m["tx_words"] or m["gx_words"] or ""
    if _RE.constant.search(words):
        return  # a value XLA needs while compiling: a known limit, tf_known_issue.py's
    node = m["tg_node"] or m["tx_node"] or m["gx_node"] or ""
    op = _op(m, node)
    advice = _advice(log, m, words, op)
    if advice is None:
        return  # a graph node's other failure (a runtime's, a value's): not an op's inputs
    end = log.region_end(m.end())
    # (An eager kernel's ``[Op:AddV2]`` names the op, not a function around it.)
    chain = [ref for ref in tf_chain(log, m.start(), end, []) if ref.id != op]
    yield _KIND.failure(
        log,
        m.start(),
        op=op,
        advice=advice,
        reason=Reason.RUNTIME if m["te_op"] or node and not m["tg_op"] else Reason.TRACING,
        node=node,
        function=chain[0].name if chain else "",
        device=m["te_device"],
        platform=platform_of(m["te_device"]),
        graph=chain[0] if chain else None,
        chain=chain,
        layer=tf_layer(node),
    )


def _op(m: re.Match[str], node: str) -> str:
    """The op the tags name, else the node's last name scope without TF's ``_N`` suffix."""
    named = m["tg_op"] or m["ti_op"] or m["te_op"] or m["tt_op"]
    if m["tc_want"] or m["tl_var"] or m["tv_var"] is not None:
        return "convert_to_tensor" if m["tc_want"] else "while_loop" if m["tl_var"] else "assign"
    return named or re.sub(r"_\d+$", "", node.rsplit("/", 1)[-1])


def _advice(log: Log, m: re.Match[str], words: str, op: str) -> Advice | None:
    """The fix the message points to, with the numbers it quotes; ``None`` for a graph
    node's message that points to no fix of an op's inputs."""
    if m["tt_op"]:
        text = _TEXT.cast_list.format(op=op, input=m["tt_input"], types=m["tt_types"])
        return Advice(text, AdviceKind.CAST_DTYPE)
    if m["tv_var"] is not None:
        return Advice(_TEXT.assign.format(var=m["tv_var"].strip()), AdviceKind.FIX_SHAPES)
    if m["ti_op"] or m["tc_want"]:
        got, want = m["ti_got"] or m["tc_got"], m["ti_want"] or m["tc_want"] or "its type"
        return Advice(_TEXT.cast.format(op=op, got=got, want=want), AdviceKind.CAST_DTYPE)
    if m["tl_var"]:
        return Advice(_TEXT.loop.format(var=m["tl_var"]), AdviceKind.FIX_SHAPES)
    if _RE.index_range.search(words):
        return Advice(_TEXT.index.format(op=op), AdviceKind.OTHER)
    fixes = pointed_fixes(words)
    if AdviceKind.FIX_SHAPES in fixes[:1] or (not fixes and _RE.shape_words.search(words)):
        quoted = _RE.shapes.findall(log.text, m.start(), log.line_end(m.end()))
        shown = f" ({', '.join(dict.fromkeys(quoted))})" if quoted else ""
        return Advice(_TEXT.shapes.format(op=op, quoted=shown), AdviceKind.FIX_SHAPES)
    if m["tx_cls"] or m["gx_node"]:
        return None
    return Advice(_TEXT.other.format(op=op), AdviceKind.OTHER)


_KIND = Kind(Family.TF_OP, Reason.TRACING, own_line)
RECOGNISER = Recogniser(Family.TF_OP, _RE.opening, _tf_op)
