"""Where in the user's code: the innermost frame of a stack that is the user's own, else the
line JAX names ("from line FILE:N (fn)"), else the innermost library line outside JAX, NumPy
and TensorFlow themselves (the line that called into them).

The user's own frame is read from the structure of whatever traceback holds the message
(:func:`message_stack`): Python's, JAX's filtered chain, pytest's ``path:N: in fn``, IPython's
``Cell In[3], line 7`` and ``<ipython-input-..>``, faulthandler's dump after a crash. A frame is
the user's unless it is installed (``site-packages``, ``dist-packages``), Python's own, inside a
framework's folder (:data:`~hloscope.analysis.provenance.FRAMEWORK_FOLDERS`) or one of the
tools that run code (:data:`_RUNNERS`: pytest, IPython, a frozen or generated module)."""

from __future__ import annotations

import re

from ...hlo.metadata import StackFrame
from ..provenance import FRAMEWORK_FOLDERS, is_user_frame
from .log import TF_FRAME, Log

__all__ = [
    "user_source",
    "best_source",
    "caller_of_framework",
    "message_stack",
    "filtered_first",
    "callback_stack",
    "frame_source",
    "named_source",
    "julia_expression_after",
    "is_users",
    "FROM_LINE",
]

#: JAX's provenance of a traced value: ``from line /path/model.py:127 (fn)``, ``was created on
#: line /path/model.py:12 (fn)``.
# A file a message names: a Python file (a Windows drive's too), or a notebook cell's stand-in
# name, which older IPython gives the code it runs (`<ipython-input-8-ba96c25111b3>`).
_FILE = r"(?:[^\s:()]+(?::[\\/][^\s:()]+)?\.py|<ipython-input-[\w-]+>)"
FROM_LINE = re.compile(
    rf"(?:from|on) line:?\s+(?P<file>{_FILE}):(?P<line>\d+)(?::\d+)?"
    r"(?: \((?P<fn>[^)\n]*)\))?"
)
# Frames inside the frameworks themselves: never the line to fix. (optree, the pytree library
# under Keras 3 and PyTorch, only maps their functions over a tree: its `tree_map` frame sits
# between Keras's conversion and the user's call, and is no line to change either.)
_FRAMEWORK = re.compile(
    r"[\\/](?:jax|jaxlib|numpy|tensorflow|keras|flax|optax|torch|torch_xla|absl|optree)[\\/]"
    r"|^<__array_function__|^<frozen |[\\/]python3\.\d+[\\/](?!site-packages|dist-packages)"
)


# Folders of code that runs the user's (a source checkout of them is no site-packages): never
# the line to fix. (torchax runs PyTorch code on JAX, as torch_xla does on XLA.)
_RUNNERS = frozenset(
    {"torch", "torch_xla", "torchax", "numpy", "absl", "_pytest", "pluggy", "IPython", "ipykernel"}
)
# Files that are no file of the user's: Python's frozen modules, `exec`'s, NumPy's dispatch.
_NO_FILE = ("<frozen", "<string>", "<__array_function__", "<decorator-gen")
_SPLIT = re.compile(r"[\\/]")


# A file Python's tempfile named (`/tmp/tmp3elusa46`: "tmp", eight letters, digits or
# underscores, no suffix): code a library generated and ran from it (PyTensor's function for
# its JAX backend), never a file the user wrote.
_TEMP_FILE = re.compile(r"(?:^|[\\/])tmp[a-z0-9_]{8}\Z")
# A file TensorFlow's AutoGraph wrote as it converted a function of the program's (its Python
# source is the program's own function, which TF names in its "in user code" frames).
_GENERATED_FILE = re.compile(r"(?:^|[\\/])__autograph_generated_file\w*\.py\Z")
# A path the user shortened to its package ("...", an ellipsis for the install's prefix) whose
# package keeps its sources in `src` or `_src` (".../keras_hub/src/models/t5/...",
# ".../mujoco_warp/_src/forward.py"): an installed library's layout, never the user's script.
_ELIDED_LIBRARY = re.compile(r"^(?:\.\.\.|\u2026)[\\/][A-Za-z_]\w*[\\/]_?src[\\/]")


