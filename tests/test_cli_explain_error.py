"""`hloscope explain-error`: a file or stdin in, the explanation (or JSON) out, honest exit codes.

The logs are the corpus's real TensorFlow errors and hand-made variants of them; no framework
is imported (the command must not need one, which the last test checks in a fresh process).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import corpus_path

from hloscope.cli import cli

ROOT = Path(__file__).resolve().parent.parent
PYTEST_E_LOG = (
    "tests/test_model.py:12: in test_step\n    y = step(x)\n"
    "E   jax.errors.NonConcreteBooleanIndexError: Array boolean indices must be concrete\n"
)


@pytest.fixture(scope="module")
def corpus_errors() -> Path:
    return corpus_path() / "generated" / "tf_unsupported_errors"


@pytest.fixture(scope="module")
def as_string_log(corpus_errors) -> str:
    return (corpus_errors / "as_string.error.txt").read_text()


@pytest.fixture(scope="module")
def as_string_stack(corpus_errors) -> list[int]:
    """The lines of as_string's failing call in SOURCE.py, innermost first: the op, then
    ``attempt``'s call of the function, then the module's call of ``attempt``."""
    source = (corpus_errors / "SOURCE.py").read_text().splitlines()

    def line_of(code: str) -> int:
        (line,) = [n for n, text in enumerate(source, 1) if code in text]
        return line

    return [
        line_of("tf.strings.as_string(x)"),
        line_of("fn(*args)"),
        line_of('attempt("as_string"'),
    ]


def run(*args, stdin: str | bytes | None = None, columns: int = 80):
    runner = CliRunner(env={"COLUMNS": str(columns)})
    result = runner.invoke(cli, ["explain-error", *map(str, args)], input=stdin)
    return result.exit_code, result.stdout, result.stderr


def test_a_file_is_explained_in_words(corpus_errors, as_string_stack):
    op_line, attempt_line, call_line = as_string_stack
    code, out, err = run(corpus_errors / "as_string.error.txt", columns=200)
    assert code == 0 and err == ""
    assert "TensorFlow could not compile an op with XLA" in out
    for words in (
        "AsString: no XLA kernel for the device",
        "XLA_CPU_JIT (cpu)",
        "as_string  (graph __inference_as_string_7)",
        f"corpus/tf_unsupported_errors.py:{op_line} in as_string",
        "what to do",
        "hloscope check",
    ):
        assert words in out, words
    # Innermost frame first: the op's line before the calls that led there.
    assert (
        out.index(f":{op_line} in as_string")
        < out.index(f":{attempt_line} in attempt")
        < out.index(f":{call_line} in")
    )


@pytest.mark.parametrize("args", [(), ("-",)])
def test_stdin_with_or_without_a_dash(as_string_log, args):
    code, out, _ = run(*args, stdin=as_string_log)
    assert code == 0 and "AsString" in out and "XLA_CPU_JIT" in out


def test_json_reuses_the_finding_fields(as_string_log, as_string_stack):
    code, out, _ = run("--json", stdin=as_string_log)
    assert code == 0
    data = json.loads(out)
    assert data["recognised"] is True and data["platform"] == "cpu"
    assert data["families"] == ["tf2xla"]
    (failure,) = data["failures"]
    contract = {"op", "node", "function", "reason", "dtype", "source", "suggestion"}
    assert contract <= set(failure)
    assert (failure["op"], failure["reason"], failure["function"]) == (
        "AsString",
        "no_kernel",
        "as_string",
    )
    assert failure["device"] == "XLA_CPU_JIT" and failure["graph"] == "as_string"
    assert failure["function_chain"] == ["as_string"] and failure["family"] == "tf2xla"
    assert [f["line"] for f in failure["user_stack"]] == as_string_stack


def test_corpus_files_that_compiled_are_not_recognised(corpus_errors):
    code, out, err = run(corpus_errors / "fine.error.txt")
    assert code == 2 and out == ""
    (line,) = err.splitlines()
    assert line.startswith("hloscope: error: ") and "not recognised" in line
    assert "fine.error.txt" in line and "1 line" in line


def test_unrecognised_stdin_exits_2_and_json_still_prints():
    code, out, err = run(stdin="all good\nloss 0.1\n")
    assert code == 2 and out == "" and "<stdin>: not recognised" in err
    code, out, err = run("--json", stdin="all good\n")
    assert code == 2 and json.loads(out)["recognised"] is False
    assert len(err.splitlines()) == 1


def test_unreadable_files_are_one_line_errors(tmp_path):
    # The command line's rule: a path that does not exist or is of the wrong kind exits 2.
    for path in (tmp_path / "missing.log", tmp_path):
        code, out, err = run(path)
        assert code == 2 and out == ""
        (line,) = err.splitlines()
        assert line.startswith("hloscope: error: ") and str(path) in line


def test_stdin_is_read_as_bytes_in_any_encoding_a_shell_writes(as_string_log):
    # PowerShell pipes UTF-16 with a byte-order mark; bad UTF-8 bytes are replaced, not fatal.
    for data in (
        "\ufeff".encode("utf-16-le") + as_string_log.encode("utf-16-le"),
        b"\xfa\xfb garbage\n" + as_string_log.encode(),
    ):
        code, out, _ = run("--json", stdin=data)
        assert code == 0
        assert json.loads(out)["failures"][0]["op"] == "AsString"


def test_ansi_windows_lines_and_utf16_logs(tmp_path, as_string_log, as_string_stack):
    dressed = "\x1b[31m" + as_string_log.replace("\n", "\r\n").replace(
        "AsString", "\x1b[1mAsString\x1b[0m"
    )
    path = tmp_path / "powershell.log"
    path.write_bytes(dressed.encode("utf-16"))  # BOM included, as PowerShell's `>` writes it
    code, out, _ = run("--json", path)
    assert code == 0
    (failure,) = json.loads(out)["failures"]
    assert failure["op"] == "AsString" and failure["node"] == "AsString"
    assert [f["line"] for f in failure["user_stack"]] == as_string_stack


def test_control_characters_from_the_log_never_reach_the_terminal(as_string_log):
    hostile = as_string_log.replace("{{node AsString}}", "{{node As\x07Str\x9bing}}")
    code, out, _ = run(stdin=hostile)
    assert code == 0 and "\x07" not in out and "\x9b" not in out
    assert "As\\x07Str\\x9bing" in out


def test_pytest_output_is_read():
    code, out, _ = run(stdin=PYTEST_E_LOG, columns=200)
    assert code == 0 and "NonConcreteBooleanIndexError" in out
    assert "tests/test_model.py:12 in test_step" in out


def test_help_explains_with_an_example():
    result = CliRunner().invoke(cli, ["explain-error", "--help"])
    assert result.exit_code == 0
    text = " ".join(result.stdout.split())
    assert "python train.py 2>&1 | hloscope explain-error" in text
    for words in ("stdin", "--json", "Exit status", "nothing recognised", "hloscope check"):
        assert words in text
    assert "explain-error" in CliRunner().invoke(cli, ["--help"]).stdout


def test_explaining_imports_no_framework(as_string_log):
    script = (
        "import sys\n"
        "from click.testing import CliRunner\n"
        "from hloscope.cli import cli\n"
        "r = CliRunner().invoke(cli, ['explain-error'], input=sys.stdin.read())\n"
        "assert r.exit_code == 0, r.output\n"
        "heavy = [m for m in ('jax', 'tensorflow', 'jaxlib') if m in sys.modules]\n"
        "assert not heavy, heavy\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        input=as_string_log,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr


def test_help_fits_80_columns():
    result = CliRunner(env={"COLUMNS": "80"}).invoke(cli, ["explain-error", "--help"])
    assert result.exit_code == 0 and "FAILED_PRECONDITION" in result.stdout
    assert max(map(len, result.stdout.splitlines())) <= 80
