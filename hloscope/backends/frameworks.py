"""The one place capture imports jax and TensorFlow, and what it says when they are missing.

hloscope's core (parse, summary, fusions, graph, diff, ls on text files and dump folders) needs
neither framework, so ``pip install hloscope`` installs neither. Capturing does: ``pip install
'hloscope[jax]'`` or ``'hloscope[tf]'`` adds the one you use. Every capture path asks this module
for the framework instead of writing ``import jax`` itself::

    jax = require_jax()  # the jax module, or CaptureError naming the extra
    tf = require_tensorflow()

When the framework is missing the user gets one line that says how to fix it, e.g.
``jax is not installed: pip install 'hloscope[jax]'``, instead of a ``ModuleNotFoundError``
traceback from deep inside a command; when it is older than hloscope supports, one line saying
which version is installed and which is needed.

The supported ranges are data (:data:`JAX_MINIMUM`, :data:`JAX_NEWEST_TESTED`,
:data:`TENSORFLOW_MINIMUM`, ...): ``pyproject.toml``'s extras and ``.ci/run``'s oldest-version
check use the same numbers. Versions are read from package metadata where that is enough, so
checking one never imports the framework.
"""

from __future__ import annotations

import contextlib
import importlib
import re
from collections.abc import Iterator
from types import ModuleType

from .errors import MissingFramework, UnsupportedFramework

__all__ = [
    "JAX_EXTRA",
    "TF_EXTRA",
    "JAX_MINIMUM",
    "JAX_NEWEST_TESTED",
    "TENSORFLOW_MINIMUM",
    "TENSORFLOW_NEWEST_TESTED",
    "MissingFramework",
    "UnsupportedFramework",
    "require_jax",
    "require_tensorflow",
    "installed_version",
    "version_tuple",
    "check_version",
    "missing_framework",
    "explain_missing_frameworks",
]

#: The extras that install each framework (what the error messages tell the user to install).
JAX_EXTRA = "hloscope[jax]"
TF_EXTRA = "hloscope[tf]"

#: The oldest jax/jaxlib capture and the XLA oracle work with: ``.ci/run`` runs the capture and
#: XLA-agreement tests against it. Below it (jax 0.4.3x) ``Lowered.as_text`` lacks
#: ``debug_info``, ``cost_analysis()`` returns a list, XLA writes no memory-usage report, and
#: XLA's parser rejects the ``frontend_attributes={xla.sdy.meshes=...}`` newer jax prints.
JAX_MINIMUM: tuple[int, ...] = (0, 5, 0)
#: The newest jax/jaxlib (major, minor) release series the test suite ran against. Newer ones
#: are allowed, with a warning from :mod:`~hloscope.backends._jaxlib`'s private-API door.
JAX_NEWEST_TESTED: tuple[int, int] = (0, 10)

#: The oldest TensorFlow ``hloscope[tf]`` allows: TensorFlow before 2.19 pins ``ml_dtypes<0.5``,
#: which the core's ``ml_dtypes>=0.5`` (the parser's literal types) excludes. CI tests 2.21 only.
TENSORFLOW_MINIMUM: tuple[int, ...] = (2, 19)
#: The newest TensorFlow (major, minor) the test suite ran against.
TENSORFLOW_NEWEST_TESTED: tuple[int, int] = (2, 21)

# Import names that mean "this framework is missing" when an import of them fails, and what to
# say then. jaxlib counts as jax: `import jax` without jaxlib fails and `hloscope[jax]` fixes it.
_FRAMEWORKS: dict[str, tuple[str, str]] = {
    "jax": ("jax", JAX_EXTRA),
    "jaxlib": ("jax", JAX_EXTRA),
    "tensorflow": ("TensorFlow", TF_EXTRA),
}


# ---- versions ------------------------------------------------------------------------------------


