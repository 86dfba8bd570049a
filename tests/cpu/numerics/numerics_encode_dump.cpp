// Encodes raw little-endian fp32 values for the ml_dtypes oracle (tests/python/test_ml_dtypes_oracle.py):
//   numerics_encode_dump IN OUT  ->  OUT = e4m3[N] e5m2[N] e2m1[N] bytes.
#include <cstdint>
#include <cstdio>
#include <vector>

#include "numerics/minifloat.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s IN.f32 OUT.u8\n", argv[0]);
    return 2;
  }
  std::FILE* in = std::fopen(argv[1], "rb");
  if (!in) return 1;
  std::vector<float> x;
  float v;
  while (std::fread(&v, sizeof v, 1, in) == 1) x.push_back(v);
  std::fclose(in);
  const size_t n = x.size();
  std::vector<uint8_t> out(3 * n);
  for (size_t i = 0; i < n; ++i) {
    out[i] = lowp::num::encode_e4m3(x[i]);
    out[n + i] = lowp::num::encode_e5m2(x[i]);
    out[2 * n + i] = lowp::num::encode_e2m1(x[i]);
  }
  std::FILE* o = std::fopen(argv[2], "wb");
  if (!o || std::fwrite(out.data(), 1, out.size(), o) != out.size()) return 1;
  return std::fclose(o) == 0 ? 0 : 1;
}
