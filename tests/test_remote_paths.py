"""Remote TARGETs (issue 23): dumps and HLO files read where they live, through fsspec.

The oracle is the local copy: a dump uploaded to ``memory://`` (fsspec's in-process store, for
the fast tests) or to a real S3 API (moto's server mode, :mod:`s3_server`) must give the same
``ls``, ``summary`` and ``fusions`` output as the folder it was copied from, once the root's
text is replaced. Errors in remote files name the URL with line and column, a command reads
only the files it needs (counted at the store), and without the ``cloud`` extra a URL is one
line naming ``hloscope[cloud]``.
"""

from __future__ import annotations

import itertools
import os
import pickle
import re
import shutil
import subprocess
import sys
from pathlib import Path

import fsspec
import pytest
from click.testing import CliRunner
from conftest import DATA, ROOT, SAMPLES
from s3_server import (
    fresh_bucket,
    s3_server,  # noqa: F401  (a fixture)
    s3_url,
    upload_tree,
)
from svg_files import needs_dot

from hloscope.capture.target import Target, TargetKind
from hloscope.cli import cli
from hloscope.dump.errors import DumpFormatError
from hloscope.dump.index import load_dump

GENERATED = DATA / "generated"
# Small dumps that between them have recompiles, per-pass dumps, buffer assignments, live
# ranges and memory reports.
DUMPS = ["jax_mlp_train", "jax_pass_dumps", "jax_recompiles", "jax_control_flow"]
HLO_FILES = [
    "fusion_refactor_split.after_optimizations.txt",
    "keras_cnn.after_optimizations.txt",
]

# Commands that print the same text locally and remotely, once the root is replaced.
COMMANDS = [
    ["ls"],
    ["ls", "--json"],
    ["ls", "--wide"],
    ["summary"],
    ["summary", "--json"],
    ["summary", "--all-modules"],
    ["fusions"],
    ["fusions", "--json"],
]


def invoke(*args: str):
    # Wide enough that no path is shortened to fit: a shortened root cannot be replaced by
    # <ROOT>, and a clone at a longer path (CI's) would be cut where this one is not.
    return CliRunner(env={"COLUMNS": "1000"}).invoke(cli, list(args), catch_exceptions=False)


def same_up_to_root(local_out: str, local_root: str, remote_out: str, remote_root: str) -> None:
    """Equal once each root is ``<ROOT>`` (and a panel's rule, whose length follows the
    title's, is one dash)."""

    def norm(text: str, root: str) -> str:
        return re.sub("─+", "─", text.replace(root, "<ROOT>"))

    assert norm(remote_out, remote_root) == norm(local_out, local_root)


_stores = itertools.count()


@pytest.fixture
def memory_store():
    """A fresh ``memory://`` prefix, removed afterwards (the store lives as long as the
    process)."""
    fs = fsspec.filesystem("memory")
    prefix = f"/m{next(_stores)}"  # short: a panel's title holds the whole URL
    yield fs, f"memory://{prefix.lstrip('/')}", prefix
    if fs.exists(prefix):
        fs.rm(prefix, recursive=True)


def put(fs, local: Path, prefix: str, name: str) -> None:
    fs.put(str(local), f"{prefix}/{name}", recursive=local.is_dir())


def local_copy(tmp_path: Path, dump: str) -> Path:
    """A copy of a dump of tests/data, to damage."""
    target = tmp_path / dump
    shutil.copytree(GENERATED / dump, target)
    return target


# ---- memory://: the same output as the local copy -----------------------------------------------


@pytest.mark.parametrize("dump", DUMPS)
@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_memory_dump_gives_the_local_output(memory_store, tmp_path, dump, command):
    fs, url_root, prefix = memory_store
    local = GENERATED / dump
    put(fs, local, prefix, dump)
    remote = f"{url_root}/{dump}"
    here = invoke(*command, str(local))
    there = invoke(*command, remote)
    assert there.exit_code == here.exit_code
    same_up_to_root(here.stdout, str(local), there.stdout, remote)
    same_up_to_root(here.stderr, str(local), there.stderr, remote)
    assert here.stdout.strip()


@pytest.mark.parametrize("name", HLO_FILES)
@pytest.mark.parametrize("command", [c for c in COMMANDS if c[0] != "ls"], ids=" ".join)
def test_memory_hlo_file_gives_the_local_output(memory_store, name, command):
    fs, url_root, prefix = memory_store
    local = SAMPLES / "hlo" / name
    put(fs, local, prefix, name)
    remote = f"{url_root}/{name}"
    here = invoke(*command, str(local))
    there = invoke(*command, remote)
    assert there.exit_code == here.exit_code == 0
    same_up_to_root(here.stdout, str(local), there.stdout, remote)


