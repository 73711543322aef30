import sys

from IPython.core.interactiveshell import InteractiveShell

CELL = '''import jax
import jax.numpy as jnp
from flax import nnx

class Classifier(nnx.Module):
    def __init__(self, rngs):
        self.linear = nnx.Linear(16, 4, rngs=rngs)

    def __call__(self, x, confidence):
        logits = self.linear(x)
        # abstain when the model is unsure
        if jax.nn.softmax(logits).max() < confidence:
            return jnp.full(logits.shape[:-1], -1)
        return logits.argmax(-1)

@nnx.jit
def predict(model, x):
    return model(x, 0.5)

model = Classifier(nnx.Rngs(0))
print(predict(model, jnp.ones((1, 16))))
'''
shell = InteractiveShell.instance()
shell.run_line_magic("colors", "NoColor")
result = shell.run_cell(CELL)
sys.exit(0 if result.success else 1)
