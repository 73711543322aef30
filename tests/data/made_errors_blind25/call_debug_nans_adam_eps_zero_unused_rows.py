import jax
import jax.numpy as jnp
import optax

jax.config.update("jax_debug_nans", True)

# eps=0 to match the paper's update exactly
optimizer = optax.adam(1e-3, eps=0.0)
params = {"embedding": jax.random.normal(jax.random.key(0), (1000, 32))}
opt_state = optimizer.init(params)


@jax.jit
def train_step(params, opt_state, token_ids):
    grads = jax.grad(lambda p: (p["embedding"][token_ids] ** 2).mean())(params)
    updates, opt_state = optimizer.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state


params, opt_state = train_step(params, opt_state, jnp.array([3, 17, 256]))
print(params["embedding"][3, :3])