def same_graph(command: list[str], suffix: str, local: str, remote: str, tmp: Path) -> None:
    """``hloscope graph`` writes the same file of a local target and of its URL."""
    out_here, out_there = tmp / f"here{suffix}", tmp / f"there{suffix}"
    here = invoke(*command, local, "-o", str(out_here))
    there = invoke(*command, remote, "-o", str(out_there))
    assert here.exit_code == there.exit_code == 0, there.output
    assert out_there.read_bytes() == out_here.read_bytes()


@needs_dot
def test_graph_draws_a_remote_target_as_the_local_one(memory_store, tmp_path):
    """An SVG (Graphviz's dot) of a URL, a dump's or a file's, is the local target's."""
    fs, url_root, prefix = memory_store
    dump = GENERATED / "jax_mlp_train"
    put(fs, dump, prefix, "dump")
    name = "fusion_refactor_split.after_optimizations.txt"
    put(fs, SAMPLES / "hlo" / name, prefix, name)
    same_graph(["graph"], ".svg", str(dump), f"{url_root}/dump", tmp_path)
    same_graph(["graph"], ".svg", str(SAMPLES / "hlo" / name), f"{url_root}/{name}", tmp_path)


def test_other_commands_read_remote_targets(memory_store, tmp_path):
    """graph, diff, memory, collectives, check and report take a URL too, with the local
    output."""
    fs, url_root, prefix = memory_store
    dump = GENERATED / "jax_mlp_train"
    put(fs, dump, prefix, "dump")
    name = "fusion_refactor_split.after_optimizations.txt"
    put(fs, SAMPLES / "hlo" / name, prefix, name)
    other = "fusion_refactor_fused.after_optimizations.txt"
    put(fs, SAMPLES / "hlo" / other, prefix, other)
    before = name.replace("after", "before")  # check reads the stage beside a file
    put(fs, SAMPLES / "hlo" / before, prefix, before)
    pairs = [
        (str(dump), f"{url_root}/dump"),
        (str(SAMPLES / "hlo" / name), f"{url_root}/{name}"),
    ]
    for local, remote in pairs:
        for command in (["memory"], ["memory", "--json"], ["collectives"], ["check"]):
            here, there = invoke(*command, local), invoke(*command, remote)
            assert there.exit_code == here.exit_code, (command, there.output)
            same_up_to_root(here.stdout, local, there.stdout, remote)
        same_graph(["graph", "--format", "dot"], ".dot", local, remote, tmp_path)
    here = invoke("diff", str(SAMPLES / "hlo" / name), str(SAMPLES / "hlo" / other))
    there = invoke("diff", f"{url_root}/{name}", f"{url_root}/{other}")
    assert there.exit_code == here.exit_code
    # The same words (lines fold where the names' lengths put them).
    text = here.stdout.replace(str(SAMPLES / "hlo") + "/", "").split()
    assert there.stdout.replace(url_root + "/", "").split() == text
    for local, remote in pairs:
        report_here, report_there = tmp_path / "here.html", tmp_path / "there.html"
        assert invoke("report", local, "-o", str(report_here)).exit_code == 0
        result = invoke("report", remote, "-o", str(report_there))
        assert result.exit_code == 0, result.output

        # The same page, once the root is replaced and the graphs' element ids (a hash of the
        # target's name, unique per page) are made one.
        def page(path, root):
            return re.sub("hsg[0-9a-f]+-", "hsg-", path.read_text().replace(root, "<ROOT>"))

        assert page(report_there, remote) == page(report_here, local)


# ---- errors -------------------------------------------------------------------------------------


def test_a_parse_error_in_a_remote_file_names_the_url_line_and_column(memory_store, tmp_path):
    """The local copy's error line (the parser's own line and column), with the URL."""
    fs, url_root, prefix = memory_store
    text = (SAMPLES / "hlo" / HLO_FILES[0]).read_text().splitlines()
    text[3] = "  broken = f32[4 add("  # line 4
    local = tmp_path / "bad.txt"
    local.write_text("\n".join(text))
    put(fs, local, prefix, "bad.txt")
    here, there = invoke("summary", str(local)), invoke("summary", f"{url_root}/bad.txt")
    assert there.exit_code == here.exit_code == 2
    first = there.stderr.splitlines()[0]
    assert first.startswith(f"{url_root}/bad.txt:4:"), first
    assert there.stderr.replace(f"{url_root}/bad.txt", "<F>") == here.stderr.replace(
        str(local), "<F>"
    )


