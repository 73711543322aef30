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


def test_durations_print_in_their_unit_never_an_exponent():
    from hloscope.units import format_duration

    assert [format_duration(s) for s in (999.7e-6, 999.96e-9, 0.99996, 1e-3, 0.00123)] == [
        "1.00 ms",
        "1.00 µs",
        "1.00 s",
        "1.00 ms",
        "1.23 ms",
    ]
    assert [format_duration(s) for s in (812e-9, 45.6e-6, 0.024, 4321.0, -999.7e-6, 0.0)] == [
        "812 ns",
        "45.6 µs",
        "24.0 ms",
        "4321 s",
        "-1.00 ms",
        "0 s",
    ]
    assert format_duration(None) == format_duration(float("nan")) == "-"
    # Every value from 1 ns to an hour, in steps of 0.01%: no exponent, three figures (four
    # for whole seconds past 999 s), never 1000 of a unit.
    value = 1e-9
    while value < 3600:
        number, unit = format_duration(value).split()
        assert "e" not in number and len(number.replace(".", "")) in (3, 4), (value, number)
        assert unit == "s" or float(number) < 1000, (value, number)
        value *= 1.0001


def test_bench_and_profile_text_format_durations_through_units():
    from hloscope.render import bench_text, profile_text
    from hloscope.units import format_duration

    assert bench_text.format_seconds is format_duration
    assert profile_text.format_seconds is format_duration


def test_collective_seconds_never_print_a_thousand_of_a_unit():
    from hloscope.render.collectives_text import format_seconds

    assert format_seconds(0.00099996) == "1.0 ms"  # was "1000.0 us"
    assert format_seconds(0.0009999) == "999.9 us"
    assert format_seconds(0.99996) == "1.0 s"  # was "1000.0 ms"
    assert format_seconds(9.9996e-7) == "1.0 us"
    assert format_seconds(0.000999) == "999.0 us"
    assert format_seconds(12.3e-6) == "12.3 us"
    assert format_seconds(None) == "-"