def is_users(frame: StackFrame) -> bool:
    """Whether ``frame`` is the user's own code: not installed, Python's, a framework's
    (:func:`~hloscope.analysis.provenance.is_user_frame`), a runner's or generated."""
    if frame.file.startswith(_NO_FILE) or _TEMP_FILE.search(frame.file):
        return False
    if _GENERATED_FILE.search(frame.file):
        return False
    if _ELIDED_LIBRARY.match(frame.file):
        return False
    if not (
        is_user_frame(frame)
        or _project_subpackage(frame)
        or _named_like_framework(frame)
        or _framework_test(frame)
    ):
        return False
    if frame.file.endswith(".jl") and _JULIA_INSTALLED.search(frame.file):
        return False  # a Julia package's, or Julia's own
    return not any(folder in _RUNNERS for folder in _SPLIT.split(frame.file)[:-1])


def _named_like_framework(frame: StackFrame) -> bool:
    """Whether ``frame`` is a user's script in a folder of theirs that only shares a
    framework's name (``~/sandbox/jax/repro.py``, ``playground/jax/ndimbug.py``): not
    installed, that folder its file's own and the only one of a framework's name on the path
    (a checkout's package is ``jax/jax/``, its sources ``jax/_src/``), no package's own
    module-level file."""
    folders = _SPLIT.split(frame.file)
    if len(folders) < 3 or folders[-1] in _PACKAGE_FILES:
        return False
    if _INSTALLED_OR_PYTHON.search("/" + frame.file):
        return False
    named = [folder for folder in folders[:-1] if folder in FRAMEWORK_FOLDERS]
    return named == [folders[-2]]


# A test module by its name (pytest's and absltest's: `test_x.py`, `x_test.py`), not a
# framework's helpers for tests (`jax/_src/test_util.py`).
_TEST_FILE = re.compile(r"(?:test_(?!utils?\.py$)\w+|\w+_test)\.py$")


def _framework_test(frame: StackFrame) -> bool:
    """Whether ``frame`` is a test of a framework's own suite, run from a checkout of it
    (JAX's CI: ``.../_work/jax/jax/tests/pallas/pallas_test.py``; Keras's
    ``keras/src/layers/core/dense_test.py``): the code that developer ran, not installed and
    no module the program imported."""
    folders = _SPLIT.split(frame.file)
    if not _TEST_FILE.search(folders[-1]) or _INSTALLED_OR_PYTHON.search("/" + frame.file):
        return False
    if any(folder.endswith(("test_util", "test_utils")) for folder in folders[:-1]):
        return False  # its helpers' package (jax/_src/internal_test_util/test_harnesses.py)
    return any(folder in FRAMEWORK_FOLDERS for folder in folders[:-1])


# A tree's folder of other projects' code kept in it, as site-packages is installed code
# (Google's `third_party/py/jax/...`): never the project's own package.
_VENDORED = frozenset({"third_party", "vendor", "external"})
# A path that starts at the machine's root, a home, a drive, or a tool's stand-in name.
_ROOTED = re.compile(r"[\\/~<]|[A-Za-z]:")


def _project_subpackage(frame: StackFrame) -> bool:
    """Whether ``frame``'s path is relative to the project a tool ran in (pytest's
    ``netket/jax/sharding.py``, relative to the repository it tests) and a framework's name
    is only a folder deeper in it: a subpackage of the project's own (NetKet's
    ``netket/jax/``, Acme's ``acme/agents/jax/``), not the framework. The path's first folder
    is the project's package; a framework's own relative paths (``jax/_src/core.py``) start
    with the framework's name."""
    folders = _SPLIT.split(frame.file)[:-1]
    if len(folders) < 2 or _ROOTED.match(frame.file):
        return False
    if _INSTALLED_OR_PYTHON.search("/" + frame.file):
        return False
    top = folders[0]
    if top in _VENDORED or top in FRAMEWORK_FOLDERS or top in _RUNNERS:
        return False
    return not top.startswith(".")  # a hidden folder: a virtual environment's, a tool's


def user_source(stack: list[StackFrame]) -> str | None:
    """``file:line`` of the innermost user frame of ``stack`` (innermost first) that is no
    library's checkout called from outside it (:func:`_called_checkout`), else of the script
    Python ran (:func:`_entry_script`)."""
    users = [(i, f) for i, f in enumerate(stack) if is_users(f)]
    frame = next((f for i, f in users if not _called_checkout(f, stack[i + 1 :])), None)
    frame = frame or (users[0][1] if users else None) or _entry_script(stack)
    return f"{frame.file}:{frame.line}" if frame else None


