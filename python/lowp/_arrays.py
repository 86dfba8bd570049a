"""Arrays of any framework, seen the way the C API needs them: an address, a lowp dtype, a 2-D
shape, a device, a stream; and new arrays allocated in the same framework on the same device.

NumPy and PyTorch CPU arrays run the CPU backend; PyTorch and CuPy CUDA arrays run the CUDA
backend on the array's device and the framework's current stream. Other arrays are taken
through DLPack, ``__array__`` or ``__cuda_array_interface__`` and come back as NumPy (host) or
CuPy (device) arrays.
"""
from __future__ import annotations

import contextlib
import math
import sys

import numpy as np

from . import _lowp

# lowp's element types by the name every framework adapter understands.
INPUT_DTYPES = {"float32": _lowp.DTYPE_FLOAT32, "float16": _lowp.DTYPE_FLOAT16, "bfloat16": _lowp.DTYPE_BFLOAT16}
NULL_CONTEXT = contextlib.nullcontext()


class _Numpy:
    @staticmethod
    def dtype_name(x):
        return x.dtype.name  # ml_dtypes.bfloat16 arrays say "bfloat16"

    @staticmethod
    def address(x):
        return x.__array_interface__["data"][0]

    @staticmethod
    def contiguous(x):
        return np.ascontiguousarray(x)

    @staticmethod
    def is_contiguous(x):
        return x.flags.c_contiguous

    @staticmethod
    def new(like, shape, dtype, zeroed):
        return (np.zeros if zeroed else np.empty)(shape, dtype=_numpy_dtype(dtype))

    @staticmethod
    def stream(x):
        return 0

    @staticmethod
    def device(x):
        return NULL_CONTEXT


def _numpy_dtype(name):
    if name == "bfloat16":
        try:
            import ml_dtypes
        except ImportError:
            raise ImportError("bfloat16 NumPy arrays need ml_dtypes (pip install ml_dtypes)") from None
        return np.dtype(ml_dtypes.bfloat16)
    return np.dtype(name)


class _Torch:
    def __init__(self, torch):
        self.torch = torch
        self.dtypes = {
            "float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16,
            "uint8": torch.uint8, "int64": torch.int64,
        }
        self.names = {v: k for k, v in self.dtypes.items()}
        self.names[torch.uint64] = "uint64"
        raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
        self._raw_stream = raw if raw is not None else (lambda i: torch.cuda.current_stream(i).cuda_stream)

    def dtype_name(self, x):
        return self.names.get(x.dtype, str(x.dtype).replace("torch.", ""))

    @staticmethod
    def address(x):
        return x.data_ptr()

    @staticmethod
    def contiguous(x):
        return x.contiguous()

    @staticmethod
    def is_contiguous(x):
        return x.is_contiguous()

    def new(self, like, shape, dtype, zeroed):
        return (self.torch.zeros if zeroed else self.torch.empty)(shape, dtype=self.dtypes[dtype], device=like.device)

    def stream(self, x):
        return self._raw_stream(x.device.index) if x.is_cuda else 0

    def device(self, x):
        if not x.is_cuda or x.device.index == self.torch.cuda.current_device():
            return NULL_CONTEXT
        return self.torch.cuda.device(x.device.index)


class _Cupy(_Numpy):
    """CuPy arrays: NumPy's dtypes and flags, in device memory."""

    def __init__(self, cupy):
        self.cupy = cupy

    @staticmethod
    def address(x):
        return x.data.ptr

    def contiguous(self, x):
        return self.cupy.ascontiguousarray(x)

    def new(self, like, shape, dtype, zeroed):
        with like.device:
            return (self.cupy.zeros if zeroed else self.cupy.empty)(shape, dtype=dtype)

    def stream(self, x):
        with x.device:
            return self.cupy.cuda.get_current_stream().ptr

    @staticmethod
    def device(x):
        return x.device


_BY_TYPE = {np.ndarray: _Numpy()}


def framework(x):
    """The adapter of x's framework (cached per type)."""
    fw = _BY_TYPE.get(type(x))
    if fw is None:
        module = type(x).__module__.split(".")[0]
        if module == "torch" and is_torch(x):
            fw = _Torch(sys.modules["torch"])
        elif module == "cupy":
            fw = _Cupy(sys.modules["cupy"])
        else:
            return None
        _BY_TYPE[type(x)] = fw
    return fw


def is_torch(x):
    torch = sys.modules.get("torch")  # never imported here: lowp runs without torch
    return torch is not None and isinstance(x, torch.Tensor)


