"""The results of quantize calls: small typed records of arrays (in the input's framework). They
hold data and import nothing of lowp; lowp/_api.py binds their convenience methods
(``QuantizedTensor.dequantize``, ``GroupedQuantizedTensor.dequantize`` / ``.layout_error``,
``Nvfp4GroupedTensor.layout_error``)."""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any, Optional

Array = Any  # a NumPy, PyTorch or CuPy array


@dataclass
class QuantizedPart:
    """One copy (orientation) of a quantized tensor.

    data: codes, row-major in this orientation (rowwise: rows x cols; columnwise: x transposed,
      cols x rows). FP8: one uint8 per element; NVFP4: two E2M1 codes per uint8 (element 2j in
      bits 3:0), so the last dimension is halved.
    scale_inv: FP8 per-token: float32 per orientation row (x ~ code * scale_inv). NVFP4: UE4M3
      block scales (uint8), the padded [roundup(R,128)][roundup(B,4)] array in the tensor's
      scale_layout. None for FP8 per-tensor (see QuantizedTensor.scale_inv).
    amax: FP8 per-token: raw amax per orientation row. NVFP4 per-tensor: one float32; per-token
      and row-scaled: one per orientation row. None for FP8 per-tensor.
    """

    data: Array
    scale_inv: Optional[Array] = None
    amax: Optional[Array] = None


@dataclass
class QuantizedTensor:
    """x quantized with one scaling: its rowwise and/or columnwise copy and their scales.

    scaling: "fp8_delayed", "fp8_current", "fp8_per_token", "nvfp4_per_tensor", "nvfp4_per_token"
    or "nvfp4_row_scaled".
    dtype: "e4m3", "e5m2" (FP8) or "e2m1" (NVFP4). shape: x's shape (rows = all but the last
    dimension, cols = the last). scale, scale_inv, amax: FP8 per-tensor state (one float32 each;
    under delayed scaling scale and amax are the caller's arrays). options: the NVFP4 role and
    knobs as given (absent: lowp's default for the role). columnwise_rht: the columnwise copy was
    made with the random Hadamard transform (NVFP4; lowp.gemm reads it).
    """

    scaling: str
    dtype: str
    shape: tuple
    rowwise: Optional[QuantizedPart]
    columnwise: Optional[QuantizedPart]
    scale: Optional[Array] = None
    scale_inv: Optional[Array] = None
    amax: Optional[Array] = None
    scale_layout: str = "compact"
    options: dict = field(default_factory=dict)
    columnwise_rht: bool = False

    @property
    def recipe(self) -> str:
        """Deprecated name of ``scaling``."""
        warnings.warn("QuantizedTensor.recipe is deprecated; use .scaling", DeprecationWarning, stacklevel=2)
        return self.scaling

    @property
    def rows(self) -> int:
        n = 1
        for d in self.shape[:-1]:
            n *= d
        return n

    @property
    def cols(self) -> int:
        return self.shape[-1]

    @property
    def nvfp4_outer_max(self) -> float:
        """NVFP4: 6E, the outer maximum the copies were encoded against (lowp.h's
        lowp_quantized_tensor.nvfp4_outer_max): 6 * four_over_six_scale_max with 4over6, else
        2688 (0 for FP8, where it is not read)."""
        if not self.scaling.startswith("nvfp4"):
            return 0.0
        if self.options.get("four_over_six"):
            return 6.0 * float(self.options.get("four_over_six_scale_max", 448.0))
        return 2688.0


@dataclass
class GroupedQuantizedTensor:
    """A group of N members quantized to FP8 per-tensor (``scaling`` delayed or current), each
    member with the bytes lowp.quantize gives it alone.

    rowwise_data / columnwise_data: uint8 codes of the whole buffer; member t (and its transpose,
    last x first) at element offsets[t]. scale, scale_inv, amax: N float32 each (under delayed
    scaling scale and amax are the caller's; amax may be an [N][L] history). workspace: lowp's
    grouped workspace of the call (lowp.grouped_layout_error reads it).
    """

    scaling: str
    dtype: str
    first_dims: Array
    last_dims: Array
    offsets: Array
    rowwise_data: Optional[Array]
    columnwise_data: Optional[Array]
    scale: Array
    scale_inv: Array
    amax: Array
    workspace: Array

    @property
    def recipe(self) -> str:
        """Deprecated name of ``scaling``."""
        warnings.warn("GroupedQuantizedTensor.recipe is deprecated; use .scaling", DeprecationWarning, stacklevel=2)
        return self.scaling


@dataclass
class Nvfp4GroupedTensor:
    """N members split along the rows of x (R x K), quantized to NVFP4 per-token or row-scaled
    (options["scaling"]), in lowp.h's layout of lowp_nvfp4_grouped_quantize: rowwise codes
    R x K/2 and amax [R]; columnwise codes the members' transposes back to back, amax [N][K]; each
    part's scales the members' padded arrays back to back (sized for any split). workspace: for
    lowp.grouped_layout_error.
    """

    member_rows: Array
    shape: tuple
    rowwise: Optional[QuantizedPart]
    columnwise: Optional[QuantizedPart]
    workspace: Array
    scale_layout: str = "compact"
    options: dict = field(default_factory=dict)


@dataclass
class QuantizedSizes:
    """Bytes of each buffer of a quantized tensor: index 0 rowwise, 1 columnwise
    (lowp_quantized_sizes)."""

    data_bytes: tuple
    scale_inv_bytes: tuple
    amax_bytes: tuple
    tensor_scale_bytes: int


@dataclass
class QuantizedLayout:
    """Every buffer of a quantized tensor in one allocation of total_bytes
    (lowp_quantized_layout_query): byte offsets, each a multiple of lowp's LAYOUT_ALIGNMENT (256),
    index 0 rowwise, 1 columnwise; a buffer the scaling or the parts do not use has size 0 and
    offset 0. tensor_scale_offsets: FP8 per-tensor scale, scale_inv, amax."""

    total_bytes: int
    sizes: QuantizedSizes
    data_offset: tuple
    scale_inv_offset: tuple
    amax_offset: tuple
    tensor_scale_offsets: tuple
