"""One rule for short source locations in every table and page (render/sources.py)."""

from __future__ import annotations

import pytest

from hloscope.render.check_text import short_source as check_cell
from hloscope.render.fusion_table import render_fusions  # noqa: F401 - it uses the same rule
from hloscope.render.sources import short_source, shorten_source


@pytest.mark.parametrize(
    ("source", "short"),
    [
        ("/home/user/project/model.py:12 (layer_norm)", "model.py:12 (layer_norm)"),
        ("/home/user/project/model.py:12", "model.py:12"),
        ("model.py:12", "model.py:12"),
        ("/home/user/project/model.py", "model.py"),
        # A Keras layer path names the layer by its slashes: nothing to drop.
        ("sequential/conv2d_1/Conv2D", "sequential/conv2d_1/Conv2D"),
        ("jit(step)/jvp(main)/dot_general", "jit(step)/jvp(main)/dot_general"),
        ("", ""),
        (None, ""),
    ],
)
def test_short_source(source, short):
    assert short_source(source) == short


def test_the_check_table_uses_the_shared_rule_and_a_dash_for_none():
    assert check_cell("/a/b/train.py:7") == short_source("/a/b/train.py:7") == "train.py:7"
    assert check_cell("model/dense/MatMul") == "model/dense/MatMul"
    assert check_cell(None) == "-"


def test_shorten_source_keeps_the_line_number_longest():
    text = "a_rather_long_module_name_for_a_model.py:1234 (forward)"
    assert shorten_source(text, 80) == text
    assert shorten_source(text, 45) == "a_rather_long_module_name_for_a_model.py:1234"
    cut = shorten_source(text, 20)
    assert len(cut) == 20 and cut.endswith(":1234")


def test_no_renderer_keeps_a_private_copy():
    from pathlib import Path

    import hloscope.render as render

    copies = [
        str(path.relative_to(Path(render.__file__).parent))
        for path in Path(render.__file__).parent.rglob("*.py")
        if "def _short_source" in path.read_text() or "def _shorten_source" in path.read_text()
    ]
    assert copies == []
