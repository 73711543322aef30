import jax
import jax.numpy as jnp
import equinox as eqx


class MaskedPool(eqx.Module):
    proj: eqx.nn.Linear

    def __call__(self, tokens, mask):
        h = jax.vmap(self.proj)(tokens)
        # only mask when the sequence has padding
        if (~mask).any():
            h = jnp.where(mask[:, None], h, 0.0)
        return h.sum(axis=0) / mask.sum()


model = MaskedPool(eqx.nn.Linear(16, 16, key=jax.random.key(0)))
pool = eqx.filter_jit(lambda m, t, k: m(t, k))
print(pool(model, jnp.ones((10, 16)), jnp.arange(10) < 7).shape)
