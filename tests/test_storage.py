"""hloscope.dump.storage: locations as local paths or URLs, listed and read the same way."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from s3_server import (
    fresh_bucket,
    s3_server,  # noqa: F401  (a fixture)
    s3_url,
    upload_bytes,
    upload_tree,
)

from hloscope.dump import storage


def test_walk_files_on_s3_lists_every_key_with_sizes(s3_server, tmp_path):  # noqa: F811
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "x.txt").write_bytes(b"12345")
    (tmp_path / "y.txt").write_bytes(b"1")
    url = upload_tree(tmp_path, s3_url(fresh_bucket(), "run", "dump"))
    found = storage.walk_files(url)
    assert [(e.location, e.name, e.size) for e in found] == [
        (f"{url}/a/x.txt", "x.txt", 5),
        (f"{url}/y.txt", "y.txt", 1),
    ]
    assert storage.read_bytes(f"{url}/a/x.txt") == b"12345"
    upload_bytes(f"{url}/z.txt", b"zz")
    assert storage.read_bytes(f"{url}/z.txt") == b"zz"


# ---- index_entries: a listing indexes as the local scan does ------------------------------------

DUMP_FILES = [
    "module_0001.jit_f.before_optimizations.txt",
    "module_0001.jit_f.cpu_after_optimizations.txt",
    "module_0001.jit_f.cpu_after_optimizations-buffer-assignment.txt",
    "module_0001.jit_f/module.mlir",  # a per-module folder (jaxlib 0.10)
    "module_0001.jit_f/compile_options.pb",
    "module_0001.jit_f/inner/deeper.txt",  # a folder in a per-module folder: unknown
    "module_0001.jit_f/inner/other.txt",
    "module_0002.jit_g.cpu_after_optimizations.txt",
    "module_0002.jit_g.0000.cpu.after_pipeline-start.before_pass.txt",
    "notes.md",  # not a dump name: unknown
    "host-1/module_0001.jit_f.cpu_after_optimizations.txt",  # a dump per host
    "host-1/module_0001.jit_f/module.mlir",
    "host-1/module_0001.jit_f/sub/x.txt",
    "host-1/README",
    "host-1/deeper/module_0009.jit_h.cpu_after_optimizations.txt",  # below the indexed depth
    "module_0001.jit_f.txt.extra/x.txt",
]


def make_tree(root, names=DUMP_FILES):
    for i, name in enumerate(names):
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(b"x" * (i + 1))  # distinct sizes, so a size in the wrong file shows
    return root


def index_signature(index):
    """Everything an index says, with locations made relative to its root."""
    root = str(index.root)

    def rel(loc):
        return str(loc)[len(root) :].replace("\\", "/")

    return (
        [
            (
                m.key,
                m.name,
                [(rel(f.location), f.size, f.folder, f.kind) for f in m.files],
                [(s.label, [f.name.filename for f in s.files]) for s in m.stages],
                [(p.step, [f.name.filename for f in p.files]) for p in m.passes],
                [f.name.filename for f in m.other_files],
            )
            for m in index.modules
        ],
        {k: (v.name, v.folder, v.ids) for k, v in index.functions.items()},
        [rel(p) for p in index.unknown_files],
    )


def test_index_entries_of_a_local_listing_equals_the_local_scan(tmp_path):
    from hloscope.dump.index import index_entries, load_dump

    root = make_tree(tmp_path / "dump")
    scanned = load_dump(root)
    listed = index_entries(str(root), storage.walk_files(str(root)))
    assert index_signature(listed) == index_signature(scanned)
    # The tree exercises every rule: per-module folders, per-host folders, unknown files and
    # folders, and a file below the indexed depth (left out by both).
    assert [m.key for m in scanned.modules] == [("", -1, 1), ("", -1, 2), ("host-1", -1, 1)]
    assert index_signature(scanned)[2] == [
        "/host-1/README",
        "/host-1/module_0001.jit_f/sub",
        "/module_0001.jit_f/inner",
        "/notes.md",
    ]
    assert [str(p) for p in listed.unknown_files] == [str(p) for p in scanned.unknown_files]
    assert [f.location for f in listed.files] == [str(f.path) for f in scanned.files]


def test_index_entries_ignores_entries_outside_its_root(tmp_path):
    from hloscope.dump.index import index_entries, load_dump

    make_tree(tmp_path / "dump")
    make_tree(tmp_path / "dump2", DUMP_FILES[:2])  # a sibling whose name starts the same
    everything = storage.walk_files(str(tmp_path))
    listed = index_entries(str(tmp_path / "dump"), everything)
    assert index_signature(listed) == index_signature(load_dump(tmp_path / "dump"))


def test_memory_url_dump_indexes_as_its_local_copy(tmp_path):
    import fsspec

    from hloscope.dump.index import load_dump

    local = make_tree(tmp_path / "dump")
    url = f"memory://{tmp_path.name}/dump"
    fs = fsspec.filesystem("memory")
    fs.put(str(local), url.removeprefix("memory:/"), recursive=True)
    remote = load_dump(url)
    assert remote.root == url and remote.is_remote
    assert index_signature(remote) == index_signature(load_dump(local))
    assert all(f.location.startswith(url + "/") for f in remote.files)


def test_s3_listing_parses_timestamps_fast_and_the_same(s3_server, tmp_path):  # noqa: F811
    """hloscope's s3fs filesystems read LastModified with fromisoformat: the same instants
    botocore's own parser gives (a third of the listing's client time was dateutil)."""
    from botocore.utils import parse_timestamp

    (tmp_path / "a.txt").write_bytes(b"a")
    url = upload_tree(tmp_path, s3_url(fresh_bucket(), "p"))
    storage.walk_files(url)
    fs, path = storage.filesystem(url)
    factory = fs.session.get_component("response_parser_factory")
    assert factory._defaults["timestamp_parser"] is storage._parse_timestamp
    assert fs.s3._endpoint._response_parser_factory is factory  # what the client parses with
    listed = fs.info(f"{path}/a.txt")["LastModified"]
    head = s3_server.client().head_object(Bucket=path.partition("/")[0], Key="p/a.txt")
    assert listed == head["LastModified"]
    for text in ("2026-12-02T07:43:00.000Z", "2026-12-02T07:43:00Z", "2026-12-02T07:43:00.5Z"):
        assert storage._parse_timestamp(text) == parse_timestamp(text)
    for other in ("Wed, 02 Dec 2026 07:43:00 GMT", 1700000000):  # not S3's ISO form
        assert storage._parse_timestamp(other) == parse_timestamp(other)


def test_walk_files_max_depth_on_a_url_filters_one_listing(tmp_path):
    import fsspec

    for name in ("a.txt", "d/b.txt", "d/e/c.txt"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(b"x")
    url = f"memory://walk-{tmp_path.name}"
    fsspec.filesystem("memory").put(str(tmp_path), url.removeprefix("memory:/"), recursive=True)
    for depth, names in (
        (1, ["a.txt"]),
        (2, ["a.txt", "b.txt"]),
        (None, ["a.txt", "b.txt", "c.txt"]),
    ):
        assert [e.name for e in storage.walk_files(url, max_depth=depth)] == names
        local = storage.walk_files(str(tmp_path), max_depth=depth)
        assert [e.name for e in local] == names


@pytest.mark.slow  # a subprocess
def test_an_unknown_protocol_and_a_store_that_cannot_open_are_one_line(tmp_path):
    from hloscope.dump.errors import DumpFormatError

    with pytest.raises(DumpFormatError) as caught:
        storage.walk_files("zz://a/b")
    assert caught.value.one_line().startswith("zz://a/b: error: unknown storage protocol zz://")
    pytest.importorskip("adlfs")  # the cloud extra's Azure client
    # adlfs refuses without an account name (none is set here): a store, not a protocol, fails.
    env = {k: v for k, v in os.environ.items() if not k.startswith("AZURE_")}
    done = subprocess.run(
        [sys.executable, "-m", "hloscope", "ls", "az://container/dump"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert done.returncode == 2
    assert done.stderr.startswith("az://container/dump: error: cannot open the az:// store: ")
    assert len(done.stderr.splitlines()) == 1


@pytest.mark.slow  # a subprocess
def test_store_clients_retry_logs_stay_off_the_terminal():
    """gcsfs logs each failed retry with its traceback; with no logging configured Python
    would print it above hloscope's one-line error."""
    program = (
        "import logging\n"
        "from hloscope.dump import storage\n"
        "storage.filesystem('memory://x')\n"
        "try:\n"
        "    raise OSError('Name or service not known')\n"
        "except OSError:\n"
        "    logging.getLogger('gcsfs.retry').error('_request out of retries', exc_info=True)\n"
        "logging.getLogger('elsewhere').error('still shown')\n"
    )
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True)
    assert done.returncode == 0
    assert done.stderr == "still shown\n"


def test_s3_dump_with_folder_placeholders_indexes_as_its_local_copy(s3_server, tmp_path):  # noqa: F811
    """A dump on S3 whose folders were also made as empty ``name/`` keys (a web console's
    "create folder", a sync tool's markers): those keys are no files of the dump."""
    from hloscope.dump.index import load_dump

    local = make_tree(tmp_path / "dump")
    url = upload_tree(local, s3_url(fresh_bucket(), "run", "dump"))
    bucket, _, key = url.removeprefix("s3://").partition("/")
    client = s3_server.client()
    for folder in ("", "host-1/", "module_0001.jit_f/", "host-1/deeper/"):
        client.put_object(Bucket=bucket, Key=f"{key}/{folder}", Body=b"")
    storage_entries = storage.walk_files(url)
    assert len(storage_entries) == len(DUMP_FILES)
    remote = load_dump(url)
    assert remote.root == url
    assert index_signature(remote) == index_signature(load_dump(local))
