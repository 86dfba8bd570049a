// The growable structs of lowp.h (struct_size first): what the initialisers give, in C and C++,
// and how a call reads an older caller's struct (core/growable.h, which every entry point uses;
// the error tables check each entry point's rejections of sizes 0, too small and too large).
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "common/compare.h"
#include "core/growable.h"
#include "lowp/lowp.h"

extern "C" {
lowp_quantized_tensor c_quantized_tensor_static(void);
lowp_quantized_tensor c_quantized_tensor_init(void);
lowp_grouped_quantized_tensor c_grouped_quantized_tensor_init(void);
lowp_quantized_layout c_quantized_layout_init(void);
}

using namespace lowp_test;

namespace {

// Every byte past struct_size is zero.
template <typename T>
bool zero_past_size(const T& s) {
  const auto* b = reinterpret_cast<const unsigned char*>(&s);
  for (size_t i = sizeof s.struct_size; i < sizeof s; ++i)
    if (b[i] != 0) return false;
  return true;
}

TEST(GrowableStructs, FirstMemberIsStructSize) {
  EXPECT_EQ(offsetof(lowp_quant_config, struct_size), 0u);
  EXPECT_EQ(offsetof(lowp_quantized_tensor, struct_size), 0u);
  EXPECT_EQ(offsetof(lowp_grouped_quantized_tensor, struct_size), 0u);
}

TEST(GrowableStructs, InitialisersSetTheSizeAndZeroTheRest) {
  lowp_quantized_tensor q;
  poison(&q, sizeof q);
  lowp_quantized_tensor_init(&q);
  EXPECT_EQ(q.struct_size, sizeof q);
  EXPECT_TRUE(zero_past_size(q));
  lowp_grouped_quantized_tensor g;
  poison(&g, sizeof g);
  lowp_grouped_quantized_tensor_init(&g);
  EXPECT_EQ(g.struct_size, sizeof g);
  EXPECT_TRUE(zero_past_size(g));
  lowp_quantized_tensor_init(nullptr);  // no-op
  lowp_grouped_quantized_tensor_init(nullptr);
}

TEST(GrowableStructs, MacrosEqualTheInitialisersInCAndCpp) {
  lowp_quantized_tensor by_call;
  lowp_quantized_tensor_init(&by_call);
  const lowp_quantized_tensor cpp = LOWP_QUANTIZED_TENSOR_INIT;
  const lowp_quantized_tensor c_auto = c_quantized_tensor_init(), c_static = c_quantized_tensor_static();
  for (const lowp_quantized_tensor* q : {&cpp, &c_auto, &c_static}) {
    EXPECT_EQ(q->struct_size, sizeof *q);
    EXPECT_EQ(q->dtype, by_call.dtype);
    EXPECT_EQ(q->rowwise.data, nullptr);
    EXPECT_EQ(q->columnwise.amax, nullptr);
    EXPECT_EQ(q->amax, nullptr);
  }
  const lowp_grouped_quantized_tensor gcpp = LOWP_GROUPED_QUANTIZED_TENSOR_INIT, gc = c_grouped_quantized_tensor_init();
  for (const lowp_grouped_quantized_tensor* g : {&gcpp, &gc}) {
    EXPECT_EQ(g->struct_size, sizeof *g);
    EXPECT_EQ(g->num_tensors, 0);
    EXPECT_EQ(g->amax_stride, 0);
    EXPECT_EQ(g->amax, nullptr);
  }
  const lowp_quantized_layout lcpp = LOWP_QUANTIZED_LAYOUT_INIT, lc = c_quantized_layout_init();
  for (const lowp_quantized_layout* l : {&lcpp, &lc}) {
    EXPECT_EQ(l->struct_size, sizeof *l);
    EXPECT_EQ(l->total_bytes, 0u);
    EXPECT_EQ(l->amax_offset[1], 0u);
  }
}

TEST(GrowableStructs, ConfigPresetsSetTheSize) {
  lowp_quant_config c;
  for (const lowp_tensor_role role : {LOWP_ROLE_INPUT, LOWP_ROLE_WEIGHT, LOWP_ROLE_GRADIENT}) {
    poison(&c, sizeof c);
    lowp_quant_config_nvfp4(role, &c);
    EXPECT_EQ(c.struct_size, sizeof c) << role;
    poison(&c, sizeof c);
    lowp_quant_config_nvfp4_per_token(role, &c);
    EXPECT_EQ(c.struct_size, sizeof c) << role;
  }
}

// A struct as two releases of lowp.h know it: the first ends in 4 bytes of tail padding, which
// the second names `reserved0` (never read) before appending `added`; `reserved1` ends it on a
// member.
struct Release1 {
  size_t struct_size;
  int a;
};
struct Release2 {
  size_t struct_size;
  int a;
  uint32_t reserved0;
  int added;
  uint32_t reserved1;
};
constexpr lowp::Member kAppended[] = {{offsetof(Release2, added), sizeof(int)}};
constexpr lowp::GrowableLayout kLayout = {sizeof(Release1), offsetof(Release1, a) + sizeof(int), kAppended};
static_assert(sizeof(Release1) == 16 && offsetof(Release2, added) == 16);

Release2 defaults() { return {0, -1, 0, 42, 0}; }

// A first-release caller's struct with 0xA5 in its padding.
// In place: a struct returned by value need not keep its padding bytes (ASan builds drop them).
void fill_old_caller(Release1* r, int a) {
  std::memset(r, 0xA5, sizeof *r);
  r->struct_size = sizeof *r;
  r->a = a;
}

Release1 old_caller(int a) {
  Release1 r;
  fill_old_caller(&r, a);
  return r;
}

TEST(GrowableStructs, OlderCallerGetsTheDefaultsOfLaterMembers) {
  const Release1 old = old_caller(7);
  Release2 read = defaults();
  ASSERT_EQ(lowp::copy_growable(&old, kLayout, &read), lowp::GrowableSize::kOk);
  EXPECT_EQ(read.a, 7);
  EXPECT_EQ(read.reserved0, 0u);  // the caller's padding is not read
  EXPECT_EQ(read.added, 42);      // the caller's struct stops before it: the default stays
  EXPECT_EQ(read.struct_size, sizeof(Release2));
  // A caller of the second release passes its `added`.
  Release2 new_caller{sizeof(Release2), 1, 0xA5A5A5A5u, 5, 0xA5A5A5A5u};
  Release2 read2 = defaults();
  ASSERT_EQ(lowp::copy_growable(&new_caller, kLayout, &read2), lowp::GrowableSize::kOk);
  EXPECT_EQ(read2.added, 5);
  EXPECT_EQ(read2.reserved0, 0u);
  EXPECT_EQ(read2.reserved1, 0u);
}

TEST(GrowableStructs, AMemberIsReadOnlyWhenTheSizeCoversAllItsBytes) {
  for (size_t size = sizeof(Release1); size <= sizeof(Release2); ++size) {
    Release2 caller{size, 1, 0xA5A5A5A5u, 5, 0xA5A5A5A5u};
    Release2 read = defaults();
    ASSERT_EQ(lowp::copy_growable(&caller, kLayout, &read), lowp::GrowableSize::kOk) << size;
    EXPECT_EQ(read.added, size >= offsetof(Release2, added) + sizeof(int) ? 5 : 42) << size;
  }
}

TEST(GrowableStructs, WriteBackSkipsPaddingAndUncoveredMembers) {
  Release1 old;
  fill_old_caller(&old, 7);
  Release2 value{sizeof(Release2), 9, 0, 10, 0};
  lowp::write_growable(reinterpret_cast<Release2*>(&old), value, kLayout);
  Release1 want;
  fill_old_caller(&want, 9);
  EXPECT_EQ(std::memcmp(&old, &want, sizeof old), 0);  // a written, padding kept
}

TEST(GrowableStructs, RejectedSizesCopyNothing) {
  const struct {
    size_t size;
    lowp::GrowableSize want;
  } cases[] = {{0, lowp::GrowableSize::kZero},
               {sizeof(Release1) - 1, lowp::GrowableSize::kBelowFirstRelease},
               {offsetof(Release1, a) + sizeof(int), lowp::GrowableSize::kBelowFirstRelease},  // the padding
               {sizeof(size_t), lowp::GrowableSize::kBelowFirstRelease},
               {sizeof(Release2) + 1, lowp::GrowableSize::kAboveThisLibrary}};
  for (const auto& c : cases) {
    Release2 caller{c.size, 9, 9, 9, 9};
    Release2 read = defaults();
    EXPECT_EQ(lowp::copy_growable(&caller, kLayout, &read), c.want) << c.size;
    EXPECT_TRUE(read.struct_size == 0 && read.a == -1 && read.added == 42) << c.size;
  }
}

}  // namespace
