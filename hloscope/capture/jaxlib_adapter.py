"""The one door to private jax/jaxlib APIs: XLA's own HLO parser, printer and cost analysis.

jaxlib ships XLA's C++ HLO parser (``hlo_module_from_text``) and HLO cost analysis
(``hlo_module_cost_analysis``) as private Python bindings. hloscope uses them as an *oracle*: to
check its own parser against XLA's, and to let users ask XLA what a module costs. Private APIs
move between releases — ``hlo_module_from_text`` has lived in ``jaxlib.xla_client._xla``,
``jaxlib._jax`` and now ``jaxlib._hlo`` — so every such access in hloscope goes through this module
and nowhere else. When a symbol cannot be found, callers get :class:`XlaApiUnavailable` naming
the symbol, where it was looked for and the installed jaxlib version, instead of an
``AttributeError`` from deep inside a command.

jax and jaxlib are imported only inside functions: importing this module is free, so offline
commands may import it and only pay for jax when they actually ask XLA something.

Known good: jaxlib 0.10.x. Other versions get a :class:`JaxlibVersionWarning` on first use (or an
:class:`UnsupportedJaxlib` error when ``HLOSCOPE_STRICT_JAXLIB=1``), then work if the symbols are
where this module looks.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import re
import threading
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from ..errors import HloscopeError
from ..hlo.opcodes import OPCODES

__all__ = [
    "KNOWN_GOOD_JAXLIB",
    "SYMBOL_HOMES",
    "XlaApiUnavailable",
    "XlaParseFailed",
    "UnsupportedJaxlib",
    "JaxlibVersionWarning",
    "jaxlib_version",
    "check_jaxlib_version",
    "private_symbol",
    "xla_parse",
    "xla_structure",
    "xla_to_text",
    "xla_accepts",
    "xla_cost_analysis",
    "jit_cost_analysis",
    "opcode_text_name",
    "private_compile_dumps",
    "hide_hloscope_frames",
]

#: jaxlib (major, minor) releases this module was written and tested against.
KNOWN_GOOD_JAXLIB: tuple[int, int] = (0, 10)

#: Where private XLA bindings have lived, probed in this order (newest home first).
SYMBOL_HOMES: tuple[str, ...] = ("jaxlib._jax", "jaxlib._hlo", "jaxlib.xla_client._xla")

_STRICT_ENV = "HLOSCOPE_STRICT_JAXLIB"


class XlaApiUnavailable(HloscopeError, RuntimeError):
    """A private jaxlib API hloscope needs is not where any known jaxlib version keeps it."""

    def __init__(self, symbol: str, jaxlib_version: str | None, searched: Sequence[str], detail: str = "") -> None:
        self.symbol = symbol
        self.jaxlib_version = jaxlib_version
        self.searched = tuple(searched)
        where = ", ".join(self.searched) or "(nowhere)"
        installed = f"jaxlib {jaxlib_version}" if jaxlib_version else "jaxlib is not installed"
        message = (
            f"XLA API '{symbol}' is unavailable ({installed}; looked in {where}). "
            f"hloscope knows jaxlib {KNOWN_GOOD_JAXLIB[0]}.{KNOWN_GOOD_JAXLIB[1]}.x; "
            "install that version or update hloscope/capture/jaxlib_adapter.py."
        )
        if detail:
            message += f" ({detail})"
        super().__init__(message)


class UnsupportedJaxlib(HloscopeError, RuntimeError):
    """The installed jaxlib is not a known-good version and strict mode is on."""


class JaxlibVersionWarning(UserWarning):
    """The installed jaxlib is not a version hloscope was tested with; private APIs may have moved."""


_LOCATION = re.compile(r"was parsing (\d+):(\d+): error: ([^\n]*)")


class XlaParseFailed(HloscopeError, RuntimeError):
    """XLA's own parser rejected an HLO text.

    ``xla_message`` is XLA's message exactly as it gave it (status code, location, caret). When
    the message has a location (``was parsing 12:7: error: ...``), ``line`` and ``column`` hold
    it (1-based) and ``reason`` the first error's text; otherwise they are ``None``.
    """

    def __init__(self, xla_message: str) -> None:
        self.xla_message = xla_message
        found = _LOCATION.search(xla_message)
        self.line: int | None = int(found.group(1)) if found else None
        self.column: int | None = int(found.group(2)) if found else None
        self.reason: str | None = found.group(3) if found else None
        super().__init__(xla_message)


# ---- versions and symbol lookup ----------------------------------------------------------------


def jaxlib_version() -> str | None:
    """The installed jaxlib's version string, or ``None`` when jaxlib is not importable."""
    try:
        import jaxlib.version
    except ImportError:
        return None
    return str(jaxlib.version.__version__)


