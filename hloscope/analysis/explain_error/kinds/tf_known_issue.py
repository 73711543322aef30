"""TensorFlow's known XLA limits: must-be-constant inputs, TensorList sizes, resources elsewhere,
inputs of a type the device cannot hold."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..advice import Advice, AdviceKind, advise
from ..build import Kind
from ..catalogue import forms_of, words_of
from ..device import platform_of
from ..forms import Form, alternation, form_of
from ..functions import tf_chain, tf_layer
from ..log import Log
from ..recogniser import Recogniser
from ..record import Failure, Family

_RE, _TEXT = words_of(__name__)

_KNOWN_ISSUES = forms_of(__name__)
_KNOWN = alternation(_KNOWN_ISSUES)


def _tf_known_issue(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    form = form_of(_KNOWN_ISSUES, m)
    if (
        form.group == "shapes_concrete"
        and "compile-time constant" in log.text[max(0, m.start() - 2048) : m.start()]
    ):
        return  # the explanation paragraph of a must-be-constant message already read
    end = log.region_end(m.end())
    op, node = _op_and_node(log, m, form, end)
    stack = log.frames_after(m.end(), end) or log.traceback_before(m.start())
    chain = tf_chain(log, m.end(), end, [])
    device = m["res_from"] if form.group == "resource_device" else m["cp_device"]
    hints = [form.meaning]
    if form.group == "resource_device":
        hints.append(f"{m['resource']} is on {m['res_on']}")
    if form.group == "uncopyable_input":
        hints.append(f"the input's element type is {m['cp_dtype']}")
    op, advice, more = _advice(log, m, form, op)
    yield _KIND.failure(
        log,
        m.start(),
        op=op,
        reason=form.reason,
        advice=advice,
        node=node,
        function=chain[0].name if chain else "",
        stack=stack,
        device=device,
        platform=platform_of(device),
        graph=chain[0] if chain else None,
        chain=chain,
        layer=tf_layer(node),
        hints=hints,
        more_advice=more,
    )


def _op_and_node(log: Log, m: re.Match[str], form: Form, end: int) -> tuple[str, str]:
    """The op and the graph node the message names: a must-be-constant input's own, else the
    op a form names and the ``[[{{node ...}}]]`` tag after it."""
    if form.group == "must_be_constant":
        return m["const_op"], m["const_node"]
    tagged = _RE.node_in_brackets.search(log.text, m.end(), end)
    return m["vi_op"] or form.op, tagged["node"] if tagged else ""


def _advice(
    log: Log, m: re.Match[str], form: Form, op: str
) -> tuple[str, Advice, list[tuple[str, str]]]:
    """The op (a bounded dynamic dimension's is named just before the message), the first fix
    and the ones after it."""
    advice = advise((*form.fix_keys, op), form.reason)
    if form.group == "bounded_dynamic":
        named = _RE.bounded_op.search(log.before_on_line(m.start())[-80:])
        op = named["op"] if named else op
        shape = m["bd_shape"] or "its shape"
        advice = Advice(_TEXT.bounded_dynamic.format(op=op, shape=shape), AdviceKind.OTHER)
        return op, advice, [(str(AdviceKind.INSTALL), _TEXT.bounded_install)]
    if form.group == "tensor_list_size":
        # TF's own fix for it: a size XLA can read (maximum_iterations, a TensorArray's size).
        return op, Advice(advice.text, AdviceKind.FIXED_SIZE), []
    if advice.kind is AdviceKind.STATIC_ARGS:
        # A size that cannot be a Python value (drawn at random, read from the data) is
        # computed at its bound and masked instead.
        return op, advice, [(str(AdviceKind.FIXED_SIZE), _TEXT.fixed_size.format(op=op))]
    return op, advice, []


_KIND = Kind(Family.TF_KNOWN_ISSUE)
RECOGNISER = Recogniser(Family.TF_KNOWN_ISSUE, _KNOWN, _tf_known_issue)
