"""Function names: TensorFlow's canonical names cleaned, and the JAX function a message is about."""

from __future__ import annotations

import re

# (an eager op wrapped in a function), `while_body_19_const_0`, `cond_true_52`.
_NAME_RULES: tuple[re.Pattern[str], ...] = (
    re.compile(r"^__inference_(?P<name>.+?)_\d+$"),
    re.compile(r"^__(?:forward|backward)_(?P<name>.+?)(?:_\d+)+$"),
    re.compile(r"^__wrapped__(?P<name>[A-Za-z0-9]+)(?:_.*)?$"),
    re.compile(r"^(?P<name>[A-Za-z_][A-Za-z_]*?[A-Za-z])(?:_\d+)+(?:_const_\d+)?$"),
)


def clean_function_name(canonical: str) -> str:
    """The name people gave a function, from TensorFlow's canonical one: attrs dropped, the
    ``__inference_`` prefix and uniquifying numbers removed (``__inference_f_53[...]`` ->
    ``f``, ``while_body_19_const_0`` -> ``while_body``). Names without such decoration come
    back unchanged."""
    name = canonical.split("[", 1)[0]
    for rule in _NAME_RULES:
        found = rule.match(name)
        if found:
            return found.group("name")
    return name