def _major_minor(version: str) -> tuple[int, int] | None:
    found = re.match(r"(\d+)\.(\d+)", version)
    return (int(found.group(1)), int(found.group(2))) if found else None


_checked = False


def check_jaxlib_version(*, strict: bool | None = None) -> str:
    """Check the installed jaxlib against :data:`KNOWN_GOOD_JAXLIB` and return its version.

    An unknown version warns (:class:`JaxlibVersionWarning`); with ``strict=True`` (default:
    the ``HLOSCOPE_STRICT_JAXLIB`` environment variable is ``1``) it raises
    :class:`UnsupportedJaxlib` instead. A missing jaxlib raises :class:`XlaApiUnavailable`.
    """
    if strict is None:
        strict = os.environ.get(_STRICT_ENV, "") not in ("", "0")
    version = jaxlib_version()
    if version is None:
        raise XlaApiUnavailable("jaxlib", None, (), "pip install 'jax[cpu]'")
    if _major_minor(version) != KNOWN_GOOD_JAXLIB:
        known = f"{KNOWN_GOOD_JAXLIB[0]}.{KNOWN_GOOD_JAXLIB[1]}.x"
        message = (
            f"hloscope's XLA oracle was tested with jaxlib {known}, but jaxlib {version} is "
            "installed; XLA parser and cost-analysis bindings may have moved."
        )
        if strict:
            raise UnsupportedJaxlib(message + f" (unset {_STRICT_ENV} to continue anyway)")
        warnings.warn(message, JaxlibVersionWarning, stacklevel=3)
    return version


def private_symbol(name: str) -> Any:
    """Find the private jaxlib binding ``name`` in :data:`SYMBOL_HOMES`, first home that has it.

    Raises :class:`XlaApiUnavailable` naming the symbol, the homes searched and the jaxlib
    version when no home has it (or jaxlib is missing).
    """
    global _checked
    if not _checked:
        check_jaxlib_version()
        _checked = True
    for home in SYMBOL_HOMES:
        try:
            module = importlib.import_module(home)
        except ImportError:
            continue
        found = getattr(module, name, None)
        if found is not None:
            return found
    raise XlaApiUnavailable(name, jaxlib_version(), SYMBOL_HOMES)


# ---- XLA's parser and printer --------------------------------------------------------------------


def xla_parse(text: str) -> Any:
    """Parse HLO ``text`` with XLA's own parser; returns jaxlib's ``HloModule``.

    XLA also runs its verifier-lite checks while parsing (operand counts, shapes of some ops), so
    a text that parses here is one XLA would load. Raises :class:`XlaParseFailed` carrying XLA's
    message when it does not.
    """
    if isinstance(text, bytes):
        text = text.decode("utf-8")
    parse = private_symbol("hlo_module_from_text")
    try:
        return parse(text)
    except (RuntimeError, ValueError) as error:  # XLA's absl::Status arrives as one of these
        raise XlaParseFailed(str(error)) from None


def xla_accepts(text: str) -> tuple[bool, str]:
    """Whether XLA's parser accepts ``text``: ``(True, "")`` or ``(False, XLA's message)``."""
    try:
        xla_parse(text)
    except XlaParseFailed as error:
        return False, error.xla_message
    return True, ""


def xla_to_text(text: str) -> str:
    """Parse ``text`` with XLA and print it back with XLA's default printer (``to_string()``)."""
    return str(xla_parse(text).to_string())


def _call_or_get(value: Any) -> Any:
    """jaxlib exposes some members as methods in one release and properties in another."""
    return value() if callable(value) else value


