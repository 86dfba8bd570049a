// lowp_timeline: where the time of an NVFP4 per-token call goes, block by block. Needs a build
// with -DLOWP_TIMELINE=ON (src/cuda/common/timeline.cuh): thread 0 of every block of the call's first
// kernel (amax zeroing or group prep), K1 and K2 stamps %globaltimer at entry, after
// griddepcontrol.wait, once its tile has landed (K2) and at exit, and records its SM.
//
// A CUDA graph of one call per buffer set (as many sets as the benchmark rotates over, so every
// call reads x from DRAM) is replayed three times unstamped, then once stamped. Printed for the
// last --show calls, times in us from the call's first stamp: per kernel the blocks, the first and
// last entry, the last wait release, the median and last tile landing, the median and last exit,
// the blocks that did work (waited or loaded) and those per SM (min-max). --csv FILE writes
// every block's stamps (ns from the replay's first stamp).
//
// Usage: lowp_timeline [--op OP] [--shape MxK] [--show N] [--csv FILE]
//   OP: token (default), k1, k2, grouped8 (device rows), grouped8_r128, grouped8_host,
//       grouped8_k1, grouped8_k2 (as lowp_bench_nvfp4_per_token)
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <string>
#include <vector>

#include "bench_util.h"
#include "lowp/lowp.h"

// src/cuda/common/timeline.cu (LOWP_TIMELINE builds only).
extern "C" int lowp_timeline_attach(uint64_t* stamps, unsigned* tickets, unsigned max_blocks, unsigned max_launches);

namespace {

using namespace lowp_bench;

// src/cuda/common/timeline.cuh's layout.
constexpr int kKernels = 3, kSlots = 5, kEntry = 0, kWaited = 1, kLoaded = 2, kExit = 3, kSm = 4;
const char* const kKernelNames[kKernels] = {"first", "K1", "K2"};
constexpr int64_t kGroupN = 8;

struct Options {
  std::string op = "token", csv;
  int64_t m = 8192, k = 2048;
  int show = 3;
};

void usage(int code) {
  std::fprintf(code == 0 ? stdout : stderr,
               "usage: lowp_timeline [--op OP] [--shape MxK] [--show N] [--csv FILE]\n"
               "  OP: token, k1, k2, grouped8, grouped8_r128, grouped8_host, grouped8_k1, grouped8_k2\n");
  std::exit(code);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "-h" || a == "--help") usage(0);
    if (i + 1 >= argc) usage(2);
    const std::string v = argv[++i];
    if (a == "--op") o.op = v;
    else if (a == "--csv") o.csv = v;
    else if (a == "--show") o.show = static_cast<int>(parse_int("--show", v.c_str(), usage));
    else if (a == "--shape" && v.find('x') != std::string::npos) {
      o.m = parse_int("--shape (M)", v.substr(0, v.find('x')).c_str(), usage);
      o.k = parse_int("--shape (K)", v.substr(v.find('x') + 1).c_str(), usage);
    } else {
      usage(2);
    }
  }
  const char* const ops[] = {"token", "k1", "k2", "grouped8", "grouped8_r128", "grouped8_host", "grouped8_k1", "grouped8_k2"};
  if (std::find(std::begin(ops), std::end(ops), o.op) == std::end(ops)) {
    std::fprintf(stderr, "lowp_timeline: unknown op '%s'\n", o.op.c_str());
    usage(2);
  }
  if (o.m % 128 != 0 || o.k % 16 != 0) {
    std::fprintf(stderr, "lowp_timeline: M must be a multiple of 128 (equal 8-way splits), K of 16\n");
    usage(2);
  }
  return o;
}

// One buffer set: x and every output of both copies (grouped scale arrays are no larger than
// the single tensor's plus 8 members' padding, which the sizes query of the group covers).
struct Set {
  lowp_tensor x;
  uint8_t *row, *col, *row_s, *col_s;
  float *row_a, *col_a;
};

struct Block {
  int call, kernel;
  unsigned block;
  uint64_t t[kSlots];
};

double us(uint64_t t, uint64_t t0) { return t == 0 ? -1.0 : static_cast<double>(t - t0) * 1e-3; }

