import jax
import jax.numpy as jnp


def gelu(x):
    return 0.5 * x * (1 + jnp.tanh(0.79788456 * (x + 0.044715 * x ** 3)))


fast_gelu = jax.jit(gelu, compiler_options={"xla_cpu_enable_fast_math": "on"})
print(fast_gelu(jnp.linspace(-3.0, 3.0, 8)))
