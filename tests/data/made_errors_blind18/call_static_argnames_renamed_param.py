import jax
import jax.numpy as jnp
from functools import partial


@partial(jax.jit, static_argnames=("is_training",))
def forward(params, x, training):
    h = jnp.tanh(x @ params)
    if training:
        h = h * 0.9
    return h


print(forward(jnp.ones((4, 4)), jnp.ones((2, 4)), True))
