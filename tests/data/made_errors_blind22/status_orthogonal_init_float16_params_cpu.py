import jax
import jax.numpy as jnp
import flax.linen as nn


class RecurrentCore(nn.Module):
    # parameters kept in float16 to halve the checkpoint size
    @nn.compact
    def __call__(self, h, x):
        recur = nn.Dense(256, kernel_init=nn.initializers.orthogonal(),
                         param_dtype=jnp.float16, dtype=jnp.float16)
        return jnp.tanh(recur(h) + nn.Dense(256, param_dtype=jnp.float16)(x))


core = RecurrentCore()
params = core.init(jax.random.key(0), jnp.zeros((1, 256), jnp.float16), jnp.zeros((1, 64)))
print(jax.tree.map(jnp.shape, params))
