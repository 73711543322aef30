"""Source locations made short enough for a table cell: the one way every renderer does it.

A location is ``/long/path/model.py:12 (layer_norm)`` (a file, a line and maybe the function),
or, for TensorFlow, a Keras layer path such as ``model/dense_1/MatMul`` with no file at all.
:func:`short_source` drops the folders of a file and leaves everything else as it is (a layer
path's slashes are its meaning); :func:`shorten_source` cuts one further to a width, keeping the
line number longest. The full location stays in ``--json`` and in the page's tooltips.
"""

from __future__ import annotations

from .terminal import shorten_middle

__all__ = ["short_source", "shorten_source"]


def short_source(source: str | None) -> str:
    """``/long/path/model.py:12 (f)`` -> ``model.py:12 (f)``; ``""`` for no source; a Keras
    layer path or any other text without a file stays as it is."""
    if not source:
        return ""
    path, sep, rest = source.partition(":")
    if not sep:
        # A bare file (no line) loses its folders too; a layer path keeps them.
        return path.rsplit("/", 1)[-1] if path.endswith(".py") else source
    if "/" not in path:
        return source
    return path.rsplit("/", 1)[-1] + sep + rest


def shorten_source(text: str, width: int) -> str:
    """``/long/path/model.py:12 (layer_norm)`` cut to ``width``: the folders go first
    (:func:`short_source`), then the function, then the middle of the file name; the line
    number stays as long as it can (``/tmp/n…p_a.py:26`` says nothing, ``tstep_a.py:26``
    does)."""
    if len(text) <= width:
        return text
    text = short_source(text)
    if len(text) <= width:
        return text
    where, _, _function = text.partition(" (")
    if len(where) <= width:
        return where
    path, sep, line = where.rpartition(":")
    if sep and line.isdigit() and len(line) + 2 < width:
        return shorten_middle(path, width - len(line) - 1) + ":" + line
    return shorten_middle(where, width)
