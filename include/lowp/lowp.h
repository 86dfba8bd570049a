/**
 * @file lowp.h
 * @brief lowp C ABI: low-precision (FP8, NVFP4) quantization for LLM training.
 *
 * Conventions for every call:
 * - Tensors are 2-D, row-major, contiguous: x[rows][cols] (leading dims flattened into rows).
 * - All pointers of one call live in one memory space. Host pointers run the CPU reference
 *   backend; CUDA device pointers run the CUDA backend on `stream` (a cudaStream_t, NULL for the
 *   default stream). Mixing host and device pointers is an error.
 * - The CUDA backend never allocates, never synchronises the host, and can be captured in a
 *   CUDA graph. The CPU backend is synchronous.
 * - Every call validates all arguments before touching memory. On error nothing is written and
 *   lowp_get_last_error() names the argument and the rule that failed.
 * - Every count and stride is checked against the rule the tensors follow (at most 2^56
 *   elements; an array of n entries `stride` apart spans (n - 1) * stride + 1 of them) before
 *   any pointer arithmetic uses it.
 * - Enums: a C caller may pass any int where lowp.h has an enum type; one that is none of the
 *   enum's values is rejected and named as such ("q->scaling is 7 (not a lowp_scaling)").
 * - Aliasing: each entry point's "Aliasing:" line says which of its buffers may share bytes. The
 *   rule unless it says otherwise: a buffer that the call writes overlaps no other buffer of the
 *   call (checked, LOWP_ERROR_INVALID_ARGUMENT, nothing written); buffers it only reads may
 *   overlap each other.
 * - No C++ exception leaves a call: out of memory in the CPU backend (the only one that
 *   allocates) returns LOWP_ERROR_OUT_OF_MEMORY, any other failure LOWP_ERROR_INTERNAL, each
 *   with a message.
 * - Numerics follow docs/numerics.md bit for bit; both backends produce identical bytes.
 *
 * Structs that grow (lowp_quant_config, lowp_quantized_tensor, lowp_grouped_quantized_tensor,
 * lowp_quantized_layout, gemm.h's lowp_gemm_config, and every options struct to come): their FIRST member is
 * `size_t struct_size`, the size of the struct as the caller was compiled (sizeof). Initialise
 * them with the library's initialiser, which sets it: lowp_quant_config_default() (or
 * lowp_quant_config_nvfp4(), lowp_quant_config_nvfp4_per_token()),
 * lowp_quantized_tensor_init() / LOWP_QUANTIZED_TENSOR_INIT,
 * lowp_grouped_quantized_tensor_init() / LOWP_GROUPED_QUANTIZED_TENSOR_INIT,
 * lowp_quantized_layout_init() / LOWP_QUANTIZED_LAYOUT_INIT; then set members
 * by name (a positional brace list would put its first value into struct_size). Every call
 * that takes one rejects struct_size 0 (the message names the initialiser), a size below the
 * struct's first release (its LOWP_<STRUCT>_FIRST_SIZE: the sizeof of the first release, tail
 * padding included; 64-bit size_t and pointers, the only ABI lowp builds for) or one above this library's sizeof (a caller built against a newer lowp.h).
 * It reads a member only when the caller's struct_size covers it (struct_size >= the member's
 * offset + its size): members past it, those added after the caller's lowp.h, take their
 * defaults (0 unless the member says otherwise). New members are only ever appended, so a caller
 * built against an older lowp.h keeps working. Bytes that were an older release's padding are
 * `reserved` members, never read or written by the library (an older caller's padding holds
 * whatever its compiler left there), and every struct ends on a member, never on padding, so
 * no new member lands in an older release's bytes. Plain views
 * (lowp_tensor, lowp_quantized_part, lowp_grouped_tensor, lowp_quantized_sizes) never change:
 * a new layout is a new `_v2` type.
 */
#ifndef LOWP_LOWP_H
#define LOWP_LOWP_H

#include <stddef.h>
#include <stdint.h>

#include "lowp/version.h" /* LOWP_VERSION_MAJOR, _MINOR, _PATCH, _STRING (generated) */

#if defined(_WIN32)
#define LOWP_API __declspec(dllexport)
#else
#define LOWP_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** Status of every call. */
typedef enum lowp_status {
  LOWP_SUCCESS = 0,
  LOWP_ERROR_INVALID_ARGUMENT = 1, /**< a pointer, shape, dtype or option breaks a rule */
  LOWP_ERROR_UNSUPPORTED = 2,      /**< a valid combination that this build does not implement */
  LOWP_ERROR_CUDA = 3,             /**< the CUDA runtime reported an error */
  LOWP_ERROR_INTERNAL = 4,         /**< a bug in lowp: please report it */
  LOWP_ERROR_OUT_OF_MEMORY = 5     /**< the CPU backend could not allocate its scratch memory (the
                                        CUDA backend never allocates); outputs may be partly written */
} lowp_status;

/** Message of the last failed call on this thread ("" after a success). */
LOWP_API const char* lowp_get_last_error(void);
/** Name of a status code, e.g. "LOWP_ERROR_INVALID_ARGUMENT". */
LOWP_API const char* lowp_status_name(lowp_status status);
/** Library version as "major.minor.patch": LOWP_VERSION_STRING of the library's build. */
LOWP_API const char* lowp_version(void);
/** 1 when the library was built with CUDA and a CUDA device is visible, else 0. */
LOWP_API int lowp_cuda_available(void);

/** Element types. */
typedef enum lowp_dtype {
  LOWP_DTYPE_FLOAT32 = 0,
  LOWP_DTYPE_FLOAT16 = 1,
  LOWP_DTYPE_BFLOAT16 = 2,
  LOWP_DTYPE_E4M3 = 3, /**< FP8 E4M3 (fn), max 448 */
  LOWP_DTYPE_E5M2 = 4, /**< FP8 E5M2, max 57344 */
  LOWP_DTYPE_E2M1 = 5  /**< NVFP4 codes, two per byte (element 2j in bits 3:0) */
} lowp_dtype;

/** How the outer (per-tensor or per-token) scale is chosen. */
typedef enum lowp_scaling {
  LOWP_SCALING_DELAYED = 0,   /**< FP8: use the given scale, fold max|x| into amax (atomic max) */
  LOWP_SCALING_CURRENT = 1,   /**< FP8: amax pass, scale from amax, cast */
  LOWP_SCALING_PER_TOKEN = 2, /**< FP8: one scale per row (rowwise) / per column of x (columnwise) */
  LOWP_SCALING_NVFP4_PER_TENSOR = 3, /**< NVFP4 with one outer amax per orientation */
  LOWP_SCALING_NVFP4_PER_TOKEN = 4,  /**< NVFP4 with one outer amax per row of each orientation */
  LOWP_SCALING_NVFP4_ROW_SCALED = 5  /**< NVFP4 with one raw outer amax per row of each orientation
                                          and the per-tensor math (TE's row-scaled NVFP4) */
} lowp_scaling;

