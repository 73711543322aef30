"""What the graph tests share for reading the SVG files Graphviz writes."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

# Skips without Graphviz's dot in a user's clone, fails under CI=true (tests/conftest.py).
needs_dot = pytest.mark.needs_dot

SVG = "{http://www.w3.org/2000/svg}"
XLINK_TITLE = "{http://www.w3.org/1999/xlink}title"


def svg_root(data: bytes) -> ET.Element:
    """Parse SVG bytes; fails the test when they are not well-formed XML."""
    return ET.fromstring(data)


def svg_texts(root: ET.Element) -> list[str]:
    return [t.text or "" for t in root.iter(SVG + "text")]


def svg_tooltips(root: ET.Element) -> list[str]:
    """Tooltips: dot writes them as xlink:title on <a> elements."""
    return [a.get(XLINK_TITLE) or "" for a in root.iter(SVG + "a")]
