"""The fixes table: for each common offender, what to use instead.

Kept as data, one row per offender, so adding one is a one-line change. A row matches an op
type (TF), a primitive or custom-call target (JAX), an exception class (tracing errors) or an
element type, by exact name or by a regular expression (rows whose key starts with ``^``).
:func:`suggest` returns the first row that matches, else a generic sentence for the reason.

The sections are owned separately (TF ops, JAX, tracing errors, dtypes): add rows to the one
your offender belongs to.

A TF row covers one *job* (a resize, a warp, a determinant, a shuffle...) and names what does
that same job and compiles -- checked against the installed TensorFlow, alternative by
alternative, in ``tests/test_check_tf_fixes.py``. An op that does another job gets its own row:
a rotation is a warp, and a resize is no fix for it.
"""

from __future__ import annotations

import re
from functools import cache

from .findings import Reason

__all__ = ["FIXES", "CAPTURED_PREFIX", "suggest"]

#: Prefix of the dtype rows for a value a tf.function captured (``captured:DT_STRING``): the
#: TF check tries them before the plain dtype rows, since the fix is where the value is made.
CAPTURED_PREFIX = "captured:"

# ---- TensorFlow ops -----------------------------------------------------------------------------
TF_FIXES: dict[str, str] = {
    "^(AsString|StringLength|StringToNumber|StringSplit(V2)?|StringJoin|"
    "RegexReplace|StaticRegexReplace|Substr|StringStrip|StringLower|StringUpper|ReduceJoin|"
    "UnicodeDecode.*|UnicodeEncode|StringToHashBucket.*)$": (
        "string ops never run under XLA: do string work outside the compiled function "
        "(in tf.data or before the call) and pass numbers in; for hashing use "
        "tf.strings.to_hash_bucket_fast in the input pipeline"
    ),
    # tf.print formats its message with StringFormat before PrintV2: TensorFlow names that
    # first, and the job is printing (tf.strings.format alone is rare inside a step).
    "^(PrintV2|Print|StringFormat)$": (
        "tf.print (and the tf.strings.format it formats with) is not compiled: remove it from "
        "the jit_compile function, return the value and print it outside "
        "(on TPU: tf.tpu.outside_compilation)"
    ),
    "^(PyFunc|EagerPyFunc|PyFuncStateless)$": (
        "tf.py_function / tf.numpy_function run Python on the host and cannot be compiled: "
        "rewrite the body with TensorFlow ops, or move the call outside the compiled function "
        "(on TPU: tf.tpu.outside_compilation)"
    ),
    "^Ragged.*$": (
        "ragged tensors have no XLA kernels: pad to a dense tensor first "
        "(rt.to_tensor(shape=[batch, MAX_LEN]) outside the compiled function, or "
        "tf.data's padded_batch) and carry a mask"
    ),
    "^(HashTable|HashTableV2|MutableHashTable.*|LookupTable.*|InitializeTable.*|"
    "StaticHashTable|DenseHashTable)$": (
        "lookup tables are host resources: do the lookup in the tf.data pipeline "
        "(dataset.map(table.lookup)) and feed the ids, or replace a small vocabulary with "
        "tf.gather on a tensor of ids"
    ),
    "^(DecodeJpeg|DecodePng|DecodeImage|DecodeGif|DecodeBmp|DecodeRaw|EncodeJpeg|EncodePng|"
    "DecodeWav|EncodeWav|ParseExample.*|ParseSingleExample|ParseSequenceExample.*|ReadFile|"
    "WriteFile)$": (
        "decoding and parsing run on the host: do them in the tf.data pipeline "
        "(dataset.map(...)) and feed decoded, fixed-size tensors to the compiled function"
    ),
    "^(Where|UniqueV2|Unique|BooleanMask|ListDiff)$": (
        "the result's size depends on the data: use a fixed size (tf.where(cond, x, y) with "
        "three arguments, a mask multiplied in, or tf.math.top_k with a static k)"
    ),
    "^(SetSize|DenseToDenseSetOperation|DenseToSparseSetOperation|SparseToSparseSetOperation)$": (
        "set operations (tf.sets.*) have data-dependent sizes and no XLA kernel: compare by "
        "broadcasting into a fixed-size mask instead -- "
        "tf.reduce_any(tf.equal(a[..., :, None], b[..., None, :]), -1) marks the elements of a "
        "that are in b (its tf.reduce_sum is the intersection's size)"
    ),
    "^(TensorListReserve|TensorListFromTensor|TensorListPushBack|TensorListSetItem|"
    "TensorArrayV3|TensorArrayWriteV3)$": (
        "a TensorArray must have a static size under XLA: "
        "tf.TensorArray(size=N, dynamic_size=False) with N known when tracing, and loops with "
        "maximum_iterations"
    ),
    "^(MatrixDeterminant|LogMatrixDeterminant)$": (
        "determinants have no XLA kernel (tf.linalg.det and tf.linalg.slogdet alike): for a "
        "positive-definite matrix take them from its Cholesky factor, which compiles -- "
        "L = tf.linalg.cholesky(m); det = tf.reduce_prod(tf.linalg.diag_part(L), -1) ** 2, "
        "log det = 2 * tf.reduce_sum(tf.math.log(tf.linalg.diag_part(L)), -1); for a general "
        "matrix compute it outside the compiled function"
    ),
    "Lu": (
        "the LU factorisation (tf.linalg.lu, lu_solve) has no XLA kernel: to solve m x = b use "
        "tf.linalg.solve(m, b), to invert tf.linalg.inv(m) (both compile), or factor outside "
        "the compiled function"
    ),
    "^(MatrixSquareRoot|MatrixLogarithm)$": (
        "matrix square roots and logarithms have no XLA kernel: for a symmetric "
        "positive-definite matrix use its eigendecomposition, which compiles -- "
        "w, v = tf.linalg.eigh(m); sqrtm = v @ tf.linalg.diag(tf.sqrt(w)) @ tf.linalg.adjoint(v) "
        "(tf.math.log(w) for logm); tf.linalg.expm compiles as it is"
    ),
    "^(SparseTensorDenseMatMul|SparseReshape|SparseReduceSum.*|SparseReduceMax.*|"
    "SparseSegment.*|SparseFillEmptyRows|SparseSoftmax|SparseAdd|SparseSlice|SparseConcat)$": (
        "this sparse op has no XLA kernel: densify inside the function with "
        "tf.sparse.to_dense (it compiles when the dense shape is static) and use the dense op "
        "(tf.matmul, tf.reduce_sum); for embedding-style sums use tf.gather and "
        "tf.math.unsorted_segment_sum with a static num_segments"
    ),
    # Only the first versions: SegmentSumV2 and friends (num_segments given) have kernels.
    "^Segment(Sum|Mean|Max|Min|Prod)$": (
        "sorted segment reductions have no XLA kernel: use the unsorted ones with a static "
        "num_segments -- tf.math.unsorted_segment_sum/_max/_min/_prod/_mean(data, ids, N) give "
        "the same result for sorted ids"
    ),
    "^HistogramFixedWidth$": (
        "tf.histogram_fixed_width has no XLA kernel: count with one-hot rows instead -- "
        "bins = tf.clip_by_value(tf.cast(tf.floor((x - lo) / (hi - lo) * N), tf.int32), 0, N - 1); "
        "tf.reduce_sum(tf.one_hot(bins, N, dtype=tf.int32), 0)"
    ),
    "^(ResizeBicubic|ResizeBicubicGrad|ResizeArea|ScaleAndTranslate|ScaleAndTranslateGrad)$": (
        "this resize method has no XLA kernel: tf.image.resize with method='bilinear' or "
        "'nearest' compiles (without antialias=True, which needs ScaleAndTranslate); an "
        "'area' downscale by an integer factor k is tf.nn.avg_pool2d(images, k, k, 'VALID')"
    ),
    "^ImageProjectiveTransformV\\d$": (
        "a projective warp (rotation, zoom, shear, translation: Keras RandomRotation, "
        "RandomZoom, RandomTranslation, RandomShear, keras.ops.image.affine_transform) has no "
        "XLA kernel: run the augmentation in the tf.data pipeline "
        "(dataset.map(lambda x, y: (augment(x, training=True), y))) before the compiled step, or "
        "warp by sampling: compute each output pixel's source coordinates from the transform "
        "and read them with keras.ops.image.map_coordinates(image, coords, order=1), which "
        "compiles; right-angle turns and flips are tf.image.rot90 / tf.image.flip_left_right"
    ),
    "^(CropAndResize|CropAndResizeGradImage|CropAndResizeGradBoxes|ExtractGlimpse(V2)?)$": (
        "cropping boxes and resampling them has no XLA kernel: for boxes known when tracing, "
        "crop by slicing (tf.image.crop_to_bounding_box) and then tf.image.resize with "
        "method='bilinear'; for boxes computed in the function, sample each crop's grid of "
        "points with keras.ops.image.map_coordinates(image, coords, order=1) (both compile)"
    ),
    "^(NonMaxSuppression|NonMaxSuppressionV2|NonMaxSuppressionV5|"
    "NonMaxSuppressionWithOverlaps|CombinedNonMaxSuppression)$": (
        "this non-max suppression has no XLA kernel (soft-NMS, scores returned, overlaps, "
        "combined per class): tf.image.non_max_suppression_padded(boxes, scores, K, "
        "pad_to_max_output_size=True) does hard NMS with a fixed output size and compiles "
        "(per class: run it for each class); otherwise post-process after the compiled function"
    ),
    "^(Dilation2D|Dilation2DBackpropInput|Dilation2DBackpropFilter|Erosion2D)$": (
        "grayscale morphology has no XLA kernel: with a flat (all-zero) structuring element, "
        "dilation is tf.nn.max_pool2d(x, k, 1, 'SAME') and erosion is "
        "-tf.nn.max_pool2d(-x, k, 1, 'SAME'); with a general filter, gather the windows with "
        "tf.image.extract_patches, add the filter and tf.reduce_max (all compile)"
    ),
    "^(DrawBoundingBoxes|DrawBoundingBoxesV2)$": (
        "drawing boxes is visualisation with no XLA kernel: return the images and boxes and "
        "draw them after the compiled function (tf.image.draw_bounding_boxes there)"
    ),
    "^(SampleDistortedBoundingBox|SampleDistortedBoundingBoxV2|"
    "StatelessSampleDistortedBoundingBox)$": (
        "random crop sampling has no XLA kernel: do this augmentation in the tf.data pipeline "
        "before the compiled step, or draw the crop offset with tf.random.stateless_uniform "
        "and take a fixed-size crop with tf.slice"
    ),
    "^(RandomPoisson|RandomPoissonV2)$": (
        "stateful Poisson sampling has no XLA kernel: tf.random.stateless_poisson(shape, seed, "
        "lam) draws the same distribution and compiles (pass the seed in, e.g. from "
        "tf.random.Generator.make_seeds outside)"
    ),
    "^(RandomGamma|StatelessRandomGamma(V2|V3)?)$": (
        "gamma sampling (tf.random.gamma, stateless_gamma) has no XLA kernel: draw the samples "
        "outside the compiled function and pass them in; for an integer shape parameter k, "
        "-tf.reduce_sum(tf.math.log(tf.random.stateless_uniform([k, *shape], seed)), 0) is "
        "Gamma(k, 1) and compiles"
    ),
    "^StatelessShuffle$": (
        "tf.random.experimental.stateless_shuffle has no XLA kernel: permute with a stateless "
        "sort instead -- tf.gather(x, tf.argsort(tf.random.stateless_uniform([n], seed))) -- or "
        "use tf.random.shuffle (both compile)"
    ),
    "^(AudioSpectrogram|Mfcc)$": (
        "the audio ops (tf.raw_ops.AudioSpectrogram, Mfcc) have no XLA kernel: tf.signal.stft "
        "(its magnitude is the spectrogram), tf.signal.linear_to_mel_weight_matrix and "
        "tf.signal.mfccs_from_log_mel_spectrograms do the same and compile"
    ),
    "^.*Dataset.*$": (
        "tf.data ops run on the host: keep the dataset outside the compiled function and "
        "iterate it there (for x in ds: step(x))"
    ),
    "captured:DT_STRING": (
        "a string tensor the function captures (a module-level tensor, a tf.string Variable) "
        "is passed in as an input at every call, and strings cannot enter an XLA computation: "
        "convert it to numbers outside the function (tf.strings.to_number, a vocabulary "
        "lookup) and capture or pass those, or build the constant inside the function, where "
        "TensorFlow folds string ops of constants before compiling"
    ),
    "_Arg": (
        "a tf.string argument cannot enter a compiled function: convert it to numbers before "
        "the call (tf.strings.to_number or a lookup in tf.data) and pass the tensor"
    ),
    # TensorFlow's names for the 64-bit float types (the TF check suggests by dtype first).
    "^(DT_DOUBLE|DT_COMPLEX128)$": (
        "TPUs have no 64-bit floating point: cast inputs to tf.float32 (or tf.bfloat16) before "
        "the call, create tensors and variables with dtype=tf.float32, and keep Keras on "
        "float32/mixed_bfloat16 (keras.mixed_precision.set_global_policy)"
    ),
    "^(Conv\\d?D?|Conv\\dDBackprop\\w+|DepthwiseConv2dNative\\w*|ExtractImagePatches)$": (
        "XLA convolutions on GPU take floating-point inputs only: tf.cast the input and filter "
        "to tf.float32 (or tf.bfloat16/tf.float16) and cast the result back"
    ),
}

