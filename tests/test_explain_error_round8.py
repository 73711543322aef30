"""explain-error round 8 (issue 35): the causes behind the fifth blind part's misses, each rule
tested on two wordings: one from the spent part (``tests/data/error_logs/fresh5_*``), one from
elsewhere (an older public thread, another framework, or JAX 0.10.2's own error run in a
child here)."""

from __future__ import annotations

from hloscope.analysis.explain_error import explain_error
from tests.explain_error_reading import CORPUS, first, spent
from tests.test_explain_error_fields import run_jax

# ---- a framework's compiled code the loader refused ------------------------------------------


def test_an_extension_built_against_another_torch_is_an_install_to_fix():
    failure = spent("fresh5_b_ttforge_pr377_xlac_undefined_symbol_torch28")
    assert (str(failure.family), failure.advice_kind, failure.finding.op) == (
        "backend_startup",
        "install",
        "_XLAC",
    )
    assert "torch_xla" in failure.finding.suggestion
    assert failure.platform is None  # the loader names no device


def test_jaxlib_refused_by_the_loader_on_linux_and_macos_is_an_install_to_fix():
    # conda-forge/jaxlib-feedstock#139 (pytest's "E   " margin) and jax#6118 (macOS's dyld).
    linux = (
        ">   from . import xla_extension as _xla\n"
        "E   ImportError: /home/runner/envs/t/lib/python3.10/site-packages/jaxlib/"
        "xla_extension.so: undefined symbol: _ZN4absl12lts_202206235MutexD1Ev\n"
    )
    macos = (
        "ImportError: dlopen(/Users/u/miniconda3/lib/python3.8/site-packages/jaxlib/"
        "xla_extension.so, 2): Symbol not found: __ZN10tensorflow8profiler11MonitorGrpcE\n"
        "  Referenced from: /Users/u/miniconda3/lib/python3.8/site-packages/jaxlib/"
        "xla_extension.so\n  Expected in: flat namespace\n"
    )
    for text in (linux, macos):
        failure = first(text)
        assert str(failure.family) == "backend_startup"
        assert failure.finding.op == "xla_extension"
        assert failure.advice_kind == "install"
        assert "jax" in failure.finding.suggestion


def test_a_cuda_function_the_dso_loader_cannot_find_is_the_gpu_libraries_install():
    # Reactant.jl's XLA (spent) and cuDNN's own loader under CTranslate2 (another framework).
    reactant = spent("fresh5_b_reactant_2370_cublaslt_symbol")
    ctranslate = first(
        "Unable to load any of {libcudnn_ops.so.9.1.0, libcudnn_ops.so.9.1, libcudnn_ops.so.9, "
        "libcudnn_ops.so}\nInvalid handle. Cannot load symbol cudnnCreateTensorDescriptor\n"
    )
    for failure in (reactant, ctranslate):
        assert (str(failure.family), str(failure.platform), failure.advice_kind) == (
            "backend_startup",
            "gpu",
            "install",
        )
    assert ctranslate.finding.op == "cudnnCreateTensorDescriptor"


def test_another_programs_missing_symbol_is_not_explained():
    text = (
        "symbol lookup error: /usr/lib/libchromium-efl.so: undefined symbol: "
        "_ZNK6google8protobuf7Message11GetTypeNameEv\n"
    )
    assert not explain_error(text).recognised


# ---- Mosaic's refusal naming its kernel's instruction -------------------------------------------


def test_mosaic_naming_the_kernels_module_and_instruction_is_a_pallas_kernel_to_fix():
    failure = spent("fresh5_b_sglangjax_pr1643_qmm_block_tiling_e2002")
    assert str(failure.family) == "pallas"
    assert failure.finding.node == "quantized_matmul_kernel_8_256_2048.499"
    assert str(failure.platform) == "tpu"
    # jax#30104's older wording (no module or instruction named) is still read, its op the
    # MLIR operation involved.
    older = first(
        "XlaRuntimeError: INTERNAL: Mosaic failed to compile TPU kernel: Target does not "
        'support this comparison\n\nThe MLIR operation involved:\n  %13060 = "arith.cmpf"'
        "(%11789, %283) <{predicate = 1 : i64}> : (vector<8x128x2xbf16>, "
        "vector<8x128x2xbf16>) -> vector<8x128x2xi1>\n"
    )
    assert (str(older.family), older.finding.op, older.finding.node) == (
        "pallas",
        "arith.cmpf",
        "",
    )


