import jax
import jax.numpy as jnp
import equinox as eqx

model = eqx.nn.MLP(in_size=4, out_size=2, width_size=16, depth=2, key=jax.random.key(0))


@eqx.filter_jit
def predict(model, x):
    return model(x)


batch = jnp.ones((32, 4))
print(predict(model, batch).shape)