# ---- JAX primitives and custom-call targets -----------------------------------------------------
JAX_FIXES: dict[str, str] = {
    "eig": (
        "nonsymmetric eigendecomposition has no TPU lowering: use jnp.linalg.eigh when the "
        "matrix is symmetric/Hermitian, or compute eig on the host (jax.pure_callback with "
        "numpy.linalg.eig, or before the jitted call)"
    ),
    "^(schur|hessenberg|geqp3|tridiagonal)$": (
        "this decomposition is lowered only for CPU (and some GPUs): compute it outside the "
        "jitted function or with jax.pure_callback on the host"
    ),
    "^lapack_.*$": (
        "a LAPACK kernel exists only on CPU: the same jnp.linalg call lowers to the platform's "
        "own kernel when lowered for it; lower for the target platform "
        "(jax.jit(f).trace(...).lower(lowering_platforms=(...)))"
    ),
    "^(cusolver_|cublas|cusparse_|cu_|cuhybrid_).*$": (
        "a CUDA library kernel exists only on NVIDIA GPUs: lower for the target platform "
        "instead of reusing GPU-lowered HLO"
    ),
    "^(hipsolver_|hip_|hiphybrid_|hipsparse_).*$": (
        "a ROCm library kernel exists only on AMD GPUs: lower for the target platform instead"
    ),
    "^(tpu_custom_call|Eigh|Qr|ProductOfElementaryHouseholderReflectors|LuDecomposition)$": (
        "a TPU kernel (Pallas/Mosaic TPU or a TPU linear-algebra expander): lower for the "
        "target platform, or use interpret=True for a Pallas kernel off TPU"
    ),
    "^(__gpu\\$xla\\.gpu\\.triton|mosaic_gpu.*)$": (
        "a Pallas GPU kernel runs only on GPU: guard it with jax.lax.platform_dependent or use "
        "interpret=True elsewhere"
    ),
    "^xla_(ffi_)?(partitioned_)?python_(cpu|gpu)_callback$": (
        "a host callback (jax.pure_callback, io_callback, jax.debug.print/callback) stops the "
        "device on every call and blocks jax.export and the persistent cache: compute it with "
        "jnp, or remove debug prints from the hot path"
    ),
    "^(send|recv|send-done|recv-done)$": (
        "a host transfer (a callback on TPU, or explicit send/recv): it blocks export and "
        "serialises device and host; remove the callback from the hot path"
    ),
    # The callback primitives themselves, as a jaxpr names them (TPU: no custom call to name).
    "^(pure_callback|io_callback|debug_callback|debug_print)$": (
        "a host callback (jax.pure_callback, io_callback, jax.debug.print/callback) stops the "
        "device on every call and blocks jax.export and the persistent cache: compute it with "
        "jnp, or remove debug prints from the hot path"
    ),
    # What a check says when jax.export refuses the program's host callbacks.
    "host_callbacks": (
        "jax.export cannot serialize host callbacks (pure_callback, io_callback, "
        "jax.debug.print/callback): export a function without them (keep debug prints out of "
        "it) and call the callback around the exported call"
    ),
}

