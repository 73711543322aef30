import jax
import jax.numpy as jnp


def mlp(params, x):
    h = jnp.tanh(x @ params["w1"])
    return (h @ params["w2"]).squeeze(-1)


@jax.jit
def empirical_ntk(params, xs):
    # the neural tangent kernel of the whole training set: J J^T
    jac = jax.jacrev(mlp)(params, xs)
    flat = jnp.concatenate([j.reshape(xs.shape[0], -1) for j in jax.tree.leaves(jac)], axis=1)
    return flat @ flat.T


params = {"w1": jnp.ones((3072, 65536)) * 0.01, "w2": jnp.ones((65536, 1)) * 0.01}
ntk = empirical_ntk(params, jnp.ones((50_000, 3072)))
print(ntk[0, 0])
