// lowp_ref: runs one C API call on inputs read from files and writes every output buffer to
// <out>/<name>.bin, so the Python tests compare the binding's results with the C library's own
// (CPU backend) through a route that does not use the binding. Uses lowp.h only.
//
//   lowp_ref OP key=value ... out=DIR
//
// Keys naming files (x=, act=, scale=, ...) are read as raw bytes; the rest are integers or
// floats. A key left out takes the default shown by its get() call. Exit status 0 on success;
// on a failed call, 2 and lowp's message on stderr.
#include <lowp/gemm.h>
#include <lowp/lowp.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace {

std::map<std::string, std::string> g_args;

bool has(const char* key) { return g_args.count(key) != 0; }

long long geti(const char* key, long long fallback) {
  return has(key) ? std::strtoll(g_args[key].c_str(), nullptr, 0) : fallback;
}

float getf(const char* key, float fallback) { return has(key) ? std::strtof(g_args[key].c_str(), nullptr) : fallback; }

// 8-byte aligned bytes.
struct Buffer {
  std::vector<uint64_t> words;
  size_t bytes = 0;
  explicit Buffer(size_t n = 0) : words((n + 7) / 8 + 1, 0), bytes(n) {}
  void* data() { return bytes ? words.data() : nullptr; }
  template <class T>
  T* as() {
    return static_cast<T*>(data());
  }
};

// The file named by `key`, or an empty buffer (NULL) when the key is absent.
Buffer file(const char* key) {
  if (!has(key)) return Buffer();
  std::ifstream in(g_args[key], std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "lowp_ref: cannot read %s=%s\n", key, g_args[key].c_str());
    std::exit(1);
  }
  std::vector<char> content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Buffer b(content.size());
  if (!content.empty()) std::memcpy(b.data(), content.data(), content.size());
  return b;
}

void write(const char* name, Buffer& b) {
  std::string path = g_args["out"];
  path.append("/").append(name).append(".bin");
  std::ofstream out(path, std::ios::binary);
  out.write(static_cast<const char*>(static_cast<void*>(b.words.data())), static_cast<std::streamsize>(b.bytes));
  if (!out) {
    std::fprintf(stderr, "lowp_ref: cannot write %s\n", path.c_str());
    std::exit(1);
  }
}

void check(lowp_status s, const char* call) {
  if (s == LOWP_SUCCESS) return;
  std::fprintf(stderr, "%s: %s: %s\n", call, lowp_status_name(s), lowp_get_last_error());
  std::exit(2);
}

lowp_quant_config config() {
  lowp_quant_config c;
  if (geti("role", -1) >= 0)
    lowp_quant_config_nvfp4(static_cast<lowp_tensor_role>(geti("role", 0)), &c);
  else
    lowp_quant_config_default(&c);
  c.amax_epsilon = getf("eps", c.amax_epsilon);
  c.power_of_two_scale = static_cast<int>(geti("pow2", c.power_of_two_scale));
  c.rht = static_cast<int>(geti("rht", c.rht));
  c.rht_sign_mask = static_cast<uint32_t>(geti("mask", c.rht_sign_mask));
  c.stochastic_rounding = static_cast<int>(geti("sr", c.stochastic_rounding));
  c.block_2d = static_cast<int>(geti("block2d", c.block_2d));
  c.amax_estimation = static_cast<int>(geti("est", c.amax_estimation));
  c.amax_estimation_factor = getf("factor", c.amax_estimation_factor);
  c.amax_given = static_cast<int>(geti("amax_given", c.amax_given));
  c.group_row_multiple = static_cast<int>(geti("group_mult", c.group_row_multiple));
  c.four_over_six = static_cast<int>(geti("fos", c.four_over_six));
  c.four_over_six_error = static_cast<lowp_four_over_six_error>(geti("fos_error", c.four_over_six_error));
  c.four_over_six_scale_max = getf("fos_max", c.four_over_six_scale_max);
  return c;
}

