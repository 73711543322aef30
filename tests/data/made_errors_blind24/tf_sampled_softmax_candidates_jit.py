import tensorflow as tf

VOCAB, DIM = 50_000, 128
out_w = tf.Variable(tf.random.normal([VOCAB, DIM], stddev=0.02))
out_b = tf.Variable(tf.zeros([VOCAB]))


@tf.function(jit_compile=True)
def lm_loss(hidden, next_tokens):
    return tf.reduce_mean(
        tf.nn.sampled_softmax_loss(
            out_w, out_b, next_tokens, hidden, num_sampled=512, num_classes=VOCAB
        )
    )


print(lm_loss(tf.random.normal([64, DIM]), tf.zeros([64, 1], tf.int64)))