# A library's source checkout: the repository's folder and, inside it, the package's of the
# same name (`~/Prog/pennylane/pennylane/workflow/qnode.py`, `xla/torchax/torchax/`), or of
# the "src layout" (`~/dev/levanter/src/levanter/compat/hf_checkpoints.py`), or of a native
# project whose Python package sits under `python/` (Triton's `triton/python/triton/`, TVM's
# `tvm/python/tvm/`); names compared
# as Python's packaging compares them, runs of `-`, `_` and `.` alike and case aside (the
# repository `e3nn-jax` of the package `e3nn_jax`).
_SEPARATORS = re.compile(r"[-_.]+")
# The folders a checkout keeps its package in, between the repository's and the package's.
_PACKAGE_PARENTS = frozenset({"src", "python"})


def _checkout_root(file: str) -> str | None:
    """The path of ``file`` up to the package folder of a library's checkout it is in (see
    above), if any; the package is a folder the file is in, never the file itself."""
    folders = _SPLIT.split(file)[:-1]
    names = [_SEPARATORS.sub("_", folder).lower() for folder in folders]
    for i, name in enumerate(names[:-1]):
        inner = i + 2 if folders[i + 1] in _PACKAGE_PARENTS and i + 2 < len(folders) else i + 1
        if (name[:1].isalpha() or name.startswith("_")) and names[inner] == name:
            return "/".join(folders[: inner + 1]) + "/"
    return None


def _called_checkout(frame: StackFrame, outer: list[StackFrame]) -> bool:
    """Whether ``frame`` is inside a library's checkout that an outer user frame outside it
    called into (a notebook's cell, a script): that one is the user's line, not the
    library's."""
    root = _checkout_root(frame.file)
    if root is None:
        return False
    return any(is_users(f) and not _SPLIT.sub("/", f.file).startswith(root) for f in outer)


# Installed code and Python's own: never the script the user ran, whatever folder holds it.
_INSTALLED_OR_PYTHON = re.compile(
    r"[\\/](?:site|dist)-packages[\\/]|[\\/]python3\.\d+[\\/]|[\\/]Lib[\\/]"
)
# A package's own module-level files: run when it is imported, never the script itself.
_PACKAGE_FILES = ("__init__.py", "__main__.py")


def _entry_script(stack: list[StackFrame]) -> StackFrame | None:
    """The script the user ran, where no frame of ``stack`` passes :func:`is_users`: the
    outermost frame when it is module-level code (``in <module>``) of a file neither installed,
    Python's, a runner's nor generated. It is the user's even inside a folder named after a
    framework (a script at the root of a checkout of jax: ``~/packages/jax/repro.py``): Python
    runs the outermost ``<module>`` as ``__main__``, and a framework's modules run only when
    imported, under the line that imported them. Of that file's frames, the innermost."""
    if not stack or stack[-1].function != "<module>":
        return None
    script = stack[-1].file
    folders = _SPLIT.split(script)
    if script.startswith(_NO_FILE) or folders[-1] in _PACKAGE_FILES:
        return None
    if _INSTALLED_OR_PYTHON.search(script) or any(f in _RUNNERS for f in folders[:-1]):
        return None
    return next(f for f in stack if f.file == script)


def message_stack(log: Log, pos: int) -> list[StackFrame]:
    """The Python frames of the message at ``pos``, innermost first: the traceback it ends
    (Python's, pytest's, IPython's), else a later traceback that ends with it again (a
    logger printed it first), else the traceback of the exception it caused (a chain pasted
    without the cause's own), else the stack faulthandler dumped when the process died
    after it, else TensorFlow's "The op is created at:" frames after it, else the Julia
    stack trace after it (Reactant.jl runs XLA from Julia), else the frames of a traceback
    pasted after it without its header."""
    return (
        filtered_first(log, pos, log.traceback_before(pos))
        or log.traceback_repeating(pos)
        or log.traceback_caused(pos)
        or log.crash_stack_after(pos)
        or log.frames_after(pos, log.region_end(pos))
        or julia_stack_after(log, pos)
        or log.frames_pasted_after(pos)
    )