# ---- a traced value in code that is not JAX's ---------------------------------------------------


def test_a_tracer_handed_to_another_library_is_a_tracing_error(tmp_path):
    # A probabilistic library's type check and xarray's ufunc dispatch (spent), and Python's
    # own decimal and %-formatting under JAX 0.10.2's jit (run here).
    for name in (
        "fresh5_b_cfaforecasting_864_deterministic_variable_jittracer",
        "fresh5_b_weathernext_203_xarray_jax_tracer_array_ufunc",
    ):
        assert str(spent(name).family) == "jax_tracing"
    stderr = run_jax(
        tmp_path / "foreign.py",
        """
        import decimal
        import jax
        import jax.numpy as jnp

        def price(x):
            return decimal.Decimal(x)

        jax.jit(price)(jnp.float32(1.5))
        """,
    )
    failure = first(stderr)
    assert str(failure.family) == "jax_tracing"
    assert failure.finding.source.endswith("foreign.py:7")
    formatted = first("TypeError: %d format: a real number is required, not DynamicJaxprTracer")
    assert str(formatted.family) == "jax_tracing"


def test_jaxs_own_message_naming_a_tracer_stays_its_own_form():
    # The unhashable tracer's form reads the line; the foreign fallback on it gives way.
    failures = explain_error("TypeError: unhashable type: 'DynamicJaxprTracer'\n").failures
    assert len(failures) == 1
    assert not failures[0].fallback


# ---- a leaked tracer whose first line was not pasted --------------------------------------------


def test_a_leaks_explanation_without_its_first_line_is_an_unexpected_tracer(tmp_path):
    failure = spent("fresh5_a_mjplayground_41_dr_wrapper_leaked_tracer")
    assert failure.finding.op == "UnexpectedTracerError"
    assert failure.finding.source.endswith("train_jax_ppo.py:393")
    stderr = run_jax(
        tmp_path / "leak.py",
        """
        import jax
        import jax.numpy as jnp

        kept = []

        def step(x):
            kept.append(x * 2)
            return x

        jax.jit(step)(jnp.ones(3))
        print(kept[0] + 1)
        """,
    )
    whole = first(stderr)
    assert whole.finding.op == "UnexpectedTracerError"
    # The same message with its first line cut, as a paste from the middle of a log.
    cut = stderr.replace("Encountered an unexpected tracer.", "", 1)
    cut = "\n".join(line for line in cut.splitlines() if "unexpected tracer" not in line)
    failure = first(cut)
    assert (str(failure.family), failure.finding.op) == ("jax_tracing", "UnexpectedTracerError")
    assert len(explain_error(stderr).failures) == 1  # not read twice where the first line is


# ---- a cache miss whose place was elided --------------------------------------------------------


def test_a_cache_miss_without_its_place_is_a_recompile(tmp_path):
    failure = spent("fresh5_b_vajax_17_cache_miss_redefined_function")
    assert (str(failure.family), failure.advice_kind) == ("recompile", "see_recompiles")
    assert any("made anew" in hint for hint in failure.hints)
    stderr = run_jax(
        tmp_path / "remake.py",
        """
        import jax
        import jax.numpy as jnp

        jax.config.update("jax_explain_cache_misses", True)
        for i in range(3):
            def f(x):
                return x + 1
            jax.jit(f)(jnp.ones(2))
        raise SystemExit(1)
        """,
    )
    own = first(stderr)
    assert (str(own.family), own.finding.op) == ("recompile", "f")
    # The first miss is a first trace; the repeats folded into it say the function was made
    # anew, and the one failure keeps that.
    assert any("made anew" in hint for hint in own.hints)


# ---- a kernel looked up in a build for other GPUs -----------------------------------------------


