"""Which line of *your* code an op came from: the source of a kernel row and of ``--by-source``.

An op's :attr:`~hloscope.hlo.model.Instruction.stack` is the Python call stack that traced it,
innermost frame first. The innermost frame is rarely the interesting one: a Flax ``nn.Dense``
records ``flax/linen/linear.py`` first, then the user's ``__call__``, then the training step.
So the *source* of an op is the innermost frame that is the user's own code, which means not

* in an installed package (a ``site-packages`` or ``dist-packages`` folder),
* in the Python standard library (``lib/python3.11/...``, ``<frozen runpy>``),
* inside a framework: a folder named ``jax``, ``jaxlib``, ``flax``, ``optax``, ``keras``,
  ``tf_keras``, ``tensorflow``, ``haiku`` or ``equinox`` (a source checkout or an editable
  install, which sit outside ``site-packages``).

Folders are matched as whole path components, so ``samples/flax_mlp.py`` is user code and
``src/flax/linen/linear.py`` is not. When no frame qualifies, the innermost frame is the source
(better a framework line than nothing).

**TensorFlow** records no user frames at all: every op's location is TensorFlow's own
``tensorflow/python/framework/ops.py:1221``. What TF does keep is the name scope in
``op_name``, and Keras opens one scope per layer call: ``small_cnn_1/batch_normalization_1/
moments/mean`` is the ``mean`` op of the ``moments`` helper of layer ``batch_normalization_1``
of model ``small_cnn_1``. For ops whose frames all point into TensorFlow (or that have no
frames, in a module TensorFlow compiled), the source is that layer path (:func:`layer_path`),
so ``--by-source`` groups TF programs by layer.
"""

from __future__ import annotations

import re
import sysconfig
from collections.abc import Sequence
from itertools import takewhile

from ..hlo.metadata import StackFrame

__all__ = [
    "FRAMEWORK_FOLDERS",
    "is_user_frame",
    "user_frame",
    "stack_source",
    "source_of",
    "layer_path",
    "tf_function_name",
]

#: Folder names whose files are framework internals, not the user's code.
FRAMEWORK_FOLDERS: frozenset[str] = frozenset(
    {"jax", "jaxlib", "flax", "optax", "keras", "tf_keras", "tensorflow", "haiku", "equinox"}
)
_INSTALLED = frozenset({"site-packages", "dist-packages"})
# Folders whose frames are TensorFlow's (Keras 3 on TF and tf_keras record theirs too).
_TENSORFLOW = frozenset({"tensorflow", "keras", "tf_keras"})
_PYTHON_DIR = re.compile(r"python\d+(\.\d+)*", re.IGNORECASE)
_SPLIT = re.compile(r"[/\\]")
_STDLIB = sysconfig.get_paths().get("stdlib", "")


def _folders(path: str) -> list[str]:
    """The folder components of ``path`` (the file name left out)."""
    return _SPLIT.split(path)[:-1]


def _is_stdlib(path: str, folders: Sequence[str]) -> bool:
    """Python's own library: ``<frozen ...>`` modules, ``.../lib/python3.11/...`` (any machine's,
    since HLO is often read far from where it was made), ``.../Python311/Lib/...``, or this
    interpreter's stdlib folder."""
    if path.startswith("<frozen"):
        return True
    if _STDLIB and path.startswith(_STDLIB):
        return True
    for before, folder in zip(folders, folders[1:]):
        if before.lower() in ("lib", "lib64") and _PYTHON_DIR.fullmatch(folder):
            return True
        if folder == "Lib" and _PYTHON_DIR.fullmatch(before):
            return True
    return False


def is_user_frame(frame: StackFrame) -> bool:
    """Whether ``frame`` is in the user's own code (see the module docstring for the rules)."""
    folders = _folders(frame.file)
    if any(f in _INSTALLED or f in FRAMEWORK_FOLDERS for f in folders):
        return False
    return not _is_stdlib(frame.file, folders)


