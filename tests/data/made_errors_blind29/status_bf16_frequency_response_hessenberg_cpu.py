import jax
import jax.numpy as jnp


@jax.jit
def frequency_response(a, b, c, omegas):
    # reduce A to Hessenberg form once, then solve at every frequency
    h, q = jax.scipy.linalg.hessenberg(a, calc_q=True)
    bt, ct = q.T @ b, c @ q
    eye = jnp.eye(a.shape[0], dtype=jnp.complex64)
    solve = lambda w: ct @ jnp.linalg.solve(1j * w * eye - h, bt)
    return jax.vmap(solve)(omegas)


a = -jnp.eye(16, dtype=jnp.bfloat16)  # the state-space model kept in bf16
print(frequency_response(a, jnp.ones((16, 1), jnp.bfloat16), jnp.ones((1, 16), jnp.bfloat16),
                         jnp.linspace(0.1, 10.0, 50)).shape)
