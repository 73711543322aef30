"""The Jinja2 side of the HTML output: one environment, the page's CSS and JavaScript, and the
Content-Security-Policy that keeps the page offline.

Templates live in ``templates/`` inside the package (shipped as package data), and the
environment escapes every ``{{ value }}`` (autoescape on, undefined names are errors). The
stylesheet and the script are plain files there too, read as they are (not as templates, so a
``{`` in CSS means nothing to Jinja) and put inline: the page needs no other file and no
network.

The page carries its own policy (:func:`content_security_policy`): nothing may be loaded from
anywhere (``default-src 'none'``), styles only inline, and the one script only if its SHA-256
is the one the policy names. A ``<script>`` that got into the page some other way would not
run, even if escaping had failed.
"""

from __future__ import annotations

import base64
import hashlib
import re
import uuid
from dataclasses import dataclass
from functools import cache
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from markupsafe import Markup, escape

from ...units import format_bytes, format_count
from ..sources import short_source
from .escape import json_for_script

__all__ = [
    "environment",
    "render",
    "Assets",
    "assets",
    "content_security_policy",
    "new_uid",
    "TABLE_PAGE",
]

#: Rows a long table lays out when the page opens; the script shows the rest on demand.
TABLE_PAGE = 200


@cache
def environment() -> Environment:
    """The Jinja2 environment of hloscope's HTML templates (made once)."""
    env = Environment(
        loader=PackageLoader("hloscope.render.html", "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
    )
    env.filters["bytes"] = format_bytes
    env.filters["count"] = format_count
    env.filters["num"] = _number_value
    env.filters["intensity"] = _intensity
    env.filters["script_json"] = lambda value: Markup(json_for_script(value))
    env.filters["short_source"] = short_source
    env.filters["breakable"] = breakable
    return env


@dataclass(frozen=True, slots=True)
class Assets:
    """The page's stylesheet and script, and the script's CSP hash."""

    css: Markup
    js: Markup
    js_hash: str


@cache
def assets() -> Assets:
    """The inline CSS and JS, read from the templates folder once."""
    env = environment()
    css = env.loader.get_source(env, "report.css")[0]  # type: ignore[union-attr]
    js = env.loader.get_source(env, "report.js")[0]  # type: ignore[union-attr]
    digest = base64.b64encode(hashlib.sha256(js.encode("utf-8")).digest()).decode("ascii")
    # The files are ours, not data: they go in as they are.
    return Assets(Markup(css), Markup(js), f"sha256-{digest}")


def content_security_policy() -> str:
    """The policy of a standalone report: nothing from the network, the one script we wrote."""
    return (
        "default-src 'none'; "
        "style-src 'unsafe-inline'; "
        f"script-src '{assets().js_hash}'; "
        "img-src data:; "
        "base-uri 'none'; form-action 'none'"
    )


def render(template: str, **context: Any) -> str:
    """Render ``template`` with ``context`` plus the assets (``css``, ``js``, ``csp``) and the
    table ``page`` (:data:`TABLE_PAGE`, unless ``context`` says otherwise)."""
    a = assets()
    context.setdefault("page", TABLE_PAGE)
    return (
        environment()
        .get_template(template)
        .render(css=a.css, js=a.js, csp=content_security_policy(), **context)
    )


def new_uid() -> str:
    """A prefix for element ids, so that two reports in one notebook keep their ids apart."""
    return "hs" + uuid.uuid4().hex[:8]


def _number_value(value: Any) -> str:
    """A number as the sort key of a table cell (``data-v``); ``""`` for none."""
    if value is None or isinstance(value, bool):
        return ""
    if isinstance(value, float):
        return repr(value) if value == value and value not in (float("inf"), float("-inf")) else ""
    return str(value)


def _intensity(value: float | None) -> str:
    """FLOPs per byte, as the terminal table shows it."""
    if value is None:
        return "-"
    return f"{value:.2f}" if value < 100 else f"{value:,.0f}"


_JOINTS = re.compile(r"([_/.+\-:])")


def breakable(text: object) -> Markup:
    """``text`` escaped, with a line-break opportunity (``<wbr>``) after each joint of a name
    (``_ / . + - :``): a long kernel name, op_name or shape in a
    narrow column breaks where a reader would, not in the middle of a word."""
    escaped = str(escape(str(text)))
    return Markup(_JOINTS.sub(lambda m: m.group(1) + "<wbr>", escaped))