def test_an_invalid_device_function_is_a_build_without_this_gpus_code():
    # jax's ROCm plugin's HIP code 98 (spent), PyTorch's ROCm words and a CUDA runtime's name.
    texts = (
        (CORPUS / "fresh5_b_rocmjax_489_hipgetfuncbysymbol_98.log").read_text(),
        "RuntimeError: HIP error: invalid device function\nHIP kernel errors might be "
        "asynchronously reported at some other API call, so the stacktrace below might be "
        "incorrect.\n",
        "XlaRuntimeError: INTERNAL: Failed to load in-memory CUBIN: "
        "cudaErrorInvalidDeviceFunction\n",
    )
    for text in texts:
        failure = first(text)
        assert (str(failure.family), str(failure.platform), failure.advice_kind) == (
            "backend_startup",
            "gpu",
            "install",
        )
        assert failure.finding.op == "no kernel image"


# ---- the instruction an on-chip allocation was for ----------------------------------------------


def test_an_allocation_on_the_stack_names_the_instruction_it_was_for():
    # PyTorch/XLA's Pallas kernel (spent) and XLA's own page for error E1001.
    failure = spent("fresh5_b_ptxla_pr9470_vmem_stack_quantized_matmul")
    assert (str(failure.family), failure.finding.node) == ("out_of_memory", "quantized_matmul_int8")
    xla = first(
        "RESOURCE_EXHAUSTED: E1001: CompileTimeScopedVmemOom:\nRan out of memory in memory "
        "space vmem while allocating on stack for %ragged_latency_optimized_all_gather_lhs_"
        "contracting_gated_matmul_kernel.18 = bf16[2048,4096]{1,0:T(8,128)(2,1)} custom-call"
        "(...) ...\nScoped allocation with size 18.00M and limit 16.00M exceeded scoped vmem "
        "limit by 2.00M.\n"
    )
    assert str(xla.family) == "out_of_memory"
    assert xla.finding.node.startswith("ragged_latency_optimized_all_gather")


# ---- an op of Shardy's dialect the verifier refused ---------------------------------------------


def test_a_shardy_op_the_verifier_refused_is_a_sharding():
    # tt-forge-models' collective permute (spent) and Shardy's own verifier test's words.
    failure = spent("fresh5_b_ttforgemodels_pr780_sdy_collective_permute_type")
    assert (str(failure.family), failure.finding.node) == ("sharding", "sdy.collective_permute")
    shardy = first(
        "test.mlir:5:8: error: 'sdy.sharding_constraint' op cannot change the reduction "
        "operator of kept unreduced axes from max to sum.\n"
    )
    assert (str(shardy.family), shardy.finding.node) == ("sharding", "sdy.sharding_constraint")
    # Another dialect's refusal stays a crash of the compiler's own.
    other = first("error: 'stablehlo.custom_call' op incorrect layout {1, 0} for type\n")
    assert str(other.family) == "xla_crash"


# ---- a traceback whose line numbers an editor turned into links ---------------------------------


def test_line_numbers_linked_by_vs_code_are_the_frames_lines():
    # keypoint-MoSeq run as a VS Code interactive script (spent): `kpms_test.py:[2](https://
    # vscode-remote+...)`; a notebook cell the same way (the cell shape of a public geokit
    # thread: `Cell In[1], [line 3](vscode-notebook-cell:?...)`) with JAX 0.10.2's words.
    failure = spent("fresh5_b_keypointmoseq_247_oom_fit_model_45gb")
    assert failure.finding.source.endswith("keypoint-moseq/kpms_test.py:2")
    link = "vscode-notebook-cell:?execution_count=1&line={}"
    cell = "\n".join(
        [
            "TracerBoolConversionError                 Traceback (most recent call last)",
            f"Cell In[1], [line 7]({link.format(7)})",
            f"      [4]({link.format(4)})     if x > 0:",
            f"----> [7]({link.format(7)}) jax.jit(f)(1.0)",
            "",
            "TracerBoolConversionError: Attempted boolean conversion of traced array with "
            "shape bool[].",
        ]
    )
    assert first(cell).finding.source == "Cell In[1]:7"


# ---- a removed API met while a library imports --------------------------------------------------


