"""lowp: low-precision (FP8, NVFP4) quantization for LLM training, over lowp's C library.

Arrays in, arrays out, any framework: NumPy (bfloat16 as ``ml_dtypes.bfloat16``) and PyTorch CPU
arrays run the CPU reference backend; PyTorch and CuPy CUDA arrays run the CUDA backend on their
device and current stream; both backends give the same bytes. Results are allocated in the
input's framework. A quantized tensor is a QuantizedTensor (codes, scales and amax of each copy,
recipe and shape, ``.dequantize()``).

    import numpy as np, lowp
    x = np.random.randn(256, 1024).astype(np.float32)
    q = lowp.quantize(x, "nvfp4_per_tensor", role="input", columnwise=True)
    print(q.rowwise.data.shape, q.rowwise.scale_inv.shape, q.rowwise.amax)
    err = np.abs(q.dequantize() - x).max()

Ops: quantize, quantize_dact, dequantize, amax, amax_per_token, nvfp4_amax_per_token,
fp8_delayed_scaling_update, nvfp4_swizzle_scales, rng_state, rng_advance, grouped_quantize,
grouped_quantize_dact, grouped_amax, grouped_dequantize, grouped_layout_error,
nvfp4_grouped_quantize, nvfp4_grouped_amax, quantized_sizes, quantized_layout, nvfp4_grouped_sizes,
grouped_workspace_size, and gemm (D = A . B^T on two quantized tensors). PyTorch tensors go
through ``torch.ops.lowp`` operators (lowp.torch), so these functions trace under
``torch.compile(fullgraph=True)`` and capture in CUDA graphs.

Errors: ValueError (an argument breaks a rule; the message names it), NotImplementedError (a
valid combination lowp does not build), MemoryError (the CPU backend ran out of memory),
RuntimeError (CUDA). On error nothing is written.
"""
import sys as _sys

from ._api import (amax, amax_per_token, cuda_available, dequantize, fp8_delayed_scaling_update, gemm, grouped_amax,
                   grouped_dequantize, grouped_layout_error, grouped_quantize, grouped_quantize_dact,
                   grouped_workspace_size, nvfp4_amax_per_token, nvfp4_grouped_amax, nvfp4_grouped_quantize,
                   nvfp4_grouped_sizes, nvfp4_swizzle_scales, quantize, quantize_dact, quantized_layout,
                   quantized_sizes, rng_advance, rng_state, version)
from ._types import (GroupedQuantizedTensor, Nvfp4GroupedTensor, QuantizedLayout, QuantizedPart, QuantizedSizes,
                     QuantizedTensor)

__version__ = version()

if "torch" in _sys.modules:  # register the torch operators now, so a first call may be compiled
    from . import _torch_ops  # noqa: F401

__all__ = [
    "quantize", "quantize_dact", "dequantize", "gemm", "amax", "amax_per_token", "nvfp4_amax_per_token",
    "fp8_delayed_scaling_update", "nvfp4_swizzle_scales", "rng_state", "rng_advance", "grouped_quantize",
    "grouped_quantize_dact", "grouped_amax", "grouped_dequantize", "grouped_layout_error", "nvfp4_grouped_quantize",
    "nvfp4_grouped_amax", "quantized_sizes", "quantized_layout", "nvfp4_grouped_sizes", "grouped_workspace_size",
    "version", "cuda_available", "QuantizedTensor", "QuantizedPart", "GroupedQuantizedTensor", "Nvfp4GroupedTensor",
    "QuantizedSizes", "QuantizedLayout",
]
