import jax
import jax.numpy as jnp
import optax

params = {
    "backbone": {"w": jnp.ones((32, 32))},
    "head": {"w": jnp.ones((32, 10)), "b": jnp.zeros(10)},
}
# fine-tune the head only; the backbone stays frozen
labels = {"backbone": {"w": "frozen"}, "head": {"w": "train"}}
optimizer = optax.multi_transform({"train": optax.adam(1e-3), "frozen": optax.set_to_zero()},
                                  labels)
opt_state = optimizer.init(params)
