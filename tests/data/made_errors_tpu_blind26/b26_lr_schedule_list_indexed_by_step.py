import jax
import jax.numpy as jnp


lr_schedule = [0.1] * 100 + [0.01] * 100

@jax.jit
def sgd_step(w, g, step):
    lr = lr_schedule[step]
    return w - lr * g

w = sgd_step(jnp.ones((256,)), jnp.full((256,), 0.5), 3)
print(w[0])