def test_a_removed_api_met_while_a_library_imports_is_a_release_mismatch_to_install():
    # jax-triton importing under AlphaFold 3 (spent) and chex#158's plain traceback: every
    # frame but JAX's runs a module's top level, so nothing ran: the packages do not fit (a
    # call refused, jax_call, since 2026-12-07; filed as the start-up before).
    af3 = spent("fresh5_a_af3_394_jax_triton_core_primitive_removed")
    assert (str(af3.family), af3.advice_kind) == ("jax_call", "install")
    # "jax.core.Primitive was removed" names a class, not a primitive called "was".
    assert af3.finding.op.startswith("jax.core.Primitive was removed")
    chex = first(
        "Traceback (most recent call last):\n"
        '  File "<stdin>", line 1, in <module>\n'
        '  File "/home/u/env/lib/python3.8/site-packages/chex/__init__.py", line 17, in '
        "<module>\n    from chex._src.asserts import assert_axis_dimension\n"
        '  File "/home/u/env/lib/python3.8/site-packages/chex/_src/pytypes.py", line 36, in '
        "<module>\n    PRNGKey = jax.random.KeyArray\n"
        "AttributeError: module 'jax.random' has no attribute 'KeyArray'\n"
    )
    assert (str(chex.family), chex.advice_kind) == ("jax_call", "install")
    assert "chex" in chex.finding.suggestion
    # Python's import machinery between the frames (as older releases print it) runs no one's
    # code: still an import.
    frozen = first(
        "Traceback (most recent call last):\n"
        '  File "/home/u/run.py", line 1, in <module>\n    import optax\n'
        '  File "<frozen importlib._bootstrap>", line 1027, in _find_and_load\n'
        '  File "<frozen importlib._bootstrap_external>", line 883, in exec_module\n'
        '  File "/home/u/env/lib/python3.10/site-packages/optax/__init__.py", line 17, in '
        "<module>\n    ArrayDType = jax._src.numpy.lax_numpy._ScalarMeta\n"
        "AttributeError: module 'jax' has no attribute '_src'\n"
    )
    assert str(frozen.family) == "jax_call"
    # The same removal met as a library's function runs stays a call of JAX's API.
    running = first(
        "Traceback (most recent call last):\n"
        '  File "/home/u/train.py", line 9, in main\n    step(x)\n'
        '  File "/home/u/env/lib/python3.11/site-packages/mylib/ops.py", line 30, in step\n'
        "    eqn = jax.core.JaxprEqn(...)\n"
        "AttributeError: jax.core.JaxprEqn was removed in JAX v0.6.0. Use "
        "jax.extend.core.JaxprEqn instead\n"
    )
    assert str(running.family) == "jax_call"


# ---- Triton's compiler refusing a kernel --------------------------------------------------------


def test_tritons_compilation_error_is_a_gpu_kernel_that_did_not_compile():
    # AlphaFold 3's flash attention through jax-triton (spent): the op is the primitive bound;
    # a kernel torch's inductor generated (Comfy-WaveSpeed#26) names none.
    af3 = spent("fresh5_a_af3_486_triton_compilation_error_fwd_kernel")
    assert (str(af3.family), af3.finding.op, str(af3.platform)) == (
        "pallas",
        "triton_kernel_call",
        "gpu",
    )
    inductor = first(
        '  File "D:\\python\\lib\\site-packages\\triton\\compiler\\code_generator.py", line '
        "1124, in visit_Call\n    raise CompilationError(self.jit_fn.src, node, None) from e\n"
        "triton.compiler.errors.CompilationError: at 8:11:\n"
        "def triton_(in_ptr0, out_ptr0, xnumel, XBLOCK : tl.constexpr):\n"
        "    tmp1 = tmp0.to(tl.float32)\n           ^\n"
    )
    assert (str(inductor.family), inductor.finding.op, str(inductor.platform)) == (
        "pallas",
        "triton kernel",
        "gpu",
    )
    assert "8:11" in inductor.finding.suggestion


# ---- a serialized module of a version its reader does not take ----------------------------------


def test_a_serialized_modules_version_out_of_the_readers_range_is_an_install(tmp_path):
    # TF's XlaCallModule reading flax's export (spent) and JAX 0.10.2's own range of calling
    # conventions, run here.
    tf = spent("fresh5_a_flax_5054_xlacallmodule_serialization_version")
    assert (str(tf.family), tf.finding.op, tf.advice_kind) == (
        "jax_export",
        "XlaCallModule",
        "install",
    )
    assert "10" in tf.finding.suggestion and "9" in tf.finding.suggestion
    stderr = run_jax(
        tmp_path / "convention.py",
        """
        import jax
        import jax.numpy as jnp
        from jax import export

        jax.config.update("jax_export_calling_convention_version", 99)
        export.export(jax.jit(jnp.sin))(jnp.ones(3))
        """,
    )
    own = first(stderr)
    assert (str(own.family), own.advice_kind) == ("jax_export", "install")
    assert own.finding.source.endswith("convention.py:7")