# ---- JAX tracing errors (exception class names) -------------------------------------------------
# A key is the exception class, or ``Class:trigger`` where the message names what raised it
# (``jnp.nonzero``, the ``int`` function, a shape, a slice): the JAX check tries that first.
TRACING_FIXES: dict[str, str] = {
    "TracerBoolConversionError": (
        "Python control flow on a traced value: use jnp.where(cond, a, b) / jax.lax.select for "
        "values, jax.lax.cond(cond, f_true, f_false, x) for branches, or mark the argument "
        "static (static_argnums/static_argnames) if it really is a constant"
    ),
    "NonConcreteBooleanIndexError": (
        "boolean indexing has a data-dependent size: use the three-argument "
        "jnp.where(mask, x, fill), or jnp.sum(jnp.where(mask, x, 0)) for reductions"
    ),
    "TracerIntegerConversionError": (
        "a traced value used as a Python int (range, slicing): use jax.lax.fori_loop(0, n, "
        "body, init) or jax.lax.dynamic_slice with a static size, or mark the argument static"
    ),
    "TracerArrayConversionError": (
        "numpy called on a traced array: use jax.numpy instead, or jax.pure_callback for "
        "host-only code"
    ),
    "^ConcretizationTypeError:(nonzero|where|argwhere|flatnonzero)$": (
        "the result's size depends on the data: give it a static size, "
        "jnp.nonzero(m, size=K, fill_value=-1) (jnp.argwhere and one-argument jnp.where take "
        "size= too), or keep the shape with the three-argument jnp.where(m, x, fill)"
    ),
    "ConcretizationTypeError:bincount": (
        "the number of bins depends on the data (the largest value): give it as a static "
        "size, jnp.bincount(x, length=K) (K the number of classes), values past K dropped"
    ),
    "^(?:ConcretizationTypeError|TracerBoolConversionError):"
    "(setdiff1d|union1d|intersect1d|compress|extract)$": (
        "the result's size depends on the data: give it a static size (jnp.setdiff1d, "
        "union1d, intersect1d, compress and extract take size= and fill_value=), padded to "
        "that many and masked after"
    ),
    "^ConcretizationTypeError:(?:bcoo_)?fromdense$": (
        "the number of stored elements depends on the data: give BCOO.fromdense a static "
        "nse= (an upper bound on the nonzeros; the rest are padding), or convert outside jit"
    ),
    "ConcretizationTypeError:trim_zeros": (
        "how many zeros are trimmed depends on the data: keep the array's size and mask the "
        "zeros (jnp.where), or trim outside jit"
    ),
    "ConcretizationTypeError:unique": (
        "the number of unique values depends on the data: jnp.unique(x, size=K, "
        "fill_value=...) returns K values (padded with fill_value)"
    ),
    "^ConcretizationTypeError:(int|float|bool|complex|index)$": (
        "a Python int()/float() of a traced value: keep it an array (x.astype(jnp.int32), "
        "jnp.asarray(x, int)), or mark the argument static if it really is a constant"
    ),
    "^ConcretizationTypeError:(arange|linspace|repeat|eye|identity|tri|zeros|ones|full)$": (
        "a size argument is traced: mark it static (jax.jit(f, static_argnames=...)), or make "
        "the array at its largest size and mask the rest (jnp.where(jnp.arange(MAX) < n, ...))"
    ),
    "ConcretizationTypeError": (
        "a traced value where a concrete one is needed: give a static size (size= in "
        "jnp.nonzero/jnp.unique/jnp.argwhere, the three-argument jnp.where), mark the argument "
        "static (static_argnums), or move the shape logic out of jit"
    ),
    # The built-in classes are keyed by class as well (explain-error looks them up so); the
    # JAX check uses these two only when the message says it was a shape or a slice.
    "^(TypeError|InvalidShape).*$": (
        "a shape built from a traced value: shapes must be static -- mark the argument static "
        "(static_argnums/static_argnames), or pad/bucket to a fixed size"
    ),
    "IndexError": (
        "slice bounds must be static: use jax.lax.dynamic_slice(x, (start,), (SIZE,)) with a "
        "static SIZE, or mark the bound static"
    ),
}

