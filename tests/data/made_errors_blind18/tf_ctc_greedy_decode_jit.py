import tensorflow as tf


@tf.function(jit_compile=True)
def transcribe(logits, lengths):
    # logits (time, batch, classes) from the acoustic model
    decoded, _ = tf.nn.ctc_greedy_decoder(logits, lengths)
    return tf.sparse.to_dense(decoded[0])


logits = tf.random.normal((50, 2, 29))
print(transcribe(logits, tf.constant([50, 42])).shape)
