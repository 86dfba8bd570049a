/*
 * lowp from C on host memory (the CPU backend; device pointers would run the CUDA backend with
 * the same bytes): FP8 E4M3 with current scaling, then NVFP4 per-token, each quantized and
 * dequantized back, with every call's status checked.
 */
#include <lowp/lowp.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define ROWS 32
#define COLS 64 /* NVFP4 needs cols % 16 == 0, and rows % 16 == 0 for its columnwise copy */

/* Every lowp call returns a status; on failure lowp_get_last_error() names the argument and the
 * rule it broke. */
#define CHECK(call)                                                                           \
  do {                                                                                        \
    lowp_status status_ = (call);                                                             \
    if (status_ != LOWP_SUCCESS) {                                                            \
      fprintf(stderr, "%s failed: %s: %s\n", #call, lowp_status_name(status_),                \
              lowp_get_last_error());                                                         \
      exit(1);                                                                                \
    }                                                                                         \
  } while (0)

static void* alloc_bytes(size_t bytes) {
  void* p = calloc(bytes > 0 ? bytes : 1, 1);
  if (p == NULL) {
    fprintf(stderr, "out of memory\n");
    exit(1);
  }
  return p;
}

/* Quantizes x into q with the default knobs, dequantizes q's rowwise copy into back[ROWS * COLS]
 * and returns its signal-to-noise ratio against x's values in dB. */
static double round_trip_snr_db(const lowp_tensor* x, lowp_quantized_tensor* q, const float* values, float* back) {
  lowp_quant_config cfg;
  lowp_quant_config_default(&cfg);
  CHECK(lowp_quantize(x, q, &cfg, NULL));
  lowp_tensor out = {back, LOWP_DTYPE_FLOAT32, ROWS, COLS};
  CHECK(lowp_dequantize(q, LOWP_ROWWISE, &out, NULL));
  double signal = 0, noise = 0;
  for (size_t i = 0; i < ROWS * COLS; ++i) {
    signal += (double)values[i] * values[i];
    noise += ((double)values[i] - back[i]) * ((double)values[i] - back[i]);
  }
  return 10.0 * log10(signal / noise);
}

/* A ROWS x COLS quantized tensor of this format and recipe, its buffers still to be attached,
 * and the sizes of those buffers. */
static lowp_quantized_tensor empty_quantized(lowp_dtype dtype, lowp_scaling scaling, lowp_quantized_sizes* sizes) {
  CHECK(lowp_quantized_sizes_query(dtype, scaling, ROWS, COLS, sizes));
  lowp_quantized_tensor q = LOWP_QUANTIZED_TENSOR_INIT;
  q.dtype = dtype;
  q.scaling = scaling;
  q.rows = ROWS;
  q.cols = COLS;
  return q;
}

static int fp8_current_scaling(const lowp_tensor* x, const float* values) {
  lowp_quantized_sizes sizes;
  lowp_quantized_tensor q = empty_quantized(LOWP_DTYPE_E4M3, LOWP_SCALING_CURRENT, &sizes);
  q.rowwise.data = alloc_bytes(sizes.data_bytes[0]);
  q.columnwise.data = alloc_bytes(sizes.data_bytes[1]); /* x transposed, made in the same pass */
  q.scale = alloc_bytes(sizes.tensor_scale_bytes);
  q.scale_inv = alloc_bytes(sizes.tensor_scale_bytes);
  q.amax = alloc_bytes(sizes.tensor_scale_bytes);

  float* back = alloc_bytes(sizeof(float) * ROWS * COLS);
  const double snr = round_trip_snr_db(x, &q, values, back);
  printf("fp8_e4m3 current: amax %.4f, scale %.4f (448 / amax), x[0][1] %.5f -> code 0x%02x -> %.5f, SNR %.2f dB\n",
         *q.amax, *q.scale, values[1], ((const uint8_t*)q.rowwise.data)[1], back[1], snr);
  free(back);
  free(q.rowwise.data);
  free(q.columnwise.data);
  free(q.scale);
  free(q.scale_inv);
  free(q.amax);
  return snr > 25.0; /* E4M3 keeps 3 mantissa bits: about 31 dB on smooth data */
}

static int nvfp4_per_token(const lowp_tensor* x, const float* values) {
  lowp_quantized_sizes sizes;
  lowp_quantized_tensor q = empty_quantized(LOWP_DTYPE_E2M1, LOWP_SCALING_NVFP4_PER_TOKEN, &sizes);
  q.scale_layout = LOWP_SCALE_LAYOUT_COMPACT;
  for (int o = 0; o < 2; ++o) { /* 0: rowwise, 1: columnwise (x transposed) */
    lowp_quantized_part* part = o == 0 ? &q.rowwise : &q.columnwise;
    part->data = alloc_bytes(sizes.data_bytes[o]);           /* two E2M1 codes per byte */
    part->scale_inv = alloc_bytes(sizes.scale_inv_bytes[o]); /* one UE4M3 scale per 16 values */
    part->amax = alloc_bytes(sizes.amax_bytes[o]);           /* one outer amax per row */
  }

  float* back = alloc_bytes(sizeof(float) * ROWS * COLS);
  const double snr = round_trip_snr_db(x, &q, values, back);
  printf("nvfp4 per-token: row 0 amax %.4f, its first block scale 0x%02x, x[0][1] %.5f -> %.5f, SNR %.2f dB\n",
         q.rowwise.amax[0], ((const uint8_t*)q.rowwise.scale_inv)[0], values[1], back[1], snr);
  free(back);
  for (int o = 0; o < 2; ++o) {
    lowp_quantized_part* part = o == 0 ? &q.rowwise : &q.columnwise;
    free(part->data);
    free(part->scale_inv);
    free(part->amax);
  }
  return snr > 15.0; /* E2M1 keeps 1 mantissa bit: about 20 dB */
}

int main(void) {
  printf("lowp %s, CUDA backend available: %s\n", lowp_version(), lowp_cuda_available() ? "yes" : "no");
  float* values = alloc_bytes(sizeof(float) * ROWS * COLS);
  for (int i = 0; i < ROWS; ++i)
    for (int k = 0; k < COLS; ++k) values[i * COLS + k] = (float)(sin(0.1 * (i * COLS + k)) * (1 + i % 4));
  values[5 * COLS + 7] = 40.0f; /* one outlier: per-token scaling confines it to its row */
  lowp_tensor x = {values, LOWP_DTYPE_FLOAT32, ROWS, COLS};

  const int fp8_ok = fp8_current_scaling(&x, values);
  const int nvfp4_ok = nvfp4_per_token(&x, values);
  free(values);
  if (!fp8_ok || !nvfp4_ok) {
    fprintf(stderr, "an SNR is below what the format gives\n");
    return 1;
  }
  printf("example: ok\n");
  return 0;
}
