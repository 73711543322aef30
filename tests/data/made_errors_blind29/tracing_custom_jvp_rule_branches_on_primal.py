import jax
import jax.numpy as jnp


@jax.custom_jvp
def safe_log(x):
    return jnp.log(x)


@safe_log.defjvp
def safe_log_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    # a zero derivative where the input is not positive, instead of inf
    if x > 0:
        return jnp.log(x), t / x
    return jnp.log(x), jnp.zeros_like(t)


per_example = jax.jit(jax.vmap(jax.grad(safe_log)))
print(per_example(jnp.array([0.5, 1.0, 2.0])))
