"""The page of a function whose compile failed: what ``hloscope report`` writes instead of
the report when the framework refused to lower or compile it (see
:mod:`hloscope.render.html.failed_report`), with ``report --try``'s variants when asked."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..render.html.failed_report import FailedReport
from ._checks import framework_checks
from ._what_if import add_what_if

if TYPE_CHECKING:  # pragma: no cover
    from ..capture.errors import CaptureError
    from ..devices import DeviceSpec
    from ..drivers.variants import VariantOptions

__all__ = ["build_failed_report", "failed_compile"]


def build_failed_report(
    spec: str,
    error: CaptureError,
    *,
    device: str | DeviceSpec | None = None,
    what_if: VariantOptions | None = None,
    goal: str = "fit",
    audit: list[str] | None = None,
) -> FailedReport:
    """The page of a ``SCRIPT.py:FUNCTION`` whose compile failed with ``error`` (see
    :mod:`hloscope.render.html.failed_report`): ``hloscope check`` of the function for each
    platform (the platforms that find something), the compile error whole (the capture's
    manifest keeps it, else the one line ``error`` says), the function's source read from the
    script without importing it, and the framework versions that ran. ``what_if`` (for a TPU
    chip or slice ``device``) adds ``hloscope try``'s variants of the function ranked by
    ``goal``, or ``audit`` its flag audit: the baseline refused, and which variants compile
    and fit."""
    from ..capture.target import is_function_spec

    manifest = _failed_manifest(error)
    out = FailedReport(
        target=spec,
        error=manifest.get("error_text") or error.one_line(),
        versions={k: str(v) for k, v in (manifest.get("versions") or {}).items() if v},
    )
    found = framework_checks(spec)
    if found is None:
        out.notes.append("unsupported ops left out: hloscope check of the function did not run")
    else:
        out.checks = [c for c in found if c.findings]
    if is_function_spec(spec):
        script, function = spec.rsplit(":", 1)
        out.source_file = script
        out.source = _function_source(Path(script), function)
    if error.output_dir:
        out.notes.append(f"the capture's files (stderr.txt, manifest.json): {error.output_dir}")
    if what_if is not None or audit is not None:
        add_what_if(out, spec, device, what_if, goal, audit)
    return out


def failed_compile(error: CaptureError) -> bool:
    """Whether ``error`` is a function's capture that failed while its framework lowered or
    compiled it (what :func:`build_failed_report` writes a page of), not before: the script
    could not be imported, its example arguments are missing, a framework is absent."""
    manifest = _failed_manifest(error)
    return bool(manifest.get("compiling")) and not manifest.get("timed_out")


def _failed_manifest(error: CaptureError) -> dict[str, Any]:
    """The manifest of the failed capture ``error`` names (empty when there is none)."""
    import json

    if not error.output_dir:
        return {}
    try:
        data = json.loads((Path(error.output_dir) / "manifest.json").read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _function_source(script: Path, function: str) -> list[tuple[int, str]]:
    """The lines of ``def function`` in ``script``, its decorators included, numbered as in
    the file (read with :mod:`ast`, never imported); empty when it cannot be found."""
    import ast

    try:
        text = script.read_text(encoding="utf-8", errors="replace")
        tree = ast.parse(text)
    except (OSError, SyntaxError, ValueError):
        return []
    lines = text.splitlines()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == function:
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            last = node.end_lineno or node.lineno
            return [(n, lines[n - 1]) for n in range(first, last + 1)]
    return []
