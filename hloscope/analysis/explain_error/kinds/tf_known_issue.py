"""TensorFlow's known XLA limits: must-be-constant inputs, TensorList sizes, resources elsewhere."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...unsupported.findings import Reason
from ..advice import advise
from ..build import Kind
from ..catalogue import words_of
from ..device import platform_of
from ..forms import Form, alternation, form_of
from ..functions import tf_chain, tf_layer
from ..log import Log
from ..recogniser import Recogniser
from ..record import Failure, Family

_RE, _TEXT = words_of(__name__)

_KNOWN_ISSUES: tuple[Form, ...] = (
    Form(
        "must_be_constant",
        # The node in backticks as TF writes it, or bare where markdown ate them (an issue's
        # title); the words wrapped anywhere when a thread quotes the message.
        r"Input\s+(?P<input>\d+)\s+to\s+node\s+`?(?P<const_node>[^`\s]+)`?\s+with\s+op\s+"
        r"(?P<const_op>\w+)\s+must\s+be\s+a\s+compile-time\s+constant",
        "",
        Reason.DYNAMIC_SHAPE,
        ("tf:compile_time_constant",),
        "a shape or size input depends on a value known only at run time",
    ),
    # XLA's value inference, asked for a shape operand's value, meeting an op it cannot
    # evaluate (a custom call's result: "Dynamic inferencing on custom call ... is not
    # supported"; TF 2.21 puts the call's whole proto between the two halves).
    Form(
        "value_inference",
        r"while evaluating input (?P<vi_input>\d+) of (?P<vi_op>\w+) operator as a "
        r"compile-time constant",
        "",
        Reason.DYNAMIC_SHAPE,
        ("tf:compile_time_constant",),
        "a shape or size input is computed by an op XLA cannot evaluate while compiling",
    ),
    Form(
        "shapes_concrete",
        r"XLA compilation requires that operator arguments that represent shapes or "
        r"dimensions be evaluated to concrete values at compile time",
        "shape argument",
        Reason.DYNAMIC_SHAPE,
        ("tf:compile_time_constant",),
        "a shape or size input depends on a value known only at run time",
    ),
    Form(
        "tensor_list_size",
        r"XLA compilation requires a fixed tensor list size",
        "TensorListReserve",
        Reason.DYNAMIC_SHAPE,
        ("TensorListReserve",),
        "a TensorArray/TensorList without a static size (or a loop without maximum_iterations)",
    ),
    Form(
        "tensor_list_boundary",
        r"Support for TensorList crossing the XLA/TF boundary is not implemented",
        "TensorList",
        Reason.COMPILE_ERROR,
        ("tf:tensor_list_boundary", "TensorListFromTensor"),
        "a TensorArray/TensorList passed into or out of the compiled function",
    ),
    Form(
        "resource_device",
        r"Trying to access resource (?P<resource>\S+)[^\n]*? located in device "
        r"(?P<res_on>\S+) from device (?P<res_from>[^\s,]+)",
        "resource",
        Reason.COMPILE_ERROR,
        ("tf:resource_device",),
        "a variable or resource lives on another device than the compiled function",
    ),
    Form(
        "maxpool_determinism",
        r"GPU MaxPool gradient ops do not yet have a deterministic XLA implementation",
        "MaxPoolGrad",
        Reason.NO_KERNEL,
        ("tf:maxpool_determinism", "MaxPoolGrad"),
        "op determinism is on, and XLA's GPU MaxPool gradient is not deterministic",
    ),
)
_KNOWN = alternation(_KNOWN_ISSUES)


def _tf_known_issue(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    form = form_of(_KNOWN_ISSUES, m)
    if (
        form.group == "shapes_concrete"
        and "compile-time constant" in log.text[max(0, m.start() - 2048) : m.start()]
    ):
        return  # the explanation paragraph of a must-be-constant message already read
    end = log.region_end(m.end())
    op, node = form.op, ""
    if form.group == "must_be_constant":
        op, node = m["const_op"], m["const_node"]
    else:
        op = m["vi_op"] or op
        tagged = _RE.node_in_brackets.search(log.text, m.end(), end)
        node = tagged["node"] if tagged else ""
    stack = log.frames_after(m.end(), end) or log.traceback_before(m.start())
    chain = tf_chain(log, m.end(), end, [])
    device = m["res_from"] if form.group == "resource_device" else None
    hints = [form.meaning]
    if form.group == "resource_device":
        hints.append(f"{m['resource']} is on {m['res_on']}")
    yield _KIND.failure(
        log,
        m.start(),
        op=op,
        reason=form.reason,
        advice=advise((*form.fix_keys, op), form.reason),
        node=node,
        function=chain[0].name if chain else "",
        stack=stack,
        device=device,
        platform=platform_of(device),
        graph=chain[0] if chain else None,
        chain=chain,
        layer=tf_layer(node),
        hints=hints,
    )


_KIND = Kind(Family.TF_KNOWN_ISSUE)
RECOGNISER = Recogniser(Family.TF_KNOWN_ISSUE, _KNOWN, _tf_known_issue)
