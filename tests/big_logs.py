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


def cache_miss_log(count: int = 6000) -> str:
    """A 1.7 MB log of ``count`` JAX cache-miss explanations between step lines: a hundred
    failures (one a function) spread over a long log, each of whose platforms is read."""
    return "".join(
        f"TRACING CACHE MISS at /home/user/proj/train.py:{40 + i % 50}:8 (<module>):\n"
        f"  for step_{i % 97} defined at /home/user/proj/train.py:{7 + i % 13}\n"
        "  all previously seen cache keys differ. For the closest previous key:\n"
        f"  * at example[0], now f32[{i},128] and before f32[{i - 1},128]\n"
        f"I1207 12:00:{i % 60:02d}.000 step {i} loss {0.5 / (i + 1):.5f}\n"
        for i in range(count)
    )