double median(std::vector<double> v) {
  if (v.empty()) return -1.0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// A call's first entry and last exit.
struct Span {
  uint64_t t0 = UINT64_MAX, end = 0;
};
Span span_of(const std::vector<Block>& blocks) {
  Span s;
  for (const Block& b : blocks) {
    s.t0 = std::min(s.t0, b.t[kEntry]);
    s.end = std::max(s.end, b.t[kExit]);
  }
  return s;
}

// One call's kernels, relative to its first stamp; prev: the call before it in the graph (the
// gap between the two is what a graph replay adds to the span).
void print_call(int call, const std::vector<Block>& blocks, const Span& s, const Span* prev) {
  const uint64_t t0 = s.t0;
  std::printf("call %d: %.2f us from the first entry to the last exit", call, us(s.end, t0));
  if (prev != nullptr && prev->end != 0 && t0 >= prev->t0)
    std::printf(" (%.2f us after the previous call's first entry, %.2f after its last exit)", us(t0, prev->t0),
                t0 >= prev->end ? us(t0, prev->end) : -us(prev->end, t0));
  std::printf("\n");
  std::printf("  %-6s %7s %8s %8s %9s %9s %9s %9s %9s %7s %9s\n", "kernel", "blocks", "entry0", "entryN", "waitedN",
              "loaded50", "loadedN", "exit50", "exitN", "worked", "per SM");
  for (int k = 0; k < kKernels; ++k) {
    std::vector<double> entry, waited, loaded, exits;
    std::vector<int> per_sm(1024, 0);
    int worked = 0, sms = 0;
    for (const Block& b : blocks) {
      if (b.kernel != k) continue;
      entry.push_back(us(b.t[kEntry], t0));
      if (b.t[kWaited] != 0) waited.push_back(us(b.t[kWaited], t0));
      if (b.t[kLoaded] != 0) loaded.push_back(us(b.t[kLoaded], t0));
      exits.push_back(us(b.t[kExit], t0));
      if (b.t[kWaited] != 0 || b.t[kLoaded] != 0) {
        ++worked;
        const size_t sm = std::min<size_t>(b.t[kSm], per_sm.size() - 1);
        sms = std::max(sms, static_cast<int>(sm) + 1);
        ++per_sm[sm];
      }
    }
    if (entry.empty()) continue;
    const auto last = [](const std::vector<double>& v) { return v.empty() ? -1.0 : *std::max_element(v.begin(), v.end()); };
    const auto lo = std::min_element(per_sm.begin(), per_sm.begin() + std::max(sms, 1));
    const auto hi = std::max_element(per_sm.begin(), per_sm.begin() + std::max(sms, 1));
    std::printf("  %-6s %7zu %8.2f %8.2f %9.2f %9.2f %9.2f %9.2f %9.2f %7d %5d-%-3d\n", kKernelNames[k], entry.size(),
                *std::min_element(entry.begin(), entry.end()), last(entry), last(waited), median(loaded), last(loaded),
                median(exits), last(exits), worked, *lo, *hi);
  }
}

}  // namespace

