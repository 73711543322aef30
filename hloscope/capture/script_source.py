"""What can be told of a script from its source alone, before a capture process starts.

Starting a capture costs seconds (a fresh Python that imports jax or TensorFlow), so the
mistakes that the source already shows are caught first, in this process, and said in one
line: a file that is not Python (an HLO text file given to ``capture``), a syntax error (with
``file:line:column``), a ``SCRIPT.py:FUNCTION`` whose script never binds ``FUNCTION``.

The source is only parsed (:func:`ast.parse`), never run. The check of the function name is
careful not to cry wolf: a script that can bind names the parser cannot see (``from x import
*``, writes through ``globals()``, a module ``__getattr__``) is given the benefit of the doubt
and left to the capture to judge.
"""

from __future__ import annotations

import ast
import difflib
from collections.abc import Iterator
from pathlib import Path

from .errors import CaptureUsageError

__all__ = ["check_script_source", "module_level_names"]

# How a Python file starts when it is run as a program without the .py suffix.
_PYTHON_SHEBANG = b"#!"


def check_script_source(script: str | Path, function: str | None = None) -> None:
    """Raise :class:`~hloscope.capture.errors.CaptureUsageError` when ``script`` cannot be a
    Python program, or does not define ``function``."""
    path = Path(script)
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise CaptureUsageError(f"{script}: cannot read ({error.strerror or error})") from None
    if path.suffix != ".py" and not _looks_like_python_program(raw):
        raise CaptureUsageError(
            f"{script}: not a Python script (capture runs SCRIPT.py; read HLO text or a dump "
            "folder with summary, fusions, report...)"
        )
    try:
        tree = ast.parse(raw, filename=str(script))
    except SyntaxError as error:
        raise CaptureUsageError(_syntax_error_line(script, error)) from None
    except ValueError as error:  # a NUL byte in the source
        raise CaptureUsageError(f"{script}: not Python source ({error})") from None
    if function is not None:
        _check_function_bound(tree, script, function)


def _looks_like_python_program(raw: bytes) -> bool:
    first_line = raw.split(b"\n", 1)[0]
    return first_line.startswith(_PYTHON_SHEBANG) and b"python" in first_line


def _syntax_error_line(script: str | Path, error: SyntaxError) -> str:
    line = error.lineno or 0
    column = error.offset or 0
    return f"{script}:{line}:{column}: error: {type(error).__name__}: {error.msg}"


def _check_function_bound(tree: ast.Module, script: str | Path, function: str) -> None:
    names = module_level_names(tree)
    if names is None or function in names:
        return
    defined = sorted(
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    )
    close = difflib.get_close_matches(function, sorted(names), n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    # The words of the capture's own check (capture/_runner.py), which this one runs ahead of.
    listed = f" (functions: {', '.join(defined[:8])}{', ...' if len(defined) > 8 else ''})"
    raise CaptureUsageError(
        f"{script} has no function {function!r}{listed if defined else ''}{hint}"
    )


def module_level_names(tree: ast.Module) -> set[str] | None:
    """Every name the module's own code binds at module level, or ``None`` when it may bind
    names the source does not show (a star import, ``globals()``, a module ``__getattr__``)."""
    names: set[str] = set()
    for node in _module_level_statements(tree.body):
        if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
            return None
        if isinstance(node, ast.FunctionDef) and node.name == "__getattr__":
            return None
        names.update(_bound_by(node))
    for anywhere in ast.walk(tree):
        if isinstance(anywhere, ast.Call) and _calls(
            anywhere, ("globals", "setattr", "exec", "vars")
        ):
            return None
        if isinstance(anywhere, ast.Global):
            names.update(anywhere.names)
    return names


def _calls(node: ast.Call, functions: tuple[str, ...]) -> bool:
    return isinstance(node.func, ast.Name) and node.func.id in functions


def _module_level_statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements that run at module level: the body and the blocks of its ``if``,
    ``try``, ``with``, ``for`` and ``while`` statements, not function or class bodies."""
    for node in body:
        yield node
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        for field in ("body", "orelse", "finalbody"):
            yield from _module_level_statements(getattr(node, field, []) or [])
        for handler in getattr(node, "handlers", []) or []:
            yield from _module_level_statements(handler.body)
        for case in getattr(node, "cases", []) or []:
            yield from _module_level_statements(case.body)


def _bound_by(node: ast.stmt) -> Iterator[str]:
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        yield node.name
    elif isinstance(node, ast.Import | ast.ImportFrom):
        for alias in node.names:
            yield alias.asname or alias.name.split(".")[0]
    else:
        # Assignments, for/with targets, walrus expressions, match captures: every Name stored
        # in the statement itself (function bodies are not walked: they are not module level).
        for child in _walk_statement(node):
            if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Store):
                yield child.id
            elif isinstance(child, ast.MatchAs | ast.MatchStar) and child.name:
                yield child.name


def _walk_statement(node: ast.stmt) -> Iterator[ast.AST]:
    # The statement's own expressions, not the nested statements (those are visited on their
    # own by _module_level_statements) nor lambdas and comprehensions (their own scopes).
    stack: list[ast.AST] = [node]
    while stack:
        current = stack.pop()
        yield current
        for child in ast.iter_child_nodes(current):
            if isinstance(child, ast.stmt | ast.Lambda | ast.comprehension):
                continue
            stack.append(child)
