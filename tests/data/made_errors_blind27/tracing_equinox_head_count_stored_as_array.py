import jax
import jax.numpy as jnp
import equinox as eqx


class Attention(eqx.Module):
    qkv: eqx.nn.Linear
    num_heads: jax.Array  # read from the checkpoint's config as an array

    def __init__(self, dim, num_heads, key):
        self.qkv = eqx.nn.Linear(dim, 3 * dim, key=key)
        self.num_heads = jnp.asarray(num_heads)

    def __call__(self, x):
        t, d = x.shape
        q, k, v = jnp.split(jax.vmap(self.qkv)(x), 3, axis=-1)
        q = q.reshape(t, self.num_heads, d // self.num_heads)
        k = k.reshape(t, self.num_heads, d // self.num_heads)
        return jnp.einsum("thd,shd->hts", q, k)


model = Attention(256, 8, jax.random.key(0))
print(eqx.filter_jit(lambda m, x: m(x))(model, jnp.ones((16, 256))).shape)
