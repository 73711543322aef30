import jax
import jax.numpy as jnp
import equinox as eqx

jax.config.update("jax_explain_cache_misses", True)


class Sampler(eqx.Module):
    proj: eqx.nn.Linear
    temperature: float

    def __call__(self, key, h):
        return jax.random.categorical(key, self.proj(h) / self.temperature)


@eqx.filter_jit
def sample(sampler, key, h):
    return sampler(key, h)


sampler = Sampler(eqx.nn.Linear(16, 100, key=jax.random.key(0)), temperature=1.0)
for step in range(4):
    # anneal the temperature every step
    sampler = eqx.tree_at(lambda s: s.temperature, sampler, 1.0 / (1 + step))
    token = sample(sampler, jax.random.key(step), jnp.ones(16))