_ENUM_TO_TEXT: dict[str, str] = {op.enum: op.name for op in OPCODES.values()}


def opcode_text_name(opcode: Any) -> str:
    """The HLO text name (``"get-tuple-element"``) of a jaxlib ``HloOpcode`` enum value.

    Uses the enum field of :data:`hloscope.hlo.opcodes.OPCODES`. An enum name that table does not
    know (a newer XLA) is spelled the way XLA usually derives text names, ``kFooBar`` →
    ``foo-bar``, so a structure comparison still shows something readable rather than failing.
    """
    enum = getattr(opcode, "name", None) or str(opcode).rpartition(".")[2]
    known = _ENUM_TO_TEXT.get(enum)
    if known is not None:
        return known
    stem = enum[1:] if enum.startswith("k") else enum
    return re.sub(r"(?<!^)(?=[A-Z])", "-", stem).lower()


def xla_structure(text: str) -> list[dict[str, Any]]:
    """What XLA's parser saw: one dict per computation, in the order XLA keeps them.

    Each is ``{"name": str, "instructions": [{"name", "opcode", "operands"}, ...]}`` with the
    opcode as its HLO text name and operands as a list of instruction names; instructions are
    in XLA's order for the computation (the text order for parsed modules).
    """
    module = xla_parse(text)
    structure: list[dict[str, Any]] = []
    for computation in _call_or_get(module.computations):
        instructions = [
            {
                "name": str(_call_or_get(instruction.name)),
                "opcode": opcode_text_name(_call_or_get(instruction.opcode)),
                "operands": [str(_call_or_get(o.name)) for o in _call_or_get(instruction.operands)],
            }
            for instruction in _call_or_get(computation.instructions)
        ]
        structure.append({"name": str(_call_or_get(computation.name)), "instructions": instructions})
    return structure


# ---- cost analysis -------------------------------------------------------------------------------


def _cpu_client() -> Any:
    import jax

    try:
        return jax.devices("cpu")[0].client
    except (RuntimeError, AttributeError, IndexError) as error:
        raise XlaApiUnavailable("Device.client (CPU)", jaxlib_version(), ("jax.devices('cpu')",), str(error)) from None


def _normalise_costs(costs: Any) -> dict[str, float]:
    """Cost analyses come as a dict, a one-element list of dicts (older jax) or ``None``."""
    if costs is None:
        return {}
    if isinstance(costs, Sequence) and not isinstance(costs, (str, bytes)):
        if not costs:
            return {}
        if len(costs) != 1:
            raise ValueError(f"expected one cost-analysis dict per executable, got {len(costs)}")
        costs = costs[0]
    if not isinstance(costs, Mapping):
        raise TypeError(f"unexpected cost analysis type {type(costs).__name__}")
    return {str(key): float(value) for key, value in costs.items()}


def xla_cost_analysis(text: str) -> dict[str, float]:
    """XLA's HLO cost analysis of a module text on the CPU backend.

    Keys are XLA's: ``flops``, ``transcendentals``, ``bytes accessed``, and per-operand
    ``bytes accessed{i}{shape index}`` / ``utilization{i}{...}`` entries. This is the analysis of
    the module *as written*: cost an optimized module to see what XLA will run.
    """
    analyse = private_symbol("hlo_module_cost_analysis")
    return _normalise_costs(analyse(_cpu_client(), xla_parse(text)))


