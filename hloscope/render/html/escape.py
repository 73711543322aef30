"""Putting text from other programs into an HTML page without letting it become HTML.

Everything a report shows comes from files someone else wrote: an op_name or a source file
name in HLO metadata can hold any character, ``<script>alert(1)</script>`` included. Three
doors lead into the page and each has its guard:

* **text and attributes** go through Jinja2 with autoescape on (every ``{{ value }}`` is
  escaped; nothing in the templates uses ``|safe`` on data);
* **inline JSON** (:func:`json_for_script`): ``json.dumps`` alone is not enough inside a
  ``<script>`` element, because the HTML parser ends the element at the first ``</script``
  whatever JavaScript thinks of it, and ``<!--`` changes how it looks for that end. Every
  ``<``, ``>`` and ``&`` is written as a ``\\u003c``-style escape (JSON reads it back as the
  same character), and so are U+2028/U+2029, which old JavaScript parsers took for line ends;
* **SVG from Graphviz** (:func:`clean_svg`): ``dot`` escapes labels itself, but the picture is
  still parsed as XML here and refused unless every element is a drawing element, no
  attribute is an event handler and every link points inside the picture. What passes is the
  ``<svg>`` element alone (no XML prolog, no DOCTYPE naming a DTD on the web).
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from typing import Any

from ..errors import UnsafeSvgError

__all__ = ["UnsafeSvgError", "json_for_script", "clean_svg", "SVG_ELEMENTS"]

# What JSON in a <script> must not hold raw (markup, and the two line separators older
# JavaScript refused in a string), each as its \uXXXX escape, which JSON.parse reads back.
_JSON_ESCAPES = {ord(c): f"\\u{ord(c):04x}" for c in "<>&\u2028\u2029"}

#: The SVG elements Graphviz writes; anything else in a picture refuses it.
SVG_ELEMENTS = frozenset(
    {
        "svg",
        "g",
        "title",
        "desc",
        "a",
        "path",
        "polygon",
        "polyline",
        "ellipse",
        "circle",
        "rect",
        "line",
        "text",
        "tspan",
        "defs",
        "linearGradient",
        "radialGradient",
        "stop",
        "image",
    }
)
_SVG_NS = "{http://www.w3.org/2000/svg}"
_XLINK_HREF = "{http://www.w3.org/1999/xlink}href"
_PROLOG_END = re.compile(r"<svg[\s>]")
_COMMENT = re.compile(r"<!--.*?-->", re.S)
# An id, or a link to one, inside a tag (attribute values never hold a raw quote).
_ID = re.compile(r'(\sid|\shref|\sxlink:href)="(#?)')


def json_for_script(value: Any) -> str:
    """``value`` as JSON that can sit between ``<script type="application/json">`` and
    ``</script>``: no ``<``, ``>`` or ``&`` appears raw, so neither ``</script>`` nor ``<!--``
    can end or change the element. ``JSON.parse`` gives back exactly ``value``."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.translate(_JSON_ESCAPES)


def clean_svg(svg: str | bytes, id_prefix: str = "") -> str:
    """The ``<svg>`` element of Graphviz output, checked to hold nothing but drawing.

    The XML prolog, the DOCTYPE and comments are dropped. Raises :class:`UnsafeSvgError` when
    the picture holds an element outside :data:`SVG_ELEMENTS`, an ``on...`` attribute, or a
    link (``href``) that does not start with ``#``. ``id_prefix`` goes in front of every
    ``id`` (and every link to one): ``dot`` numbers its elements the same way in each picture
    (``node1``, ``a_edge2``), and ids must be unique in a page holding several.
    """
    text = svg.decode("utf-8") if isinstance(svg, bytes) else svg
    start = _PROLOG_END.search(text)
    if start is None:
        raise UnsafeSvgError("not an SVG picture (no <svg> element)")
    text = _COMMENT.sub("", text[start.start() :]).strip()
    try:
        root = ET.fromstring(text)
    except ET.ParseError as error:
        raise UnsafeSvgError(f"the SVG picture is not well-formed XML ({error})") from None
    for element in root.iter():
        _check_element(element)
    if id_prefix:
        text = _ID.sub(lambda m: f'{m.group(1)}="{m.group(2)}{id_prefix}', text)
    return text


def _check_element(element: ET.Element) -> None:
    tag = element.tag.removeprefix(_SVG_NS) if isinstance(element.tag, str) else "?"
    if tag not in SVG_ELEMENTS:
        raise UnsafeSvgError(f"the SVG picture holds a <{tag}> element")
    for name, value in element.attrib.items():
        local = name.rpartition("}")[2]
        if local.lower().startswith("on"):
            raise UnsafeSvgError(f"the SVG picture holds an event handler ({local})")
        if (name == _XLINK_HREF or local == "href") and not value.startswith("#"):
            raise UnsafeSvgError("the SVG picture links outside itself")