int main(int argc, char** argv) {
  g_prog = "lowp_timeline";
  const Options o = parse(argc, argv);
  RunInfo run;
  const size_t l2 = start_run(nullptr, &run, 1, 1, "");
  const int64_t M = o.m, K = o.k;
  const size_t n = static_cast<size_t>(M) * static_cast<size_t>(K);
  const int sets = buffer_sets(l2, 2 * n, 64);

  lowp_quantized_sizes single{}, grouped{};
  LOWP_CHECK(lowp_quantized_sizes_query(LOWP_DTYPE_E2M1, LOWP_SCALING_NVFP4_PER_TOKEN, M, K, &single));
  LOWP_CHECK(lowp_nvfp4_grouped_sizes(kGroupN, M, K, &grouped));
  const size_t rs = round_up(std::max(single.scale_inv_bytes[0], grouped.scale_inv_bytes[0]), 256);
  const size_t cs = round_up(std::max(single.scale_inv_bytes[1], grouped.scale_inv_bytes[1]), 256);
  const size_t ca = round_up(static_cast<size_t>(kGroupN * K), 64), ra = round_up(static_cast<size_t>(M), 64);
  std::vector<Set> set(static_cast<size_t>(sets));
  for (Set& t : set) {
    auto* x = static_cast<uint16_t*>(device_alloc(2 * n, "x"));
    fill_random(x, n, 65536);
    t.x = {x, LOWP_DTYPE_BFLOAT16, M, K};
    t.row = static_cast<uint8_t*>(device_alloc(n / 2, "row codes"));
    t.col = static_cast<uint8_t*>(device_alloc(n / 2, "col codes"));
    t.row_s = static_cast<uint8_t*>(device_alloc(rs, "row scales"));
    t.col_s = static_cast<uint8_t*>(device_alloc(cs, "col scales"));
    t.row_a = static_cast<float*>(device_alloc(4 * ra, "row amax"));
    t.col_a = static_cast<float*>(device_alloc(4 * ca, "col amax"));
  }
  std::vector<int64_t> members(kGroupN, M / kGroupN);
  auto* d_members = static_cast<int64_t*>(device_alloc(sizeof(int64_t) * kGroupN, "member rows"));
  CUDA_CHECK(cudaMemcpy(d_members, members.data(), sizeof(int64_t) * kGroupN, cudaMemcpyHostToDevice));
  size_t ws_bytes = 0;
  LOWP_CHECK(lowp_grouped_workspace_size(kGroupN, &ws_bytes));
  void* ws = device_alloc(std::max<size_t>(ws_bytes, 256), "workspace");

  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  void* st = stream;
  const bool grouped_op = o.op.rfind("grouped8", 0) == 0;
  const bool amax_given = o.op == "k2" || o.op == "grouped8_k2";
  lowp_quant_config cfg;
  lowp_quant_config_default(&cfg);
  cfg.rht = 0;
  cfg.stochastic_rounding = 0;
  cfg.amax_given = amax_given;
  cfg.group_row_multiple = o.op == "grouped8_r128" ? 128 : 0;
  // K1 of one set: the whole tensor, or the group (device rows).
  const auto amax = [&](const Set& t) {
    if (grouped_op) return lowp_nvfp4_grouped_amax(&t.x, kGroupN, d_members, t.row_a, t.col_a, &cfg, ws, ws_bytes, st);
    return lowp_nvfp4_amax_per_token(&t.x, t.row_a, t.col_a, &cfg, st);
  };
  const auto call = [&](const Set& t) {
    if (o.op == "k1" || o.op == "grouped8_k1") return amax(t);
    lowp_quantized_tensor q = LOWP_QUANTIZED_TENSOR_INIT;
    q.dtype = LOWP_DTYPE_E2M1;
    q.scaling = LOWP_SCALING_NVFP4_PER_TOKEN;
    q.scale_layout = LOWP_SCALE_LAYOUT_COMPACT;
    q.rows = M;
    q.cols = K;
    q.rowwise = {t.row, t.row_s, t.row_a};
    q.columnwise = {t.col, t.col_s, t.col_a};
    if (!grouped_op) return lowp_quantize(&t.x, &q, &cfg, st);
    const int64_t* rows = o.op == "grouped8_host" ? members.data() : d_members;
    return lowp_nvfp4_grouped_quantize(&t.x, kGroupN, rows, &q, &cfg, ws, ws_bytes, st);
  };
  if (amax_given)  // real amaxes for the encode alone
    for (const Set& t : set) LOWP_CHECK(amax(t));

  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  for (const Set& t : set) LOWP_CHECK(call(t));
  CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
  CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  for (int i = 0; i < 3; ++i) CUDA_CHECK(cudaGraphLaunch(exec, stream));

  // The largest grid: one block per 16 rows of a 128-column tile bounds every launch here.
  const unsigned max_blocks = static_cast<unsigned>(M / 16 * ((K + 127) / 128));
  const size_t slots = static_cast<size_t>(sets) * kKernels * max_blocks * kSlots;
  auto* stamps = static_cast<uint64_t*>(device_alloc(slots * sizeof(uint64_t), "stamps"));
  auto* tickets = static_cast<unsigned*>(device_alloc(kKernels * sizeof(unsigned), "tickets"));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  CUDA_CHECK(cudaMemset(stamps, 0, slots * sizeof(uint64_t)));
  CUDA_CHECK(cudaMemset(tickets, 0, kKernels * sizeof(unsigned)));
  CUDA_CHECK(static_cast<cudaError_t>(lowp_timeline_attach(stamps, tickets, max_blocks, static_cast<unsigned>(sets))));
  CUDA_CHECK(cudaGraphLaunch(exec, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  CUDA_CHECK(static_cast<cudaError_t>(lowp_timeline_attach(nullptr, nullptr, 0, 0)));
  std::vector<uint64_t> h(slots);
  CUDA_CHECK(cudaMemcpy(h.data(), stamps, slots * sizeof(uint64_t), cudaMemcpyDeviceToHost));

  std::vector<std::vector<Block>> calls(static_cast<size_t>(sets));
  uint64_t t0 = UINT64_MAX;
  for (int c = 0; c < sets; ++c)
    for (int k = 0; k < kKernels; ++k)
      for (unsigned b = 0; b < max_blocks; ++b) {
        const uint64_t* s = &h[((static_cast<size_t>(c) * kKernels + k) * max_blocks + b) * kSlots];
        if (s[kEntry] == 0) continue;
        Block blk{c, k, b, {}};
        std::copy(s, s + kSlots, blk.t);
        calls[static_cast<size_t>(c)].push_back(blk);
        t0 = std::min(t0, s[kEntry]);
      }
  std::printf("lowp_timeline: %s at %lldx%lld, %s, %d calls in the graph (one per buffer set)\n", o.op.c_str(),
              static_cast<long long>(M), static_cast<long long>(K), run.device.c_str(), sets);
  std::vector<Span> spans;
  for (const auto& blocks : calls) spans.push_back(span_of(blocks));
  for (int c = std::max(0, sets - o.show); c < sets; ++c) {
    const auto i = static_cast<size_t>(c);
    print_call(c, calls[i], spans[i], c > 0 ? &spans[i - 1] : nullptr);
  }
  if (!o.csv.empty()) {
    FILE* f = std::fopen(o.csv.c_str(), "w");
    if (f == nullptr) fatal("cannot write %s", o.csv.c_str());
    std::fprintf(f, "call,kernel,block,sm,entry_ns,waited_ns,loaded_ns,exit_ns\n");
    for (const auto& blocks : calls)
      for (const Block& b : blocks) {
        const auto rel = [&](int e) { return b.t[e] == 0 ? -1LL : static_cast<long long>(b.t[e] - t0); };
        std::fprintf(f, "%d,%s,%u,%llu,%lld,%lld,%lld,%lld\n", b.call, kKernelNames[b.kernel], b.block,
                     static_cast<unsigned long long>(b.t[kSm]), rel(kEntry), rel(kWaited), rel(kLoaded), rel(kExit));
      }
    std::fclose(f);
  }
  return 0;
}
