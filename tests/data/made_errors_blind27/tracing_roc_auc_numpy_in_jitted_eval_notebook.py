import sys

from IPython.core.interactiveshell import InteractiveShell

CELL = '''import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def eval_step(w, x, y):
    # ROC AUC by the rank-sum formula, as in the sklearn-free snippet we copied
    scores = np.asarray(jax.nn.sigmoid(x @ w))
    ranks = scores.argsort().argsort() + 1
    n_pos = int(y.sum())
    return (ranks[y == 1].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * (len(y) - n_pos))


x = jax.random.normal(jax.random.key(0), (256, 8))
auc = eval_step(jnp.ones(8), x, (x[:, 0] > 0).astype(jnp.int32))
'''
shell = InteractiveShell.instance()
shell.run_line_magic("colors", "NoColor")
result = shell.run_cell(CELL)
sys.exit(0 if result.success else 1)
