"""The report's unsupported-ops and TPU MXU sections: what each platform cannot compile.

The verdicts are ``hloscope check``'s own: a ``SCRIPT.py:FUNCTION`` is lowered by its own
framework for each platform (:func:`framework_checks`, each platform in a child process),
anything else is checked offline in the module XLA was given
(:meth:`~hloscope.reporting._origins.Origin.module_to_check`).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ..analysis.mxu import DEFAULT_MXU, mxu_findings
from ..devices import Platform
from ..render.html import sections

if TYPE_CHECKING:  # pragma: no cover
    from ..render.html.sections import MxuSection, PlatformCheck
    from ._origins import Origin

__all__ = ["checks", "mxu", "framework_checks", "PLATFORMS", "CHECK_TIMEOUT_S"]

#: Platforms the unsupported-ops check runs for: every one there is.
PLATFORMS: tuple[str, ...] = tuple(p.value for p in Platform)
#: Seconds the framework check of a SCRIPT.py:FUNCTION may take for all platforms together.
CHECK_TIMEOUT_S = 180.0


def checks(origin: Origin) -> list[PlatformCheck]:
    """The unsupported-ops check of the report's module for each platform that finds
    something (an empty list when every platform is clean and unwarned), each with the
    verdict ``hloscope check`` prints for it (:meth:`~hloscope.analysis.unsupported.findings.
    CheckReport.verdict`: one function for both)."""
    from ..analysis.unsupported.hlo_check import check_module

    spec = origin.framework_spec()
    if spec is not None:
        by_framework = framework_checks(spec)
        if by_framework is not None:
            return [c for c in by_framework if c.findings]
    module, stage = origin.module_to_check()
    out = []
    for platform in PLATFORMS:
        report = check_module(module, platform, stage=stage)
        if report.findings:
            verdict = report.verdict()
            data = {**report.to_dict(), "verdict": verdict.text}
            out.append(sections.platform_check(data, verdict.supported, stage))
    return out


def mxu(origin: Origin, size: int = DEFAULT_MXU) -> MxuSection | None:
    """The TPU MXU alignment warnings ``hloscope check --device tpu`` gives, of the same
    module the checks read (before optimization where the target has it: the products as
    the program wrote them, not as a CPU or GPU compile tiled them)."""
    module, _stage = origin.module_to_check()
    return sections.mxu_section(mxu_findings(module, size), size)


def framework_checks(spec: str) -> list[PlatformCheck] | None:
    """What ``hloscope check SCRIPT.py:FUNCTION --device P --json`` says for each platform:
    the function lowered by its own framework for the platform, the very check (and verdict)
    the command gives, where the captured HLO only shows how the function was lowered for the
    machine that captured it (its LAPACK kernels say nothing of what GPU or TPU lowerings
    exist). Every platform in one child process (:mod:`._checks_child`): the script is imported
    there, not in the process writing the page, and once for all of them (a TensorFlow import
    is seconds). ``None`` when the checks cannot be run (the offline check of the captured
    module stands in)."""
    import json
    import subprocess
    import sys

    from ..capture.prestart import child_env

    # This hloscope importable in the child (its module is not in an older installed one).
    env = child_env(None, full_locations=False)
    env["TF_CPP_MIN_LOG_LEVEL"] = os.environ.get("TF_CPP_MIN_LOG_LEVEL", "2")
    run = subprocess.Popen(
        [sys.executable, "-m", "hloscope.reporting._checks_child", spec, *PLATFORMS],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
        text=True,
    )
    try:
        text, _ = run.communicate(timeout=CHECK_TIMEOUT_S)
        if run.returncode != 0:
            return None
        answers = json.loads(text)
        return [
            sections.platform_check(data, data["clean"], "program")
            for data in (answers[platform] for platform in PLATFORMS)
        ]
    except (subprocess.TimeoutExpired, ValueError, KeyError):
        return None
    finally:
        # The child ends and its pipe closes, read or not: an open pipe left to the
        # collector warns (ResourceWarning) in whichever later code collects it.
        if run.poll() is None:
            run.kill()
        run.wait()
        if run.stdout is not None:
            run.stdout.close()
