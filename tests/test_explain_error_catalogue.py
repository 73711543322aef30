"""explain-error's kinds keep their words in TOML files beside them (``catalogue.py``).

What a kind's module asks of its file must be there, and what the file holds must be used:
a name spelt two ways would otherwise fail only when a log reaches that line.
"""

from __future__ import annotations

import re
import sys
from importlib import resources
from pathlib import Path

import pytest

from hloscope.analysis.explain_error import catalogue
from hloscope.analysis.explain_error.catalogue import CatalogueError, Patterns, Texts, words_of
from hloscope.analysis.explain_error.forms import Form, alternation, form_of
from hloscope.analysis.unsupported.findings import Reason

KINDS = Path(catalogue.__file__).parent / "kinds"
_USE = {"_RE": re.compile(r"\b_RE\.(\w+)"), "_TEXT": re.compile(r"\b_TEXT\.(\w+)")}
_CONVERTED = sorted(path for path in KINDS.glob("*.py") if path.with_suffix(".toml").exists())


def test_some_kinds_keep_their_words_in_files():
    assert len(_CONVERTED) >= 1
    for toml in KINDS.glob("*.toml"):
        assert toml.with_suffix(".py").exists(), f"{toml.name} has no module"


@pytest.mark.parametrize("path", _CONVERTED, ids=lambda path: path.stem)
def test_each_name_a_kind_uses_is_in_its_file_and_each_in_the_file_is_used(path: Path):
    source = path.read_text()
    module = f"hloscope.analysis.explain_error.kinds.{path.stem}"
    assert "_RE, _TEXT = words_of(__name__)" in source
    patterns, texts = words_of(module)
    used_patterns = set(_USE["_RE"].findall(source))
    used_texts = set(_USE["_TEXT"].findall(source))
    assert used_patterns == set(patterns.names()), path.name
    assert used_texts == set(texts.names()), path.name
    for name in patterns.names():
        assert isinstance(getattr(patterns, name), re.Pattern)


def test_the_files_ship_in_the_package():
    # pyproject's package-data must name them: an installed hloscope reads them as resources.
    kinds = resources.files("hloscope.analysis.explain_error.kinds")
    names = {entry.name for entry in kinds.iterdir()}
    assert {path.name for path in KINDS.glob("*.toml")} <= names
    pyproject = (Path(__file__).parents[1] / "pyproject.toml").read_text()
    assert "analysis/explain_error/kinds/*.toml" in pyproject


def test_an_array_is_joined_and_inline_flags_hold(tmp_path: Path, monkeypatch):
    package = tmp_path / "arraykinds"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "joined.toml").write_text(
        "[patterns]\n"
        "two = [\n"
        "  '(?m)^a',  # a comment between the parts\n"
        "  '|b$',\n"
        "]\n"
        "[texts]\n"
        "hello = ['hi ', '{who}']\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    patterns, texts = words_of("arraykinds.joined")
    assert patterns.two.findall("a\nxb\nab") == ["a", "b", "a", "b"]
    assert texts.hello.format(who="you") == "hi you"


def test_a_name_the_file_lacks_is_an_error_that_says_where():
    patterns = Patterns({}, "kinds/x.toml")
    with pytest.raises(CatalogueError, match=r"kinds/x\.toml: no pattern named 'missing'"):
        patterns.missing  # noqa: B018
    with pytest.raises(CatalogueError, match="no text named 'gone'"):
        Texts({}, "kinds/x.toml").gone  # noqa: B018


def test_a_broken_pattern_says_its_file_and_name():
    with pytest.raises(CatalogueError, match=r"x\.toml: pattern bad: "):
        Patterns({"bad": "(unclosed"}, "x.toml").bad  # noqa: B018


def test_a_file_that_is_not_toml_is_a_catalogue_error(tmp_path: Path, monkeypatch):
    package = tmp_path / "fakekinds"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "broken.toml").write_text("[patterns\nopening = 'x'\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(CatalogueError, match="broken.toml"):
        words_of("fakekinds.broken")
    with pytest.raises(CatalogueError, match="missing.toml"):
        words_of("fakekinds.missing")


def test_leading_flags_become_the_patterns_flags_so_patterns_join_into_one_alternation():
    # registry.joined puts recognisers' .pattern texts side by side with "|": a global flag
    # past the start of the joined text is an error, so the file's "(?m)" must become flags.
    patterns = Patterns({"lines": "(?ms)^a.b", "plain": "c"}, "f.toml")
    assert patterns.lines.pattern == "^a.b"
    assert patterns.lines.flags & re.M and patterns.lines.flags & re.S
    joined = re.compile(f"{patterns.plain.pattern}|{patterns.lines.pattern}", patterns.lines.flags)
    assert joined.findall("x\na\nb") == ["a\nb"]


def _kind_file(tmp_path: Path, monkeypatch, name: str, text: str) -> str:
    package = tmp_path / "formkinds"
    package.mkdir(exist_ok=True)
    (package / "__init__.py").write_text("")
    (package / f"{name}.toml").write_text(text)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "formkinds", raising=False)  # another test's package
    return f"formkinds.{name}"


