"""README: every extra it tells a reader to install is one ``pyproject.toml`` defines, and is
shown in both forms: ``pip install 'hloscope[X]'`` (the package registry) and, for a clone of
this repository, ``pip install '.[X]'`` (the folder; the package name would ask the registry)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_extra_named_in_the_readme_has_its_clone_form() -> None:
    readme = (ROOT / "README.md").read_text()
    extras = set(
        tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    )
    named = re.findall(r"pip install\s+'hloscope\[(\w+)\]'`(.{0,60})", readme)
    assert len(named) >= 7
    for extra, after in named:
        assert extra in extras
        assert f"pip install '.[{extra}]'" in after, (extra, after)