# ---- a pass pipeline naming a pass the build lacks ----------------------------------------------


def test_a_pipeline_naming_an_unregistered_pass_is_a_compiler_of_another_release(tmp_path):
    # Reactant.jl's TPU pipeline (spent) and the MLIR bundled with JAX 0.10.2, run here.
    reactant = spent("fresh5_b_reactant_1482_tpu_strip_debuginfo_pass")
    assert (str(reactant.family), reactant.finding.op, reactant.advice_kind) == (
        "xla_crash",
        "strip-debuginfo",
        "install",
    )
    stderr = run_jax(
        tmp_path / "pipeline.py",
        """
        from jax._src.interpreters import mlir
        from jax._src.lib.mlir import passmanager

        with mlir.make_ir_context():
            passmanager.PassManager.parse("builtin.module(strip-debug-info-v2)")
        """,
    )
    own = first(stderr)
    assert (str(own.family), own.finding.op) == ("xla_crash", "strip-debug-info-v2")


# ---- a library or package the framework loads, not installed at all ------------------------------


def test_a_library_or_package_not_found_at_all_is_an_install_to_fix():
    # jax#602's import of an old jaxlib (a traceback of <module> frames), jax#1377's IPython
    # form, Python's own Windows words for an extension, JAX 0.10.2's own words for a missing
    # jaxlib (jax/_src/lib/__init__.py, after the ModuleNotFoundError it raises from).
    jax602 = (
        "Traceback (most recent call last):\n"
        '  File "<stdin>", line 1, in <module>\n'
        '  File "/home/r/miniconda3/envs/jax/lib/python3.6/site-packages/jaxlib/xla_client.py",'
        " line 38, in <module>\n    from . import pywrap_xla as c_api\n"
        "ImportError: libcusolver.so.9.0: cannot open shared object file: No such file or "
        "directory\n"
    )
    jax1377 = (
        "---> 37 from . import xla_extension as _xla\n\n"
        "ImportError: libcusolver.so.10.0: cannot open shared object file: No such file or "
        "directory\n"
    )
    for text, library in ((jax602, "libcusolver.so.9.0"), (jax1377, "libcusolver.so.10.0")):
        failure = first(text)
        assert (str(failure.family), failure.finding.op, str(failure.platform)) == (
            "backend_startup",
            library,
            "gpu",
        )
        assert failure.advice_kind == "install"
    windows = first(
        "ImportError: DLL load failed while importing xla_extension: The specified module "
        "could not be found.\n"
    )
    assert (str(windows.family), windows.finding.op) == ("backend_startup", "xla_extension")
    no_jaxlib = (
        "Traceback (most recent call last):\n"
        '  File "/usr/lib/python3/site-packages/jax/_src/lib/__init__.py", line 26, in '
        "<module>\n    import jaxlib as jaxlib\nModuleNotFoundError: No module named 'jaxlib'\n\n"
        "During handling of the above exception, another exception occurred:\n\n"
        "Traceback (most recent call last):\n"
        '  File "/home/u/run.py", line 1, in <module>\n    import jax\n'
        "ModuleNotFoundError: jax requires jaxlib to be installed. See "
        "https://github.com/jax-ml/jax#installation for installation instructions.\n"
    )
    failures = explain_error(no_jaxlib).failures
    assert [(str(f.family), f.finding.op) for f in failures] == [("backend_startup", "jaxlib")]


