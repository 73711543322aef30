import jax
import jax.numpy as jnp


@jax.jit
def kfac_precondition(grad_w, activations, output_grads, damping=1e-3):
    a = activations.T @ activations / activations.shape[0]  # (in, in)
    g = output_grads.T @ output_grads / output_grads.shape[0]  # (out, out)
    fisher = jnp.kron(a, g)  # the full Fisher block of the layer
    return jnp.linalg.solve(fisher + damping * jnp.eye(fisher.shape[0]), grad_w.reshape(-1))


w_grad = jnp.ones((2048, 2048))
print(kfac_precondition(w_grad, jnp.ones((64, 2048)), jnp.ones((64, 2048)))[:4])