def test_a_broken_module_in_a_remote_dump_is_one_line_naming_its_url(memory_store, tmp_path):
    """The same error line as for the local copy, file:line:column, with the URL."""
    fs, url_root, prefix = memory_store
    local = local_copy(tmp_path, "jax_recompiles")
    victim = next(
        p for p in sorted(local.iterdir()) if "jit_norm.cpu_after_optimizations.txt" in p.name
    )
    victim.write_bytes(b"HloModule m\n\nENTRY e {\n  p = f32[ parameter(0)\n}\n")
    put(fs, local, prefix, "dump")
    here, there = invoke("ls", str(local)), invoke("ls", f"{url_root}/dump")
    assert there.exit_code == here.exit_code == 1
    errors = [line for line in there.stderr.splitlines() if "error" in line]
    assert len(errors) == 1
    assert errors[0].startswith(f"{url_root}/dump/{victim.name}:5:1: error: "), errors
    assert there.stderr.replace(f"{url_root}/dump", "<ROOT>") == here.stderr.replace(
        str(local), "<ROOT>"
    )


def test_a_remote_buffer_assignment_that_is_not_text_names_its_url_and_line(memory_store):
    fs, url_root, prefix = memory_store
    put(fs, GENERATED / "jax_mlp_train", prefix, "dump")
    index = load_dump(f"{url_root}/dump")
    module = index.modules[0]
    ba = module.companions("buffer-assignment")[0]
    fs.pipe(ba.location.removeprefix("memory:/"), b"BufferAssignment:\nline two\n\0binary")
    with pytest.raises(DumpFormatError) as caught:
        module.buffer_assignment()
    assert caught.value.one_line().startswith(f"{ba.location}:3: error: binary data")


def test_missing_remote_prefix_and_file_are_clear_errors(memory_store):
    _, url_root, _ = memory_store
    result = invoke("ls", f"{url_root}/nothing-here")
    assert result.exit_code == 2
    assert result.stderr == f"{url_root}/nothing-here: error: no such folder\n"
    result = invoke("summary", f"{url_root}/missing.txt")
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        f"hloscope: error: {url_root}/missing.txt: no such file or folder "
        "(a URL TARGET is a dump folder or an HLO file)"
    ]


def test_a_remote_file_given_to_ls_is_not_a_folder(memory_store):
    fs, url_root, prefix = memory_store
    put(fs, SAMPLES / "hlo" / HLO_FILES[0], prefix, HLO_FILES[0])
    result = invoke("ls", f"{url_root}/{HLO_FILES[0]}")
    assert result.exit_code == 2
    assert "not a folder" in result.stderr


def test_a_script_target_cannot_be_a_url():
    for spec in ("s3://bucket/train.py", "s3://bucket/train.py:step"):
        result = invoke("summary", spec)
        assert result.exit_code != 0
        assert result.stderr.splitlines() == [
            f"hloscope: error: {spec}: a script target cannot be a URL (scripts run here: "
            "copy it here; a URL TARGET is a dump folder or an HLO file)"
        ]


def test_a_remote_file_has_no_local_path(memory_store):
    fs, url_root, prefix = memory_store
    put(fs, GENERATED / "jax_control_flow", prefix, "dump")
    file = next(load_dump(f"{url_root}/dump").files)
    with pytest.raises(DumpFormatError, match="a remote file has no local path"):
        file.path  # noqa: B018  (the property is the test)
    target = Target.resolve(f"{url_root}/dump")
    assert target.kind is TargetKind.DUMP and target.is_remote
    with pytest.raises(Exception, match="needs a local file or folder"):
        target.path  # noqa: B018


# ---- only the files a command needs -------------------------------------------------------------


class Reads:
    """Counts what is fetched from the memory store (every read goes through ``cat_file``)."""

    def __init__(self, monkeypatch):
        self.paths: list[str] = []
        original = fsspec.implementations.memory.MemoryFileSystem.cat_file
        reads = self

        def counting(fs, path, *args, **kwargs):
            reads.paths.append(str(path))
            return original(fs, path, *args, **kwargs)

        monkeypatch.setattr(fsspec.implementations.memory.MemoryFileSystem, "cat_file", counting)

    def names(self) -> list[str]:
        return sorted(p.rpartition("/")[2] for p in self.paths)


