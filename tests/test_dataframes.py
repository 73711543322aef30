"""pandas is an extra: the DataFrame helpers name it when it is missing, and only they need it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import hloscope
from hloscope.dataframes import MissingPandas, require_pandas

SAMPLE = Path(__file__).resolve().parents[1] / "samples" / "hlo"
SPLIT = SAMPLE / "fusion_refactor_split.after_optimizations.txt"


@pytest.fixture
def no_pandas(monkeypatch):
    # A None entry in sys.modules makes `import pandas` raise ImportError, as on a core install.
    monkeypatch.setitem(sys.modules, "pandas", None)


def test_every_dataframe_helper_names_the_extra(no_pandas):
    report = hloscope.fusion_report(SPLIT)
    assert report.rows()  # the report itself is there without pandas
    calls = [
        lambda: hloscope.fusions(SPLIT),
        report.to_frame,
        lambda: hloscope.check(SPLIT, platform="tpu").to_dataframe(),
    ]
    for call in calls:
        with pytest.raises(MissingPandas, match=r"pip install 'hloscope\[dataframe\]'"):
            call()


def test_with_pandas_the_helpers_give_frames():
    pandas = require_pandas()
    frame = hloscope.fusions(SPLIT)
    assert isinstance(frame, pandas.DataFrame)
    assert len(frame) == len(hloscope.fusion_report(SPLIT).rows())


def test_no_module_imports_pandas_but_through_require_pandas():
    package = Path(hloscope.__file__).parent
    offenders = []
    for path in package.rglob("*.py"):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            code = line.split("#", 1)[0].strip()
            if code.startswith(("import pandas", "from pandas")) and "TYPE_CHECKING" not in code:
                offenders.append(f"{path.relative_to(package)}:{number}: {code}")
    # Type-only imports under `if TYPE_CHECKING:` are indented and allowed.
    runtime = [o for o in offenders if not _is_type_only(package, o)]
    assert not runtime, runtime


def _is_type_only(package: Path, offender: str) -> bool:
    """Whether the import sits in an ``if TYPE_CHECKING:`` block: the nearest line above it
    that is indented less (the block's head) is that ``if``."""
    relative, number, _ = offender.split(":", 2)
    lines = (package / relative).read_text().splitlines()
    line = lines[int(number) - 1]
    indent = len(line) - len(line.lstrip())
    if indent == 0:
        return False
    for previous in reversed(lines[: int(number) - 1]):
        if previous.strip() and len(previous) - len(previous.lstrip()) < indent:
            return previous.strip().startswith("if TYPE_CHECKING")
    return False
