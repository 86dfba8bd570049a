"""One call of every op, written once and run on any framework: each case takes `T` (NumPy array ->
the framework's array on the device under test) and returns its outputs. The torch tests run them
on NumPy, on CPU tensors and on CUDA tensors and compare the bytes."""
import lowp

from conftest import make_input, md, np

SEED_OFFSET = np.array([0x0123456789ABCDEF, 42], dtype=np.uint64)
MEMBER_ROWS = np.array([32, 0, 16, 48], np.int64)
FIRST = np.array([3, 0, 5, 2], np.int64)
LAST = np.array([16, 7, 8, 4], np.int64)
OFFSETS = np.array([0, 48, 48, 88], np.int64)  # no gaps: every byte of the outputs is written
TOTAL = 96


def _parts(q):
    out = []
    for p in (q.rowwise, q.columnwise):
        if p is not None:
            out += [p.data, p.scale_inv, p.amax]
    return out + [q.scale, q.scale_inv, q.amax] + [q.dequantize(w) for w in ("rowwise", "columnwise")
                                                   if getattr(q, w) is not None]


def fp8_current(T):
    return _parts(lowp.quantize(T(make_input(33, 70, "bfloat16")), "fp8_current", dtype="e5m2", columnwise=True))


def fp8_delayed(T):
    scale, history = T(np.array([3.5], np.float32)), T(np.array([0.25, 7.0, 1.0], np.float32))
    q = lowp.quantize(T(make_input(32, 48, "float16")), "fp8_delayed", scale=scale, amax=history, columnwise=True)
    return _parts(q) + [history]


def fp8_per_token(T):
    return _parts(lowp.quantize(T(make_input(24, 40)), "fp8_per_token", columnwise=True, power_of_two_scale=True))


def nvfp4_gradient(T):
    q = lowp.quantize(T(make_input(48, 160, "bfloat16")), "nvfp4_per_tensor", role="gradient", columnwise=True,
                      rng_state=T(SEED_OFFSET), scale_layout="swizzled")
    return _parts(q)


def nvfp4_weight(T):
    return _parts(lowp.quantize(T(make_input(32, 64, "bfloat16")), "nvfp4_per_tensor", role="weight",
                                columnwise=True))


def nvfp4_input_estimated(T):
    return _parts(lowp.quantize(T(make_input(32, 64)), "nvfp4_per_tensor", role="input", columnwise=True,
                                amax_estimation=True))


def nvfp4_per_token(T):
    x = T(make_input(32, 64, "bfloat16"))
    q = lowp.quantize(x, "nvfp4_per_token", columnwise=True, rht=True, stochastic_rounding=True,
                      rng_state=T(SEED_OFFSET))
    row, col = lowp.nvfp4_amax_per_token(x, rht=True)
    given = lowp.quantize(x, "nvfp4_per_token", columnwise=True, rht=True, rowwise_amax=row, columnwise_amax=col)
    return _parts(q) + _parts(given) + [row, col]


def nvfp4_row_scaled(T):
    x = T(make_input(32, 64, "bfloat16"))
    q = lowp.quantize(x, "nvfp4_row_scaled", columnwise=True, four_over_six=True, four_over_six_error="mse",
                      four_over_six_scale_max=256.0)
    row, col = lowp.nvfp4_amax_per_token(x, rht=True, scaling="nvfp4_row_scaled")
    given = lowp.quantize(x, "nvfp4_row_scaled", columnwise=True, rht=True, rowwise_amax=row, columnwise_amax=col)
    return _parts(q) + _parts(given) + [row, col]


def dact(T):
    grad, act = T(make_input(40, 24, "bfloat16", seed=1)), T(make_input(40, 24, "bfloat16", seed=2))
    scale, amax = T(np.array([2.0], np.float32)), T(np.array([1.5, 3.0], np.float32))
    a = lowp.quantize_dact(grad, act, "silu", "fp8_current", columnwise=True)
    b = lowp.quantize_dact(grad, act, "gelu_tanh", "fp8_delayed", scale=scale, amax=amax)
    return _parts(a) + _parts(b) + [amax]


def amaxes(T):
    x = T(make_input(48, 32, "float16"))
    return [lowp.amax(x), *lowp.amax_per_token(x), *lowp.nvfp4_amax_per_token(x, rht=True, rht_sign_mask=0xBEEF)]


def delayed_update(T):
    history = np.abs(np.random.default_rng(3).standard_normal((5, 4))).astype(np.float32)
    history[2] = 0.0
    h, s, si = T(history), T(np.linspace(0.5, 2, 5).astype(np.float32)), T(np.ones(5, np.float32))
    lowp.fp8_delayed_scaling_update(h, s, si, dtype="e5m2", margin=1, algo="most_recent")
    return [h, s, si]


def swizzle(T):
    q = lowp.quantize(T(make_input(100, 160)), "nvfp4_per_tensor")
    return [lowp.nvfp4_swizzle_scales(q.rowwise.scale_inv, 100, 10)]


def rng(T):
    state = T(SEED_OFFSET)
    lowp.rng_advance(state, 5)
    return [state]