/** How 4over6 (lowp_quant_config.four_over_six) measures a candidate's error (numerics §5c). */
typedef enum lowp_four_over_six_error {
  LOWP_FOUR_OVER_SIX_MAE = 0, /**< sum of |x^ - x| over the block (default) */
  LOWP_FOUR_OVER_SIX_MSE = 1  /**< sum of (x^ - x)^2 */
} lowp_four_over_six_error;

/** Layout of NVFP4 block scales (numerics §6). */
typedef enum lowp_scale_layout {
  LOWP_SCALE_LAYOUT_COMPACT = 0, /**< [roundup(R,128)][roundup(B,4)], zero padded */
  LOWP_SCALE_LAYOUT_SWIZZLED = 1 /**< cuBLASLt/CUTLASS block-scaled GEMM operand layout */
} lowp_scale_layout;

/** Which quantized copy an operation reads. */
typedef enum lowp_orientation {
  LOWP_ROWWISE = 0,   /**< x quantized along its rows (blocks along cols) */
  LOWP_COLUMNWISE = 1 /**< x^T (cols x rows) quantized along its rows */
} lowp_orientation;

/** Delayed-scaling amax reduction over the history. */
typedef enum lowp_amax_algo {
  LOWP_AMAX_ALGO_MAX = 0,        /**< a = max(h) */
  LOWP_AMAX_ALGO_MOST_RECENT = 1 /**< a = h[0] */
} lowp_amax_algo;

/** A dense high-precision tensor view (input of quantize, output of dequantize). */
typedef struct lowp_tensor {
  void* data;       /**< rows * cols elements, row-major, aligned to the element size (checked: 4
                         bytes for FLOAT32, 2 for FLOAT16 and BFLOAT16); 16-byte alignment enables
                         the fast path */
  lowp_dtype dtype; /**< FLOAT32, FLOAT16 or BFLOAT16 */
  int64_t rows;
  int64_t cols;
} lowp_tensor;

/**
 * One orientation of a quantized tensor. Rowwise has the shape of x (rows x cols); columnwise
 * has the shape of x^T (cols x rows). A part whose `data` is NULL is not produced.
 */
typedef struct lowp_quantized_part {
  void* data;      /**< codes, row-major in this orientation (FP8: 1 byte each; E2M1: 2 per byte) */
  void* scale_inv; /**< FP8 per-token: fp32 per orientation row (x ~ q * scale_inv).
                        NVFP4: UE4M3 block scales in the tensor's scale_layout.
                        FP8 per-tensor: unused (see lowp_quantized_tensor). */
  float* amax;     /**< FP8 per-token: raw amax per orientation row (written; required: it is
                        also where the amax pass leaves its result).
                        NVFP4 per-tensor: 1 float, this orientation's outer amax A (required for
                        every requested part): written by lowp_quantize, or read when
                        cfg->amax_given is 1; read by lowp_dequantize.
                        NVFP4 per-token and row-scaled: raw outer amax per orientation row
                        (rowwise: rows floats, columnwise: cols floats; required for every
                        requested part): written by lowp_quantize, or read when
                        cfg->amax_given is 1; read by lowp_dequantize. */
} lowp_quantized_part;

/** sizeof(lowp_quantized_tensor) of its first release (through `amax`): the smallest struct_size. */
#define LOWP_QUANTIZED_TENSOR_FIRST_SIZE 112

/**
 * A quantized tensor: format, recipe, shape of x and its rowwise/columnwise copies. A growable
 * struct: initialise with lowp_quantized_tensor_init() or LOWP_QUANTIZED_TENSOR_INIT.
 */
typedef struct lowp_quantized_tensor {
  size_t struct_size;              /**< sizeof(lowp_quantized_tensor), set by the initialisers */
  lowp_dtype dtype;                /**< E4M3, E5M2 (FP8) or E2M1 (NVFP4) */
  lowp_scaling scaling;
  lowp_scale_layout scale_layout;  /**< NVFP4 block scales only */
  int64_t rows;                    /**< rows of x */
  int64_t cols;                    /**< cols of x */
  lowp_quantized_part rowwise;
  lowp_quantized_part columnwise;
  /* FP8 per-tensor (delayed and current) state, one float each; both copies share them. */
  float* scale;     /**< delayed: read. current: written (scale from amax). */
  float* scale_inv; /**< written: 1 / scale. */
  float* amax;      /**< delayed: max|x| folded in (atomic max; point it at the history's h[0]).
                         current: written (overwritten) with max|x|. */
  /* Appended after the first release (lowp.h: growable structs). */
  float nvfp4_outer_max; /**< NVFP4: 6E, the outer maximum the copies were encoded against
                              (numerics §5c): 2688 (E = 448: every recipe's standard) or 1536
                              (4over6 with cfg->four_over_six_scale_max = 256). lowp_quantize of an
                              NVFP4 recipe writes it (when q->struct_size covers it);
                              lowp_dequantize and lowp_gemm read it. 0 (the initialisers' value)
                              reads as 2688. Valid: 0 and 2688 for every NVFP4 recipe, 1536 for
                              per-tensor and row-scaled only (the recipes with 4over6); a reader
                              rejects any other value (NaN included), naming the member. Not read
                              for FP8. */
  uint32_t reserved0;    /**< not read or written (the struct ends on a member, not padding) */
} lowp_quantized_tensor;

/** sizeof(lowp_quant_config) of its first release (through `group_row_multiple`, then 4 bytes
    of padding, now `reserved0`): the smallest struct_size. */
#define LOWP_QUANT_CONFIG_FIRST_SIZE 64

/**
 * Recipe knobs. A growable struct: initialise with lowp_quant_config_default() (or
 * lowp_quant_config_nvfp4()) and override what you need. It has no INIT macro: its defaults are
 * not all zero, and lowp_quant_config_default() is their one home.
 * FP8 recipes (lowp_quantize, lowp_quantize_dact, the grouped FP8 calls) read amax_epsilon (>= 0:
 * a negative or NaN one is rejected) and power_of_two_scale. They reject the NVFP4 knobs rht,
 * stochastic_rounding, block_2d, amax_estimation, amax_given and four_over_six when not 0
 * (LOWP_ERROR_INVALID_ARGUMENT, naming the member), and do not read the other NVFP4 members
 * (rht_sign_mask, rng_state, amax_estimation_factor, group_row_multiple, four_over_six_error,
 * four_over_six_scale_max).
 */
