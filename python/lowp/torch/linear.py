"""lowp.torch.Linear: a drop-in torch.nn.Linear whose forward and backward GEMMs run lowp."""
from __future__ import annotations

import itertools
import warnings
from typing import Optional

import torch
import torch.nn.functional as F
from torch import nn
from torch.optim.optimizer import register_optimizer_step_post_hook

from .. import recipes
from ._function import LinearFunction, Spec
from ._roles import State, flatten, quantize

_SEEDS = itertools.count(0x5EED_0000)
# Optimizer steps taken in this process. A weight's version counter alone misses updates:
# fused optimizers (AdamW(fused=True)) write parameters without bumping it.
_OPTIMIZER_STEPS = [0]


def _count_optimizer_step(optimizer, args, kwargs):
    _OPTIMIZER_STEPS[0] += 1


register_optimizer_step_post_hook(_count_optimizer_step)
# Delayed scaling's buffers: float32 whatever the module's dtype (.to(bfloat16) keeps them).
_FP32_STATE = ("fp8_amax_history", "fp8_scale", "fp8_scale_inv")


class Linear(nn.Linear):
    """y = x W^T + b with x, W and dy quantized as ``recipe`` says and lowp's GEMMs for fprop,
    dgrad and wgrad. The constructor, parameters, ``reset_parameters`` and ``state_dict`` keys
    are nn.Linear's; delayed scaling adds its amax history and scales as buffers
    (``fp8_amax_history`` [3][L], ``fp8_scale`` [3], ``fp8_scale_inv`` [3]: x, W, dy), which a
    state_dict without them (an nn.Linear's) leaves at their initial values.

    recipe: a lowp.recipes recipe (default Fp8Current()); assign ``module.recipe`` to change it.
    fuse_wgrad_accumulation: wgrad is added in fp32 to ``weight.main_grad`` (which the caller
      allocates) and ``weight.grad`` stays None.
    seed: the stochastic-rounding seed (default: a per-process counter, so building modules
      draws nothing from torch's generators); the rng state {seed, offset} is a device buffer
      (``sr_rng_state``, not in state_dict) advanced on the device.

    The weight is quantized once per optimizer step: forward reuses the quantized weight while
    no torch.optim optimizer has stepped and the weight's version counter is unchanged
    (micro-batches), or as ``is_first_microbatch`` says (True: quantize now; False: reuse). The
    cache is eager-only: under torch.compile the weight is quantized on every call.

    Shapes lowp cannot quantize (in_features, out_features or the token count not a multiple of
    16, or no token) run in high precision (F.linear), with one warning per module.
    """

    def __init__(self, in_features: int, out_features: int, bias: bool = True, device=None, dtype=None, *,
                 recipe: Optional[recipes.Recipe] = None, fuse_wgrad_accumulation: bool = False,
                 seed: Optional[int] = None):
        super().__init__(in_features, out_features, bias, device, dtype)
        self.fuse_wgrad_accumulation = fuse_wgrad_accumulation
        self._seed = seed
        self.recipe = recipes.Fp8Current() if recipe is None else recipe

    @property
    def recipe(self) -> recipes.Recipe:
        return self._recipe

    @recipe.setter
    def recipe(self, recipe: recipes.Recipe) -> None:
        if not isinstance(recipe, recipes.Recipe):
            raise ValueError(f"recipe: expected a lowp.recipes recipe, got {type(recipe).__name__}")
        self._recipe = recipe
        self._weight_cache = None
        self._weight_amax = None
        self._warned = False
        self._init_state()

    def __setattr__(self, name, value):
        # FSDP2 assigns its unsharded weight at each unshard and refills it in place with the
        # version counter kept: the cache's key would not see the new values.
        if name == "weight":
            self.__dict__["_weight_cache"] = None
        super().__setattr__(name, value)

    def _init_state(self) -> None:
        device = self.weight.device
        for name in (*_FP32_STATE, "sr_rng_state"):
            self._buffers.pop(name, None)
        r = self._recipe
        if r.scaling == "fp8_delayed":
            self.register_buffer("fp8_amax_history", torch.zeros(3, r.amax_history_len, device=device))
            self.register_buffer("fp8_scale", torch.ones(3, device=device))
            self.register_buffer("fp8_scale_inv", torch.ones(3, device=device))
        if r.family == "nvfp4" and any(r.role(role).stochastic_rounding for role in ("input", "weight", "gradient")):
            if self._seed is None:
                self._seed = next(_SEEDS)
            seed = self._seed
            state = torch.tensor([seed, 0], dtype=torch.int64, device=device)
            self.register_buffer("sr_rng_state", state, persistent=False)

    def _state(self) -> State:
        get = self._buffers.get
        return State(get("fp8_amax_history"), get("fp8_scale"), get("fp8_scale_inv"), get("sr_rng_state"))

    def _apply(self, fn, recurse=True):
        # Keep delayed scaling's state in fp32: move it to the device fn gives, never cast it.
        kept = {name: self._buffers.pop(name) for name in _FP32_STATE if self._buffers.get(name) is not None}
        super()._apply(fn, recurse)
        for name, buf in kept.items():
            self._buffers[name] = buf.to(device=fn(torch.empty(0, device=buf.device)).device)
        self._weight_cache = None
        return self

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)
        # An nn.Linear's state_dict has no recipe state: the module keeps its own.
        for name in _FP32_STATE:
            if prefix + name in missing_keys:
                missing_keys.remove(prefix + name)
        self._weight_cache = None

    def _quantizable(self, x: torch.Tensor) -> bool:
        tokens = x.numel() // max(x.shape[-1], 1)
        ok = (self.in_features % 16 == 0 and self.out_features % 16 == 0 and tokens > 0 and tokens % 16 == 0
              and x.dtype in (torch.float32, torch.float16, torch.bfloat16))
        if not ok and not self._warned:
            self._warned = True
            warnings.warn(f"lowp.torch.Linear({self.in_features}, {self.out_features}): input {tuple(x.shape)} "
                          f"{x.dtype} runs in high precision (lowp needs in, out and tokens multiples of 16, and "
                          "a float32, float16 or bfloat16 input)", stacklevel=3)
        return ok

    def _quantized_weight(self, columnwise: bool, is_first_microbatch: Optional[bool]):
        """W quantized for fprop (rowwise) and, in training, dgrad (columnwise): from the cache
        while the weight is unchanged, else now; or as FSDP's quantized all-gather gave it."""
        w = self.weight
        gathered = getattr(w, "lowp_quantized", None)  # lowp/torch/_fsdp.py: codes, not a weight
        if gathered is not None:
            return gathered(columnwise)
        compiling = torch.compiler.is_compiling()
        key = None if compiling else weight_key(w)
        cache = self._weight_cache
        if not compiling and cache is not None and columnwise <= cache[1] and (
                is_first_microbatch is False or (is_first_microbatch is None and cache[0] == key)):
            return cache[2], cache[3]
        with torch.no_grad():
            q = quantize_weight(w, self._recipe, columnwise, self._state(), self._given_weight_amax(key))
        flat = flatten(q)
        if not compiling:
            self._weight_cache = (key, columnwise, *flat)
        return flat

    def _given_weight_amax(self, key) -> Optional[torch.Tensor]:
        """The weight's amax as lowp.torch.distributed.precompute_weight_amaxes reduced it, while
        the weight is the one it read (None: quantize reduces it itself)."""
        given = self._weight_amax
        return given[1] if given is not None and key is not None and given[0] == key else None

    def forward(self, x: torch.Tensor, is_first_microbatch: Optional[bool] = None) -> torch.Tensor:
        if not self._quantizable(x):
            return F.linear(x, self.weight, self.bias)
        grad = torch.is_grad_enabled()
        need_dgrad = grad and x.requires_grad
        need_wgrad = grad and self.weight.requires_grad
        w_tensors, w_meta = self._quantized_weight(need_dgrad, is_first_microbatch)
        spec = Spec(self._recipe, w_meta, need_dgrad, need_wgrad, self.fuse_wgrad_accumulation)
        return LinearFunction.apply(x, self.weight, self.bias, spec, *w_tensors, *self._state())

    def extra_repr(self) -> str:
        return f"{super().extra_repr()}, recipe={self._recipe.name}"


def quantize_weight(weight: torch.Tensor, recipe: recipes.Recipe, columnwise: bool, state: State,
                    amax: Optional[torch.Tensor] = None):
    """W (out x in) quantized for the weight role: the rowwise copy (fprop) and, when asked, the
    columnwise copy (dgrad); amax: its amax reduced across ranks beforehand. A module-level
    function so tests can count its calls."""
    return quantize(weight, recipe, "weight", True, columnwise, state, amax)


def weight_key(weight: torch.Tensor):
    """What identifies the weight's values between optimizer steps (the cache's key)."""
    return (_OPTIMIZER_STEPS[0], weight._version, weight.data_ptr(), weight.dtype, weight.device)
