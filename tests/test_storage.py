"""hloscope.dump.storage: locations as local paths or URLs, listed and read the same way."""

from __future__ import annotations

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