typedef struct lowp_quant_config {
  size_t struct_size;         /**< sizeof(lowp_quant_config), set by the initialisers */
  float amax_epsilon;         /**< scale from amax uses max(amax, eps); default 0 */
  int power_of_two_scale;     /**< 1: clear the scale's mantissa bits; default 0 */
  /* NVFP4 knobs (numerics §4, §5, §7): */
  int rht;                    /**< 1: random Hadamard transform on the columnwise copy (per-tensor:
                                   rounded to bf16; per-token: kept in fp32) */
  uint32_t rht_sign_mask;     /**< 16-bit sign mask; default 0xD7E8 (the CUDA encode has kernels
                                   with it built in; other masks flip signs per element) */
  int stochastic_rounding;    /**< 1: stochastic rounding (needs rng_state) */
  const uint64_t* rng_state;  /**< {seed, offset}, in the memory space of the call */
  int block_2d;               /**< 1: 16x16 block scales (weights); not with rht; NVFP4 per-tensor only */
  int amax_estimation;        /**< 1: columnwise amax = rowwise amax * amax_estimation_factor
                                   instead of the exact post-RHT amax pass. Applies to the
                                   columnwise copy with rht only (without RHT the columnwise
                                   amax is the rowwise amax anyway); rowwise is unaffected.
                                   NVFP4 per-tensor only. */
  float amax_estimation_factor; /**< finite and > 0 when amax_estimation is 1 (checked then);
                                     default 2.0 (forward inputs), 1.0 for gradients */
  int amax_given;             /**< NVFP4 (both recipes). 0 (default): each requested part's amax
                                   (per-token: amaxes) is computed and written. 1: each requested
                                   part's amax is read from q->rowwise.amax / q->columnwise.amax
                                   (e.g. reduced across ranks, or from lowp_nvfp4_amax_per_token)
                                   and used as is, nothing computed or written for it;
                                   amax_estimation is then ignored. */
  int group_row_multiple;     /**< NVFP4 grouped calls only (lowp_nvfp4_grouped_quantize / _amax):
                                   the caller's promise that every member's row count is a
                                   multiple of this, checked with the layout. 0 (default): none
                                   beyond the rules there; 16, 32, 64 or 128. With member rows
                                   in device memory CUDA sizes its launches for the worst split
                                   the promise allows: with 128 (members padded to 128-row GEMM
                                   tiles) no launched block idles, which matters for small
                                   groups. Host member rows: launches are sized exactly. */
  uint32_t reserved0;         /**< the first release's tail padding: never read (a first-release
                                   caller's struct_size, 64, covers it with whatever it holds) */
  /* Appended after the first release (lowp.h: growable structs). */
  int four_over_six;          /**< NVFP4 per-tensor (1D and 2D) and row-scaled: 1: 4over6 adaptive
                                   block scaling (numerics §5c): each block (2D: each 16x16 tile)
                                   is encoded with its largest value mapped to 6 and to 4, and the
                                   candidate with the smaller error is kept (map-6 on a tie). Not
                                   with rht or stochastic_rounding. Default 0. */
  lowp_four_over_six_error four_over_six_error; /**< with four_over_six: LOWP_FOUR_OVER_SIX_MAE
                                   (default) or LOWP_FOUR_OVER_SIX_MSE */
  float four_over_six_scale_max; /**< with four_over_six: E, the largest block scale the outer
                                   scale aims at (S_enc = 6E / A): 448 (default) or 256 (head-room
                                   for map-4's 1.5x). Recorded as q->nvfp4_outer_max = 6E. */
  uint32_t reserved1;         /**< not read (the struct ends on a member, not padding) */
} lowp_quant_config;

/** Fills `cfg` with the defaults above, struct_size included. NULL cfg: no-op. */
LOWP_API void lowp_quant_config_default(lowp_quant_config* cfg);

/** Fills `q` with zeros (no copy requested, every pointer NULL) and its struct_size. NULL: no-op. */
LOWP_API void lowp_quantized_tensor_init(lowp_quantized_tensor* q);

/** The same as a static initialiser: `lowp_quantized_tensor q = LOWP_QUANTIZED_TENSOR_INIT;`. */
#ifdef __cplusplus
#define LOWP_QUANTIZED_TENSOR_INIT (lowp_sized_struct_init<lowp_quantized_tensor>())
#else
#define LOWP_QUANTIZED_TENSOR_INIT {.struct_size = sizeof(lowp_quantized_tensor)}
#endif

/** What a tensor is in a linear layer: picks the NVFP4 recipe defaults (numerics §8). */
typedef enum lowp_tensor_role {
  LOWP_ROLE_INPUT = 0,   /**< activations: 1D, RHT on the columnwise copy, estimation factor 2.0
                              (amax_estimation stays 0: exact post-RHT amax) */
  LOWP_ROLE_WEIGHT = 1,  /**< 2D 16x16 block scales, no RHT, no SR */
  LOWP_ROLE_GRADIENT = 2 /**< 1D, RHT on the columnwise copy, stochastic rounding (the caller
                              still sets rng_state), estimation factor 1.0 (amax_estimation 0) */
} lowp_tensor_role;

/**
 * Fills `cfg` with lowp_quant_config_default() and then the NVFP4 per-tensor recipe defaults of
 * `role` (numerics §8). Every field stays overridable afterwards. An unknown role leaves the plain
 * defaults. NULL cfg: no-op.
 */
LOWP_API void lowp_quant_config_nvfp4(lowp_tensor_role role, lowp_quant_config* cfg);

/**
 * The same for the NVFP4 per-token recipe (LOWP_SCALING_NVFP4_PER_TOKEN; numerics §5, "Role
 * defaults"): lowp_quant_config_default() for every role, i.e. 1D blocks (the per-token recipe
 * has no 2D blocks, also for weights), no RHT, no stochastic rounding, amaxes computed. RHT and SR
 * are off unless asked for: set cfg->rht (the columnwise copy of inputs and gradients) and
 * cfg->stochastic_rounding with cfg->rng_state (gradients) afterwards. Every role's result is
 * accepted by the per-token recipe as it is. An unknown role leaves the plain defaults too. NULL
 * cfg: no-op.
 */
LOWP_API void lowp_quant_config_nvfp4_per_token(lowp_tensor_role role, lowp_quant_config* cfg);

/** Bytes the caller allocates for each buffer of a quantized tensor. Index 0 = rowwise, 1 = columnwise. */
typedef struct lowp_quantized_sizes {
  size_t data_bytes[2];
  size_t scale_inv_bytes[2];
  size_t amax_bytes[2];
  size_t tensor_scale_bytes; /**< each of scale, scale_inv, amax of FP8 per-tensor (0 otherwise) */
} lowp_quantized_sizes;

/**
 * Sizes of every buffer of a quantized tensor of this format, recipe and shape.
 * NVFP4 per-tensor (E2M1 + LOWP_SCALING_NVFP4_PER_TENSOR): cols % 16 == 0 is required;
 * data_bytes = rows*cols/2 each; scale_inv_bytes = roundup(R,128) * roundup(B,4) with
 * rowwise R = rows, B = cols/16 and columnwise R = cols, B = rows/16 (the same byte
 * count in both scale layouts); amax_bytes = 4 each; tensor_scale_bytes = 0. When rows % 16 != 0
 * no columnwise copy can be made and its three sizes are 0.
 * NVFP4 per-token and row-scaled (E2M1 + LOWP_SCALING_NVFP4_PER_TOKEN or _ROW_SCALED): as
 * per-tensor, except amax_bytes = 4 * rows (rowwise) and 4 * cols (columnwise). Grouped:
 * lowp_nvfp4_grouped_sizes. 4over6 needs no other sizes.
 * Aliasing: none (writes *sizes only).
 */