def coerce(x, name):
    """x as an array of a known framework: NumPy, PyTorch and CuPy arrays as they are, others
    through DLPack / __cuda_array_interface__ (CuPy) or __array__ / DLPack (NumPy)."""
    if framework(x) is not None:
        return x
    if hasattr(x, "__cuda_array_interface__") or _dlpack_on_cuda(x):
        try:
            import cupy
        except ImportError:
            raise TypeError(f"{name}: a CUDA array of {type(x).__name__} needs CuPy to be read "
                            "(pip install cupy), or pass a PyTorch or CuPy array") from None
        return cupy.asarray(x) if hasattr(x, "__cuda_array_interface__") else cupy.from_dlpack(x)
    if hasattr(x, "__dlpack__"):
        return np.from_dlpack(x)
    if hasattr(x, "__array__") or isinstance(x, (list, tuple)):
        return np.asarray(x)
    raise TypeError(f"{name}: expected an array (NumPy, PyTorch, CuPy, DLPack or __array__), "
                    f"got {type(x).__name__}")


def _dlpack_on_cuda(x):
    device = getattr(x, "__dlpack_device__", None)
    return device is not None and device()[0] in (2, 3, 13)  # kDLCUDA, kDLCUDAHost, kDLCUDAManaged


class Anchor:
    """The array whose framework, device and stream a call uses (its first array argument)."""

    __slots__ = ("array", "fw")

    def __init__(self, x, name):
        fw = framework(x)
        if fw is None:
            x = coerce(x, name)
            fw = framework(x)
        self.array, self.fw = x, fw

    def alloc(self, specs, zeroed=()):
        """New arrays for (shape, dtype) pairs (lowp/_shapes.py); those at the indexes in
        `zeroed` filled with 0 (buffers a call may write only in part)."""
        return tuple(self.fw.new(self.array, shape, dtype, i in zeroed) for i, (shape, dtype) in enumerate(specs))

    def stream(self):
        return self.fw.stream(self.array)

    def device(self):
        return self.fw.device(self.array)


class Input(Anchor):
    """A dense high-precision input: rows x cols (leading dims flattened), made contiguous."""

    __slots__ = ("shape", "rows", "cols", "dtype", "address")

    def __init__(self, x, name="x"):
        super().__init__(x, name)
        fw = self.fw
        if not fw.is_contiguous(self.array):
            self.array = fw.contiguous(self.array)
        shape = tuple(self.array.shape)
        if len(shape) == 0:
            raise ValueError(f"{name}: a 0-d array; lowp takes arrays of at least 1 dimension (rows x cols)")
        dtype_name = fw.dtype_name(self.array)
        dtype = INPUT_DTYPES.get(dtype_name)
        if dtype is None:
            raise ValueError(f"{name}: dtype {dtype_name} is not supported; lowp takes float32, float16 or "
                             "bfloat16 (NumPy: ml_dtypes.bfloat16)")
        self.shape, self.dtype = shape, dtype
        self.cols = shape[-1]
        self.rows = math.prod(shape[:-1])
        self.address = fw.address(self.array)

    def like(self, other, name):
        """Address of `other`, an input read with this one's dtype and shape (made contiguous)."""
        other = Anchor(other, name)
        a, fw = other.array, other.fw
        if fw.dtype_name(a) != self.fw.dtype_name(self.array) or tuple(a.shape) != self.shape:
            raise ValueError(f"{name}: is {fw.dtype_name(a)} {tuple(a.shape)}; must match "
                             f"{self.fw.dtype_name(self.array)} {self.shape}")
        if not fw.is_contiguous(a):
            a = fw.contiguous(a)
        return a, fw.address(a)


def address_of(x, name, dtype, *, numel=None, min_numel=None, writable=False):
    """Address of a caller's buffer after checking what the C API cannot: dtype, element count,
    contiguity. None -> 0 (NULL)."""
    if x is None:
        return 0
    fw = framework(x)
    if fw is None:
        raise TypeError(f"{name}: expected a NumPy, PyTorch or CuPy array, got {type(x).__name__}")
    allowed = dtype if isinstance(dtype, tuple) else (dtype,)
    got = fw.dtype_name(x)
    if got not in allowed:
        raise ValueError(f"{name}: dtype is {got}; expected {' or '.join(allowed)}")
    size = math.prod(x.shape)
    if numel is not None and size != numel:
        raise ValueError(f"{name}: holds {size} elements; expected {numel}")
    if min_numel is not None and size < min_numel:
        raise ValueError(f"{name}: holds {size} elements; expected at least {min_numel}")
    if not fw.is_contiguous(x):
        raise ValueError(f"{name}: must be contiguous" + (" (it is written in place)" if writable else ""))
    if writable and not getattr(getattr(x, "flags", None), "writeable", True):
        raise ValueError(f"{name}: is read-only; it is written in place")
    return fw.address(x)


def address(a):
    """Address of an array this package allocated."""
    return framework(a).address(a)
