"""JAX refused how a jitted function was called, or how an array was used after a call.

* ``Non-hashable static arguments are not supported``: a static argument JAX cannot hash
  (an array or a list), which it needs as a cache key;
* ``Error interpreting argument to ... as an abstract array. The problematic value is of type
  <class 'str'> ... at path mode``: a non-array argument that is not marked static; in older
  words ``Cannot interpret value of type <class 'A'> as an abstract array`` (jax 0.4),
  ``Argument 'cpu:0' of type <class 'CpuDevice'> is not a valid JAX type`` (jax 0.2, the
  argument's repr may span lines), ``<class 'function'> is not a valid JAX type``, ``Value
  <function ...> with type <class 'function'> is not a valid JAX type``; a jitted function
  that returned such a value (``... traced for jit returned a value of type <class
  'function'>, which is not a valid JAX type``, JAX 0.10);
* ``JAX encountered invalid PRNG key data``: a plain array where a random key belongs;
* ``Array has been deleted with shape=float32[1024]``: an input used again after a call that
  donated it;
* ``Some donated buffers were not usable``: a donation XLA could not use (no output of that
  shape and type);
* ``FloatingPointError: invalid value (nan) encountered in log``: ``jax_debug_nans`` found the
  first op that made a NaN (or an inf);
* ``Disallowed host-to-device transfer: aval=ShapedArray(float32[3])``: ``jax.transfer_guard``
  stopped a transfer the program did not ask for.

JAX says what it refused in the message: the type, the argument's path, the shape, the op.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...unsupported.findings import Reason
from ..advice import AdviceKind
from ..build import Kind, jax_message
from ..log import Log
from ..recogniser import Recogniser
from ..record import Failure, Family

__all__ = ["RECOGNISER"]

_OPENING = re.compile(
    r"Non-hashable static arguments are not supported\.(?: An error occurred (?:during a call "
    r"to '[^'\n]*' )?while trying to hash an object of type <class '(?P<unhashable>[^'\n]+)'>)?"
    r"|Error interpreting argument to (?P<fn><[^\n]{0,300}?>|\S+) as an abstract array\."
    r" The problematic value is of type <class '(?P<type>[^'\n]+)'>"
    r"(?: and was passed to the function at path (?P<path>[^\s\n]+?))?\.?(?=\s|$)"
    # The same refusal in older words: keyed on the type's "<class '...'>" and what follows.
    r"|Cannot interpret value of type <class '(?P<ctype>[^'\n]+)'> as an abstract array"
    r"|(?:(?P<argword>Argument|Value) [\s\S]{0,600}?(?:of|with) type |TypeError: "
    r"|(?P<returned>traced for \w+ returned) a value of type )"
    r"'?<(?:class|enum) '(?P<otype>[^'\n]+)'>'?(?:, which)? is not a valid JAX type"
    r"|JAX encountered invalid PRNG key data: expected key_data\.dtype = (?P<want>\w+); "
    r"got dtype=(?P<got>\w+)"
    # Other checks of a key's data (its shape, its rank) and a key array where one key belongs.
    r"|JAX encountered invalid PRNG key data: (?P<keydata>expected key_data[^\n]{0,80}?)"
    r"(?: for impl=|\.?[ \t]*$)"
    # "random.split accepts a single key, but was given a key array of shape (2,)", "PRNGKey
    # accepts a scalar seed, but was given a PRNGKeyArray": keyed on "was given" (a rarer first
    # letter), "accepts a" read back.
    r"|w(?P<given>as given (?:a key array of shape (?P<keyarray>\S+?)(?: |,|\.)"
    r"|(?P<seedbad>an? [^\n.]{0,80})))"
    r"|Array has been deleted with shape=(?P<deleted>\S+?)\.?(?=\s|$)"
    # The buffers may follow on the same line, on the next (a wrapped paste), or be cut off.
    r"|Some donated buffers were not usable:?[ \t]*(?P<unusable>[^\n]*?)\.?[ \t]*$"
    r"|J(?P<static_range>itted function has (?:static_arg(?:nums|names)=|invalid arg(?:nums|names)"
    r" )[^\n]{0,160})"
    r"|K(?P<key_reuse>eyReuseError): ?(?P<kr_msg>[^\n]{0,200})"
    r"|FloatingPointError: invalid value \((?P<bad>nan|inf)\) encountered in (?P<prim>[\w-]+)"
    r"|Disallowed (?P<transfer>host-to-device|device-to-host|device-to-device) transfer"
    r"(?:: aval=(?P<aval>\S+?),)?"
    # PJRT refusing an argument of another shape than the executable was compiled for (any
    # frontend that calls a compiled executable itself: Reactant.jl, zml, alpa).
    # Older XLA: "Executable expected parameter 2 of size 1 but got buffer with incompatible
    # size 2" (Elixir's EXLA).
    r"|Executable expected (?:shape (?P<compiled>\S+?) for argument (?P<arg_no>\d+)"
    r"|parameter (?P<param_no>\d+) of size (?P<size>\d+)) but got (?:incompatible shape "
    r"(?P<passed>[^\s}]+\}?)|buffer with incompatible size (?P<passed_size>\d+))",
    re.M,
)


_ACCEPTS = re.compile(r"accepts a (?:single key|scalar seed), but $")


def _jax_call(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    if m.group(0).startswith("Non-hashable"):
        kind = m["unhashable"] or "an unhashable object"
        yield _failure(
            log,
            m,
            "static argument",
            Reason.TRACING,
            f"a static argument is a key of JAX's cache, so it must be hashable; this one is "
            f"{kind}: pass a tuple (not a list or an array), or make the argument a traced "
            "one (drop it from static_argnums/static_argnames)",
            AdviceKind.HASHABLE_STATIC,
        )
    elif m["type"] or m["ctype"] or m["otype"]:
        path = m["path"]
        named = f"'{path}'" if path else "the argument"
        static = f"static_argnames=('{path}',)" if path else "static_argnums=..."
        kind = m["type"] or m["ctype"] or m["otype"]
        if m["returned"]:
            yield _failure(
                log,
                m,
                "return value",
                Reason.TRACING,
                f"the jitted function returns a {kind}, and what jit returns must be arrays "
                "(or pytrees of them): return the arrays, and keep functions, settings and "
                "other objects outside (build them from the result, or pass them as static "
                "arguments)",
                AdviceKind.STATIC_ARGS,
            )
            return
        failure = _failure(
            log,
            m,
            "argument",
            Reason.TRACING,
            f"{named} is a {kind}, which jit cannot trace: mark it static "
            f"(jax.jit(f, {static})) if it is a setting, or pass an array (a function, a "
            "device, strings: static, or closed over; a value the function returns must be "
            "an array too)",
            AdviceKind.STATIC_ARGS,
        )
        failure.finding.node = _function_name(m["fn"]) if m["fn"] else ""
        yield failure
    elif m["static_range"]:
        yield _failure(
            log,
            m,
            "static argument",
            Reason.TRACING,
            "static_argnums (or static_argnames) names an argument the function does not have "
            f"(J{m['static_range'].rstrip('.')}): count the positions from 0 over the "
            "function's own parameters, or name them with static_argnames",
            AdviceKind.STATIC_ARGS,
        )
    elif m["key_reuse"]:
        if (
            "first used at the above location" in m["kr_msg"]
            and "KeyReuseError" in (log.text[m.end() : m.end() + 8192])
        ):
            return  # the chained error after it holds the line that reused the key
        yield _failure(
            log,
            m,
            "PRNG key",
            Reason.TRACING,
            "a random key was used twice (jax_debug_key_reuse caught it): the same key gives "
            "the same numbers; split it before each use (key, sub = jax.random.split(key)) and "
            "pass the new key on",
            AdviceKind.PRNG_KEY,
        )
    elif m["given"] is not None and not _ACCEPTS.search(log.before_on_line(m.start())[-80:]):
        return  # "was given" said of something else
    elif m["keydata"] or m["keyarray"] or m["seedbad"]:
        said = m["keydata"] or m["seedbad"] or f"a key array of shape {m['keyarray']}"
        yield _failure(
            log,
            m,
            "PRNG key",
            Reason.TRACING,
            f"a random function got something other than one key ({said}): make keys with "
            "jax.random.key(seed) (or jax.random.PRNGKey(seed)) and new ones with "
            "jax.random.split; pass one key per call (jax.vmap over a batch of keys)",
            AdviceKind.PRNG_KEY,
        )
    elif m["want"]:
        yield _failure(
            log,
            m,
            "PRNG key",
            Reason.TRACING,
            f"a random function got a {m['got']} array where a key belongs: make keys with "
            "jax.random.key(seed) (or jax.random.PRNGKey(seed)) and new ones with "
            "jax.random.split, never from data",
            AdviceKind.PRNG_KEY,
        )
    elif m["deleted"]:
        yield _failure(
            log,
            m,
            "donated array",
            Reason.RUNTIME,
            f"the {m['deleted']} array was used after a call that donated it (donate_argnums "
            "or donate_argnames hand its memory to the result) or after .delete(): use the "
            "call's result from then on, or stop donating that argument",
            AdviceKind.REUSED_DONATION,
        )
    elif m["unusable"] is not None:
        what = m["unusable"] or "the donated buffers"
        yield _failure(
            log,
            m,
            "donation",
            Reason.RUNTIME,
            f"XLA reuses a donated input only for an output of the same shape and type; no "
            f"output matched {what}, so that donation saves nothing: drop it from "
            "donate_argnums, or return the updated value in that shape",
            AdviceKind.UNUSED_DONATION,
        )
    elif m["compiled"] or m["param_no"]:
        number = m["arg_no"] or m["param_no"]
        compiled = m["compiled"] or f"size {m['size']}"
        passed = m["passed"] or f"size {m['passed_size']}"
        yield _failure(
            log,
            m,
            f"argument {number}",
            Reason.RUNTIME,
            f"the executable was compiled for argument {number} of shape {compiled} "
            f"and called with {passed}: a compiled function runs one shape only. Give it "
            "that shape (a partial last batch: drop it or pad it, e.g. a data loader's "
            "partial=false / drop_last=True), or compile it again for the new shape",
            AdviceKind.FIXED_SIZE,
        )
    elif m["transfer"]:
        what = f" of {m['aval']}" if m["aval"] else ""
        move = "jax.device_get(x)" if m["transfer"] == "device-to-host" else "jax.device_put(x)"
        yield _failure(
            log,
            m,
            f"{m['transfer']} transfer",
            Reason.RUNTIME,
            f"jax.transfer_guard stopped an implicit {m['transfer']} transfer{what}: make it "
            f"explicit ({move} before the use), or relax the guard for that code "
            "(jax.transfer_guard('allow'))",
            AdviceKind.EXPLICIT_TRANSFER,
        )
    else:
        yield _failure(
            log,
            m,
            m["prim"],
            Reason.RUNTIME,
            f"jax_debug_nans stopped at the first {m['bad']} made, by {m['prim']}: look at "
            f"its inputs on your line (a log or sqrt of a negative, 0/0, an overflow in a "
            "low-precision type) and guard them (jnp.where, a clip, an epsilon)",
            AdviceKind.FIND_NAN,
        )


# "<function f at 0x106ad5120>", "<function train.<locals>.step at 0x...>": the name.
_FUNCTION_REPR = re.compile(r"<function (?P<name>[\w.<>]+) at 0x")


def _function_name(fn: str) -> str:
    """The name inside a function's repr (its last part), else the words as they are."""
    found = _FUNCTION_REPR.match(fn)
    return found["name"].rsplit(".", 1)[-1] if found else fn


def _failure(
    log: Log, m: re.Match[str], op: str, reason: Reason, advice: str, kind: AdviceKind
) -> Failure:
    return _KIND.failure(log, m.start(), op=op, reason=reason, advice=(advice, kind))


# A JAX message about how a function was called (its arguments, keys, static settings,
# donations), raised from the call.
_KIND = Kind(Family.JAX_CALL, reading=jax_message)
RECOGNISER = Recogniser(Family.JAX_CALL, _OPENING, _jax_call)
