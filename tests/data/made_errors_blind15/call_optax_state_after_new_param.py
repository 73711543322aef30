import jax
import jax.numpy as jnp
import optax


def loss_fn(params, x, y):
    pred = (x @ params["w"] + params["b"]) * params.get("scale", 1.0)
    return jnp.mean((pred - y) ** 2)


opt = optax.chain(optax.clip_by_global_norm(1.0), optax.adamw(1e-3))
params = {"w": jnp.zeros((4, 1)), "b": jnp.zeros(1)}
opt_state = opt.init(params)

# fine-tuning: add a learnable output scale to the restored model
params["scale"] = jnp.ones(1)
x, y = jnp.ones((16, 4)), jnp.ones((16, 1))
grads = jax.grad(loss_fn)(params, x, y)
updates, opt_state = opt.update(grads, opt_state, params)
params = optax.apply_updates(params, updates)
