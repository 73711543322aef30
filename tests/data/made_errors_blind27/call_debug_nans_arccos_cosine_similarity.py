import jax
import jax.numpy as jnp

jax.config.update("jax_debug_nans", True)


@jax.jit
def angular_loss(pred, target):
    # angle between predicted and true surface normals
    pred = pred / jnp.linalg.norm(pred, axis=-1, keepdims=True)
    target = target / jnp.linalg.norm(target, axis=-1, keepdims=True)
    return jnp.arccos(jnp.sum(pred * target, axis=-1)).mean()


# sanity check of the loss: a perfect prediction should score zero
normals = jax.random.normal(jax.random.key(0), (4096, 3))
print(angular_loss(normals, normals))
