"""Which framework printed a log, and which libraries on top of it its traceback passes.

XLA's messages read the same under JAX, TensorFlow and PyTorch/XLA; the fix does not. The
log says which one ran in its structure: the frames' folders (``site-packages/torch_xla/``,
``.../jax/_src/``, ``tensorflow/python/``), the runtime's own wrappers (PyTorch/XLA's ``Bad
StatusOr access:``, its ``xla_client/xla_util.cc`` log lines and ``PJRT_DEVICE``), and the
exception classes (``XlaRuntimeError``, ``JaxRuntimeError``). The libraries a JAX program uses
(Flax, Haiku, Equinox, Keras) re-raise JAX's errors from their own frames; naming them tells a
reader whose wrapper lines surround JAX's message.
"""

from __future__ import annotations

import functools
import re
from enum import StrEnum

from .literal_gate import may_match

__all__ = ["Framework", "framework_of", "libraries_in", "JAX_NAMES"]


class Framework(StrEnum):
    """The frameworks whose logs explain-error reads."""

    JAX = "jax"
    TENSORFLOW = "tensorflow"
    PYTORCH_XLA = "pytorch_xla"


# The marks of each framework in a log, strongest first: PyTorch/XLA's are checked first
# since its logs also carry TensorFlow's and XLA's file names.
_MARKS: tuple[tuple[Framework, re.Pattern[str]], ...] = (
    (
        Framework.PYTORCH_XLA,
        re.compile(
            r"[\\/]torch_xla[\\/]|\bBad StatusOr access\b|xla_client[\\/]xla_util\.cc|"
            r"\bPJRT_DEVICE=|\btorch_xla\.|\bxm\.mark_step\b|device='xla:\d"
        ),
    ),
    (
        Framework.JAX,
        re.compile(
            r"[\\/]jax[\\/]|[\\/]jaxlib[\\/]|\b(?:Xla|Jax)RuntimeError\b|\bjax\.errors\."
            r"|\bjax\._src\.|\bjaxlib\."
        ),
    ),
    (
        Framework.TENSORFLOW,
        re.compile(r"[\\/]tensorflow[\\/]python[\\/]|\btensorflow\.python\.|\btf\.function\b"),
    ),
)
# Libraries over JAX whose frames (or classes) wrap its errors.
_LIBRARIES = re.compile(
    r"[\\/](?P<lib>flax|haiku|equinox|keras|keras_core|optax|diffrax|numpyro|trax)[\\/]"
    r"|\b(?P<cls>flax|haiku|equinox)\.(?:errors|_errors|_src)\b"
)

#: Words of JAX's API in an advice sentence (which another framework's user cannot follow).
JAX_NAMES = re.compile(r"\bjax\.|\bjnp\.|\bjit\(|donate_argnums|XLA_PYTHON_CLIENT_")


# Kept per text: every failure of a log asks about the same (possibly megabytes of) text, and
# a string's hash is computed once, so a repeat costs a dictionary lookup, not a scan.
@functools.lru_cache(maxsize=8)
def framework_of(text: str) -> Framework | None:
    """The framework whose marks ``text`` carries (the first of :data:`_MARKS` found)."""
    for framework, marks in _MARKS:
        # The marks' texts first (literal_gate.py): a scan of the marks themselves tries each
        # branch at every position, a second on a few megabytes that hold none.
        if may_match(marks, text) and marks.search(text):
            return framework
    return None


def libraries_in(text: str) -> list[str]:
    """The libraries over JAX that ``text``'s frames pass through, each once, in order."""
    found = (m["lib"] or m["cls"] for m in _LIBRARIES.finditer(text))
    return list(dict.fromkeys(name.replace("keras_core", "keras") for name in found))