// The one place each quantized-tensor struct is initialised (zeroed: every member its default).
lowp_quantized_tensor blank_quantized() { return LOWP_QUANTIZED_TENSOR_INIT; }
lowp_grouped_quantized_tensor blank_grouped() { return LOWP_GROUPED_QUANTIZED_TENSOR_INIT; }

lowp_tensor dense(Buffer& x, const char* dtype_key, int64_t rows, int64_t cols) {
  lowp_tensor t{};
  t.data = x.data();
  t.dtype = static_cast<lowp_dtype>(geti(dtype_key, LOWP_DTYPE_FLOAT32));
  t.rows = rows;
  t.cols = cols;
  return t;
}

// The buffers of a quantized tensor, allocated from `sizes` (given amaxes read from files).
struct Quantized {
  Buffer data[2], sinv[2], amax[2], scale, scale_inv, tensor_amax;
  lowp_quantized_tensor q = blank_quantized();

  Quantized(const lowp_quantized_sizes& s, int64_t rows, int64_t cols) {
    q.dtype = static_cast<lowp_dtype>(geti("qdtype", LOWP_DTYPE_E4M3));
    q.scaling = static_cast<lowp_scaling>(geti("scaling", LOWP_SCALING_CURRENT));
    q.scale_layout = static_cast<lowp_scale_layout>(geti("layout", 0));
    q.rows = rows;
    q.cols = cols;
    const char* given[2] = {"row_amax", "col_amax"};
    const bool want[2] = {geti("rowwise", 1) != 0, geti("columnwise", 0) != 0};
    lowp_quantized_part* parts[2] = {&q.rowwise, &q.columnwise};
    for (int o = 0; o < 2; ++o) {
      if (!want[o]) continue;
      data[o] = Buffer(s.data_bytes[o]);
      sinv[o] = Buffer(s.scale_inv_bytes[o]);
      amax[o] = has(given[o]) ? file(given[o]) : Buffer(s.amax_bytes[o]);
      *parts[o] = lowp_quantized_part{data[o].data(), sinv[o].data(), amax[o].as<float>()};
    }
    if (s.tensor_scale_bytes) {
      scale = has("scale") ? file("scale") : Buffer(s.tensor_scale_bytes);
      scale_inv = Buffer(s.tensor_scale_bytes);
      tensor_amax = has("amax") ? file("amax") : Buffer(s.tensor_scale_bytes);
      q.scale = scale.as<float>();
      q.scale_inv = scale_inv.as<float>();
      q.amax = tensor_amax.as<float>();
    }
  }

  void write_all() {
    const char* names[2][3] = {{"data", "scale_inv", "amax"}, {"data_t", "scale_inv_t", "amax_t"}};
    for (int o = 0; o < 2; ++o) {
      write(names[o][0], data[o]);
      write(names[o][1], sinv[o]);
      write(names[o][2], amax[o]);
    }
    write("scale", scale);
    write("tensor_scale_inv", scale_inv);
    write("tensor_amax", tensor_amax);
  }
};

lowp_quantized_sizes sizes_of(int64_t rows, int64_t cols) {
  lowp_quantized_sizes s{};
  check(lowp_quantized_sizes_query(static_cast<lowp_dtype>(geti("qdtype", LOWP_DTYPE_E4M3)),
                                   static_cast<lowp_scaling>(geti("scaling", LOWP_SCALING_CURRENT)), rows, cols, &s),
        "lowp_quantized_sizes_query");
  return s;
}

void write_sizes(const lowp_quantized_sizes& s) {
  Buffer b(7 * sizeof(uint64_t));
  const uint64_t v[7] = {s.data_bytes[0], s.data_bytes[1], s.scale_inv_bytes[0], s.scale_inv_bytes[1],
                         s.amax_bytes[0], s.amax_bytes[1], s.tensor_scale_bytes};
  std::memcpy(b.data(), v, sizeof v);
  write("sizes", b);
}