def grouped(T):
    x = T(make_input(1, TOTAL, "bfloat16", seed=4).reshape(TOTAL))
    layout = [T(a) for a in (FIRST, LAST, OFFSETS)]
    scale, history = T(np.array([1, 2, 0.5, 4], np.float32)), T(np.tile(np.float32([0.5, 1, 2]), (4, 1)))
    cur = lowp.grouped_quantize(x, *layout, "fp8_current", columnwise=True)
    dly = lowp.grouped_quantize(x, *layout, "fp8_delayed", scale=scale, amax=history, columnwise=True)
    dq = lowp.grouped_quantize_dact(x, T(make_input(1, TOTAL, "bfloat16", seed=5).reshape(TOTAL)), *layout, "relu")
    # The workspaces are scratch of the backend that ran (the CPU leaves them untouched): not compared.
    out = [lowp.grouped_amax(x, *layout), history, dq.rowwise_data, dq.scale_inv, dq.amax]
    for q in (cur, dly):
        out += [q.rowwise_data, q.columnwise_data, q.scale, q.scale_inv, q.amax, q.dequantize("rowwise"),
                q.dequantize("columnwise", "bfloat16")]
    return out


def nvfp4_grouped(T):
    x = T(make_input(int(MEMBER_ROWS.sum()), 64, "bfloat16", seed=7))
    rows = T(MEMBER_ROWS)
    q = lowp.nvfp4_grouped_quantize(x, rows, columnwise=True, rht=True, stochastic_rounding=True,
                                    rng_state=T(SEED_OFFSET), group_row_multiple=16)
    r, c = lowp.nvfp4_grouped_amax(x, rows, rht=True)
    rs = lowp.nvfp4_grouped_quantize(x, rows, columnwise=True, scaling="nvfp4_row_scaled", four_over_six=True)
    rr, rc = lowp.nvfp4_grouped_amax(x, rows, rht=True, scaling="nvfp4_row_scaled")
    return [q.rowwise.data, q.rowwise.scale_inv, q.rowwise.amax, q.columnwise.data, q.columnwise.scale_inv,
            q.columnwise.amax, r, c, rs.rowwise.data, rs.rowwise.scale_inv, rs.rowwise.amax,
            rs.columnwise.data, rs.columnwise.scale_inv, rs.columnwise.amax, rr, rc]


def _on_grid(rows, cols, seed):
    """E2M1 grid values with 6 wherever i % 16 == j % 16, so every 16-block of a row and of a column
    holds 6: with amax 2688 every NVFP4 code and block scale is exact, and every product is a
    multiple of 1/4 of at most 36."""
    rng = np.random.default_rng(seed)
    grid = np.array([0, 0.5, 1, 1.5, 2, 3, 4, 6], np.float32)
    x = grid[rng.integers(0, 8, (rows, cols))] * rng.choice(np.float32([-1, 1]), (rows, cols))
    i, j = np.indices((rows, cols))
    x[i % 16 == j % 16] = 6.0
    return x


def gemm(T):
    """Operands whose every partial sum is exact in fp32 (NVFP4 on the grid with amax 2688; FP8
    codes +-256 with scale_inv 2^-8), so every backend gives the same bytes: fprop-like and
    wgrad-like products, bias, accumulate."""
    x, w, y = _on_grid(32, 64, 1), _on_grid(48, 64, 2), _on_grid(32, 48, 3)
    amax = lambda n: T(np.full(n, 2688.0, np.float32))  # noqa: E731
    qx = lowp.quantize(T(x), "nvfp4_per_token", columnwise=True, rowwise_amax=amax(32), columnwise_amax=amax(64))
    qw = lowp.quantize(T(w), "nvfp4_per_tensor", rowwise_amax=amax(1))
    qy = lowp.quantize(T(y), "nvfp4_per_token", columnwise=True, rowwise_amax=amax(32), columnwise_amax=amax(48))
    qx1 = lowp.quantize(T(x), "nvfp4_per_tensor", rowwise_amax=amax(1))
    fp8 = {n: lowp.quantize(T(np.sign(a)), "fp8_current", columnwise=True, power_of_two_scale=True)
           for n, a in (("x", x), ("w", w), ("y", y))}
    acc = T((np.arange(48 * 64, dtype=np.float32).reshape(48, 64) % 37) / 4)
    lowp.gemm(fp8["y"], "columnwise", fp8["x"], "columnwise", accumulate_into=acc)
    return [lowp.gemm(qx1, "rowwise", qw, "rowwise", out_dtype="float32", bias=T(np.arange(48, dtype=np.float32) / 4)),
            lowp.gemm(qy, "columnwise", qx, "columnwise"),
            lowp.gemm(fp8["x"], "rowwise", fp8["w"], "rowwise",
                      bias=T((np.arange(48, dtype=np.float32) / 4 - 6).astype(md.bfloat16))),
            acc]


CASES = [fp8_current, fp8_delayed, fp8_per_token, nvfp4_gradient, nvfp4_weight, nvfp4_input_estimated,
         nvfp4_per_token, nvfp4_row_scaled, dact, amaxes, delayed_update, swizzle, rng, grouped, nvfp4_grouped, gemm]