def test_the_dso_loaders_line_and_other_programs_libraries_are_not_read_here():
    # TF's DSO loader names the file in its own sentence (jax#5464): read once, as cuDNN.
    dso = (
        "2021-01-19 21:40:57.616373: W tensorflow/stream_executor/platform/default/"
        "dso_loader.cc:60] Could not load dynamic library 'libcudnn.so.8'; dlerror: "
        "libcudnn.so.8: cannot open shared object file: No such file or directory; "
        "LD_LIBRARY_PATH: /opt/cudnn/lib64\n"
    )
    failures = explain_error(dso).failures
    assert [f.finding.op for f in failures] == ["cuDNN"]
    assert not explain_error(
        "OSError: libfoo.so: cannot open shared object file: No such file or directory\n"
    ).recognised
    removed = "ModuleNotFoundError: No module named 'jax.experimental.maps'\n"
    assert not explain_error(removed).recognised


# ---- a Tenstorrent device's memory, in tt-metal's words -----------------------------------------


def test_tt_metals_allocator_refusing_a_buffer_is_out_of_memory():
    # tt-xla's circular buffers beyond a core's L1 (spent fresh part) and tt-metal's bank
    # allocator as a public test log prints it (pytest's margin, wrapped), for L1 and DRAM.
    circular = spent("fresh_ttxla_1066_l1_circular_buffers")
    assert (str(circular.family), circular.finding.op, circular.advice_kind) == (
        "out_of_memory",
        "circular buffers",
        "smaller_blocks",
    )
    assert circular.platform is None  # none of XLA's three platforms
    l1 = first(
        "E   RuntimeError: TT_FATAL @ tt_metal/impl/allocator/bank_manager.cpp:462\n"
        "E   Out of Memory: Not enough space to allocate 55444480 B L1 buffer across 70\n"
        "E   banks, where each bank needs to store 792064 B, but bank size is 1393472 B\n"
    )
    assert (str(l1.family), l1.finding.op, l1.advice_kind) == (
        "out_of_memory",
        "L1 buffer",
        "smaller_blocks",
    )
    dram = first(
        "RuntimeError: Out of Memory: Not enough space to allocate 570425344 B DRAM buffer "
        "across 8 banks\n"
    )
    assert (dram.finding.op, dram.advice_kind) == ("DRAM buffer", "smaller_batch")


# ---- a GPU kernel's blocks over the shared memory a block may use --------------------------------


def test_a_kernel_over_the_gpus_shared_memory_is_a_kernel_to_retile():
    # jax's ROCm Pallas kernel (spent fresh3), AlphaFold 3's tokamax kernel as a public note
    # quotes it, and Triton's own OutOfResources (a torch kernel's words).
    texts = (
        (CORPUS / "fresh3_b_rocmjax_404_shared_memory_lds.log").read_text(),
        "RESOURCE_EXHAUSTED: Shared memory size limit exceeded: requested 110592, available: "
        "101376\n",
        "triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: "
        "131072, Hardware limit: 101376. Reducing block sizes or `num_stages` may help.\n",
    )
    for text in texts:
        failure = first(text)
        assert (str(failure.family), str(failure.platform), failure.advice_kind) == (
            "pallas",
            "gpu",
            "smaller_blocks",
        )
    assert "101376 bytes" in first(texts[2]).finding.suggestion
    # XLA's own fusion, tiled by the compiler, is no kernel of the program's.
    fusion = (
        "RESOURCE_EXHAUSTED: Shared memory size limit exceeded: requested 131072, available: "
        "101376, context: [Fusion: f32[32,128,32,128]]\n"
    )
    assert all(str(f.family) != "pallas" for f in explain_error(fusion).failures)


def test_a_tracer_that_is_only_the_leaf_a_structure_got_is_no_tracing_error(tmp_path):
    # flax's nnx.jit reading out_shardings=(None,) against one output (spent fresh part):
    # "Expected tuple, got JitTracer(...)" is a structure that did not fit, not a tracer
    # misused; JAX 0.10.2's own jit says the same as a pytree error, run here.
    flax = explain_error((CORPUS / "fresh_flax_5411_out_shardings_tuple.log").read_text())
    assert all(str(f.family) != "jax_tracing" for f in flax.failures)
    stderr = run_jax(
        tmp_path / "prefix.py",
        """
        import jax
        import jax.numpy as jnp

        jax.jit(lambda x: x * 2, out_shardings=(None,))(jnp.ones(2))
        """,
    )
    failures = explain_error(stderr).failures
    assert [str(f.family) for f in failures] == ["jax_shape"]
