"""One formatter for bytes and counts across every report."""

from hloscope.units import format_bytes, format_count


def test_bytes():
    assert [format_bytes(n) for n in (0, 1023, 1536, 5 << 20, -2048, None)] == [
        "0 B",
        "1023 B",
        "1.5 KiB",
        "5.0 MiB",
        "-2.0 KiB",
        "?",
    ]
    assert format_bytes(3 << 40) == "3.0 TiB"


def test_counts():
    assert [format_count(n) for n in (0, 999, 12_345_678, -2500, None)] == [
        "0",
        "999",
        "12.3M",
        "-2.5k",
        "-",
    ]