LOWP_API lowp_status lowp_quantized_sizes_query(lowp_dtype dtype, lowp_scaling scaling,
                                                int64_t rows, int64_t cols,
                                                lowp_quantized_sizes* sizes);

/** Which copies of a quantized tensor a layout holds. */
typedef enum lowp_parts {
  LOWP_PARTS_ROWWISE = 1,    /**< the rowwise copy only */
  LOWP_PARTS_COLUMNWISE = 2, /**< the columnwise copy only */
  LOWP_PARTS_BOTH = 3        /**< both copies */
} lowp_parts;

/** Every offset of a lowp_quantized_layout, its total_bytes and the base it is applied to are
    multiples of this: cudaMalloc's alignment, so each buffer is aligned as if allocated alone
    (the 16-byte codes and scales every fast path wants, and more). */
#define LOWP_LAYOUT_ALIGNMENT 256

/** sizeof(lowp_quantized_layout) of its first release: the smallest struct_size. */
#define LOWP_QUANTIZED_LAYOUT_FIRST_SIZE 176

/**
 * Every buffer of one quantized tensor laid out in one allocation of total_bytes bytes: the
 * buffer's byte offset from the allocation's start, each a multiple of LOWP_LAYOUT_ALIGNMENT,
 * buffers in the order of the members below, none overlapping. A buffer that the recipe or the
 * parts do not use has size 0 and offset 0 (its pointer is set NULL). Filled by
 * lowp_quantized_layout_query; lowp_quantized_tensor_from_layout points a tensor's members at
 * the buffers. A growable struct: initialise with lowp_quantized_layout_init() or
 * LOWP_QUANTIZED_LAYOUT_INIT.
 */
typedef struct lowp_quantized_layout {
  size_t struct_size;          /**< sizeof(lowp_quantized_layout), set by the initialisers */
  lowp_dtype dtype;            /**< the query's arguments, read back by lowp_quantized_tensor_from_layout */
  lowp_scaling scaling;
  int64_t rows;
  int64_t cols;
  lowp_parts parts;
  size_t total_bytes;          /**< bytes to allocate (a multiple of LOWP_LAYOUT_ALIGNMENT) */
  lowp_quantized_sizes sizes;  /**< each buffer's bytes, as lowp_quantized_sizes_query gives them,
                                    with the sizes of a part not requested set to 0 */
  size_t data_offset[2];       /**< index 0 = rowwise, 1 = columnwise: lowp_quantized_part.data */
  size_t scale_inv_offset[2];  /**< lowp_quantized_part.scale_inv */
  size_t amax_offset[2];       /**< lowp_quantized_part.amax */
  size_t tensor_scale_offset;     /**< FP8 per-tensor: lowp_quantized_tensor.scale */
  size_t tensor_scale_inv_offset; /**< FP8 per-tensor: lowp_quantized_tensor.scale_inv */
  size_t tensor_amax_offset;      /**< FP8 per-tensor: lowp_quantized_tensor.amax */
} lowp_quantized_layout;

/** Fills `layout` with zeros and its struct_size. NULL: no-op. */
LOWP_API void lowp_quantized_layout_init(lowp_quantized_layout* layout);

/** The same as a static initialiser: `lowp_quantized_layout l = LOWP_QUANTIZED_LAYOUT_INIT;`. */
#ifdef __cplusplus
#define LOWP_QUANTIZED_LAYOUT_INIT (lowp_sized_struct_init<lowp_quantized_layout>())
#else
#define LOWP_QUANTIZED_LAYOUT_INIT {.struct_size = sizeof(lowp_quantized_layout)}
#endif

/**
 * Lays out every buffer of a quantized tensor of this format, recipe and shape, with the copies
 * `parts`, in one allocation: the sizes of lowp_quantized_sizes_query (same rules for dtype,
 * scaling, rows and cols), each at an offset aligned to LOWP_LAYOUT_ALIGNMENT. NVFP4 makes the
 * columnwise copy only when rows % 16 == 0: parts with the columnwise copy are rejected
 * otherwise. layout->struct_size must be set (LOWP_QUANTIZED_LAYOUT_INIT); the rest of *layout
 * is written (only its caller's struct_size bytes). Aliasing: none (writes *layout only).
 *
 *   lowp_quantized_layout l = LOWP_QUANTIZED_LAYOUT_INIT;
 *   lowp_quantized_layout_query(LOWP_DTYPE_E2M1, LOWP_SCALING_NVFP4_PER_TOKEN, M, K,
 *                               LOWP_PARTS_BOTH, &l);
 *   void* base; cudaMalloc(&base, l.total_bytes);   // host: aligned_alloc(LOWP_LAYOUT_ALIGNMENT, ...)
 *   lowp_quantized_tensor q = LOWP_QUANTIZED_TENSOR_INIT;
 *   lowp_quantized_tensor_from_layout(&l, base, &q);  // then lowp_quantize(&x, &q, cfg, stream)
 */
LOWP_API lowp_status lowp_quantized_layout_query(lowp_dtype dtype, lowp_scaling scaling, int64_t rows,
                                                 int64_t cols, lowp_parts parts,
                                                 lowp_quantized_layout* layout);

/**
 * Points q at the buffers of `layout` in the allocation at `base` (total_bytes bytes, aligned to
 * LOWP_LAYOUT_ALIGNMENT, host or device memory; base + total_bytes within the address space,
 * checked like any count): sets q->dtype, scaling, rows, cols, both parts'
 * data / scale_inv / amax and the FP8 per-tensor scale, scale_inv, amax (NULL where the layout
 * has no buffer, so an unrequested part is not produced). q->scale_layout and q->struct_size are
 * kept; q must be initialised (LOWP_QUANTIZED_TENSOR_INIT). `layout` must be as
 * lowp_quantized_layout_query filled it (its offsets are checked against the query's). Nothing
 * is read or written at base. Aliasing: none (writes *q only).
 */
LOWP_API lowp_status lowp_quantized_tensor_from_layout(const lowp_quantized_layout* layout, void* base,
                                                       lowp_quantized_tensor* q);

