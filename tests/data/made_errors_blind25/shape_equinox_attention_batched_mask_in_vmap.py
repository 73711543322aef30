import jax
import jax.numpy as jnp
import equinox as eqx

attn = eqx.nn.MultiheadAttention(num_heads=4, query_size=64, key=jax.random.key(0))
x = jnp.ones((8, 16, 64))  # (batch, seq, dim)
# the padding-aware causal mask, built for the whole batch
mask = jnp.tril(jnp.ones((8, 16, 16), dtype=bool))


@eqx.filter_jit
def forward(attn, x, mask):
    return jax.vmap(lambda seq: attn(seq, seq, seq, mask=mask))(x)


print(forward(attn, x, mask).shape)
