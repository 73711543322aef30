import jax
import jax.numpy as jnp
from jax import export


def predict(w, x):
    return jnp.tanh(x @ w)


exp = export.export(jax.jit(predict))(jnp.ones((4, 2)), jnp.ones((8, 4)))
served = export.deserialize(exp.serialize())


def finetune_loss(w, x):
    return jnp.mean(served.call(w, x) ** 2)


grads = jax.grad(finetune_loss)(jnp.ones((4, 2)), jnp.ones((8, 4)))