/**
 * Quantizes x into every part of q whose data is non-NULL, in one pass over x per recipe step.
 * Reads: x, and for DELAYED q->scale. Writes: the requested parts' codes, scale_inv, amax, and
 * for FP8 per-tensor q->scale_inv (and q->scale, q->amax as documented on the fields).
 * Requires: x->rows, x->cols equal q->rows, q->cols; cfg may be NULL for the defaults.
 * FP8: any shape >= 1x1.
 *
 * NVFP4 per-tensor (q->dtype E2M1, q->scaling LOWP_SCALING_NVFP4_PER_TENSOR; numerics §3, §4, §6, §7),
 * M = rows, K = cols:
 * - Shapes: K % 16 == 0; M % 16 == 0 when the columnwise copy is requested or cfg->block_2d.
 * - Each requested part needs data (M*K/2 bytes; E2M1 codes, two per byte), scale_inv (UE4M3
 *   block scales, [roundup(R,128)][roundup(B,4)] bytes for R orientation rows of B blocks, in
 *   q->scale_layout, every padding
 *   byte written 0) and amax (1 float; see cfg->amax_given).
 * - Rowwise: 16-element blocks along K, outer amax A_row = max|x| (NaN propagates).
 *   Columnwise: x^T (K x M) with 16-element blocks along M. Without RHT A_col = A_row.
 *   With cfg->rht each 16-vector g of a column of x becomes bf16(RHT16(g, rht_sign_mask) * 0.25)
 *   (a NaN there is canonicalised first), and A_col is the exact amax of those values, or
 *   A_row * amax_estimation_factor with cfg->amax_estimation (a NaN product canonicalised).
 * - cfg->block_2d: one scale per 16x16 tile of x (b = tile amax), repeated on the tile's 16 rows,
 *   A = A_row for both copies; the columnwise copy is then the exact transpose (codes and tile
 *   scales) of the rowwise one (with amax_given: when both given amaxes are equal).
 *   Not with rht, not with stochastic_rounding (its draws differ by orientation).
 * - cfg->stochastic_rounding: cfg->rng_state = {seed, offset} (read, never advanced: call
 *   lowp_rng_advance between steps); block (i, j) of an orientation with B blocks per row draws
 *   Philox with block index i*B + j (numerics §7).
 * - FP8-only knobs (amax_epsilon, power_of_two_scale) must be 0. E2M1 with an FP8 scaling, or an
 *   FP8 dtype with an NVFP4 scaling, is invalid. Device pointers run the CUDA kernels (the same
 *   bytes, for both recipes).
 *
 * NVFP4 per-token (q->dtype E2M1, q->scaling LOWP_SCALING_NVFP4_PER_TOKEN; numerics §3, §5, §6, §7):
 * one outer amax per row of each orientation instead of one per tensor.
 * - Shapes, codes and scale arrays as per-tensor (K % 16 == 0; M % 16 == 0 with the columnwise
 *   copy; every scale padding byte written 0). amax: q->rowwise.amax holds M floats,
 *   q->columnwise.amax K floats, 4-byte aligned.
 * - Outer amaxes (K1, also callable alone: lowp_nvfp4_amax_per_token): row_amax[i] =
 *   max_k |x[i][k]|; col_amax[k] = max_i |x[i][k]|, or with cfg->rht
 *   0.25 * max over the column's 16-row strips g of |RHT16(g, rht_sign_mask)| (fp32, no bf16
 *   rounding; a NaN result canonicalised). NaN propagates. cfg->amax_given = 0: the amaxes are
 *   computed and written, then encoded (K1 then K2); 1: the requested parts' amax arrays are
 *   read (K2 alone).
 * - Encode (K2) of orientation row i with stored amax A_i: S_enc = S_enc(max(A_i, 1e-12)) (so a
 *   zero row gets 2688/1e-12 and a NaN amax 1e-12); per 16-element block b = max|block|
 *   (with RHT: max|RHT16(g)| * 0.25), s = UE4M3 block scale, m = S_enc / float(s) (RN), codes
 *   E2M1(v * m), with RHT E2M1(RHT16(g) * (m * 0.25)). A block whose scale decodes to 0 writes
 *   codes 0 (positive zero) whatever the signs.
 * - Knobs: rht (columnwise copy only), rht_sign_mask, stochastic_rounding + rng_state (block
 *   (i, j) draws with index i*B + j, as per-tensor), amax_given. block_2d, amax_estimation and
 *   four_over_six belong to the per-tensor recipe and are rejected, as are the FP8-only knobs.
 *
 * NVFP4 row-scaled (q->dtype E2M1, q->scaling LOWP_SCALING_NVFP4_ROW_SCALED; numerics §5b): the
 * per-token recipe's buffers and outer amaxes with the per-tensor recipe's math, row by row.
 * - Outer amaxes: as per-token (K1: lowp_nvfp4_amax_per_row), except that with cfg->rht the
 *   columnwise amax of column k is that of the bf16-rounded transform below: per-token's value
 *   rounded to bf16.
 * - Encode of orientation row i with its raw amax A_i: S_enc = S_enc(A_i) as per-tensor (no
 *   floor: a zero row gets 1), per 16-element block the per-tensor block scale and multiplier
 *   m = min(1 / (float(s) * (1 / S_enc)), FLT_MAX) (a block whose scale is 0 gets m = FLT_MAX:
 *   its codes saturate, and it dequantizes to 0), codes E2M1(v * m). With cfg->rht the columnwise
 *   values are bf16(RHT16(g) * 0.25) as per-tensor.
 * - Knobs: rht, rht_sign_mask, stochastic_rounding + rng_state, amax_given, four_over_six (not
 *   with rht or SR; 1D blocks). block_2d and amax_estimation are rejected.
 *
 * 4over6 (cfg->four_over_six, per-tensor 1D and 2D, and row-scaled; numerics §5c): S_enc =
 * min(6E / A, FLT_MAX) with E = cfg->four_over_six_scale_max; per block (tile) amax b,
 * base = (b / 6) * S_enc, candidates s6 = UE4M3(min(base, 448)) and s4 = UE4M3(min(base * 1.5, 448)),
 * each encoded with the multiplier above; the one whose values ((e2m1(q) * float(s)) * A) / 6E lie
 * closer to the input (cfg->four_over_six_error) is kept. lowp_quantize records 6E in
 * q->nvfp4_outer_max; with E = 256 q->struct_size must cover that member.
 *
 * Aliasing: x (and cfg->rng_state) are read; q's buffers that the recipe uses are written,
 * except the DELAYED q->scale and, with cfg->amax_given, the parts' amax, which are read. No
 * written buffer may overlap any other buffer of the call (checked: LOWP_ERROR_INVALID_ARGUMENT,
 * nothing written); not in place.
 */
LOWP_API lowp_status lowp_quantize(const lowp_tensor* x, lowp_quantized_tensor* q,
                                   const lowp_quant_config* cfg, void* stream);

