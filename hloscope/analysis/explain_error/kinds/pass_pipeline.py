"""A compiler's pass pipeline names a pass its own build does not register: the pieces of the
compiler stack installed are of different releases.

Frameworks over MLIR (Reactant.jl and EnzymeJAX, XLA's and JAX's own pipelines, Elixir's
Beaver) write their pipelines as text and have MLIR parse it; a pass a newer pipeline names and
an older binary lacks stops the parse before anything is compiled, in MLIR's words::

    failed to add pipeline:MLIR Textual PassPipeline Parser:1:69589: error: 'strip-debuginfo'
    does not refer to a registered pass or pass pipeline

Kind :attr:`~.record.Family.XLA_CRASH`: the compiler stack failed on its own, not the
program; the advice is one release of the framework and the compiler library it loads.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...unsupported.findings import Reason
from ..advice import AdviceKind
from ..build import Kind, own_line
from ..catalogue import words_of
from ..log import Log
from ..recogniser import Recogniser
from ..record import Failure, Family

__all__ = ["RECOGNISER"]

_RE, _TEXT = words_of(__name__)


def _pass_pipeline(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    name = m["unregistered_pass"]
    yield _KIND.failure(
        log,
        m.start(),
        op=name,
        advice=(_TEXT.install.format(name=name), AdviceKind.INSTALL),
        hints=[_TEXT.unregistered.format(name=name)],
    )


# The compiler stack failed on its own before compiling: a bug of its install or release.
_KIND = Kind(Family.XLA_CRASH, Reason.COMPILE_ERROR, own_line)
RECOGNISER = Recogniser(Family.XLA_CRASH, _RE.opening, _pass_pipeline)
