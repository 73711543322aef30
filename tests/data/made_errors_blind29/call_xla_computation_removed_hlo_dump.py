import jax
import jax.numpy as jnp


def gelu_mlp(x, w1, w2):
    return jax.nn.gelu(x @ w1) @ w2


# dump the HLO to check the fusion, as an old blog post does
args = (jnp.ones((8, 64)), jnp.ones((64, 256)), jnp.ones((256, 64)))
hlo = jax.xla_computation(gelu_mlp)(*args).as_hlo_text()
print(hlo[:500])