/**
 * Dequantizes one orientation of q into out (rowwise: rows x cols; columnwise: cols x rows).
 * out->dtype is FLOAT32, FLOAT16 or BFLOAT16 (round to nearest even).
 * NVFP4 per-tensor: x^ = e2m1(q) * (float(s) * A * (1/2688)) with s read from the part's
 * scale_inv in q->scale_layout and A = *part.amax (a NaN result is canonicalised). A columnwise
 * copy made with RHT dequantizes to the RHT domain (bf16(RHT16(g) * 0.25)), not to x^T.
 * NVFP4 per-token: the same with A = max(part.amax[r], 1e-12) for row r of the orientation (as
 * the encoder used it). A columnwise copy made with RHT dequantizes to RHT16(g) * 0.25 (fp32).
 * NVFP4 row-scaled: the per-tensor rule with A = part.amax[r] (raw) for row r.
 * 1/2688 is 1/6E, 6E = q->nvfp4_outer_max (0: 2688; 1536 after 4over6 with E = 256).
 * Reads the orientation's data and scale_inv (FP8 per-tensor: q->scale_inv instead) and, for
 * NVFP4, its amax; FP8 per-token's amax is not read.
 * Aliasing: out->data may overlap none of the buffers of q that it reads (checked); not in
 * place.
 */
LOWP_API lowp_status lowp_dequantize(const lowp_quantized_tensor* q, lowp_orientation which,
                                     lowp_tensor* out, void* stream);

/**
 * NVFP4 scale layouts (numerics §6): compact [roundup(rows,128)][roundup(blocks,4)] UE4M3 bytes ->
 * the swizzled (cuBLASLt/CUTLASS) layout of the same size. Reads compact entries (i, j) with
 * i < rows, j < blocks only; writes every byte of `swizzled` (padding 0). rows, blocks >= 1 and
 * the array at most 2^56 bytes. Gives the same bytes as lowp_quantize with LOWP_SCALE_LAYOUT_SWIZZLED.
 * Aliasing: compact and swizzled must not overlap (checked); not in place.
 */
LOWP_API lowp_status lowp_nvfp4_swizzle_scales(const void* compact, void* swizzled, int64_t rows,
                                               int64_t blocks, void* stream);

/**
 * Advances a stochastic-rounding state {seed, offset} (two uint64, host or device memory) by
 * adding `increment` to offset (mod 2^64), in place. CUDA: one tiny kernel on `stream`, so a
 * captured graph advances it on every replay.
 * Aliasing: in place by design (one buffer, read and written).
 */
LOWP_API lowp_status lowp_rng_advance(uint64_t* rng_state, uint64_t increment, void* stream);

/**
 * amax = max|x| over the whole tensor (NaN propagates); overwrites *amax (one float).
 * Aliasing: amax must not overlap x->data (checked).
 */
LOWP_API lowp_status lowp_amax(const lowp_tensor* x, float* amax, void* stream);

/**
 * Per-token amax in one read of x: row_amax[i] = max_k |x[i][k]| (rows floats) and
 * col_amax[k] = max_i |x[i][k]| (cols floats). Either output may be NULL, not both.
 * Aliasing: row_amax and col_amax overlap neither x->data nor each other (checked).
 */
LOWP_API lowp_status lowp_amax_per_token(const lowp_tensor* x, float* row_amax, float* col_amax,
                                         void* stream);

/**
 * Delayed-scaling update for `num_tensors` tensors in one launch (numerics §2).
 * amax_history: [num_tensors][history_len] fp32, rolled in place (h[0] zeroed).
 * scale, scale_inv: num_tensors floats each; a tensor whose reduced amax is not finite and
 * positive keeps its scale. fp8_dtype: E4M3 or E5M2 (its max). margin: |margin| < 100.
 * Aliasing: amax_history and scale are updated in place; amax_history, scale and scale_inv are
 * three disjoint arrays (checked).
 */
LOWP_API lowp_status lowp_fp8_delayed_scaling_update(int64_t num_tensors, int64_t history_len,
                                                     float* amax_history, float* scale,
                                                     float* scale_inv, lowp_dtype fp8_dtype,
                                                     int margin, lowp_amax_algo algo,
                                                     void* stream);

/** Activation whose gradient a backward cast fuses (numerics §2). */
typedef enum lowp_activation {
  LOWP_ACTIVATION_GELU_TANH = 0, /**< GELU, tanh approximation (as TE's dgelu) */
  LOWP_ACTIVATION_SILU = 1,
  LOWP_ACTIVATION_RELU = 2
} lowp_activation;

/**
 * Backward cast fused with an activation gradient: q = fp8(dact(act_input) * grad * scale),
 * amax over the fused value dact(act_input) * grad. act_input has grad's dtype and shape, and is
 * aligned to its element size (checked).
 * FP8 DELAYED and CURRENT scaling; otherwise as lowp_quantize.
 * Aliasing: as lowp_quantize; grad and act_input, both only read, may be one buffer.
 */
LOWP_API lowp_status lowp_quantize_dact(const lowp_tensor* grad, const void* act_input,
                                        lowp_activation act, lowp_quantized_tensor* q,
                                        const lowp_quant_config* cfg, void* stream);

/**
 * A group of N tensors in one buffer (MoE experts, a list of weights): member t is a
 * first_dims[t] x last_dims[t] row-major matrix starting at element offsets[t] of data.
 * Members lie in order without overlap: offsets[t] >= offsets[t-1] + first_dims[t-1] * last_dims[t-1],
 * and inside the buffer: offsets[t] + first_dims[t] * last_dims[t] <= total_elements. A member
 * may be empty (a dim of 0). data is aligned to its element size (checked; act_input of a dact
 * call likewise). The three arrays hold N int64 each, 8-byte aligned, all in host memory or all in
 * device memory (host memory when data is). With device arrays nothing synchronises the host and the call can be captured
 * in a CUDA graph; a layout that breaks the rules is then caught on the device: nothing is
 * written and lowp_grouped_layout_error() reports it. With host arrays the call validates them
 * up front and returns the error.
 */
typedef struct lowp_grouped_tensor {
  void* data;
  lowp_dtype dtype;
  int64_t num_tensors;
  int64_t total_elements; /**< size of data in elements */
  const int64_t* first_dims;
  const int64_t* last_dims;
  const int64_t* offsets;
} lowp_grouped_tensor;

/** sizeof(lowp_grouped_quantized_tensor) of its first release: the smallest struct_size. */
#define LOWP_GROUPED_QUANTIZED_TENSOR_FIRST_SIZE 72

/**
 * Grouped FP8 per-tensor quantized outputs. Rowwise codes use the input's layout (member t at
 * byte offsets[t]); member t's columnwise copy is its transpose (last x first), also at byte
 * offsets[t] of columnwise_data. Per-member state arrays have num_tensors entries. A growable
 * struct: initialise with lowp_grouped_quantized_tensor_init() or
 * LOWP_GROUPED_QUANTIZED_TENSOR_INIT.
 */
typedef struct lowp_grouped_quantized_tensor {
  size_t struct_size;    /**< sizeof(lowp_grouped_quantized_tensor), set by the initialisers */
  lowp_dtype dtype;      /**< E4M3 or E5M2 */
  lowp_scaling scaling;  /**< DELAYED or CURRENT */
  int64_t num_tensors;   /**< must equal the input group's */
  void* rowwise_data;    /**< total_elements bytes, or NULL */
  void* columnwise_data; /**< total_elements bytes, or NULL */
  float* scale;          /**< [N]; DELAYED: read; CURRENT: written */
  float* scale_inv;      /**< [N]; written once per member (empty members included) */
  float* amax;           /**< member t at amax[t * amax_stride]; DELAYED: folded; CURRENT: written */
  int64_t amax_stride;   /**< 0 or 1: contiguous; L: amax = a [N][L] history, folds into h[0] */
} lowp_grouped_quantized_tensor;

