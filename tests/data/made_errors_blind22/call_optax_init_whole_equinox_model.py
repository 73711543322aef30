import jax
import jax.numpy as jnp
import equinox as eqx
import optax

model = eqx.nn.MLP(in_size=8, out_size=1, width_size=32, depth=2, key=jax.random.key(0))
optimizer = optax.adam(1e-3)
opt_state = optimizer.init(model)


@eqx.filter_jit
def step(model, opt_state, x, y):
    grads = eqx.filter_grad(lambda m: ((jax.vmap(m)(x) - y) ** 2).mean())(model)
    updates, opt_state = optimizer.update(grads, opt_state)
    return eqx.apply_updates(model, updates), opt_state


model, opt_state = step(model, opt_state, jnp.ones((16, 8)), jnp.ones((16, 1)))
