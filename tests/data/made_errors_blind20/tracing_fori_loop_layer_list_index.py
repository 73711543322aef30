import jax
import jax.numpy as jnp


def init_layers(key, depth, width):
    keys = jax.random.split(key, depth)
    return [jax.random.normal(k, (width, width)) / width**0.5 for k in keys]


@jax.jit
def forward(layers, x):
    def body(i, h):
        return jnp.tanh(h @ layers[i])

    return jax.lax.fori_loop(0, len(layers), body, x)


layers = init_layers(jax.random.key(0), 6, 32)
print(forward(layers, jnp.ones((4, 32))).shape)
