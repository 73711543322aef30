import jax
import jax.numpy as jnp
import optax
import yaml

# PyYAML reads 3e-4 (no dot) as a string
config = yaml.safe_load("learning_rate: 3e-4\nweight_decay: 0.01\n")
optimizer = optax.adamw(config["learning_rate"], weight_decay=config["weight_decay"])

params = {"w": jnp.ones((4, 4))}
opt_state = optimizer.init(params)
grads = jax.grad(lambda p: (p["w"] ** 2).sum())(params)
updates, opt_state = optimizer.update(grads, opt_state, params)
print(optax.apply_updates(params, updates)["w"][0])
