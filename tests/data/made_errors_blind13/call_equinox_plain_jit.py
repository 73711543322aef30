import jax
import jax.numpy as jnp
import equinox as eqx

model = eqx.nn.MLP(
    in_size=4, out_size=1, width_size=32, depth=2, activation=jax.nn.gelu, key=jax.random.key(1)
)


@jax.jit
def predict(model, x):
    return jax.vmap(model)(x)


x = jnp.ones((16, 4))
print(predict(model, x).shape)