int run_quantize(bool dact) {
  const int64_t rows = geti("rows", 1), cols = geti("cols", 1);
  Buffer x = file("x"), act = file("act"), rng = file("rng");
  lowp_tensor t = dense(x, "xdtype", rows, cols);
  Quantized out(sizes_of(rows, cols), rows, cols);
  lowp_quant_config cfg = config();
  cfg.rng_state = rng.as<const uint64_t>();
  if (dact)
    check(lowp_quantize_dact(&t, act.data(), static_cast<lowp_activation>(geti("activation", 0)), &out.q, &cfg,
                             nullptr),
          "lowp_quantize_dact");
  else
    check(lowp_quantize(&t, &out.q, &cfg, nullptr), "lowp_quantize");
  out.write_all();
  return 0;
}

int run_dequantize() {
  const int64_t rows = geti("rows", 1), cols = geti("cols", 1);
  const bool columnwise = geti("which", 0) == LOWP_COLUMNWISE;
  Buffer data = file("data"), sinv = file("scale_inv"), amax = file("amax"), tensor_sinv = file("tensor_scale_inv");
  lowp_quantized_tensor q = blank_quantized();
  q.dtype = static_cast<lowp_dtype>(geti("qdtype", LOWP_DTYPE_E4M3));
  q.scaling = static_cast<lowp_scaling>(geti("scaling", LOWP_SCALING_CURRENT));
  q.scale_layout = static_cast<lowp_scale_layout>(geti("layout", 0));
  q.rows = rows;
  q.cols = cols;
  (columnwise ? q.columnwise : q.rowwise) = lowp_quantized_part{data.data(), sinv.data(), amax.as<float>()};
  q.scale_inv = tensor_sinv.as<float>();
  q.nvfp4_outer_max = getf("outer_max", 0.0f);
  const lowp_dtype out_dtype = static_cast<lowp_dtype>(geti("out_dtype", LOWP_DTYPE_FLOAT32));
  Buffer out(static_cast<size_t>(rows * cols) * (out_dtype == LOWP_DTYPE_FLOAT32 ? 4 : 2));
  lowp_tensor o{out.data(), out_dtype, columnwise ? cols : rows, columnwise ? rows : cols};
  check(lowp_dequantize(&q, static_cast<lowp_orientation>(geti("which", 0)), &o, nullptr), "lowp_dequantize");
  write("out", out);
  return 0;
}

int run_amax(const std::string& op) {
  const int64_t rows = geti("rows", 1), cols = geti("cols", 1);
  Buffer x = file("x");
  lowp_tensor t = dense(x, "xdtype", rows, cols);
  if (op == "amax") {
    Buffer a(4);
    check(lowp_amax(&t, a.as<float>(), nullptr), "lowp_amax");
    write("amax", a);
    return 0;
  }
  Buffer r(geti("want_rows", 1) ? 4 * rows : 0), c(geti("want_cols", 1) ? 4 * cols : 0);
  if (op == "amax_per_token") {
    check(lowp_amax_per_token(&t, r.as<float>(), c.as<float>(), nullptr), "lowp_amax_per_token");
  } else {
    const lowp_quant_config cfg = config();
    check(lowp_nvfp4_amax_per_row(&t, static_cast<lowp_scaling>(geti("scaling", LOWP_SCALING_NVFP4_PER_TOKEN)),
                                  r.as<float>(), c.as<float>(), &cfg, nullptr),
          "lowp_nvfp4_amax_per_row");
  }
  write("row_amax", r);
  write("col_amax", c);
  return 0;
}

int run_update() {
  Buffer h = file("history"), s = file("scale"), si = file("scale_inv");
  check(lowp_fp8_delayed_scaling_update(geti("n", 1), geti("len", 1), h.as<float>(), s.as<float>(), si.as<float>(),
                                        static_cast<lowp_dtype>(geti("qdtype", LOWP_DTYPE_E4M3)),
                                        static_cast<int>(geti("margin", 0)),
                                        static_cast<lowp_amax_algo>(geti("algo", 0)), nullptr),
        "lowp_fp8_delayed_scaling_update");
  write("history", h);
  write("scale", s);
  write("scale_inv", si);
  return 0;
}