# JAX's unfiltered traceback: the exception it re-raises, with JAX's own frames, whose cause
# is the same error with the traceback filtered for the user.
_UNFILTERED = re.compile(r"[ \t]*(?:[\w.]+\.)?UnfilteredStackTrace: ")


def filtered_first(log: Log, pos: int, frames: list[StackFrame]) -> list[StackFrame]:
    """``frames`` of the message at ``pos`` with, where it is JAX's ``UnfilteredStackTrace``,
    the filtered traceback it caused first: that is the same stack with JAX's frames left
    out, not the callers of it, and a notebook (Colab's "13 frames") folds the unfiltered
    one's inner frames away, the user's innermost with them."""
    if not _UNFILTERED.match(log.text, log.line_start(pos)):
        return frames
    filtered = log.traceback_caused(pos)
    if not filtered or frames[-len(filtered) :] != filtered:
        return frames
    return filtered + frames[: -len(filtered)]


# XLA's host callback runner quoting, inside its status, the traceback of what a Python
# callback raised (jax.pure_callback, io_callback, debug.callback: "CpuCallback error calling
# callback: Traceback (most recent call last):", then its frames bare, one a line).
_CALLBACK_TRACEBACK = re.compile(
    r"Callback error(?: calling callback)?: Traceback \(most recent call last\):[ \t]*\n"
)
# How far past the message's start its quoted traceback may begin (the status code, the
# runtime's own words before it).
_CALLBACK_LOOKAHEAD = 200


def callback_stack(log: Log, pos: int) -> list[StackFrame]:
    """The frames of the callback traceback the message at ``pos`` quotes, innermost first:
    the callback's own line that raised is in them, where the traceback around the message
    holds only the call that ran the compiled program."""
    found = _CALLBACK_TRACEBACK.search(log.text, pos, pos + _CALLBACK_LOOKAHEAD)
    if found is None:
        return []
    frames: list[StackFrame] = []
    at = found.end()
    while (frame := TF_FRAME.match(log.text, at, log.line_end(at))) is not None:
        frames.append(StackFrame(frame["file"], int(frame["line"]), frame["fn"] or ""))
        at = log.line_end(at) + 1
    return frames[::-1]


def frame_source(log: Log, frame: StackFrame) -> str | None:
    """The line of source Python's traceback quotes under ``frame``, if it quotes one."""
    header = re.compile(
        rf'File "{re.escape(frame.file)}", line {frame.line}, in [^\n]*\n(?P<src>[ \t]+\S[^\n]*)'
    )
    found = header.search(log.text)
    if found:
        return found["src"].strip()
    # IPython's frame: "Cell In[1], line 10, in train_step(p, x, y)", its lines numbered
    # after it and the frame's own marked "---> 10     print(...)".
    at = log.text.find(f"{frame.file}, line {frame.line}")
    if at < 0:
        return None
    marked = re.compile(rf"^-*> ?{frame.line}[ \t](?P<src>[^\n]*)", re.M)
    quoted = marked.search(log.text, at, at + _IPYTHON_REACH)
    return quoted["src"].strip() if quoted else None


# How far after an IPython frame's header its marked line may stand (the lines it quotes
# around it).
_IPYTHON_REACH = 2048


# Julia's stack trace: "Stacktrace:", then each frame as "[3] fn(args...)" and, on the next
# line, "@ Module ~/path/file.jl:56" (innermost first, the module left out for a script's).
_JULIA_HEAD = "Stacktrace:"
_JULIA_FRAME = re.compile(
    r"^[ \t]*\[(?P<n>\d+)\] (?P<fn>[^\n]*)\n[ \t]*@ (?:[\w.]+ )?"
    r"(?P<file>[^\s:]+\.jl):(?P<line>\d+)",
    re.M,
)
# Where Julia keeps what is no user's code: packages, artifacts, Base and the stdlib ("./boot.jl").
_JULIA_INSTALLED = re.compile(
    r"[\\/]\.julia[\\/](?:packages|artifacts|compiled)[\\/]|[\\/]share[\\/]julia[\\/]|^\./"
)
# How far after a message its stack trace may start.
_JULIA_LOOKAHEAD = 8192


