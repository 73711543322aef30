import jax
import jax.numpy as jnp


def init_member(key, d_in=32, d_out=1):
    return {"w": jax.random.normal(key, (d_in, d_out)) * 0.1, "b": jnp.zeros(d_out)}


@jax.jit
def init_ensemble(key, n_members):
    # a deep ensemble: one independently initialised model per member
    keys = jax.random.split(key, n_members)
    return jax.vmap(init_member)(keys)


ensemble = init_ensemble(jax.random.key(0), 5)
print(jax.tree.map(jnp.shape, ensemble))