// Grouped FP8: the layout arrays and the group's buffers.
struct Group {
  Buffer first = file("first"), last = file("last"), offsets = file("offsets");
  int64_t n = geti("n", 1), total = geti("total", 0);
  lowp_grouped_tensor view(Buffer& data, const char* dtype_key) {
    lowp_grouped_tensor g{};
    g.data = data.data();
    g.dtype = static_cast<lowp_dtype>(geti(dtype_key, LOWP_DTYPE_FLOAT32));
    g.num_tensors = n;
    g.total_elements = total;
    g.first_dims = first.as<const int64_t>();
    g.last_dims = last.as<const int64_t>();
    g.offsets = offsets.as<const int64_t>();
    return g;
  }
  Buffer workspace() {
    size_t bytes = 0;
    check(lowp_grouped_workspace_size(n, &bytes), "lowp_grouped_workspace_size");
    return Buffer(bytes);
  }
};

int run_grouped(const std::string& op) {
  Group g;
  Buffer x = file("x"), act = file("act"), ws = g.workspace();
  lowp_grouped_tensor xv = g.view(x, "xdtype");
  if (op == "grouped_amax") {
    Buffer a(4 * g.n);
    check(lowp_grouped_amax(&xv, a.as<float>(), 1, ws.data(), ws.bytes, nullptr), "lowp_grouped_amax");
    write("amax", a);
    return 0;
  }
  const bool row = geti("rowwise", 1) != 0, col = geti("columnwise", 0) != 0;
  const int64_t stride = geti("stride", 1);
  Buffer data(row ? g.total : 0), data_t(col ? g.total : 0);
  Buffer scale = has("scale") ? file("scale") : Buffer(4 * g.n), scale_inv(4 * g.n);
  Buffer amax = has("amax") ? file("amax") : Buffer(4 * g.n);
  lowp_grouped_quantized_tensor q = blank_grouped();
  q.dtype = static_cast<lowp_dtype>(geti("qdtype", LOWP_DTYPE_E4M3));
  q.scaling = static_cast<lowp_scaling>(geti("scaling", LOWP_SCALING_CURRENT));
  q.num_tensors = g.n;
  q.rowwise_data = data.data();
  q.columnwise_data = data_t.data();
  q.scale = scale.as<float>();
  q.scale_inv = scale_inv.as<float>();
  q.amax = amax.as<float>();
  q.amax_stride = stride;
  const lowp_quant_config cfg = config();
  if (op == "grouped_dact")
    check(lowp_grouped_quantize_dact(&xv, act.data(), static_cast<lowp_activation>(geti("activation", 0)), &q, &cfg,
                                     ws.data(), ws.bytes, nullptr),
          "lowp_grouped_quantize_dact");
  else
    check(lowp_grouped_quantize(&xv, &q, &cfg, ws.data(), ws.bytes, nullptr), "lowp_grouped_quantize");
  write("data", data);
  write("data_t", data_t);
  write("scale", scale);
  write("scale_inv", scale_inv);
  write("amax", amax);
  return 0;
}

int run_grouped_dequantize() {
  Group g;
  Buffer data = file("data"), sinv = file("scale_inv"), ws = g.workspace();
  const bool columnwise = geti("which", 0) == LOWP_COLUMNWISE;
  lowp_grouped_quantized_tensor q = blank_grouped();
  q.dtype = static_cast<lowp_dtype>(geti("qdtype", LOWP_DTYPE_E4M3));
  q.scaling = static_cast<lowp_scaling>(geti("scaling", LOWP_SCALING_CURRENT));
  q.num_tensors = g.n;
  (columnwise ? q.columnwise_data : q.rowwise_data) = data.data();
  q.scale_inv = sinv.as<float>();
  const int out_dtype = static_cast<int>(geti("out_dtype", LOWP_DTYPE_FLOAT32));
  Buffer out(static_cast<size_t>(g.total) * (out_dtype == LOWP_DTYPE_FLOAT32 ? 4 : 2));
  lowp_grouped_tensor o = g.view(out, "out_dtype");
  check(lowp_grouped_dequantize(&q, static_cast<lowp_orientation>(geti("which", 0)), &o, ws.data(), ws.bytes,
                                nullptr),
        "lowp_grouped_dequantize");
  write("out", out);
  return 0;
}

