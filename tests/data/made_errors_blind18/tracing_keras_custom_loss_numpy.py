import numpy as np
import keras


def weighted_mse(y_true, y_pred):
    # positives count twice
    weights = np.where(np.asarray(y_true) > 0.5, 2.0, 1.0)
    return keras.ops.mean(weights * (y_true - y_pred) ** 2)


model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss=weighted_mse)
model.fit(np.ones((32, 8)), np.ones((32, 1)), epochs=1, verbose=0)
