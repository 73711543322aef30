import jax
import jax.numpy as jnp
import numpy as np

def host_l1(w):
    return np.float32(np.abs(np.asarray(w)).sum())

def loss(w, x):
    l1 = jax.pure_callback(host_l1, jax.ShapeDtypeStruct((), jnp.float32), w)
    return jnp.mean((x @ w) ** 2) + 1e-4 * l1

grads = jax.grad(loss)(jnp.ones((512, 8)), jnp.ones((64, 512)))
print(grads.shape)
