// The NVFP4 tile kernels' gate (src/cuda/nvfp4/tile_thread.cuh, tile_path_ok): the tile kernels
// address rows, columns and SR blocks with 32-bit strides and indices, so shapes past those
// limits, like misaligned buffers, go to the block kernels (the same bytes). Host code only: no
// device needed.
#include <gtest/gtest.h>

#include "cuda/nvfp4/tile_args.h"

namespace lowp_test {
namespace {

using lowp::cuda::nvfp4::TileArgs;
using lowp::cuda::nvfp4::tile_path_ok;

TileArgs args(int64_t rows, int64_t cols, uintptr_t x = 0x1000) {
  TileArgs a{};
  a.x = reinterpret_cast<const void*>(x);
  a.rows = rows;
  a.cols = cols;
  return a;
}

TEST(Nvfp4TilePath, ShapeLimits) {
  constexpr int64_t k2p30 = int64_t{1} << 30, k2p18 = int64_t{1} << 18;
  EXPECT_TRUE(tile_path_ok(args(8192, 8192)));
  EXPECT_TRUE(tile_path_ok(args(k2p30 - 16, 16)));
  EXPECT_TRUE(tile_path_ok(args(16, k2p30 - 16)));
  EXPECT_FALSE(tile_path_ok(args(k2p30, 16)));  // byte strides past 2^32
  EXPECT_FALSE(tile_path_ok(args(16, k2p30)));
  EXPECT_TRUE(tile_path_ok(args(k2p18, k2p18 - 16)));
  EXPECT_FALSE(tile_path_ok(args(k2p18, k2p18)));  // 2^36 elements: SR block indices past 2^32
}

TEST(Nvfp4TilePath, Alignment) {
  EXPECT_FALSE(tile_path_ok(args(16, 16, 0x1008)));
  TileArgs a = args(16, 16);
  a.row_codes = reinterpret_cast<uint8_t*>(0x2004);
  EXPECT_FALSE(tile_path_ok(a));
  a.row_codes = reinterpret_cast<uint8_t*>(0x2008);
  EXPECT_TRUE(tile_path_ok(a));
  a.col_scales = reinterpret_cast<uint8_t*>(0x3002);
  EXPECT_FALSE(tile_path_ok(a));
}

}  // namespace
}  // namespace lowp_test
