"""Op names and source locations as matching keys: what stays the same across two compiles.

Two compiles of the same code give their ops different instruction names, and JAX wraps every
``op_name`` in the jitted function's name (``jit(step)/dense/mul``) and, under
``jax.checkpoint``, in extra components. The functions here strip what differs between two
compiles of one program and keep what identifies the code: :func:`provenance_name` for names,
:func:`without_layout` for shapes, :func:`parse_where` and :func:`line_sort_key` for the
``file:line (function)`` text of a source location.
"""

from __future__ import annotations

import re

# JAX names every op after the jitted function: "jit(f)/..." (older: "pjit(f)/...").
_OUTER_JIT = re.compile(r"^(?:p?jit|xla_pmap|pmap)\([^/]*?\)/")
# Digits, masked when names are compared without their numbers ("dense_1" vs "dense_2").
_DIGITS = re.compile(r"\d+")
# A layout: the "{1,0}" of "f32[8,16]{1,0}".
_LAYOUT = re.compile(r"\{[^{}]*\}")
# A source location as the fusion report writes it: "file:line (function)".
_WHERE = re.compile(r"^(?P<file>.*):(?P<line>\d+)(?: \((?P<function>.*)\))?$")


def without_layout(shape: str) -> str:
    """``f32[8,16]{1,0}`` -> ``f32[8,16]``: layouts are a poor key across compiles."""
    return _LAYOUT.sub("", shape) if "{" in shape else shape


def without_outer_jit(op_name: str) -> str:
    """``jit(step)/dense/mul`` -> ``dense/mul``: JAX names every op after the jitted function."""
    return _OUTER_JIT.sub("", op_name, count=1)


# Name-stack components jax.checkpoint (alias jax.remat) adds around the ops of a checkpointed
# function: "transpose(jvp(block0))/jvp(block0)/checkpoint/dot_general". Its other component,
# "rematted_computation" (the forward ops recomputed in the backward pass), stays: those ops
# are new work with no counterpart in a compile without checkpoint (their forward twins are
# paired with B's own forward ops); without the mark they would pass for backward ops of the
# same line and glue B's recomputation to A's backward kernels.
_REMAT_COMPONENTS = frozenset({"checkpoint", "remat"})
# A transform component of a JAX name stack: "transpose(jvp(block0))", "vmap()".
_TRANSFORM = re.compile(r"^(?P<transform>[A-Za-z_][\w.]*)\((?P<inner>.*)\)$", re.DOTALL)


def provenance_name(op_name: str) -> str:
    """``op_name`` as a matching key: two compiles of the same code give the same key.

    JAX's outer ``jit(f)/`` is dropped (:func:`without_outer_jit`), and so is the
    ``checkpoint`` component ``jax.checkpoint`` adds (``rematted_computation``, which marks
    recomputed ops, stays). Checkpointing also nests the block's transforms once more, so the
    transforms and the scopes of the name stack are each kept in order with repeats dropped:

        >>> provenance_name("jit(step)/transpose(jvp(block0))/dot_general")
        'transpose(jvp(block0/dot_general))'
        >>> provenance_name(
        ...     "jit(step_remat)/transpose(jvp(block0))/jvp(block0)/checkpoint/dot_general"
        ... )
        'transpose(jvp(block0/dot_general))'
        >>> provenance_name("jit(step_remat)/transpose(jvp(jvp()))/checkpoint/dot_general")
        'transpose(jvp(dot_general))'

    Names without transforms (TensorFlow's ``sequential/dense_1/MatMul``) come back as they
    are. The price of dropping repeats: ``jvp(jvp())`` (a second derivative) and ``jvp()`` get
    the same key, and the other evidence (shapes, operands) has to tell them apart.
    """
    name = without_outer_jit(op_name)
    if "(" not in name and not any(c in name for c in _REMAT_COMPONENTS):
        return name
    transforms: list[str] = []
    scopes: list[str] = []
    _decompose(name, transforms, scopes)
    body = "/".join(scopes)
    return "(".join([*transforms, body]) + ")" * len(transforms)


def _decompose(text: str, transforms: list[str], scopes: list[str]) -> None:
    """Append the transforms and scopes of a name stack, in order, without repeats."""
    for part in _components(text):
        if part in _REMAT_COMPONENTS:
            continue
        m = _TRANSFORM.match(part)
        if m is None:
            if part and (not scopes or scopes[-1] != part):
                scopes.append(part)
            continue
        if not transforms or transforms[-1] != m.group("transform"):
            transforms.append(m.group("transform"))
        _decompose(m.group("inner"), transforms, scopes)


def _components(text: str) -> list[str]:
    """Split a name stack at the ``/`` that are not inside parentheses."""
    parts: list[str] = []
    depth = start = 0
    for n, char in enumerate(text):
        if char == "(":
            depth += 1
        elif char == ")":
            depth = max(depth - 1, 0)
        elif char == "/" and depth == 0:
            parts.append(text[start:n])
            start = n + 1
    parts.append(text[start:])
    return parts


def parse_where(where: str) -> tuple[str, int, str] | None:
    """``"model.py:12 (f)"`` -> ``("model.py", 12, "f")`` (function ``""`` when not given);
    ``None`` for text that is not ``file:line``."""
    m = _WHERE.match(where)
    if m is None:
        return None
    return m.group("file"), int(m.group("line")), m.group("function") or ""


def line_sort_key(where: str) -> tuple[str, int, str]:
    """Source locations in file order, then line number (``a.py:9`` before ``a.py:10``)."""
    m = _WHERE.match(where)
    return (m.group("file"), int(m.group("line")), where) if m else (where, 0, where)