def julia_stack_after(log: Log, pos: int) -> list[StackFrame]:
    """The frames of the Julia stack trace that follows the message at ``pos``, innermost
    first; none where no ``Stacktrace:`` follows within :data:`_JULIA_LOOKAHEAD`
    characters."""
    head = log.text.find(_JULIA_HEAD, pos, pos + _JULIA_LOOKAHEAD)
    if head < 0:
        return []
    return [
        StackFrame(found["file"], int(found["line"]), found["fn"].split("(", 1)[0])
        for found in _JULIA_FRAME.finditer(log.text, head, log.region_end(head + 1))
    ]


# The top-level expression Julia was running when a signal killed it, which its crash report
# names after the signal ("[426868] signal 6 (-6): Aborted\nin expression starting at
# /home/u/run.jl:65"): the script's line whatever the native frames under it.
_JULIA_EXPRESSION = re.compile(
    r"^in expression starting at (?P<file>[^\s:]+\.jl):(?P<line>\d+)$", re.M
)


def julia_expression_after(log: Log, pos: int) -> str | None:
    """``file:line`` of the user's expression Julia's crash report after ``pos`` names, if
    any within :data:`_JULIA_LOOKAHEAD` characters."""
    found = _JULIA_EXPRESSION.search(log.text, pos, pos + _JULIA_LOOKAHEAD)
    if found is None:
        return None
    frame = StackFrame(found["file"], int(found["line"]), "")
    return f"{frame.file}:{frame.line}" if is_users(frame) else None


# A line a message names in its own words, where no traceback came with it: TF's "[[node x
# (defined at model.py:45) ]]", JAX's "This error occurs at source: x.py:30:8" and "from line
# x.py:12", Keras's "defined at ... File "x.py", line 7", and any function or place named
# "at x.py:7" (JAX's "The function being traced when the value leaked was keep at x.py:7").
_NAMED_LINE = re.compile(
    rf"(?:\bat|occurs at source:|(?:from|on) line:?)\s+(?P<file>{_FILE}):(?P<line>\d+)"
    # The metadata XLA keeps with an HLO instruction it quotes (a fusion's dump, a verifier's
    # `%dot.6 = ...`): the Python line that made it, `source_file="x.py" source_line=62` (not
    # an MLIR file's, nor `"-"`, the standard input a tool read the module from).
    rf"|\bsource_file=\"(?P<mfile>{_FILE})\" source_line=(?P<mline>\d+)"
)


def named_source(text: str) -> str | None:
    """``file:line`` of the first line of the user's that ``text`` names in words."""
    for found in _NAMED_LINE.finditer(text):
        file, line = (
            (found["file"], found["line"]) if found["file"] else (found["mfile"], found["mline"])
        )
        frame = StackFrame(file, int(line), "")
        if is_users(frame):
            return f"{frame.file}:{frame.line}"
    return None


def best_source(stack: list[StackFrame], from_lines: list[StackFrame]) -> str | None:
    """The line to fix: a user frame of the traceback, else a user frame JAX's "from line"
    names, else the first "from line", else the innermost traceback frame outside the
    frameworks (a library's line that called NumPy on a tracer)."""
    found = user_source(stack) or user_source(from_lines)
    if found:
        return found
    if from_lines:
        return f"{from_lines[0].file}:{from_lines[0].line}"
    outside = next((f for f in stack if not _FRAMEWORK.search(f.file)), None)
    return f"{outside.file}:{outside.line}" if outside else None


# Libraries of NumPy's world, installed: they take NumPy arrays, never JAX's traced ones.
_HOST_LIBRARY = re.compile(
    r"[\\/](?:site|dist)-packages[\\/](?:scipy|sklearn|pandas|statsmodels|skimage|matplotlib"
    r"|networkx|sympy|cv2|PIL|h5py|numba|librosa)[\\/]"
)


def caller_of_framework(stack: list[StackFrame]) -> str | None:
    """``file:line`` of the innermost frame outside the frameworks: where a NumPy or Python
    conversion was called on a traced value (the line to change); where that is a NumPy
    library's (scipy's, scikit-learn's), the user's line that called the library."""
    outside = next((f for f in stack if not _FRAMEWORK.search(f.file)), None)
    if outside is not None and _HOST_LIBRARY.search(outside.file):
        # A NumPy library's line converted it (scipy's logsumexp given a traced array): it
        # was never meant to take one, so the user's call into it is the line to change. (A
        # JAX library's own line that calls NumPy on a tracer is that library's bug.)
        outside = next((f for f in stack if is_users(f)), outside)
    return f"{outside.file}:{outside.line}" if outside else None
