import jax
import jax.numpy as jnp
from functools import partial


@partial(jax.custom_vjp, nondiff_argnums=(1,))
def clip_gradient(x, max_norm):
    return x


def clip_fwd(x, max_norm):
    return x, None


def clip_bwd(max_norm, _, g):
    norm = jnp.linalg.norm(g)
    return (g * jnp.minimum(1.0, max_norm / (norm + 1e-6)),)


clip_gradient.defvjp(clip_fwd, clip_bwd)


@jax.jit
def loss(w, x, max_norm):
    h = clip_gradient(jnp.tanh(x @ w), max_norm)
    return (h ** 2).mean()


print(jax.grad(loss)(jnp.ones((8, 8)), jnp.ones((4, 8)), 1.0)[0, :3])
