import jax
import jax.numpy as jnp
from jax.extend.core import Primitive

softplus_p = Primitive("my_softplus")
softplus_p.def_impl(lambda x: jnp.log1p(jnp.exp(x)))
softplus_p.def_abstract_eval(lambda x: x)


def my_softplus(x):
    return softplus_p.bind(x)


print(my_softplus(jnp.ones(3)))
print(jax.jit(my_softplus)(jnp.ones(3)))
