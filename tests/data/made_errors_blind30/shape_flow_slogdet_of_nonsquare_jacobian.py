import jax
import jax.numpy as jnp


def project(x):
    # the flow's last layer maps 3-D points to 2-D latents
    w = jnp.array([[1.0, 0.0, 0.5], [0.0, 1.0, -0.5]])
    return jnp.tanh(w @ x)


def log_det_jacobian(x):
    jac = jax.jacfwd(project)(x)
    return jnp.linalg.slogdet(jac)[1]


points = jnp.ones((128, 3))
print(jax.jit(jax.vmap(log_det_jacobian))(points).shape)