/** Fills `q` with zeros and its struct_size. NULL: no-op. */
LOWP_API void lowp_grouped_quantized_tensor_init(lowp_grouped_quantized_tensor* q);

/** The same as a static initialiser: `lowp_grouped_quantized_tensor q = LOWP_GROUPED_QUANTIZED_TENSOR_INIT;`. */
#ifdef __cplusplus
#define LOWP_GROUPED_QUANTIZED_TENSOR_INIT (lowp_sized_struct_init<lowp_grouped_quantized_tensor>())
#else
#define LOWP_GROUPED_QUANTIZED_TENSOR_INIT {.struct_size = sizeof(lowp_grouped_quantized_tensor)}
#endif

/**
 * Workspace bytes the grouped calls need for N members (device memory for the CUDA backend).
 * The grouped FP8 calls (lowp_grouped_quantize, _quantize_dact, _amax, _dequantize) on the CPU
 * backend (host data) need none: their workspace and workspace_bytes are ignored (any pointer,
 * NULL included, and any size; never read, written or checked, so not subject to the aliasing
 * rules). On the CUDA backend the workspace is required: device memory, 8-byte aligned, at least
 * this many bytes (checked).
 * Aliasing: none (writes *bytes only).
 */
LOWP_API lowp_status lowp_grouped_workspace_size(int64_t num_tensors, size_t* bytes);

/**
 * Grouped quantize: every member as lowp_quantize would quantize it alone (same bytes), in one
 * pass over the group whatever N is (current scaling adds one amax pass).
 * Aliasing: x->data, act_input and the layout arrays are read; the codes, scale_inv, the span of
 * amax ((N-1) * stride + 1 floats) and for CURRENT scale are written (DELAYED: scale read); no
 * written buffer overlaps another buffer of the call, the CUDA workspace included (checked).
 */
LOWP_API lowp_status lowp_grouped_quantize(const lowp_grouped_tensor* x,
                                           lowp_grouped_quantized_tensor* q,
                                           const lowp_quant_config* cfg, void* workspace,
                                           size_t workspace_bytes, void* stream);

/**
 * Grouped backward cast with an activation gradient. Shapes and offsets come from `grad`; the
 * activation input `act_input` is read with grad's layout and dtype.
 * Aliasing: as lowp_grouped_quantize; grad->data and act_input may be one buffer.
 */
LOWP_API lowp_status lowp_grouped_quantize_dact(const lowp_grouped_tensor* grad,
                                                const void* act_input, lowp_activation act,
                                                lowp_grouped_quantized_tensor* q,
                                                const lowp_quant_config* cfg, void* workspace,
                                                size_t workspace_bytes, void* stream);

/**
 * Per-member amax: amax[t * amax_stride] = max|member t| (0 for empty members); overwrites.
 * Aliasing: amax's span overlaps neither x->data, the layout arrays nor the CUDA workspace
 * (checked).
 */
LOWP_API lowp_status lowp_grouped_amax(const lowp_grouped_tensor* x, float* amax,
                                       int64_t amax_stride, void* workspace,
                                       size_t workspace_bytes, void* stream);

/**
 * Grouped dequantize of one orientation into `out` (same layout arrays as the quantized group;
 * out->data of out->dtype FLOAT32/FLOAT16/BFLOAT16). Columnwise members are last x first.
 * Aliasing: out->data overlaps neither the codes read, q->scale_inv, the layout arrays nor the
 * CUDA workspace (checked).
 */
LOWP_API lowp_status lowp_grouped_dequantize(const lowp_grouped_quantized_tensor* q,
                                             lowp_orientation which, lowp_grouped_tensor* out,
                                             void* workspace, size_t workspace_bytes,
                                             void* stream);

/**
 * After a grouped call with device-side layout arrays: 0 when the layout was valid, else the
 * index + 1 of the first member (in the check's order) that broke a rule, written to
 * *bad_member_plus_one (one int64 in host memory, 8-byte aligned). Synchronises `stream`.
 * Aliasing: none (reads the workspace, writes *bad_member_plus_one).
 */
LOWP_API lowp_status lowp_grouped_layout_error(const void* workspace, int64_t* bad_member_plus_one,
                                               void* stream);

/**
 * NVFP4 per-token K1 alone (numerics §5): the outer amaxes of lowp_quantize's per-token recipe in one
 * read of x, for a later lowp_quantize with cfg->amax_given = 1 (which then gives the bytes of
 * the composite call). row_amax: x->rows floats, row_amax[i] = max_k |x[i][k]|. col_amax:
 * x->cols floats, col_amax[k] = max_i |x[i][k]|, or with cfg->rht 0.25 * max over the column's
 * 16-row strips of |RHT16(strip, cfg->rht_sign_mask)| in fp32 (canonical NaN). Either output may
 * be NULL, not both; both 4-byte aligned; overwritten. Reads cfg->rht and cfg->rht_sign_mask
 * only (NULL cfg: the defaults, no RHT); other fields are ignored. Shapes: any rows, cols >= 1
 * (K % 16 is not needed for the amaxes; the encode needs it); col_amax with cfg->rht needs
 * rows % 16 == 0.
 * Aliasing: row_amax and col_amax overlap neither x->data nor each other (checked).
 */
LOWP_API lowp_status lowp_nvfp4_amax_per_token(const lowp_tensor* x, float* row_amax, float* col_amax,
                                               const lowp_quant_config* cfg, void* stream);

/**
 * K1 of a per-row NVFP4 recipe alone: `scaling` LOWP_SCALING_NVFP4_PER_TOKEN (the same as
 * lowp_nvfp4_amax_per_token) or LOWP_SCALING_NVFP4_ROW_SCALED, whose col_amax with cfg->rht is
 * that of the bf16-rounded transform (numerics §5b): the per-token value rounded to bf16. Without
 * RHT both recipes' amaxes are the same. Everything else as lowp_nvfp4_amax_per_token.
 */
LOWP_API lowp_status lowp_nvfp4_amax_per_row(const lowp_tensor* x, lowp_scaling scaling, float* row_amax,
                                             float* col_amax, const lowp_quant_config* cfg, void* stream);

