import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def matmul_kernel(x_ref, y_ref, o_ref, acc_ref):
    i, j, k = pl.program_id(0), pl.program_id(1), pl.program_id(2)
    rows = pl.ds(pl.multiple_of(i * 256, 256), 256)
    cols = pl.ds(pl.multiple_of(j * 256, 256), 256)

    @pl.when(k == 0)
    def _init():
        acc_ref[rows, cols] = jnp.zeros((256, 256), jnp.float32)

    acc_ref[rows, cols] += jnp.dot(x_ref[...], y_ref[...], preferred_element_type=jnp.float32)

    @pl.when(k == pl.num_programs(2) - 1)
    def _store():
        o_ref[...] = acc_ref[rows, cols].astype(o_ref.dtype)

def matmul(x, y):
    m, kdim = x.shape
    n = y.shape[1]
    return pl.pallas_call(
        matmul_kernel,
        grid=(m // 256, n // 256, kdim // 512),
        in_specs=[pl.BlockSpec((256, 512), lambda i, j, k: (i, k)),
                  pl.BlockSpec((512, 256), lambda i, j, k: (k, j))],
        out_specs=pl.BlockSpec((256, 256), lambda i, j, k: (i, j)),
        out_shape=jax.ShapeDtypeStruct((m, n), x.dtype),
        scratch_shapes=[pltpu.VMEM((m, n), jnp.float32)],
    )(x, y)

x = jnp.ones((8192, 4096), jnp.bfloat16)
y = jnp.ones((4096, 8192), jnp.bfloat16)
print(matmul(x, y)[0, 0])
