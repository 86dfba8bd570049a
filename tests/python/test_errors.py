"""The error table: bad shapes, dtypes and knobs raise the right exception with a message naming the
argument and the rule (lowp's own where the C library finds it), and leave every caller's array
untouched. Runs on NumPy arrays and, where torch imports, on CPU tensors through the operators."""
import pytest

from conftest import make_input, np

lowp = pytest.importorskip("lowp")


def numpy_copy(a):
    return a.copy()


def _torch_cpu():
    torch = pytest.importorskip("torch")

    def T(a):
        if a.dtype.name == "bfloat16":
            return torch.from_numpy(a.view(np.uint16).copy()).view(torch.bfloat16)
        return torch.from_numpy(a.view(np.int64) if a.dtype == np.uint64 else a.copy())
    return T


X = make_input(32, 64)
F1 = np.array([2.0], np.float32)


def _delayed_state(T):
    return {"scale": T(F1), "amax": T(np.array([1.0, 2.0], np.float32))}


# id, call(T) -> (function, args, kwargs, caller arrays that must stay untouched), exception, message
CASES = [
    ("nvfp4_cols", lambda T: (lowp.quantize, (T(make_input(32, 40)), "nvfp4_per_tensor"), {}, []),
     ValueError, "K % 16 == 0"),
    ("nvfp4_col_rows", lambda T: (lowp.quantize, (T(make_input(20, 64)), "nvfp4_per_token"), {"columnwise": True}, []),
     ValueError, "rows"),
    ("int_input", lambda T: (lowp.quantize, (T(np.ones((4, 4), np.int32)),), {}, []),
     ValueError, "dtype int32 is not supported"),
    ("recipe_name", lambda T: (lowp.quantize, (T(X), "fp9"), {}, []), ValueError, "scaling: 'fp9' is not one of"),
    ("fp8_takes_no_rht", lambda T: (lowp.quantize, (T(X), "fp8_current"), {"rht": True}, []),
     ValueError, "rht: an NVFP4 knob"),
    ("fp8_dtype", lambda T: (lowp.quantize, (T(X),), {"dtype": "e3m4"}, []), ValueError, "dtype: 'e3m4'"),
    ("nvfp4_dtype", lambda T: (lowp.quantize, (T(X), "nvfp4_per_tensor"), {"dtype": "e4m3"}, []),
     ValueError, "NVFP4 codes are 'e2m1'"),
    ("delayed_needs_state", lambda T: (lowp.quantize, (T(X), "fp8_delayed"), {}, []),
     ValueError, "delayed scaling reads scale"),
    ("current_takes_no_scale", lambda T: (lowp.quantize, (T(X), "fp8_current"), {"scale": T(F1)}, []),
     ValueError, "only delayed scaling takes them"),
    ("scale_dtype", lambda T: (lowp.quantize, (T(X), "fp8_delayed"),
                               {"scale": T(np.ones(1, np.float64)), "amax": T(F1)}, []),
     ValueError, "scale: dtype is float64; expected float32"),
    ("scale_count", lambda T: (lowp.quantize, (T(X), "fp8_delayed"),
                               {"scale": T(np.ones(2, np.float32)), "amax": T(F1)}, []),
     ValueError, "scale: holds 2 elements; expected 1"),
    ("sr_needs_rng", lambda T: (lowp.quantize, (T(X), "nvfp4_per_tensor"), {"role": "gradient"}, []),
     ValueError, "rng_state"),
    ("rng_state_size", lambda T: (lowp.quantize, (T(X), "nvfp4_per_tensor"),
                                  {"role": "gradient", "rng_state": T(np.zeros(3, np.uint64))}, []),
     ValueError, "rng_state: holds 3 elements; expected 2"),
    ("block_2d_and_rht", lambda T: (lowp.quantize, (T(X), "nvfp4_per_tensor"), {"role": "weight", "rht": True}, []),
     ValueError, "block_2d"),
    ("per_token_2d", lambda T: (lowp.quantize, (T(X), "nvfp4_per_token"), {"block_2d": True}, []),
     ValueError, "block_2d"),
    ("estimation_factor", lambda T: (lowp.quantize, (T(X), "nvfp4_per_tensor"),
                                     {"role": "input", "columnwise": True, "amax_estimation": True,
                                      "amax_estimation_factor": -1.0}, []),
     ValueError, "amax_estimation_factor"),
    ("nvfp4_epsilon", lambda T: (lowp.quantize, (T(X), "nvfp4_per_tensor"), {"amax_epsilon": 0.5}, []),
     ValueError, "amax_epsilon"),
    ("given_amax_size", lambda T: (lowp.quantize, (T(X), "nvfp4_per_token"),
                                   {"rowwise_amax": T(np.ones(5, np.float32))}, []),
     ValueError, "rowwise_amax: holds 5 elements; expected 32"),
    ("dact_nvfp4", lambda T: (lowp.quantize_dact, (T(X), T(X), "silu", "nvfp4_per_tensor"), {}, []),
     NotImplementedError, "NVFP4"),
    ("dact_per_token", lambda T: (lowp.quantize_dact, (T(X), T(X), "relu", "fp8_per_token"), {}, []),
     NotImplementedError, "PER_TOKEN"),
    ("dact_shape", lambda T: (lowp.quantize_dact, (T(X), T(make_input(16, 64))), {}, []),
     ValueError, "act_input: is float32 (16, 64); must match float32 (32, 64)"),
    ("activation_name", lambda T: (lowp.quantize_dact, (T(X), T(X), "tanh"), {}, []),
     ValueError, "activation: 'tanh'"),
    ("update_margin", lambda T: (lambda h, s, si: lowp.fp8_delayed_scaling_update(h, s, si, margin=100),
                                 (T(np.ones((2, 3), np.float32)), T(np.ones(2, np.float32)), T(np.ones(2, np.float32))),
                                 {}, [0, 1, 2]),
     ValueError, "margin"),
    ("update_scale_count", lambda T: (lowp.fp8_delayed_scaling_update,
                                      (T(np.ones((2, 3), np.float32)), T(np.ones(3, np.float32)),
                                       T(np.ones(2, np.float32))), {}, [0, 1, 2]),
     ValueError, "scale: holds 3 elements; expected 2"),
    ("update_history_strided", lambda T: (lowp.fp8_delayed_scaling_update,
                                          (T(np.ones((2, 6), np.float32))[:, ::2], T(np.ones(2, np.float32)),
                                           T(np.ones(2, np.float32))), {}, [0, 1, 2]),
     ValueError, "amax_history: must be contiguous (it is written in place)"),
    ("swizzle_size", lambda T: (lowp.nvfp4_swizzle_scales, (T(np.zeros(100, np.uint8)), 128, 4), {}, [0]),
     ValueError, "compact: holds 100 elements; expected 512"),
    ("rng_increment", lambda T: (lowp.rng_advance, (T(np.zeros(2, np.uint64)), -1), {}, [0]),
     ValueError, "increment"),
    ("grouped_overlap", lambda T: (lowp.grouped_quantize,
                                   (T(make_input(1, 64).reshape(64)), T(np.array([2, 2], np.int64)),
                                    T(np.array([16, 16], np.int64)), T(np.array([0, 16], np.int64)), "fp8_delayed"),
                                   {"scale": T(np.ones(2, np.float32)), "amax": T(np.ones((2, 3), np.float32))},
                                   ["amax"]),
     ValueError, "member 1 starts at element 16, inside the previous member"),
    ("grouped_no_members", lambda T: (lowp.grouped_amax, (T(make_input(1, 8).reshape(8)),
                                                          *(T(np.zeros(0, np.int64)) for _ in range(3))), {}, []),
     ValueError, "num_tensors is 0"),
    ("grouped_layout_dtype", lambda T: (lowp.grouped_amax, (T(make_input(1, 8).reshape(8)), T(np.ones(1, np.int32)),
                                                            T(np.ones(1, np.int64)), T(np.zeros(1, np.int64))), {}, []),
     ValueError, "first_dims: dtype is int32; expected int64"),
    ("grouped_per_token", lambda T: (lowp.grouped_quantize, (T(make_input(1, 8).reshape(8)),
                                                             *(T(np.ones(1, np.int64)) for _ in range(3)),
                                                             "fp8_per_token"), {}, []),
     NotImplementedError, "grouped FP8 takes"),
    ("nvfp4_grouped_rows", lambda T: (lowp.nvfp4_grouped_quantize, (T(X), T(np.array([16, 8], np.int64))), {}, []),
     ValueError, "member"),
    ("amax_neither", lambda T: (lowp.nvfp4_amax_per_token, (T(X),), {"rows": False, "cols": False}, []),
     ValueError, "both NULL"),
    ("zero_d", lambda T: (lowp.amax, (T(np.array(1.0, np.float32)),), {}, []), ValueError, "0-d"),
    ("layout_parts", lambda T: (lowp.quantized_layout, ("e4m3", "fp8_current", 4, 4, "all"), {}, []),
     ValueError, "parts: 'all' is not one of"),
    ("layout_nvfp4_columnwise_rows", lambda T: (lowp.quantized_layout, ("e2m1", "nvfp4_per_token", 24, 32), {}, []),
     ValueError, "lowp_quantized_layout_query: parts LOWP_PARTS_BOTH requests the columnwise copy"),
    ("layout_recipe_dtype", lambda T: (lowp.quantized_layout, ("e4m3", "nvfp4_per_tensor", 32, 32), {}, []),
     ValueError, "scaling LOWP_SCALING_NVFP4_PER_TENSOR does not fit dtype LOWP_DTYPE_E4M3"),
]