int run_nvfp4_grouped(const std::string& op) {
  const int64_t rows = geti("rows", 0), cols = geti("cols", 16), n = geti("n", 1);
  Buffer x = file("x"), member_rows = file("member_rows"), rng = file("rng");
  lowp_tensor t = dense(x, "xdtype", rows, cols);
  size_t ws_bytes = 0;
  check(lowp_grouped_workspace_size(n, &ws_bytes), "lowp_grouped_workspace_size");
  Buffer ws(ws_bytes);
  lowp_quant_config cfg = config();
  cfg.rng_state = rng.as<const uint64_t>();
  if (op == "nvfp4_grouped_amax") {
    Buffer r(geti("want_rows", 1) ? 4 * rows : 0), c(geti("want_cols", 1) ? 4 * n * cols : 0);
    check(lowp_nvfp4_grouped_amax_per_row(&t, static_cast<lowp_scaling>(geti("scaling", LOWP_SCALING_NVFP4_PER_TOKEN)),
                                          n, member_rows.as<const int64_t>(), r.as<float>(), c.as<float>(), &cfg,
                                          ws.data(), ws.bytes, nullptr),
          "lowp_nvfp4_grouped_amax_per_row");
    write("row_amax", r);
    write("col_amax", c);
    return 0;
  }
  lowp_quantized_sizes s{};
  check(lowp_nvfp4_grouped_sizes(n, rows, cols, &s), "lowp_nvfp4_grouped_sizes");
  Quantized out(s, rows, cols);
  check(lowp_nvfp4_grouped_quantize(&t, n, member_rows.as<const int64_t>(), &out.q, &cfg, ws.data(), ws.bytes,
                                    nullptr),
        "lowp_nvfp4_grouped_quantize");
  out.write_all();
  return 0;
}

// One GEMM operand: keys <p>qdtype, <p>scaling, <p>layout, <p>rows, <p>cols (the tensor),
// <p>which (the copy read), <p>outer_max (NVFP4's recorded 6E) and the files <p>data, <p>sinv
// (the copy's scales; FP8 per-tensor: the tensor's scale_inv), <p>amax.
struct GemmOperand {
  Buffer data, sinv, amax;
  lowp_quantized_tensor q = blank_quantized();
  lowp_orientation which = LOWP_ROWWISE;

  explicit GemmOperand(const std::string& p)
      : data(file((p + "data").c_str())), sinv(file((p + "sinv").c_str())), amax(file((p + "amax").c_str())) {
    q.dtype = static_cast<lowp_dtype>(geti((p + "qdtype").c_str(), LOWP_DTYPE_E4M3));
    q.scaling = static_cast<lowp_scaling>(geti((p + "scaling").c_str(), LOWP_SCALING_CURRENT));
    q.scale_layout = static_cast<lowp_scale_layout>(geti((p + "layout").c_str(), 0));
    q.rows = geti((p + "rows").c_str(), 1);
    q.cols = geti((p + "cols").c_str(), 1);
    which = static_cast<lowp_orientation>(geti((p + "which").c_str(), LOWP_ROWWISE));
    const bool per_tensor_fp8 = q.scaling == LOWP_SCALING_DELAYED || q.scaling == LOWP_SCALING_CURRENT;
    const lowp_quantized_part part{data.data(), per_tensor_fp8 ? nullptr : sinv.data(), amax.as<float>()};
    (which == LOWP_COLUMNWISE ? q.columnwise : q.rowwise) = part;
    if (per_tensor_fp8) q.scale_inv = sinv.as<float>();
    q.nvfp4_outer_max = getf((p + "outer_max").c_str(), 0.0f);
  }
  int64_t rows() const { return which == LOWP_COLUMNWISE ? q.cols : q.rows; }
};

