import jax
import jax.numpy as jnp


@jax.jit
def fp8_linear(x, w, x_scale, w_scale):
    # an fp8 training recipe: e4m3 operands, f32 accumulation
    xq = (x / x_scale).astype(jnp.float8_e4m3fn)
    wq = (w / w_scale).astype(jnp.float8_e4m3fn)
    out = jax.lax.dot(xq, wq, precision=jax.lax.DotAlgorithmPreset.ANY_F8_ANY_F8_F32,
                      preferred_element_type=jnp.float32)
    return out * x_scale * w_scale


print(fp8_linear(jnp.ones((16, 256)), jnp.ones((256, 64)), 1.0, 1.0).shape)
