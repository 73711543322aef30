"""What a transformation was given that does not fit: its per-argument specification against
the arguments,
``vmap in_axes must be an int, None, or a tuple of entries corresponding to the positional
arguments passed to the function, but got len(in_axes)=3, len(args)=2`` (JAX 0.4.21 on),
``vmap in_axes specification must be a tree prefix of the corresponding value, got
specification (0, 0) for value tree PyTreeDef((*, *, *))`` (older), ``pjit in_shardings
specification must be a tree prefix of the positional arguments tuple``, ``pmap out_axes ...``.

Read by the message's structure: a transformation's name, then one of its per-argument
parameters (``in_axes``, ``out_axes``, ``in_shardings``, ``out_shardings``), then "must": the
op is the transformation (``pjit`` is ``jit``), the fix is one entry per argument. shard_map's
``in_specs``/``out_specs`` are :mod:`.sharding`'s. And a transformation given no function at
all (``Expected a callable value, got 3``, the check jit, vmap, grad and pmap share).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...unsupported.findings import Reason
from ..advice import AdviceKind
from ..build import Kind, jax_message
from ..catalogue import words_of
from ..log import Log
from ..recogniser import Recogniser
from ..record import Failure, Family

__all__ = ["RECOGNISER"]

_RE, _TEXT = words_of(__name__)

_KIND = Kind(Family.JAX_CALL, Reason.TRACING, jax_message)


def _what(value: str) -> str:
    """ "an array" for ``Array([...])``/``[1. 1.]``, else "a value (X)"."""
    if value.startswith(("Array(", "[", "Traced<")):
        return "an array"
    return f"a value ({value.strip()[:40]})"


def _counts(log: Log, m: re.Match[str]) -> str:
    """ "3 entries for 2 arguments" where the message counts both, else ""."""
    window = log.text[m.end() : m.end() + 400].split("\n", 1)[0]
    found = _RE.counts.search(window)
    if found is None:
        return ""
    given = found["given"] or found["given_len"]
    args = found["args"] or found["args_len"]
    return _TEXT.counts.format(given=given, args=args)


def _api_spec(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    if m["not_callable"]:
        text = _TEXT.not_callable.format(what=_what(m["not_callable"]))
        yield _KIND.failure(log, m.start(), op="transformation", advice=(text, AdviceKind.OTHER))
        return
    if m["closure"]:
        yield _closure(log, m)
        return
    if m["no_rule"]:
        kind = m["nr_kind"].lower()
        text = _TEXT.no_rule.format(fn=m["nr_fn"], kind=kind)
        yield _KIND.failure(log, m.start(), op=f"custom_{kind}", advice=(text, AdviceKind.OTHER))
        return
    if m["unchecked"]:
        said = (_TEXT.unchecked, AdviceKind.OTHER)
        yield _KIND.failure(log, m.start(), op="checkify.check", advice=said)
        return
    if m["vmap_method"]:
        said = (_TEXT.vmap_method.format(prim=m["vm_prim"]), AdviceKind.OTHER)
        yield _KIND.failure(log, m.start(), op=m["vm_prim"], advice=said)
        return
    if m["drop_key"] or m["drop_rngs"]:
        layer = f"D{m['drop_key']}" if m["drop_key"] else m["drop_module"]
        said = (_TEXT.no_key.format(layer=layer), AdviceKind.OTHER)
        yield _KIND.failure(log, m.start(), op=layer, advice=said)
        return
    api = "jit" if m["api"] == "pjit" else m["api"]
    param = m["param"]
    advice = _TEXT.advice.format(api=api, param=param, counts=_counts(log, m))
    # The entries against the arguments (their structure) first; the call itself next: an
    # argument passed by keyword, which no entry maps, is passed positionally.
    call = _TEXT.call_otherwise.format(api=api, param=param)
    yield _KIND.failure(
        log,
        m.start(),
        op=api,
        advice=(advice, AdviceKind.FIX_SHAPES),
        more_advice=[(AdviceKind.OTHER, call)],
    )


def _closure(log: Log, m: re.Match[str]) -> Failure:
    """Equinox's closure-converted function called with arguments unlike its example ones:
    the types, where newer Equinox prints both, say the call is the program's to fix; without
    them (older Equinox, inside a library's solve) the releases are the first suspect."""
    types = _RE.closure_types.search(log.text, m.end(), m.end() + 600)
    said = f" ({types['called']} against {types['made']})" if types else ""
    shapes = (AdviceKind.FIX_SHAPES, _TEXT.closure_shapes.format(types=said))
    install = (AdviceKind.INSTALL, _TEXT.closure_install)
    fixes = [shapes, install] if types else [install, shapes]
    return _KIND.failure(log, m.start(), op="closure_convert", fixes=fixes)


RECOGNISER = Recogniser(Family.JAX_CALL, _RE.opening, _api_spec)
