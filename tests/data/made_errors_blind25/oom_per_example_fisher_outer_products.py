import jax
import jax.numpy as jnp


@jax.jit
def empirical_fisher(per_example_grads):
    # natural gradient: the outer product of every example's gradient
    return jnp.einsum("bi,bj->bij", per_example_grads, per_example_grads)


grads = jnp.ones((256, 100_000))  # 256 examples, a 100k-parameter model
fisher = empirical_fisher(grads)
print(fisher.mean(axis=0)[0, :4])
