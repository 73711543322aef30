"""A framework's compiled code did not load: the dynamic loader's words, whatever imported it.

A Python extension or runtime library is linked against the C++ symbols of the libraries
beside it (torch for torch_xla's ``_XLAC``, absl and CUDA for jaxlib's ``xla_extension``, cuBLAS
for XLA's GPU backend). Installed from releases that do not match, the loader refuses it before
anything runs, in its own words, not the framework's:

* ``ImportError: .../_XLAC.cpython-310-x86_64-linux-gnu.so: undefined symbol: _ZN5torch4...``
  (glibc's loader), ``ImportError: dlopen(.../xla_extension.so, 2): Symbol not found:
  __ZN3jax...`` (macOS);
* ``Invalid handle. Cannot load symbol cublasLtCreate`` (XLA's DSO loader, which opens CUDA's
  libraries itself and looks their functions up);
* ``ImportError: libcusolver.so.10.0: cannot open shared object file``, ``DLL load failed
  while importing xla_extension``, ``No module named 'jaxlib'``: a library or package the
  framework loads not installed at all.

Kind :attr:`~.record.Family.BACKEND_STARTUP`: nothing was compiled; the advice is one matching
set of packages. Only the libraries of XLA's frameworks and of the accelerators' runtimes are
read: another program's missing symbol is not this tool's to explain.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...unsupported.findings import Platform, Reason
from ..advice import AdviceKind, torch_xla_log
from ..build import Kind, own_line
from ..device import named_accelerator
from ..log import Log
from ..recogniser import Recogniser
from ..record import Failure, Family

__all__ = ["RECOGNISER"]

_OPENING = re.compile(
    # glibc: "<library>: undefined symbol: <symbol>"; macOS's dyld: "Symbol not found: <symbol>".
    r"u(?P<ni_undefined>ndefined symbol): ?(?P<ni_symbol>\S+)"
    r"|S(?P<ni_dyld>ymbol not found): ?(?P<ni_dyld_symbol>\S+)"
    # XLA's (TSL's) DSO loader looking a function up in a library it opened.
    r"|C(?P<ni_dso>annot load symbol) (?P<ni_dso_symbol>\w+)"
    # A library the loader did not find at all (glibc's words; Windows' for an extension),
    # and a framework's package not installed.
    r"|c(?P<ni_missing>annot open shared object file)"
    r"|D(?P<ni_dll>LL load failed while importing (?P<ni_dll_module>\w+))"
    r"|N(?P<ni_package>o module named '(?P<ni_module>jax|jaxlib|libtpu|torch_xla|_XLAC"
    r"|jax_(?:cuda|rocm)\d+_(?:plugin|pjrt))')"
    # JAX's own words for the same, raised from the ModuleNotFoundError above.
    r"|j(?P<ni_jaxlib>ax requires jaxlib to be installed)"
)
# The file before glibc's "cannot open shared object file" ("libcusolver.so.10.0: cannot...").
_MISSING_FILE = re.compile(r"(?P<name>[\w.+-]+?\.so[\w.]*): $")
# The DSO loader's own line: "Could not load dynamic library 'libcudnn.so.8'; dlerror: ...",
# read as a whole by .cuda_libraries.
_DSO_LINE = "Could not load dynamic library"
# The library a loader names on the message's line: a shared object's file name.
_LIBRARY = re.compile(r"(?P<name>[\w.+-]+?)(?:\.cpython[\w.-]*|\.abi3)?\.(?:so|dylib|pyd)\b")
# The compiled parts of XLA's frameworks and of the accelerators' runtimes, by file or symbol.
_OURS = re.compile(
    r"_XLAC|xla_extension|jaxlib|/jax/|_jax\b|libtpu|torch_xla|tensorflow|_pywrap|pjrt|Reactant"
    r"|(?i:cu(?:blas|dnn|fft|solver|sparse|rand|da)|nccl|hip|roc|libdevice|nvrtc|nvjitlink)"
)
_GPU_LIBRARY = re.compile(r"(?i)cu(?:blas|dnn|fft|solver|sparse|rand|da)|nccl|nvrtc|nvjitlink")
_ROCM_LIBRARY = re.compile(r"(?i)\bhip|\broc")
_INSTALL = (
    "{library} was built against other releases of the libraries it loads ({symbol} is not in "
    "the ones installed): install the framework's packages as one release (jax with its own "
    'jaxlib and CUDA extra: pip install -U "jax[cuda12]"), or the CUDA libraries it was '
    "built for; a source build needs its own matching set"
)
_INSTALL_TORCH = (
    "{library} was built against another torch than the one installed ({symbol} is not in "
    "it): install torch and torch_xla of one release (torch_xla's own install line, a nightly "
    "torch_xla with the nightly torch it names), and check them with pip show torch torch_xla"
)


_MISSING = (
    "{library} is not installed where the loader looks, so the framework cannot start: "
    "install the framework with the libraries it loads, as one release (pip install -U "
    '"jax[cuda12]" brings CUDA\'s; torch_xla\'s own install line; "jax[tpu]" on a TPU VM), '
    "or put the folder that holds it on LD_LIBRARY_PATH"
)


def _symbol(m: re.Match[str]) -> str:
    return m["ni_symbol"] or m["ni_dyld_symbol"] or m["ni_dso_symbol"] or ""


def _missing(log: Log, m: re.Match[str]) -> str | None:
    """The library or package not found at all, when it is one of ours."""
    if m["ni_package"]:
        return m["ni_module"]
    if m["ni_jaxlib"]:
        return "jaxlib"
    if m["ni_dll"]:
        module = m["ni_dll_module"]
        return module if _OURS.search(module) else None
    before = log.before_on_line(m.start())
    named = _MISSING_FILE.search(before)
    if named is None or _DSO_LINE in before or not _OURS.search(named["name"]):
        return None
    return named["name"]


def _loaded(log: Log, m: re.Match[str]) -> str | None:
    """The library that did not load, as the message's line names it (its file's stem), or
    the library the DSO loader looked the symbol up in; ``None`` when not one of ours."""
    line = log.text[log.line_start(m.start()) : log.line_end(m.start())]
    symbol = _symbol(m)
    if m["ni_dyld"]:  # dyld names the library on its "Referenced from:" line, or the dlopen
        line += log.text[m.end() : m.end() + 400]
    files = [found["name"] for found in _LIBRARY.finditer(line)]
    library = files[-1].rsplit("/", 1)[-1] if files else None
    if not _OURS.search(" ".join([*files, symbol])):
        return None
    if m["ni_dso"]:
        return symbol  # the library is its function's (cublasLtCreate: cuBLASLt)
    return library or symbol


def _platform(log: Log, library: str, symbol: str) -> tuple[Platform | None, str | None]:
    if _GPU_LIBRARY.search(library) or _GPU_LIBRARY.search(symbol):
        name = named_accelerator(log.text)
        return Platform.GPU, f"gpu ({name})" if name else "gpu"
    if _ROCM_LIBRARY.search(library) or _ROCM_LIBRARY.search(symbol):
        return Platform.GPU, "gpu"
    if "libtpu" in library:
        return Platform.TPU, "tpu"
    return None, None


def _native_import(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    if m["ni_missing"] or m["ni_dll"] or m["ni_package"] or m["ni_jaxlib"]:
        yield from _not_found(log, m)
        return
    library = _loaded(log, m)
    if library is None:
        return
    symbol = _symbol(m)
    torch = torch_xla_log(log.text) or library == "_XLAC"
    text = (_INSTALL_TORCH if torch else _INSTALL).format(library=library, symbol=symbol)
    platform, device = _platform(log, library, symbol)
    yield _KIND.failure(
        log,
        m.start(),
        op=library,
        advice=(text, AdviceKind.INSTALL),
        device=device,
        platform=platform,
        hints=[f"the loader could not find {symbol}"],
    )


def _not_found(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    library = _missing(log, m)
    if library is None:
        return
    platform, device = _platform(log, library, "")
    yield _KIND.failure(
        log,
        m.start(),
        op=library,
        advice=(_MISSING.format(library=library), AdviceKind.INSTALL),
        device=device,
        platform=platform,
    )


# Nothing was compiled: the packages installed do not fit together.
_KIND = Kind(Family.BACKEND_STARTUP, Reason.RUNTIME, own_line)
RECOGNISER = Recogniser(Family.BACKEND_STARTUP, _OPENING, _native_import)
