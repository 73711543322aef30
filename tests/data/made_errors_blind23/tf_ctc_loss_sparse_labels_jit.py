import tensorflow as tf


@tf.function(jit_compile=True)
def asr_loss(logits, transcripts):
    # transcripts come from the tokenizer as a sparse batch of character ids
    frames = tf.fill([tf.shape(logits)[1]], tf.shape(logits)[0])
    losses = tf.nn.ctc_loss(transcripts, logits, None, frames,
                            logits_time_major=True, blank_index=0)
    return tf.reduce_mean(losses)


transcripts = tf.sparse.from_dense(tf.constant([[5, 12, 12, 15], [8, 9, 0, 0]]))
print(asr_loss(tf.random.normal((120, 2, 29)), transcripts))
