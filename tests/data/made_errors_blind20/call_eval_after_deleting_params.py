import jax
import jax.numpy as jnp


def evaluate(params, x):
    return jnp.tanh(x @ params["w"]).mean()


params = {"w": jnp.ones((512, 512))}
ema_params = jax.tree.map(lambda p: p, params)
# free the training copy before evaluating the EMA weights
for leaf in jax.tree.leaves(params):
    leaf.delete()
print(evaluate(ema_params, jnp.ones((8, 512))))
