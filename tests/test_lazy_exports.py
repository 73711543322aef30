"""The one lazy-export mechanism (hloscope.lazy_exports) behind every package that loads its
names on first use: each package's table gives its ``__getattr__``, ``__dir__`` and
``__all__``, and a name in ``__all__`` loads, once, from the module the table names."""

from __future__ import annotations

import importlib
import subprocess
import sys
import types

import pytest

from hloscope.lazy_exports import lazy_exports

LAZY_PACKAGES = (
    "hloscope",
    "hloscope.hlo",
    "hloscope.analysis",
    "hloscope.analysis.recompiles",
    "hloscope.backends",
    "hloscope.bench",
    "hloscope.fleet",
)


def _package(name: str) -> types.ModuleType:
    importlib.import_module(name)
    return sys.modules[name]  # hloscope.fleet and hloscope.capture are functions on hloscope


def test_table_gives_getattr_dir_and_names_in_its_order() -> None:
    namespace: dict[str, object] = {"EAGER": 1}
    getattr_, dir_, names = lazy_exports(
        "hloscope", namespace, {".errors": ("HloscopeError",), ".stages": ("Stage", "STAGES")}
    )
    assert names == ["HloscopeError", "Stage", "STAGES"]
    assert dir_() == ["EAGER", "HloscopeError", "STAGES", "Stage"]
    from hloscope.errors import HloscopeError

    assert getattr_("HloscopeError") is HloscopeError
    assert namespace["HloscopeError"] is HloscopeError  # kept: the next read is a plain lookup
    with pytest.raises(AttributeError, match="'hloscope' has no attribute 'nope'"):
        getattr_("nope")


@pytest.mark.parametrize("name", LAZY_PACKAGES)
def test_every_exported_name_loads_once_and_is_listed_once(name: str) -> None:
    package = _package(name)
    assert len(set(package.__all__)) == len(package.__all__), name
    assert set(package.__all__) <= set(dir(package))
    for exported in package.__all__:
        assert getattr(package, exported) is getattr(package, exported)


def test_from_import_and_star_import_in_a_fresh_interpreter() -> None:
    # A fresh interpreter: nothing this test process already imported can stand in for a load.
    code = (
        "from hloscope import Module, Target, explain_error, memory, __version__\n"
        "from hloscope.hlo import parse, OPCODES\n"
        "from hloscope.backends import capture_for\n"
        "from hloscope.analysis.recompiles import Ledger\n"
        "import sys; assert 'jax' not in sys.modules, 'an offline name imported jax'\n"
        "from hloscope import *\n"
        "print(Module.__module__, parse.__module__, Ledger.__module__, capture_for.__module__)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()
    assert out == [
        "hloscope.hlo.model",
        "hloscope.hlo.parser._driver",
        "hloscope.analysis.recompiles._ledger",
        "hloscope.backends._registry",
    ]