def user_frame(stack: Sequence[StackFrame]) -> StackFrame | None:
    """The innermost frame of ``stack`` in user code, else its innermost frame (``None`` when
    the stack is empty)."""
    for frame in stack:
        if is_user_frame(frame):
            return frame
    return stack[0] if stack else None


def _all_tensorflow(stack: Sequence[StackFrame]) -> bool:
    return all(any(f in _TENSORFLOW for f in _folders(frame.file)) for frame in stack)


def stack_source(stack: Sequence[StackFrame]) -> str | None:
    """``file:line (function)`` of :func:`user_frame`; ``""`` for an empty stack; ``None`` when
    no frame is user code and every frame is TensorFlow's (the ``op_name`` says more then)."""
    if not stack:
        return ""
    for frame in stack:
        if is_user_frame(frame):
            return str(frame)
    if _all_tensorflow(stack):
        return None
    return str(stack[0])


def source_of(stack: Sequence[StackFrame], op_name: str, module_name: str = "") -> str:
    """Where an op came from: :func:`stack_source`, or the TensorFlow layer path of its
    ``op_name`` (:func:`layer_path`) when its frames are all TensorFlow's, or when it has none
    and ``module_name`` is a TensorFlow function's module (``a_inference_...``)."""
    where = stack_source(stack)
    if where is None:
        return layer_path(op_name, tf_function_name(module_name))
    if not where:
        function = tf_function_name(module_name)
        return layer_path(op_name, function) if function else ""
    return where


# ---- TensorFlow name scopes ---------------------------------------------------------------------

# `a_inference_train_step_361__XlaMustCompile_true_config_proto_..._.30` is the module of
# tf.function `train_step`; `__inference_f_12` the graph function.
_TF_MODULE = re.compile(r"^_*a?_inference_(?P<name>.+?)_\d+__")
# A Keras layer's scope: the layer name made unique by the scope machinery (`dense_1`).
_UNIQUE_SCOPE = re.compile(r".*_\d+")


def tf_function_name(module_name: str) -> str:
    """``train_step`` for TF's ``a_inference_train_step_361__XlaMustCompile_...`` module names;
    ``""`` for a module TensorFlow did not name."""
    found = _TF_MODULE.match(module_name)
    return found.group("name") if found else ""


def _decoration(component: str) -> bool:
    """Scopes TensorFlow adds around a function's ops, not layers of the user's model."""
    return "_inference_" in component or "XlaMustCompile" in component


def layer_path(op_name: str, function: str = "") -> str:
    """The layer an op of a TensorFlow program belongs to, read from its name scope.

    The op's own name (the last component) goes, and so do TF's decorations (``a_inference_...``,
    ``XlaMustCompile``) and the ``gradient_tape`` scope of backward ops (a layer's gradient is
    the layer's cost, as JAX attributes a transposed op to the line of its forward op). Keras 3
    makes every layer scope unique (``dense_1``, ``batch_normalization_1_2`` for the second
    call), so the layer path is the leading run of scopes ending in ``_N``:
    ``small_cnn_1/batch_normalization_1/moments/mean`` → ``small_cnn_1/batch_normalization_1``.
    Without such scopes (tf_keras, hand-named ones) the scopes before the first TF op scope (a
    capitalised name, ``SparseSoftmaxCrossEntropyWithLogits``) are kept. An op outside every
    scope (``AddN_7``, ``XLA_Args``) belongs to the function itself: ``function`` when given,
    else its own name.
    """
    parts = [p for p in op_name.split("/") if p and not _decoration(p)]
    if parts and parts[0] == "gradient_tape":
        parts = parts[1:]
    if not parts:
        return function
    scopes = parts[:-1]
    layers = list(takewhile(_UNIQUE_SCOPE.fullmatch, scopes))
    if not layers:
        layers = list(takewhile(lambda scope: not scope[:1].isupper(), scopes))
    if layers:
        return "/".join(layers)
    return function or parts[-1]