def test_forms_are_read_whole_in_the_files_order(tmp_path: Path, monkeypatch):
    module = _kind_file(
        tmp_path,
        monkeypatch,
        "two",
        "[forms.later_first]\n"
        "pattern = ['Z(?P<z>\\d+)', ' zed']\n"
        "reason = 'dtype'\n"
        "[forms.alpha]\n"
        "pattern = 'A(?P<a>\\w)'\n"
        "op = 'alpha op'\n"
        "reason = 'export'\n"
        "fixes = ['one', 'two']\n"
        "meaning = ['what ', 'it means']\n",
    )
    later, alpha = catalogue.forms_of(module)
    assert (later.group, later.pattern, later.op, later.reason) == (
        "later_first",
        r"Z(?P<z>\d+) zed",
        "",
        Reason.DTYPE,
    )
    assert (later.fix_keys, later.meaning) == ((), "")
    assert alpha == Form(
        "alpha", r"A(?P<a>\w)", "alpha op", Reason.EXPORT, ("one", "two"), "what it means"
    )
    matched = alternation((later, alpha)).search("xx Ab Z12 zed")
    assert matched is not None and form_of((later, alpha), matched) is alpha


@pytest.mark.parametrize(
    ("table", "says"),
    [
        ("pattern = 'A'\nreason = 'exprot'\n", "[forms.f]: reason 'exprot' is none of"),
        ("pattern = 'A'\n", "[forms.f]: no reason"),
        ("reason = 'export'\n", "[forms.f]: no pattern"),
        ("pattern = 'A'\nreason = 'export'\nfix = ['k']\n", "[forms.f]: unknown field 'fix'"),
        ("pattern = 'A'\nreason = 'export'\nfixes = 'k'\n", "[forms.f]: fixes is not an array"),
        ("pattern = 3\nreason = 'export'\n", "[forms.f]: pattern is neither a string"),
    ],
)
def test_a_bad_form_is_an_error_naming_the_file_and_the_form(tmp_path, monkeypatch, table, says):
    module = _kind_file(tmp_path, monkeypatch, "bad", "[forms.f]\n" + table)
    with pytest.raises(CatalogueError) as caught:
        catalogue.forms_of(module)
    assert str(caught.value).startswith("formkinds/bad.toml: ")
    assert says in str(caught.value)


def test_every_kind_with_forms_reads_them_from_its_file():
    # A module whose messages come in forms keeps none of them in code: forms_of reads them.
    # (xla_status builds its forms from its patterns and from XLA's list of status codes.)
    with_forms = [path for path in _CONVERTED if "alternation(" in path.read_text()]
    assert len(with_forms) == 5
    for path in with_forms:
        if path.stem == "xla_status":
            continue
        source = path.read_text()
        assert "Form(" not in source and "= forms_of(__name__)" in source, path.name
        assert catalogue.forms_of(f"hloscope.analysis.explain_error.kinds.{path.stem}")
