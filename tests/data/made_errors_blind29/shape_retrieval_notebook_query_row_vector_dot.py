import sys

from IPython.core.interactiveshell import InteractiveShell

CELL = '''import jax
import jax.numpy as jnp

docs = jax.random.normal(jax.random.key(0), (10_000, 384))
docs = docs / jnp.linalg.norm(docs, axis=-1, keepdims=True)
query = docs[42:43]  # the embedding of one document, kept as a (1, 384) row
scores = jnp.dot(docs, query)
print(jnp.argsort(-scores)[:5])
'''
shell = InteractiveShell.instance()
shell.run_line_magic("colors", "NoColor")
result = shell.run_cell(CELL)
sys.exit(0 if result.success else 1)
