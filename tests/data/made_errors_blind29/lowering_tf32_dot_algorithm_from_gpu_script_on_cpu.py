import jax
import jax.numpy as jnp

# the matmul precision the A100 training script pins, run in the CPU unit tests
TF32 = jax.lax.DotAlgorithmPreset.TF32_TF32_F32


@jax.jit
def projection(x, w):
    return jnp.dot(x, w, precision=TF32)


print(projection(jnp.ones((32, 512)), jnp.ones((512, 128))).shape)
