import jax
import jax.numpy as jnp
import math

import optax

TOTAL_STEPS = 10_000


def cosine_lr(step, base_lr=3e-4):
    return 0.5 * base_lr * (1 + math.cos(math.pi * step / TOTAL_STEPS))


optimizer = optax.adamw(learning_rate=cosine_lr)
params = {"w": jnp.ones((16, 16))}
opt_state = optimizer.init(params)


@jax.jit
def train_step(params, opt_state):
    grads = jax.grad(lambda p: (p["w"] ** 2).sum())(params)
    updates, opt_state = optimizer.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state


params, opt_state = train_step(params, opt_state)
print(params["w"][0, 0])
