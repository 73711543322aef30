"""Programs for ``hloscope check SCRIPT.py:FUNCTION --device tpu-v5e`` (test_check_confirm.py).

Each function's example arguments are given beside it. What XLA:TPU says of each is not written
here: the tests ask XLA:TPU itself (the ``ORACLE`` snippets they compile in a child process).
"""

import jax
import jax.numpy as jnp

jax.config.update("jax_enable_x64", True)


def matmul_f64(a):
    """A float64 matmul: the static scan calls it unsupported on TPU."""
    return a @ a


matmul_f64.example_args = (jax.ShapeDtypeStruct((128, 128), jnp.float64),)


def matmul_c128(a):
    """A complex128 matmul, summed."""
    return (a @ a.T).sum()


matmul_c128.example_args = (jax.ShapeDtypeStruct((32, 32), jnp.complex128),)


def eig(m):
    """A nonsymmetric eigendecomposition."""
    return jnp.linalg.eig(m)[0]


eig.example_args = (jax.ShapeDtypeStruct((8, 8), jnp.float32),)


def fft_c128(z):
    """An FFT of complex128 values."""
    return jnp.fft.fft(z)


fft_c128.example_args = (jax.ShapeDtypeStruct((256,), jnp.complex128),)


def rfft_f64(x):
    """A real FFT of float64 values."""
    return jnp.fft.rfft(x)


rfft_f64.example_args = (jax.ShapeDtypeStruct((64,), jnp.float64),)


def mixed(a, z, m):
    """Several candidates: a float64 matmul, an eig, a complex128 FFT."""
    e = jnp.linalg.eigvals(m)
    return (a @ a).sum() + jnp.fft.fft(z).real.sum() + e.real.sum()


mixed.example_args = (
    jax.ShapeDtypeStruct((64, 64), jnp.float64),
    jax.ShapeDtypeStruct((256,), jnp.complex128),
    jax.ShapeDtypeStruct((4, 4), jnp.float32),
)


def solve_f64(a, b):
    """Several candidates: a float64 matmul, a float64 solve (LU, triangular solves)."""
    return jnp.linalg.solve(a @ a.T + jnp.eye(8), b)


solve_f64.example_args = (
    jax.ShapeDtypeStruct((8, 8), jnp.float64),
    jax.ShapeDtypeStruct((8,), jnp.float64),
)


def outer_product(x):
    """Nothing the static scan flags; its 16 GiB result does not fit a v5e."""
    return x[:, None, :] * x[None, :, :]


outer_product.example_args = (jax.ShapeDtypeStruct((2048, 1024), jnp.float32),)


def big_table(n):
    """Nothing the static scan flags; a 20 GB float32 table."""
    return jnp.zeros((72000, 72000), jnp.float32) + n


big_table.example_args = (jax.ShapeDtypeStruct((), jnp.float32),)


def callback(x):
    """A host callback: it compiles on TPU."""
    y = jax.pure_callback(lambda v: v, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
    return y * 2


callback.example_args = (jax.ShapeDtypeStruct((4,), jnp.float32),)


def debug_print(x):
    """A jax.debug.print: a host callback too."""
    jax.debug.print("x = {}", x)
    return x + 1


debug_print.example_args = (jax.ShapeDtypeStruct((4,), jnp.float32),)


def _double(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2


def pallas_whole_array(x):
    """A Pallas kernel without a grid on a 256 MiB array: its one block does not fit in VMEM."""
    from jax.experimental import pallas as pl

    return pl.pallas_call(_double, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)


pallas_whole_array.example_args = (jax.ShapeDtypeStruct((8192, 8192), jnp.float32),)


def pallas_block_shape(x):
    """Blocks of (100, 100): neither on the (8, 128) tiles nor the whole (1000, 1000)."""
    from jax.experimental import pallas as pl

    return pl.pallas_call(
        _double,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(10, 10),
        in_specs=[pl.BlockSpec((100, 100), lambda i, j: (i, j))],
        out_specs=pl.BlockSpec((100, 100), lambda i, j: (i, j)),
    )(x)


pallas_block_shape.example_args = (jax.ShapeDtypeStruct((1000, 1000), jnp.float32),)


#: What the tests ask XLA:TPU directly, without hloscope: a function and its argument types.
ORACLE = {
    "matmul_f64": (lambda a: a @ a, [((128, 128), "float64")]),
    "matmul_c128": (lambda a: (a @ a.T).sum(), [((32, 32), "complex128")]),
    "eig": (lambda m: jnp.linalg.eig(m)[0], [((8, 8), "float32")]),
    "fft_c128": (jnp.fft.fft, [((256,), "complex128")]),
    "rfft_f64": (jnp.fft.rfft, [((64,), "float64")]),
    "lu_f64": (lambda a: jax.lax.linalg.lu(a)[0], [((8, 8), "float64")]),
    "outer_product": (lambda x: x[:, None, :] * x[None, :, :], [((2048, 1024), "float32")]),
    "big_table": (lambda n: jnp.zeros((72000, 72000), jnp.float32) + n, [((), "float32")]),
    "callback": (callback, [((4,), "float32")]),
    "debug_print": (debug_print, [((4,), "float32")]),
    "pallas_whole_array": (pallas_whole_array, [((8192, 8192), "float32")]),
    "pallas_block_shape": (pallas_block_shape, [((1000, 1000), "float32")]),
}