def test_commands_read_only_the_files_they_need(memory_store, monkeypatch):
    fs, url_root, prefix = memory_store
    put(fs, GENERATED / "jax_pass_dumps", prefix, "dump")
    url = f"{url_root}/dump"
    reads = Reads(monkeypatch)
    assert invoke("ls", "--no-parse", url).exit_code == 0
    assert reads.paths == []  # a listing reads no file
    index = load_dump(url)
    main = max(index.modules, key=lambda m: m.after_file.size if m.after_file else 0)
    assert invoke("summary", url).exit_code == 0
    assert reads.names() == [main.after_file.name.filename]  # the largest module, no other
    reads.paths.clear()
    assert invoke("summary", "--stage", "before", url).exit_code == 0
    assert reads.names() == [main.before_file.name.filename]
    reads.paths.clear()
    assert invoke("ls", url).exit_code == 0
    wanted = {"hlo", "buffer-assignment", "buffer-assignment-values", "live-range"}
    kinds = {f.name.filename: f for f in index.files}
    read = [kinds[name] for name in reads.names()]
    assert {f.kind for f in read} <= wanted | {"memory-usage-report"}
    assert not any(f.name.stage == "pass" for f in read)  # 50 per-pass snapshots: unread
    assert len(reads.paths) == len(set(reads.paths))  # each file once


def test_a_remote_index_pickles_and_reads_after_unpickling(memory_store):
    """Indexes travel to Dask workers; a worker reads the files through the store."""
    fs, url_root, prefix = memory_store
    put(fs, GENERATED / "jax_mlp_train", prefix, "dump")
    index = pickle.loads(pickle.dumps(load_dump(f"{url_root}/dump")))
    local = load_dump(GENERATED / "jax_mlp_train")
    for here, there in zip(local.modules, index.modules, strict=True):
        assert there.after().name == here.after().name
        assert there.memory() == here.memory()


# ---- a real S3 API (moto's server mode) ---------------------------------------------------------


@pytest.fixture
def s3_dumps(s3_server):  # noqa: F811
    bucket = fresh_bucket("h")  # short: a panel's title holds the whole URL
    urls = {d: upload_tree(GENERATED / d, s3_url(bucket, "nightly", d, "dump")) for d in DUMPS[:3]}
    file_url = s3_url(bucket, "f", HLO_FILES[0])
    upload_tree(SAMPLES / "hlo", s3_url(bucket, "f"))
    return urls, file_url


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_s3_dumps_give_the_local_output(s3_dumps, command):
    urls, _ = s3_dumps
    for dump, url in urls.items():
        local = GENERATED / dump
        here, there = invoke(*command, str(local)), invoke(*command, url)
        assert there.exit_code == here.exit_code, there.output
        same_up_to_root(here.stdout, str(local), there.stdout, url)
        same_up_to_root(here.stderr, str(local), there.stderr, url)


def test_s3_hlo_file_gives_the_local_output(s3_dumps):
    _, file_url = s3_dumps
    local = SAMPLES / "hlo" / HLO_FILES[0]
    for command in (["summary"], ["fusions", "--json"]):
        here, there = invoke(*command, str(local)), invoke(*command, file_url)
        assert there.exit_code == here.exit_code == 0
        same_up_to_root(here.stdout, str(local), there.stdout, file_url)


@pytest.mark.slow  # a subprocess
def test_s3_ls_in_a_fresh_process(s3_dumps):
    """``python -m hloscope ls s3://...`` with credentials and endpoint from the environment
    only, as a user runs it."""
    urls, _ = s3_dumps
    dump, url = next(iter(urls.items()))
    env = {**os.environ, "COLUMNS": "1000"}  # no root wrapped or cut (see invoke)
    here = subprocess.run(
        [sys.executable, "-m", "hloscope", "ls", str(GENERATED / dump)],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
    )
    there = subprocess.run(
        [sys.executable, "-m", "hloscope", "ls", url],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
    )
    assert there.returncode == here.returncode == 0, there.stderr
    same_up_to_root(here.stdout, str(GENERATED / dump), there.stdout, url)


def test_s3_missing_bucket_and_prefix(s3_server):  # noqa: F811
    bucket = fresh_bucket()
    upload_tree(GENERATED / "jax_control_flow", s3_url(bucket, "a", "dump"))
    for url in (s3_url(bucket, "a", "dum"), s3_url(fresh_bucket("never-made"), "x")):
        result = invoke("ls", url)
        assert result.exit_code == 2
        assert result.stderr == f"{url}: error: no such folder\n"


