import jax
import jax.numpy as jnp


@jax.custom_vjp
def clip_gradient(x):
    return x


def clip_fwd(x):
    return x  # forgot the residuals


def clip_bwd(_, g):
    return (jnp.clip(g, -1.0, 1.0),)


clip_gradient.defvjp(clip_fwd, clip_bwd)
loss = lambda w: jnp.sum(clip_gradient(w * 3.0) ** 2)
print(jax.grad(loss)(jnp.ones(4)))
