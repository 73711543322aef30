"""A script that calls hloscope on itself: would loading it run the call again?

hloscope finds a ``SCRIPT.py:FUNCTION`` (and the script of a function object it compiles in a
child) by importing the script as a module, which runs the script's top level. When that top
level is what is calling hloscope, outside an ``if __name__ == "__main__":`` block, the import
calls hloscope again, which imports the script again, without end (in this process, or one
child process after another). A whole ``SCRIPT.py`` target is run as ``__main__``, so any call
from the script itself, guarded or not, comes back.

The answer is read from this process's stack, not guessed from the script's text alone: the
frame that runs ``SCRIPT.py``'s top level (its ``<module>`` frame, in ``python SCRIPT.py`` or
in hloscope's own import of it) and the line it is at; that line is safe only inside a
``__name__ == "__main__"`` block, which the import skips. The callers refuse with one line
(:class:`ScriptReentryError`) before any child starts, or, for a function object, rebuild the
program without importing its script.
"""

from __future__ import annotations

import ast
import os
import sys
from types import FrameType

from .errors import ScriptReentryError

__all__ = [
    "ScriptReentryError",
    "import_would_rerun",
    "refuse_reimport",
    "refuse_rerun",
    "running_line",
]

_GUARD = 'if __name__ == "__main__":'


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.realpath(a) == os.path.realpath(b)
    except (OSError, ValueError):
        return False


def _frames() -> list[FrameType]:
    frames: list[FrameType] = []
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        frames.append(frame)
        frame = frame.f_back
    return frames


def running_line(script: str | os.PathLike[str], *, top_level_only: bool = True) -> int | None:
    """The line of ``script`` this process is running now, innermost first: of its top level
    (its ``<module>`` frame) by default, else of any of its frames (a function it defines)."""
    path = os.fspath(script)
    for frame in _frames():
        code = frame.f_code
        if top_level_only and code.co_name != "<module>":
            continue
        if _same_file(code.co_filename, path):
            return frame.f_lineno
    return None


def import_would_rerun(script: str | os.PathLike[str]) -> int | None:
    """The line of ``script``'s top level that importing ``script`` would run again: the line
    its top level is calling from now, when it is outside a ``__name__ == "__main__"`` block
    (``None``: the script's top level is not running, or the call is guarded)."""
    line = running_line(script)
    if line is None:
        return None
    return None if _guarded(os.fspath(script), line) else line


def refuse_reimport(script: str | os.PathLike[str], function: str | None = None) -> None:
    """Raise :class:`ScriptReentryError` when importing ``script`` (to find ``function``) would
    run the calling line again."""
    line = import_would_rerun(script)
    if line is None:
        return
    name = os.path.basename(os.fspath(script))
    what = f" to find {function}" if function else ""
    raise ScriptReentryError(
        f"{name} line {line} calls hloscope from the script's top level, and importing "
        f"{name}{what} runs that line again, without end: put the script's own calls under "
        f"`{_GUARD}`"
    )


def refuse_rerun(script: str | os.PathLike[str]) -> None:
    """Raise :class:`ScriptReentryError` when ``script`` is running in this process: a
    capture of the whole script runs it as ``__main__``, guarded block included."""
    line = running_line(script, top_level_only=False)
    if line is None:
        return
    name = os.path.basename(os.fspath(script))
    raise ScriptReentryError(
        f"{name} line {line} captures {name} itself, and the capture runs {name} again, "
        f"without end: name one of its functions (`{name}:FUNCTION`, the import skips "
        f"`{_GUARD}`) or pass the function object"
    )


def _guarded(script: str, line: int) -> bool:
    """Whether ``line`` of ``script`` lies in the body of an ``if __name__ == "__main__":``
    (or the ``else`` of ``!=``); a script that cannot be read or parsed counts as unguarded."""
    try:
        with open(script, "rb") as handle:
            tree = ast.parse(handle.read(), filename=script)
    except (OSError, SyntaxError, ValueError):
        return False
    for node in ast.walk(tree):
        if isinstance(node, ast.If):
            branch = _main_branch(node.test)
            body = node.body if branch == "body" else node.orelse if branch == "else" else []
            if any(_spans(statement, line) for statement in body):
                return True
    return False


def _spans(statement: ast.stmt, line: int) -> bool:
    end = statement.end_lineno or statement.lineno
    return statement.lineno <= line <= end


def _main_branch(test: ast.expr) -> str | None:
    """``"body"`` for a test ``__name__ == "__main__"`` (either side), ``"else"`` for ``!=``."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return None
    sides = [test.left, test.comparators[0]]
    names = any(isinstance(s, ast.Name) and s.id == "__name__" for s in sides)
    main = any(isinstance(s, ast.Constant) and s.value == "__main__" for s in sides)
    if not (names and main):
        return None
    if isinstance(test.ops[0], ast.Eq):
        return "body"
    return "else" if isinstance(test.ops[0], ast.NotEq) else None
