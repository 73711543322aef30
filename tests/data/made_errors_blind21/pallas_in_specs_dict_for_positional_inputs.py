import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def fused_bias_gelu_kernel(x_ref, b_ref, o_ref):
    o_ref[...] = jax.nn.gelu(x_ref[...] + b_ref[...])


def fused_bias_gelu(x, bias):
    return pl.pallas_call(
        fused_bias_gelu_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(x.shape[0] // 128,),
        # one spec per input, named for readability
        in_specs={"x": pl.BlockSpec((128, 256), lambda i: (i, 0)),
                  "bias": pl.BlockSpec((1, 256), lambda i: (0, 0))},
        out_specs=pl.BlockSpec((128, 256), lambda i: (i, 0)),
        interpret=True,
    )(x, bias)


print(fused_bias_gelu(jnp.ones((512, 256)), jnp.zeros((1, 256))).shape)