# ---- Element types ------------------------------------------------------------------------------
DTYPE_FIXES: dict[str, str] = {
    "^(f64|c128|float64|complex128|DT_DOUBLE|DT_COMPLEX128)$": (
        "TPUs have no 64-bit floating point: keep jax_enable_x64 off on TPU (or cast to "
        "float32/bfloat16 with .astype before the jitted call)"
    ),
    "^(s64|u64|int64|uint64|DT_INT64|DT_UINT64)$": (
        "64-bit integers are emulated or unsupported on TPU: use int32 (turn jax_enable_x64 "
        "off, or cast indices with .astype(jnp.int32))"
    ),
    "^(string|DT_STRING|tf\\.string)$": (
        "strings never enter an XLA computation: convert them to numbers before the call "
        "(tf.strings.to_number or a vocabulary lookup in tf.data)"
    ),
}

# ---- Error-text situations (keys ``framework:situation``, looked up by explain-error) ---------
SITUATION_FIXES: dict[str, str] = {
    "tf:compile_time_constant": (
        "a shape or size is computed from a value known only at run time: pass it as a Python "
        "int (it becomes part of the trace; expect one compile per value), compute it from "
        "static shapes (tf.shape of an input with a fixed signature), or pad to a fixed size"
    ),
    "tf:resource_device": (
        "create the variable inside the same strategy/device scope as the compiled function "
        "(with strategy.scope(): or with tf.device(...):), or copy it to that device first"
    ),
    "tf:tensor_list_boundary": (
        "do not pass a TensorArray/TensorList into or out of the compiled function: stack it "
        "(ta.stack()) inside, and return or accept a dense tensor"
    ),
    "tf:maxpool_determinism": (
        "op determinism is on (tf.config.experimental.enable_op_determinism): turn it off for "
        "this model, compile without XLA on GPU, or replace max pooling by a strided convolution"
    ),
    "jax.export:platforms": (
        "export for the platform you will run on: jax.export.export(f, platforms=(...)) must "
        "list it (several platforms are allowed)"
    ),
    "jax.export:custom_call": (
        "the custom call has no compatibility guarantee: use jnp/lax operations that lower to "
        "stable targets, or accept the risk with "
        "jax.export.DisabledSafetyCheck.custom_call(TARGET)"
    ),
    "pallas_call": (
        "a Pallas kernel lowers only for the platform it was written for: run it there, use "
        "interpret=True elsewhere, or pick an implementation with jax.lax.platform_dependent"
    ),
    "psend": (
        "psend/precv are implemented only on GPU: use jax.lax.ppermute for point-to-point "
        "transfers on other platforms"
    ),
    # XLA status errors (explain-error's xla_status family), keyed `xla:FORM`.
    "xla:custom_element_size": (
        "widen the sub-byte operands yourself before the op on CPU and GPU: "
        "x.astype(jnp.bfloat16) (or float32), then the dot or conv without "
        "preferred_element_type; these backends cannot upcast float4/int4 inside the op"
    ),
    "xla:hlo_verifier": (
        "XLA made a module its own verifier refuses: change the op its op_name names, or "
        "report it to XLA with the dump (XLA_FLAGS=--xla_dump_to=DIR) and the pass it names"
    ),
    "xla:ffi_not_found": (
        "register the handler for this platform before the first call "
        '(jax.ffi.register_ffi_target(NAME, jax.ffi.pycapsule(fn), platform="cpu" or "CUDA")), '
        "check the target's spelling, or choose an implementation per platform with "
        "jax.lax.platform_dependent"
    ),
    "xla:custom_call_not_found": (
        "register the target for this platform with the API the call uses: typed FFI with "
        "jax.ffi.register_ffi_target(..., api_version=1) and ffi_call's default "
        "custom_call_api_version=4; legacy custom calls with api_version=0"
    ),
    "xla:ffi_operands": (
        "give the FFI handler what its binding declares, in order: operand dtypes and ranks "
        "(cast with .astype, reshape), as many operands and results, and attributes as numpy "
        "scalars of the declared type (np.uint8, np.int32, ...); the indexes the message gives "
        "are positions in the binding"
    ),
    "xla:cudnn_init": (
        "install the jax CUDA build that brings its own CUDA and cuDNN "
        '(pip install -U "jax[cuda12]") in a fresh environment and keep other cuDNN '
        "libraries off LD_LIBRARY_PATH; after "
        "'Could not create cudnn handle', free the GPU's memory (other processes, "
        "XLA_PYTHON_CLIENT_PREALLOCATE=false)"
    ),
    "xla:INVALID_ARGUMENT": (
        "XLA refused a value the program passed (an option, a shape, a dtype, an operand): the "
        "message names it; change it where the program sets it"
    ),
    "xla:NOT_FOUND": (
        "XLA did not find what the program names (a custom-call target, a plugin, a file): "
        "register or install it for this platform, or check its spelling"
    ),
    "xla:FAILED_PRECONDITION": (
        "the runtime was not ready for the call: the log lines just before the error say why "
        "(library versions, memory); a deleted or donated buffer cannot be used again"
    ),
    "IndexError:slice": (
        "slice bounds must be static: use jax.lax.dynamic_slice(x, (start,), (SIZE,)) with a "
        "static SIZE, or mark the bound static (static_argnums)"
    ),
}