// D = A . B^T on the CPU; acc= (a float32 D_old file) accumulates into it, bias= (bias_dtype) is
// added per column. Writes out.
int run_gemm() {
  GemmOperand a("a_"), b("b_");
  Buffer bias = file("bias"), acc = file("acc");
  const bool accumulate = has("acc");
  const lowp_dtype out_dtype =
      accumulate ? LOWP_DTYPE_FLOAT32 : static_cast<lowp_dtype>(geti("out_dtype", LOWP_DTYPE_BFLOAT16));
  const int64_t m = a.rows(), n = b.rows();
  Buffer out = accumulate ? std::move(acc) : Buffer(static_cast<size_t>(m * n) * (out_dtype == LOWP_DTYPE_FLOAT32 ? 4 : 2));
  lowp_tensor d{out.data(), out_dtype, m, n};
  lowp_gemm_config cfg;
  lowp_gemm_config_default(&cfg);
  cfg.bias = bias.data();
  cfg.bias_dtype = static_cast<lowp_dtype>(geti("bias_dtype", cfg.bias_dtype));
  cfg.accumulate = accumulate;
  cfg.fast_accumulation = static_cast<int>(geti("fast", 0));
  cfg.a_columnwise_rht = static_cast<int>(geti("a_rht", 0));
  cfg.b_columnwise_rht = static_cast<int>(geti("b_rht", 0));
  check(lowp_gemm(&a.q, a.which, &b.q, b.which, &d, &cfg, nullptr, 0, nullptr), "lowp_gemm");
  write("out", out);
  return 0;
}

int run(const std::string& op) {
  if (op == "gemm") return run_gemm();
  if (op == "quantize" || op == "quantize_dact") return run_quantize(op == "quantize_dact");
  if (op == "dequantize") return run_dequantize();
  if (op == "amax" || op == "amax_per_token" || op == "nvfp4_amax_per_token") return run_amax(op);
  if (op == "update") return run_update();
  if (op == "swizzle") {
    Buffer compact = file("compact"), swizzled(compact.bytes);
    check(lowp_nvfp4_swizzle_scales(compact.data(), swizzled.data(), geti("rows", 1), geti("blocks", 1), nullptr),
          "lowp_nvfp4_swizzle_scales");
    write("swizzled", swizzled);
    return 0;
  }
  if (op == "rng_advance") {
    Buffer state = file("state");
    check(lowp_rng_advance(state.as<uint64_t>(), static_cast<uint64_t>(std::strtoull(g_args["inc"].c_str(), nullptr, 0)),
                           nullptr),
          "lowp_rng_advance");
    write("state", state);
    return 0;
  }
  if (op == "sizes") {
    write_sizes(sizes_of(geti("rows", 1), geti("cols", 1)));
    return 0;
  }
  if (op == "nvfp4_grouped_sizes") {
    lowp_quantized_sizes s{};
    check(lowp_nvfp4_grouped_sizes(geti("n", 1), geti("rows", 0), geti("cols", 16), &s), "lowp_nvfp4_grouped_sizes");
    write_sizes(s);
    return 0;
  }
  if (op == "grouped_quantize" || op == "grouped_dact" || op == "grouped_amax") return run_grouped(op);
  if (op == "grouped_dequantize") return run_grouped_dequantize();
  if (op == "nvfp4_grouped_quantize" || op == "nvfp4_grouped_amax") return run_nvfp4_grouped(op);
  std::fprintf(stderr, "lowp_ref: unknown op %s\n", op.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: lowp_ref OP key=value ... out=DIR\n");
    return 1;
  }
  for (int i = 2; i < argc; ++i) {
    const char* eq = std::strchr(argv[i], '=');
    if (!eq) {
      std::fprintf(stderr, "lowp_ref: expected key=value, got %s\n", argv[i]);
      return 1;
    }
    g_args[std::string(argv[i], static_cast<size_t>(eq - argv[i]))] = eq + 1;
  }
  g_args.emplace("out", std::string(1, '.'));  // the default; keeps a given out=
  return run(argv[1]);
}
