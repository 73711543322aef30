"""Text is wrapped at spaces only: ``textwrap`` breaks after a hyphen by default, and what
hloscope prints is full of hyphens that belong to a name (``tpu-v5e``, ``all-reduce``,
``one-device``, a script's path). A name split over two lines cannot be searched for or
copied, and a test that looks for it passes or fails with the length of the folder it ran in
(CI's clone failed on ``one- device`` where a shorter path had passed)."""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Callable
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "hloscope"


def _wrapping_calls(tree: ast.AST) -> list[ast.Call]:
    """Calls of ``textwrap.wrap``, ``textwrap.fill`` and ``textwrap.TextWrapper``."""
    names = {"wrap", "fill", "TextWrapper"}
    return [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in names
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "textwrap"
    ]


def _states_long_words(call: ast.Call) -> bool:
    """Whether the call says what becomes of a word longer than the line (a path, a name):
    kept whole (the line runs over) or split."""
    return any(keyword.arg == "break_long_words" for keyword in call.keywords)


def _breaks_on_hyphens(call: ast.Call) -> bool:
    for keyword in call.keywords:
        if keyword.arg == "break_on_hyphens":
            return not (isinstance(keyword.value, ast.Constant) and keyword.value.value is False)
        if keyword.arg is None:  # **options: cannot tell; read as breaking
            return True
    return True


def _wraps_where(fault: Callable[[ast.Call], bool]) -> list[str]:
    """``path:line`` of each wrapping call in the package for which ``fault`` holds."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found += [
            f"{path.relative_to(PACKAGE)}:{call.lineno}"
            for call in _wrapping_calls(tree)
            if fault(call)
        ]
    return found


def test_every_wrap_in_the_package_breaks_at_spaces_only() -> None:
    found = _wraps_where(_breaks_on_hyphens)
    assert not found, f"textwrap without break_on_hyphens=False: {found}"


def test_every_wrap_says_whether_a_word_longer_than_the_line_is_split() -> None:
    # textwrap splits such a word by default: a script's path longer than the line was cut in
    # two ("host_c allback") in a clone with a long folder name, and a test failed with it.
    found = _wraps_where(lambda call: not _states_long_words(call))
    assert not found, f"textwrap without break_long_words: {found}"


def test_the_guard_sees_a_wrap_that_would_split_a_name() -> None:
    # What the guard prevents: textwrap's default splits "one-device" over two lines.
    text = "keep the one-device result"
    assert textwrap.wrap(text, 16) == ["keep the one-", "device result"]
    assert textwrap.wrap(text, 16, break_on_hyphens=False) == ["keep the", "one-device", "result"]
    bad = ast.parse("import textwrap\ntextwrap.fill(text, 80)\n")
    good = ast.parse("import textwrap\ntextwrap.fill(text, 80, break_on_hyphens=False)\n")
    assert [_breaks_on_hyphens(c) for c in _wrapping_calls(bad)] == [True]
    assert [_breaks_on_hyphens(c) for c in _wrapping_calls(good)] == [False]