def version_tuple(version: str) -> tuple[int, ...]:
    """The leading numeric release of a version string: ``"0.4.30.dev2024"`` -> ``(0, 4, 30)``.

    Only the dotted numbers at the start count (pre-release and local tags are dropped), which
    is all a lower-bound check needs. A string without a leading number gives ``()``.
    """
    found = re.match(r"\d+(?:\.\d+)*", version.strip())
    return tuple(int(part) for part in found.group(0).split(".")) if found else ()


def _dotted(version: tuple[int, ...]) -> str:
    return ".".join(str(part) for part in version)


def installed_version(*distributions: str) -> str | None:
    """The version of the first of ``distributions`` that is installed, from package metadata.

    Reading metadata imports nothing, so this is safe in offline commands. ``None`` when none
    of them is installed.
    """
    # importlib.metadata is imported here, not at the top: it costs every process that
    # imports hloscope tens of milliseconds, and a watched script's child never needs it.
    from importlib import metadata

    for name in distributions:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return None


def check_version(framework: str, version: str, minimum: tuple[int, ...], extra: str) -> None:
    """Raise :class:`UnsupportedFramework` when ``version`` is older than ``minimum``.

    An unparseable version (a source build without a number) is let through: the capture then
    succeeds or fails on its own merits.
    """
    found = version_tuple(version)
    if found and found < minimum:
        raise UnsupportedFramework(
            f"{framework} {version} is older than hloscope supports (>= {_dotted(minimum)}): "
            f"pip install '{extra}' upgrades it"
        )


# ---- importing -----------------------------------------------------------------------------------


def missing_framework(error: ImportError) -> MissingFramework | None:
    """The :class:`MissingFramework` an ``ImportError`` means, or ``None`` if it is another one.

    ``import jax`` fails with ``ModuleNotFoundError(name="jax")`` when jax is absent (also when
    ``sys.modules["jax"] is None``); jax without jaxlib fails with a message naming jaxlib.
    Submodules count: ``import jax.numpy`` failing on ``jax`` is the same missing jax.
    """
    name = (error.name or "").partition(".")[0]
    if name in _FRAMEWORKS:
        return MissingFramework(*_FRAMEWORKS[name])
    if name == "" and "requires jaxlib" in str(error):
        return MissingFramework("jax", JAX_EXTRA, "is installed without jaxlib")
    return None


def _import(module: str) -> ModuleType:
    try:
        return importlib.import_module(module)
    except ImportError as error:
        missing = missing_framework(error)
        if missing is None:
            raise
        raise missing from None


def require_jax() -> ModuleType:
    """Import and return ``jax``, or raise :class:`MissingFramework` naming ``hloscope[jax]``.

    Also checks ``jax.__version__`` against :data:`JAX_MINIMUM` and raises
    :class:`UnsupportedFramework` when it is older.
    """
    jax = _import("jax")
    check_version("jax", str(getattr(jax, "__version__", "")), JAX_MINIMUM, JAX_EXTRA)
    return jax


def require_tensorflow() -> ModuleType:
    """Import and return ``tensorflow``, or raise :class:`MissingFramework` naming ``hloscope[tf]``.

    Also checks ``tf.__version__`` against :data:`TENSORFLOW_MINIMUM`.
    """
    tf = _import("tensorflow")
    check_version("TensorFlow", str(getattr(tf, "__version__", "")), TENSORFLOW_MINIMUM, TF_EXTRA)
    return tf


@contextlib.contextmanager
def explain_missing_frameworks() -> Iterator[None]:
    """Turn an ``ImportError`` of jax, jaxlib or TensorFlow inside the block into one line.

    For code hloscope runs on the user's behalf that imports a framework itself: the script of
    a ``SCRIPT.py:FUNCTION`` target (its ``import jax`` at the top). Other import errors, and
    everything else, pass through unchanged.
    """
    try:
        yield
    except ImportError as error:
        missing = missing_framework(error)
        if missing is None:
            raise
        raise missing from None
