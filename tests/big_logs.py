"""A 5 MB log around one real failure, for explain-error's test of long input and its benchmark
row (benchmarks/bench_small_speeds.py): step lines, near misses of every opening a recogniser
looks for, a megabyte without a line end, the failure, more steps, padding to the size."""

from __future__ import annotations


def noisy_log(failure: str, size: int = 5_000_000) -> str:
    noise = "".join(
        f'I0000 12:00:{i:05d} step {i} loss=0.{i % 997} File "x.py", line {i}\n'
        for i in range(20000)
    )
    near = (
        "Detected unsupported operations when trying to compile graph g[ on XLA_\n"
        "{{node {{function_node ){{ Requested Attributes: T=DT_ The op is created at:\n"
        "Abstract tracer value encountered where Traceback (most recent call last):\n"
        "The following operations cannot be legalized: tf.X (count: ; tf.Y (count\n"
    ) * 5000
    log = noise + near + "x" * 1_000_000 + "\n" + failure + noise
    return log + "y" * (size - len(log))
