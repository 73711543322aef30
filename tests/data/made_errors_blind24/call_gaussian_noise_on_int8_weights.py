import jax
import jax.numpy as jnp


def perturb(params, key, sigma=1e-3):
    # robustness check of the int8-quantized model: jitter every weight
    leaves, treedef = jax.tree.flatten(params)
    keys = jax.random.split(key, len(leaves))
    noisy = [w + sigma * jax.random.normal(k, w.shape, w.dtype) for w, k in zip(leaves, keys)]
    return jax.tree.unflatten(treedef, noisy)


params = {"w": jnp.ones((64, 64), jnp.int8), "b": jnp.zeros(64, jnp.int8)}
print(perturb(params, jax.random.key(0))["w"][0, :4])