def jit_cost_analysis(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> dict[str, float]:
    """``jax.jit(fn).lower(*args, **kwargs).compile().cost_analysis()`` as a plain dict.

    ``fn`` may already be jitted. This is the public-API answer to "what does XLA think this
    costs", and what :func:`xla_cost_analysis` of the compiled module's text should agree with.
    """
    import jax

    compiled = jax.jit(fn).lower(*args, **kwargs).compile()
    return _normalise_costs(compiled.cost_analysis())


# ---- per-compile dumps (used by hloscope.capture.inprocess) ---------------------------------------

_dump_lock = threading.Lock()
_dump_dirs: dict[str, int] = {}  # folder -> how many captures are using it right now
_dump_original: Any = None  # jax's get_compile_options while our wrapper is installed


def _redirect_pjrt_dumps(original: Callable[..., Any]) -> Callable[..., Any]:
    def get_compile_options(*args: Any, **kwargs: Any) -> Any:
        options = original(*args, **kwargs)
        overrides = dict(options.env_option_overrides)
        target = overrides.get("xla_dump_to")
        with _dump_lock:
            ours = isinstance(target, str) and target in _dump_dirs
        if ours:
            options.executable_build_options.debug_options.xla_dump_to = target
        return options

    get_compile_options.__wrapped__ = original  # type: ignore[attr-defined]
    return get_compile_options


@contextlib.contextmanager
def private_compile_dumps(directory: str) -> Iterator[None]:
    """Make JAX compiles that pass ``compiler_options={"xla_dump_to": directory}`` dump *only* there.

    ``Lowered.compile(compiler_options=...)`` hands the options to XLA as per-compile
    ``env_option_overrides``, and XLA's HLO dumps honour them. But PJRT first writes the compile
    inputs (``module_NNNN.<name>/module.mlir``, ``compile_options.textproto``) using the
    DebugOptions *before* those overrides, i.e. into the folder the user's ``XLA_FLAGS`` named
    (verified on jaxlib 0.10.2). jax builds those DebugOptions in
    ``jax._src.compiler.get_compile_options``; while this context is active, a wrapper points
    them at ``directory`` for exactly the compiles whose overrides name it. Other compiles, in
    this thread or another, are untouched. The wrapper is installed on first entry and removed
    when the last user leaves.

    If jax moved that function, compiles still dump to ``directory``; only the small PJRT
    input folder may land in a user-configured dump folder, and a warning says so.
    """
    global _dump_original
    try:
        from jax._src import compiler as jax_compiler
    except ImportError:  # pragma: no cover - depends on the jax version
        jax_compiler = None
    if jax_compiler is None or not callable(getattr(jax_compiler, "get_compile_options", None)):
        if "xla_dump_to" in os.environ.get("XLA_FLAGS", ""):
            warnings.warn(
                "jax._src.compiler.get_compile_options is gone (jax "
                f"{jaxlib_version()}); PJRT may write compile inputs into the XLA_FLAGS dump folder",
                JaxlibVersionWarning,
                stacklevel=3,
            )
        yield
        return
    with _dump_lock:
        _dump_dirs[directory] = _dump_dirs.get(directory, 0) + 1
        if _dump_original is None:
            _dump_original = jax_compiler.get_compile_options
            jax_compiler.get_compile_options = _redirect_pjrt_dumps(_dump_original)
    try:
        yield
    finally:
        with _dump_lock:
            _dump_dirs[directory] -= 1
            if not _dump_dirs[directory]:
                del _dump_dirs[directory]
            if not _dump_dirs and _dump_original is not None:
                jax_compiler.get_compile_options = _dump_original
                _dump_original = None


# ---- source locations -------------------------------------------------------------------------------

_HLOSCOPE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_frames_hidden = False


def hide_hloscope_frames(source_info_util: Any = None, also: Sequence[str] = ()) -> None:
    """Keep hloscope's own frames out of the source locations JAX records in HLO metadata.

    JAX stores the Python stack of every traced operation (``FileNames``/``StackFrames`` in the
    HLO header, ``stack_frame_id`` in metadata), keeping every frame outside jax and the standard
    library. Without this, a function captured through hloscope would carry
    ``hloscope/capture/inprocess.py`` frames that a direct ``jax.jit(f).lower(x)`` does not.
    Uses ``jax._src.source_info_util.register_exclusion`` (the hook flax and equinox use); pass
    the freshly imported module when calling from an import hook, and in ``also`` other path
    prefixes to hide (the script runner hides ``<frozen runpy>``). Idempotent; silently a no-op
    when jax moved the function (only cosmetic frames are at stake).
    """
    global _frames_hidden
    if _frames_hidden:
        return
    if source_info_util is None:
        try:
            from jax._src import source_info_util
        except ImportError:  # pragma: no cover - depends on the jax version
            return
    register = getattr(source_info_util, "register_exclusion", None)
    if callable(register):
        for prefix in (_HLOSCOPE_DIR, *also):
            register(prefix)
        _frames_hidden = True
