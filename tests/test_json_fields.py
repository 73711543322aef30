"""json_fields: the shared body of the to_dict methods that list their record's attributes."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from hloscope.analysis.passes import QuietPass
from hloscope.capture.cache import CachedFiles
from hloscope.json_fields import json_fields


class _Colour(StrEnum):
    RED = "red"


@dataclass
class _Record:
    name: str
    colour: _Colour
    folder: Path
    dims: tuple[int, ...]
    sizes: dict[str, int] = field(default_factory=dict)

    @property
    def rank(self) -> int:
        return len(self.dims)


def test_names_in_order_renamed_and_json_ready():
    record = _Record("a", _Colour.RED, Path("/tmp/x"), (2, 3), {"k": 1})
    out = json_fields(record, "rank label=name colour folder dims sizes")
    assert list(out) == ["rank", "label", "colour", "folder", "dims", "sizes"]
    assert out == {
        "rank": 2,
        "label": "a",
        "colour": "red",
        "folder": "/tmp/x",
        "dims": [2, 3],
        "sizes": {"k": 1},
    }
    assert type(out["colour"]) is str and type(out["folder"]) is str
    assert out["sizes"] is not record.sizes  # a copy: the record is not handed out
    assert json.loads(json.dumps(out)) == out


def test_a_record_of_the_package_keeps_its_keys():
    from hloscope.analysis.passes import Quiet

    quiet = QuietPass("simplify", "opt", 3, Quiet.SAME_TEXT)
    assert quiet.to_dict() == {
        "pass": "simplify",
        "pipeline": "opt",
        "step": 3,
        "reason": "same text",
    }
    files = CachedFiles(Path("/c/try"), 2, 10)
    assert files.to_dict() == {"folder": "/c/try", "count": 2, "size": 10}
