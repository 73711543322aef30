import jax
import jax.numpy as jnp
from jax import export


def noisy_policy(key, obs):
    # exploration noise added to the policy's action
    return jnp.tanh(obs @ jnp.ones((8, 2))) + 0.1 * jax.random.normal(key, (obs.shape[0], 2))


key_spec = jax.ShapeDtypeStruct((), jax.random.key(0).dtype)
exp = export.export(jax.jit(noisy_policy))(key_spec, jax.ShapeDtypeStruct((4, 8), jnp.float32))
served = export.deserialize(exp.serialize())

# the actor process still seeds with the old-style uint32 keys
actions = served.call(jax.random.PRNGKey(7), jnp.ones((4, 8)))
print(actions.shape)
