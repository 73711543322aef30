"""JAX's ``TRACING CACHE MISS`` text, read: the call site, the function, and each difference
JAX named between the new tracing-cache key and the closest earlier one, as hints.

Read by :mod:`hloscope.capture.compile_watch` (which names these here too, for older imports).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..backends.compile_records import Hint

# ---- JAX's explanation ---------------------------------------------------------------------------


@dataclass(slots=True)
class CacheMissExplanation:
    """What one JAX ``TRACING CACHE MISS`` text says about why JAX traced a function again:
    the call site, the function, whether JAX had never seen that function object, and the
    differences it named (:func:`parse_explanation`)."""

    text: str
    call_site: str | None = None
    name: str | None = None
    defined_at: str | None = None
    never_seen: bool = False
    function_id: str | None = None
    redefined: bool = False
    hints: list[Hint] = field(default_factory=list)


_MISS = re.compile(r"TRACING CACHE MISS at (?P<site>.+?)(?: because)?:\s*$", re.M)
_NEVER = re.compile(
    r"never seen function:\s*\n\s*(?P<name>.+?) id=(?P<id>\d+)(?: defined at (?P<where>\S+))?"
)
_FOR = re.compile(r"^\s*for (?P<name>.+?)(?: defined at (?P<where>\S+))?\s*$", re.M)
_TREE_BULLET = re.compile(
    r"^\s*\* at input path (?P<path>.*?), now (?P<now>.+?) and before (?P<before>.+?), "
    r"so (?P<why>.*)$",
    re.M,
)
_KEY_SET = re.compile(r"symmetric difference of key sets: (?P<keys>\{.*\})\s*$")
_TYPE_BULLET = re.compile(
    r"^\s*\* at (?P<name>.+?), now (?P<now>.+?) and before (?P<before>.+)$", re.M
)
_CTX_BULLET = re.compile(
    r"^\s*\* (?P<name>\S+) differs: now (?P<now>.+?) and before (?P<before>.+)$", re.M
)
_STATIC_VAL = re.compile(r"Static\(val=(?P<val>.*)\)\s*$")
_URL = re.compile(r"https?://\S+$")
_TYPE_TEXT = re.compile(r"^(?P<dtype>[^\[\s]+)\[(?P<dims>[^\]]*)\](?P<rest>.*)$")
_WEAK = re.compile(r"\{weak_type=(True|False)\}")


def parse_explanation(text: str) -> CacheMissExplanation:
    """Read one JAX cache-miss explanation into an :class:`CacheMissExplanation`.

    Parses loosely (the wording drifted between jax releases): the ``TRACING CACHE MISS at
    SITE`` head, the ``never seen function: NAME id=N defined at FILE:LINE`` and ``for NAME
    defined at FILE:LINE`` lines, and the ``* at ..., now A and before B`` bullets, each turned
    into a :class:`Hint` (``shape``, ``dtype``, ``weak_type``, ``sharding`` for types;
    ``static_value`` for ``Static(val=...)`` pytree nodes, ``pytree`` for other tree
    differences; ``context`` for config bullets).
    """
    found = CacheMissExplanation(text=text)
    head = _MISS.search(text)
    if head is not None:
        found.call_site = head.group("site").strip()
    never = _NEVER.search(text)
    if never is not None:
        found.never_seen = True
        found.name = never.group("name").strip()
        found.function_id = never.group("id")
        found.defined_at = never.group("where")
        found.redefined = "seen another function defined on the same line" in text
    else:
        named = _FOR.search(text)
        if named is not None:
            found.name = named.group("name").strip()
            found.defined_at = named.group("where")
    for line in text.splitlines():
        found.hints.extend(_line_hints(_URL.sub("", line.rstrip())))
    if "Tracing context doesn't match" in text and not any(
        h.cause == "context" for h in found.hints
    ):
        found.hints.append(Hint("context"))
    return found


def _line_hints(line: str) -> list[Hint]:
    tree = _TREE_BULLET.match(line)
    if tree is not None:
        path, now, before = tree.group("path"), tree.group("now"), tree.group("before")
        static_now, static_before = _STATIC_VAL.search(now), _STATIC_VAL.search(before)
        if static_now is not None or static_before is not None:
            return [
                Hint(
                    "static_value",
                    path,
                    static_now.group("val") if static_now else now,
                    static_before.group("val") if static_before else before,
                )
            ]
        keys = _KEY_SET.search(tree.group("why"))
        return [Hint("pytree", path, now, before, keys.group("keys") if keys else None)]
    ctx = _CTX_BULLET.match(line)
    if ctx is not None:
        return [Hint("context", ctx.group("name"), ctx.group("now"), ctx.group("before"))]
    typed = _TYPE_BULLET.match(line)
    if typed is not None:
        return _type_hints(typed.group("name"), typed.group("now"), typed.group("before"))
    return []


def _type_hints(name: str, now: str, before: str) -> list[Hint]:
    """The causes one ``* at x, now f32[4] and before f32[3]`` bullet names."""
    a, b = _TYPE_TEXT.match(now.strip()), _TYPE_TEXT.match(before.strip())
    if a is None or b is None:
        return [Hint("shape", name, now, before)]
    hints = []
    if a.group("dtype") != b.group("dtype"):
        hints.append(Hint("dtype", name, now, before))
    dims_a = [d.split("@")[0] for d in a.group("dims").split(",") if d]
    dims_b = [d.split("@")[0] for d in b.group("dims").split(",") if d]
    if dims_a != dims_b:
        hints.append(Hint("shape", name, now, before))
    weak_a, weak_b = _WEAK.search(a.group("rest")), _WEAK.search(b.group("rest"))
    if weak_a is not None and weak_b is not None and weak_a.group(1) != weak_b.group(1):
        hints.append(Hint("weak_type", name, now, before))
    rest_a, rest_b = _WEAK.sub("", a.group("rest")), _WEAK.sub("", b.group("rest"))
    ann_a = [d.partition("@")[2] for d in a.group("dims").split(",")]
    ann_b = [d.partition("@")[2] for d in b.group("dims").split(",")]
    if rest_a != rest_b or (ann_a != ann_b and dims_a == dims_b):
        hints.append(Hint("sharding", name, now, before))
    return hints or [Hint("shape", name, now, before)]
