import jax
import jax.numpy as jnp


def solve_kepler(mean_anomaly, ecc):
    def not_converged(state):
        e, prev = state
        return jnp.abs(e - prev) > 1e-6

    def newton(state):
        e, _ = state
        return e - (e - ecc * jnp.sin(e) - mean_anomaly) / (1 - ecc * jnp.cos(e)), e

    e, _ = jax.lax.while_loop(not_converged, newton, (mean_anomaly, mean_anomaly + 1.0))
    return e


print(jax.jit(solve_kepler)(jnp.linspace(0.1, 3.0, 8), 0.3))