def _dequantize_cases():
    q = lowp.quantize(X, "fp8_current")
    return [
        ("no_columnwise", lambda: q.dequantize("columnwise"), ValueError, "which: q has no columnwise copy"),
        ("out_dtype", lambda: q.dequantize(dtype="int8"), ValueError, "dtype: 'int8' is not one of"),
        ("which_name", lambda: q.dequantize("diagonal"), ValueError, "which: 'diagonal'"),
    ]


def _snapshot(a):
    return np.array(a.tolist() if hasattr(a, "tolist") and not isinstance(a, np.ndarray) else a, copy=True)


def _check(case, T):
    _, make, exc, message = case
    fn, args, kwargs, keep = make(T)
    kept = [args[k] if isinstance(k, int) else kwargs[k] for k in keep]
    before = [_snapshot(a) for a in kept]
    with pytest.raises(exc) as info:
        fn(*args, **kwargs)
    assert message in str(info.value), f"message {str(info.value)!r} lacks {message!r}"
    for a, b in zip(kept, before):
        np.testing.assert_array_equal(_snapshot(a), b, err_msg="a caller's array was written")


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_error_numpy(case):
    _check(case, numpy_copy)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_error_torch_cpu(case):
    _check(case, _torch_cpu())


@pytest.mark.parametrize("case", _dequantize_cases(), ids=lambda c: c if isinstance(c, str) else "")
def test_dequantize_errors(case):
    _, call, exc, message = case
    with pytest.raises(exc, match=None) as info:
        call()
    assert message in str(info.value)


def test_bfloat16_numpy_needs_ml_dtypes_dtype():
    """NumPy has no bfloat16: uint16 bits are not taken for it."""
    with pytest.raises(ValueError, match="dtype uint16 is not supported"):
        lowp.amax(np.zeros((2, 2), np.uint16))


def test_non_array_input():
    with pytest.raises(TypeError, match="x: expected an array"):
        lowp.amax(object())


class _OnlyDlpack:
    def __init__(self, a):
        self.a = a

    def __dlpack__(self, **kwargs):
        return self.a.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self.a.__dlpack_device__()


class _OnlyArray:
    def __init__(self, a):
        self.a = a

    def __array__(self, dtype=None, copy=None):
        return self.a


@pytest.mark.parametrize("wrap", [_OnlyDlpack, _OnlyArray])
def test_dlpack_and_array_interface_inputs_give_numpy(wrap):
    a = lowp.amax(wrap(np.float32([[2.0, -5.0]])))
    assert isinstance(a, np.ndarray) and a[0] == 5.0