#: Every row, in the order :func:`suggest` tries them.
FIXES: dict[str, str] = {
    **TF_FIXES,
    **JAX_FIXES,
    **TRACING_FIXES,
    **DTYPE_FIXES,
    **SITUATION_FIXES,
}

#: What to say when no row matches.
GENERIC: dict[Reason, str] = {
    Reason.NO_KERNEL: "no XLA kernel for this op on the platform: compute it outside the "
    "compiled function, or replace it with ops that have kernels",
    Reason.DTYPE: "the platform has no kernel for this dtype: cast to a supported type",
    Reason.CUSTOM_CALL: "this custom-call target is not provided by the platform: lower the "
    "program for the platform itself, or replace the call",
    Reason.NO_LOWERING: "this primitive cannot be lowered for the platform: compute it on the "
    "host or with another primitive",
    Reason.HOST_CALLBACK: "a host callback: it blocks export and stalls the device; remove it "
    "from the hot path",
    Reason.DYNAMIC_SHAPE: "a data-dependent (bounded dynamic) shape: pad to a static size and "
    "carry a mask",
    Reason.TRACING: "tracing failed: make the value static or use a jax.lax control-flow op",
    Reason.EXPORT: "jax.export would refuse this: use targets with compatibility guarantees, "
    "or jax.export.DisabledSafetyCheck.custom_call(target) if you accept the risk",
    Reason.COMPILE_ERROR: "the compiler refused the program: see the message",
    Reason.RUNTIME: "the program compiled and failed while it ran: see the message",
    Reason.SHARDING: "the arrays' shardings do not fit their shapes or the mesh: make each "
    "sharded size a multiple of its mesh axis, and use the mesh's own axis names",
}


@cache
def _compiled(key: str) -> re.Pattern[str] | None:
    return re.compile(key) if key.startswith("^") else None


def suggest(name: str, reason: Reason | str | None = None) -> str:
    """The fix for offender ``name`` (op type, primitive, target, exception class or dtype),
    else the generic advice for ``reason`` (empty when there is none)."""
    for key, advice in FIXES.items():
        pattern = _compiled(key)
        if pattern.match(name) if pattern else key == name:
            return advice
    return GENERIC.get(Reason(reason), "") if reason else ""