/**
 * Grouped NVFP4 per-token quantize (numerics §5, "Grouped"): N members split along the rows of one
 * tensor x (R x K, R = x->rows = sum of member_rows, K = x->cols), one pass for the whole group,
 * every member's outputs byte-identical to lowp_quantize of that member alone (with SR: the
 * block numbering below). q->dtype E2M1, q->scaling LOWP_SCALING_NVFP4_PER_TOKEN or
 * LOWP_SCALING_NVFP4_ROW_SCALED, q->rows/cols = x's; the knobs, shapes and per-part requirements
 * are lowp_quantize's of that recipe, with "M" meaning each member's rows: K % 16 == 0; with the
 * columnwise copy every M_t % 16 == 0.
 *
 * member_rows: N int64 (N >= 1), M_t >= 0 (empty members allowed; R may be 0, x->data still
 * not NULL), 8-byte aligned, in host or device memory. Member t covers rows [R_t, R_t + M_t) of
 * x, R_t = M_0 + ... + M_{t-1}. Host member_rows (with host or device data) are checked before
 * anything is written. Device member_rows (CUDA backend
 * only) are never read by the host: no host sync, graph-capturable; a layout that breaks the
 * rules is caught on the device, nothing is written, and lowp_grouped_layout_error(workspace)
 * reports index + 1 of the first bad member (a negative M_t, M_t % 16 != 0 with the
 * columnwise copy, M_t not a multiple of a declared cfg->group_row_multiple, or members running
 * past R; members that end short of R report the last one).
 * workspace: lowp_grouped_workspace_size(N) bytes, 8-byte aligned, in device memory for the CUDA
 * backend; the CPU backend needs none (NULL, 0 is fine).
 * CUDA: the same launches for any N (a prep kernel that checks the layout on the device and
 * zeroes the amaxes, one K1 and one K2 launch over all members, sized exactly from host
 * member_rows, and for device member_rows for the worst split of R rows into N members:
 * cfg->group_row_multiple = 128 sizes them exactly; host member_rows of up to 32 members go to
 * the kernels as parameters, with only the amax zeroing before them, and leave the workspace
 * untouched) when x is 16-byte aligned, the codes 8-byte
 * and the scale arrays 4-byte aligned (any cudaMalloc'd buffers are), R and K are below 2^30
 * and R * K below 2^36. Otherwise the same bytes come member by member with host member_rows,
 * and LOWP_ERROR_UNSUPPORTED (nothing written) with device member_rows.
 * lowp_nvfp4_grouped_amax likewise needs x aligned and K * (element size) % 16 == 0 for its
 * one-launch path.
 *
 * Output layout (all arrays of one part back to back, member after member; C = roundup(K/16, 4)):
 * - rowwise codes: R x K/2 bytes, member t at byte R_t*K/2 (the whole tensor's rowwise codes).
 *   rowwise amax: R floats, member t at R_t. rowwise scales: member t's own padded array
 *   [roundup(M_t,128)][C] (in q->scale_layout) at byte sum_{u<t} roundup(M_u,128)*C.
 * - columnwise codes: member t's M_t-column transpose (K x M_t, row-major) at byte R_t*K/2.
 *   columnwise amax: [N][K] floats, member t at t*K (an empty member's K amaxes are written 0).
 *   columnwise scales: member t's [roundup(K,128)][roundup(M_t/16,4)] array at byte
 *   sum_{u<t} roundup(K,128)*roundup(M_u/16,4).
 * - An empty member's scale arrays occupy 0 bytes; nothing else is written for it.
 * - SR: block (i, j) of member t (B_t blocks per row of that orientation) draws with index
 *   R_t*K/16 + i*B_t + j, i.e. blocks are numbered member after member (numerics §7).
 * lowp_nvfp4_grouped_sizes gives buffer sizes that fit every split.
 * Aliasing: as lowp_quantize, member_rows read too. The scale arrays' extent is exact with host
 * member_rows; with device member_rows the check covers the bytes every split writes (one member
 * holding all rows).
 */
LOWP_API lowp_status lowp_nvfp4_grouped_quantize(const lowp_tensor* x, int64_t num_tensors,
                                                 const int64_t* member_rows, lowp_quantized_tensor* q,
                                                 const lowp_quant_config* cfg, void* workspace,
                                                 size_t workspace_bytes, void* stream);

/**
 * Grouped K1: lowp_nvfp4_amax_per_token of every member in one pass, laid out as
 * lowp_nvfp4_grouped_quantize's amax arrays: row_amax R floats (member t at R_t), col_amax
 * [N][K] floats (member t at t*K; 0 for an empty member). member_rows, workspace and cfg as
 * there and in lowp_nvfp4_amax_per_token; col_amax with cfg->rht needs every M_t % 16 == 0.
 * Aliasing: row_amax and col_amax overlap neither x->data, member_rows, each other nor the CUDA
 * workspace (checked).
 */
LOWP_API lowp_status lowp_nvfp4_grouped_amax(const lowp_tensor* x, int64_t num_tensors,
                                             const int64_t* member_rows, float* row_amax, float* col_amax,
                                             const lowp_quant_config* cfg, void* workspace,
                                             size_t workspace_bytes, void* stream);

/**
 * lowp_nvfp4_grouped_amax for either per-row NVFP4 recipe (`scaling` as lowp_nvfp4_amax_per_row):
 * with LOWP_SCALING_NVFP4_ROW_SCALED and cfg->rht the column amaxes are rounded to bf16.
 */
LOWP_API lowp_status lowp_nvfp4_grouped_amax_per_row(const lowp_tensor* x, lowp_scaling scaling, int64_t num_tensors,
                                                     const int64_t* member_rows, float* row_amax, float* col_amax,
                                                     const lowp_quant_config* cfg, void* workspace,
                                                     size_t workspace_bytes, void* stream);

/**
 * Buffer sizes for lowp_nvfp4_grouped_quantize of N members with R rows in total and K cols,
 * valid for every split of R into N members (K % 16 == 0 required; R >= 0). With C =
 * roundup(K/16, 4):
 * - data_bytes = R*K/2 each; amax_bytes[0] = 4R, amax_bytes[1] = 4*N*K.
 * - scale_inv_bytes[0] = 128 * (floor((R - n)/128) + n) * C with n = min(N, R);
 *   scale_inv_bytes[1] = roundup(K,128) * 4 * (floor((R/16 - n)/4) + n) with n = min(N, R/16).
 *   These are the largest sums any split reaches (n - 1 members of one row, or one 16-row
 *   strip, and the rest in one member), so they bound every split and are reached by some.
 * When R % 16 != 0 no columnwise copy can be made and its three sizes are 0.
 * Aliasing: none (writes *sizes only).
 */
LOWP_API lowp_status lowp_nvfp4_grouped_sizes(int64_t num_tensors, int64_t total_rows, int64_t cols,
                                              lowp_quantized_sizes* sizes);

#ifdef __cplusplus
}  /* extern "C" */

/* The C++ form of the INIT macros: the struct value-initialised, then struct_size set (a brace
   list naming struct_size alone draws -Wmissing-field-initializers in C++). */
template <typename T>
constexpr T lowp_sized_struct_init() noexcept {
  T s{};
  s.struct_size = sizeof(T);
  return s;
}
#endif

#endif /* LOWP_LOWP_H */