# ---- without the cloud extra --------------------------------------------------------------------


@pytest.mark.slow  # a subprocess
@pytest.mark.parametrize("blocked", ["fsspec", "s3fs"])
@pytest.mark.parametrize("command", [["ls", "s3://b/x"], ["summary", "s3://b/x.txt"]])
def test_without_the_cloud_extra_a_url_is_one_line_naming_it(tmp_path, blocked, command):
    """A real interpreter in which ``import fsspec`` (or ``s3fs``) fails, as when the extra
    is not installed."""
    (tmp_path / "sitecustomize.py").write_text(f"import sys\nsys.modules[{blocked!r}] = None\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}
    result = subprocess.run(
        [sys.executable, "-m", "hloscope", *command],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
    )
    assert result.returncode != 0
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert "hloscope[cloud]" in lines[0] and command[1] in lines[0]
    assert "Traceback" not in result.stderr


def test_ls_fetches_a_remote_dumps_files_in_batches(memory_store, monkeypatch):
    """One concurrent fetch per batch of modules (fsspec's cat of a list), not a round trip
    per file; the output is the one of reading file by file."""
    fs, url_root, prefix = memory_store
    put(fs, GENERATED / "jax_mlp_train", prefix, "dump")
    url = f"{url_root}/dump"
    one_by_one = invoke("ls", url).stdout
    batches: list[int] = []
    original = fsspec.implementations.memory.MemoryFileSystem.cat
    single = Reads(monkeypatch)

    def cat(fs_, paths, *args, **kwargs):
        batches.append(len(paths))
        return original(fs_, paths, *args, **kwargs)

    monkeypatch.setattr(fsspec.implementations.memory.MemoryFileSystem, "cat", cat)
    assert invoke("ls", url).stdout == one_by_one
    modules = len(load_dump(url).modules)
    assert len(batches) == 1 and batches[0] == len(single.paths)  # 9 modules: one batch
    assert batches[0] >= 4 * modules  # both stages and the buffer files of each


def test_a_prefetched_file_that_fails_raises_when_read(memory_store):
    from hloscope.dump import storage

    fs, url_root, prefix = memory_store
    fs.pipe(f"{prefix}/here.txt", b"here")
    with storage.prefetch([f"{url_root}/here.txt", f"{url_root}/gone.txt"]):
        fs.rm(f"{prefix}/here.txt")  # already fetched: still answered
        assert storage.read_bytes(f"{url_root}/here.txt") == b"here"
        with pytest.raises(DumpFormatError) as caught:
            storage.read_bytes(f"{url_root}/gone.txt")
    assert caught.value.one_line() == f"{url_root}/gone.txt: error: no such file"
    with pytest.raises(DumpFormatError):  # handed out once: now read from the store
        storage.read_bytes(f"{url_root}/here.txt")


# ---- http(s)://: a web server's folder listing --------------------------------------------------


@pytest.fixture
def http_root():
    """tests/data/generated served by Python's own HTTP server (folder listings as HTML, which
    fsspec's HTTP filesystem reads as folders)."""
    import functools
    import threading
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, *args):  # no line per request on stderr
            pass

    handler = functools.partial(Quiet, directory=str(GENERATED))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def test_http_dump_and_file_give_the_local_output(http_root):
    dump = "jax_control_flow"
    local = GENERATED / dump
    for command in (["ls", "--json"], ["ls"], ["summary"]):
        here, there = invoke(*command, str(local)), invoke(*command, f"{http_root}/{dump}")
        assert there.exit_code == here.exit_code == 0, there.output
        same_up_to_root(here.stdout, str(local), there.stdout, f"{http_root}/{dump}")
    name = next(
        p.name for p in sorted(local.iterdir()) if p.name.endswith("after_optimizations.txt")
    )
    here = invoke("fusions", "--json", str(local / name))
    there = invoke("fusions", "--json", f"{http_root}/{dump}/{name}")
    assert there.exit_code == here.exit_code == 0
    same_up_to_root(here.stdout, str(local / name), there.stdout, f"{http_root}/{dump}/{name}")
    missing = invoke("ls", f"{http_root}/nothing")
    assert (
        missing.exit_code == 2 and missing.stderr == f"{http_root}/nothing: error: no such folder\n"
    )
