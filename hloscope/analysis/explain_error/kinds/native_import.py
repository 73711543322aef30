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
from ..catalogue import words_of
from ..device import named_accelerator
from ..log import Log
from ..recogniser import Recogniser
from ..record import Failure, Family

__all__ = ["RECOGNISER"]

_RE, _TEXT = words_of(__name__)


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
        return module if _RE.ours.search(module) else None
    before = log.before_on_line(m.start())
    named = _RE.missing_file.search(before)
    if named is None or _RE.dso_line.search(before) or not _RE.ours.search(named["name"]):
        return None
    return named["name"]


def _loaded(log: Log, m: re.Match[str]) -> str | None:
    """The library that did not load, as the message's line names it (its file's stem), or
    the library the DSO loader looked the symbol up in; ``None`` when not one of ours."""
    line = log.text[log.line_start(m.start()) : log.line_end(m.start())]
    symbol = _symbol(m)
    if m["ni_dyld"]:  # dyld names the library on its "Referenced from:" line, or the dlopen
        line += log.text[m.end() : m.end() + 400]
    files = [found["name"] for found in _RE.library.finditer(line)]
    library = files[-1].rsplit("/", 1)[-1] if files else None
    if not _RE.ours.search(" ".join([*files, symbol])):
        return None
    if m["ni_dso"]:
        return symbol  # the library is its function's (cublasLtCreate: cuBLASLt)
    return library or symbol


def _platform(log: Log, library: str, symbol: str) -> tuple[Platform | None, str | None]:
    if _RE.gpu_library.search(library) or _RE.gpu_library.search(symbol):
        name = named_accelerator(log.text)
        return Platform.GPU, f"gpu ({name})" if name else "gpu"
    if _RE.rocm_library.search(library) or _RE.rocm_library.search(symbol):
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
    text = (_TEXT.install_torch if torch else _TEXT.install).format(library=library, symbol=symbol)
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
        advice=(_TEXT.missing.format(library=library), AdviceKind.INSTALL),
        device=device,
        platform=platform,
    )


# Nothing was compiled: the packages installed do not fit together.
_KIND = Kind(Family.BACKEND_STARTUP, Reason.RUNTIME, own_line)
RECOGNISER = Recogniser(Family.BACKEND_STARTUP, _RE.opening, _native_import)
