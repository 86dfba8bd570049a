"""Recipes: what a model trains with. A recipe names one scaling (lowp's C enum: how a tensor is
quantized) and the knobs of each role of a linear layer: the input x, the weight W and the
output gradient dy. Recipes are frozen dataclasses, built with keywords only; every knob has a
default, and a bad knob raises ValueError naming the field when the recipe is built.

    import lowp.recipes, lowp.torch
    lowp.torch.convert(model, lowp.recipes.Nvfp4PerTensor())
    lowp.recipes.Fp8Delayed(amax_history_len=16)
    lowp.recipes.Nvfp4PerTensor(gradient=lowp.recipes.Nvfp4Role(rht=True))   # dy without SR
    lowp.recipes.Fp8Current(amax_reduction_group=torch.distributed.group.WORLD)

amax_reduction_group (the per-tensor recipes: Fp8Delayed, Fp8Current, Nvfp4PerTensor): a
torch.distributed ProcessGroup over which x, W and dy share one scale, the one a single process
would take on the concatenated data (docs/distributed.md). It is not part of a recipe's equality
or hash, so recipes that differ only in their group compare equal.

Which recipe of Transformer Engine or torchao each one equals: docs/training.md.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, ClassVar, Optional

_FP8_FORMATS = ("hybrid", "e4m3")
_AMAX_ALGOS = ("max", "most_recent")
_FOUR_OVER_SIX_ERRORS = ("mae", "mse")
_FOUR_OVER_SIX_SCALE_MAX = (448.0, 256.0)
# A process group is no knob of the numerics: recipes equal but for it compare and hash equal.
_GROUP = dict(default=None, compare=False, hash=False)
_PER_ROW_GROUP = ("per-row scalings take one amax per row, and a row (token) of a row-sharded "
                  "activation lies whole on one rank: there is nothing to reduce")


class _Knobs:
    """Keyword-only construction that names an unknown knob, then the class's own checks."""

    def __init__(self, **knobs):
        names = [f.name for f in dataclasses.fields(self)]
        if isinstance(self, Recipe) and "amax_reduction_group" not in names:
            # A per-row recipe: None is taken (generic callers pass it), a group refused.
            if knobs.pop("amax_reduction_group", None) is not None:
                self._fail("amax_reduction_group", _PER_ROW_GROUP)
        for name in knobs:
            if name not in names:
                raise ValueError(f"{type(self).__name__}: unknown knob {name!r}; it takes {', '.join(names)}")
        for f in dataclasses.fields(self):
            object.__setattr__(self, f.name, knobs.get(f.name, f.default))
        self._check()

    def _check(self):
        pass

    def replace(self, **changes):
        """A copy with some knobs changed (checked as at construction)."""
        return dataclasses.replace(self, **changes)

    def _fail(self, field, rule):
        raise ValueError(f"{type(self).__name__}.{field}: {rule}")

    def _bool(self, *fields):
        for name in fields:
            if not isinstance(getattr(self, name), bool):
                self._fail(name, f"must be True or False, got {getattr(self, name)!r}")

    def _group(self):
        group = self.amax_reduction_group
        if group is None:
            return
        try:
            from torch.distributed import ProcessGroup
        except ImportError:  # torch without distributed: no group can be valid
            ProcessGroup = ()
        if not isinstance(group, ProcessGroup):
            self._fail("amax_reduction_group", f"must be a torch.distributed ProcessGroup or None, got "
                                               f"{type(group).__name__}")

    def _one_of(self, field, choices):
        if getattr(self, field) not in choices:
            self._fail(field, f"{getattr(self, field)!r} is not one of {', '.join(map(repr, choices))}")


class Recipe(_Knobs):
    """Base of every recipe. ``scaling``: lowp's scaling of every role (the ``scaling=`` of
    lowp.quantize); ``family``: "fp8" or "nvfp4"."""

    scaling: ClassVar[str] = ""
    family: ClassVar[str] = ""
    name: ClassVar[str] = ""


@dataclass(frozen=True, init=False)
class _Fp8(Recipe):
    """fp8_format: "hybrid" (E4M3 for x and W, E5M2 for dy) or "e4m3".
    fast_accumulation_fprop / fast_accumulation_backward: cuBLASLt's FP8 fast accumulation
    (partial sums below fp32) in fprop / in dgrad and wgrad; on in fprop alone by default, as in
    Transformer Engine and torchao."""

    fp8_format: str = "hybrid"
    fast_accumulation_fprop: bool = True
    fast_accumulation_backward: bool = False
    family = "fp8"

    def dtype(self, role: str) -> str:
        """The FP8 format of a role: "hybrid" takes E5M2 for the gradient, E4M3 elsewhere."""
        return "e5m2" if self.fp8_format == "hybrid" and role == "gradient" else "e4m3"

    def _check(self):
        self._one_of("fp8_format", _FP8_FORMATS)
        self._bool("fast_accumulation_fprop", "fast_accumulation_backward")


@dataclass(frozen=True, init=False)
class Fp8Delayed(_Fp8):
    """FP8 per-tensor with delayed scaling: each role is cast with a scale computed from the
    amax history of earlier steps (amax_history_len steps, reduced by amax_compute_algo "max"
    or "most_recent", divided by 2^margin); this step's amax is folded in. The histories are
    module buffers."""

    amax_history_len: int = 1024
    amax_compute_algo: str = "max"
    margin: int = 0
    amax_reduction_group: Any = field(**_GROUP)
    scaling = "fp8_delayed"
    name = "fp8_delayed"

    def _check(self):
        super()._check()
        self._group()
        if not isinstance(self.amax_history_len, int) or self.amax_history_len < 1:
            self._fail("amax_history_len", f"must be an int >= 1, got {self.amax_history_len!r}")
        self._one_of("amax_compute_algo", _AMAX_ALGOS)
        if not isinstance(self.margin, int) or self.margin < 0:
            self._fail("margin", f"must be an int >= 0, got {self.margin!r}")


@dataclass(frozen=True, init=False)
class _Fp8FromAmax(_Fp8):
    """Scales from this step's amax: amax_epsilon floors it; power_of_two_scale rounds the scale
    down to 2^k."""

    amax_epsilon: float = 0.0
    power_of_two_scale: bool = False

    def _check(self):
        super()._check()
        if not isinstance(self.amax_epsilon, (int, float)) or not self.amax_epsilon >= 0.0:
            self._fail("amax_epsilon", f"must be a number >= 0, got {self.amax_epsilon!r}")
        self._bool("power_of_two_scale")


@dataclass(frozen=True, init=False)
class Fp8Current(_Fp8FromAmax):
    """FP8 per-tensor with current scaling: each tensor's own amax, then the cast (one scale per
    tensor)."""

    amax_reduction_group: Any = field(**_GROUP)
    scaling = "fp8_current"
    name = "fp8_current"

    def _check(self):
        super()._check()
        self._group()


@dataclass(frozen=True, init=False)
class Fp8PerToken(_Fp8FromAmax):
    """FP8 with one scale per row of each copy: per token for x and dy, per output channel for
    W; the columnwise copies get one scale per column. fp8_format "e4m3" by default."""

    fp8_format: str = "e4m3"
    scaling = "fp8_per_token"
    name = "fp8_per_token"


@dataclass(frozen=True, init=False)
class Nvfp4Role(_Knobs):
    """The NVFP4 knobs of one role (numerics §4-§5c):

    rht: a 16-point random Hadamard transform on the columnwise copy (the copy wgrad reads).
    stochastic_rounding: SR of the codes (the module keeps the rng state on the device).
    block_2d: one scale per 16x16 tile (weights; per-tensor only; not with rht).
    four_over_six: each block keeps its largest value on 4 or on 6, whichever errs less
      (per-tensor and row-scaled; not with rht or stochastic_rounding), measured by
      four_over_six_error ("mae" or "mse") against four_over_six_scale_max (448 or 256).
    amax_estimation: the columnwise copy's post-RHT amax estimated as the rowwise amax times
      amax_estimation_factor (None: 2.0 for inputs, 1.0 for gradients) instead of an exact
      pass (per-tensor, with rht).
    """

    rht: bool = False
    stochastic_rounding: bool = False
    block_2d: bool = False
    four_over_six: bool = False
    four_over_six_error: str = "mae"
    four_over_six_scale_max: float = 448.0
    amax_estimation: bool = False
    amax_estimation_factor: Optional[float] = None

    def _check(self):
        self._bool("rht", "stochastic_rounding", "block_2d", "four_over_six", "amax_estimation")
        self._one_of("four_over_six_error", _FOUR_OVER_SIX_ERRORS)
        self._one_of("four_over_six_scale_max", _FOUR_OVER_SIX_SCALE_MAX)
        if self.block_2d and self.rht:
            self._fail("block_2d", "16x16 tiles are not taken with rht")
        if self.four_over_six and (self.rht or self.stochastic_rounding):
            self._fail("four_over_six", "not with rht or stochastic_rounding")
        if self.amax_estimation and not self.rht:
            self._fail("amax_estimation", "estimates the post-RHT amax: it needs rht")
        factor = self.amax_estimation_factor
        if factor is not None:
            if not self.amax_estimation:
                self._fail("amax_estimation_factor", "given without amax_estimation")
            if not isinstance(factor, (int, float)) or not 0.0 < factor < float("inf"):
                self._fail("amax_estimation_factor", f"must be finite and > 0, got {factor!r}")


class _Nvfp4(Recipe):
    family = "nvfp4"
    _takes_block_2d: ClassVar[bool] = False
    _takes_four_over_six: ClassVar[bool] = False
    _takes_amax_estimation: ClassVar[bool] = False

    def role(self, role: str) -> Nvfp4Role:
        return getattr(self, role)

    def estimation_factor(self, role: str) -> float:
        """The post-RHT amax estimate's factor of a role: its knob, else lowp's role default
        (2.0 for the input, 1.0 for the gradient)."""
        factor = self.role(role).amax_estimation_factor
        if factor is not None:
            return factor
        from . import _lowp  # the role defaults are the C library's (lowp_quant_config_nvfp4)

        code = _lowp.ROLE_INPUT if role == "input" else _lowp.ROLE_GRADIENT
        return _lowp.QuantConfig(role=code).amax_estimation_factor

    def _check(self):
        for role in ("input", "weight", "gradient"):
            knobs = getattr(self, role)
            if not isinstance(knobs, Nvfp4Role):
                self._fail(role, f"must be an Nvfp4Role, got {type(knobs).__name__}")
            for knob, taken in (("block_2d", self._takes_block_2d), ("four_over_six", self._takes_four_over_six),
                                ("amax_estimation", self._takes_amax_estimation)):
                if getattr(knobs, knob) and not taken:
                    self._fail(f"{role}.{knob}", f"scaling {self.scaling!r} does not take it")
        # dgrad multiplies dy's rowwise copy by W's columnwise copy, wgrad the columnwise copies
        # of dy and x: a GEMM's two copies are both in the RHT domain or neither.
        if self.weight.rht:
            self._fail("weight.rht", "W's columnwise copy meets dy's rowwise copy in dgrad, which has no RHT")
        if self.input.rht != self.gradient.rht:
            self._fail("gradient.rht", f"must equal input.rht ({self.input.rht}): wgrad multiplies the "
                                       "columnwise copies of dy and x")
        mask = self.rht_sign_mask
        if mask is not None and (not isinstance(mask, int) or not 0 <= mask < 1 << 16):
            self._fail("rht_sign_mask", f"must be a 16-bit int, got {mask!r}")


@dataclass(frozen=True, init=False)
class Nvfp4PerTensor(_Nvfp4):
    """NVFP4 per-tensor (one outer amax per copy), Transformer Engine's NVFP4BlockScaling role
    defaults: x with RHT on its columnwise copy, W in 16x16 tiles, dy with RHT and stochastic
    rounding. rht_sign_mask: None for lowp's default (0xD7E8)."""

    input: Nvfp4Role = Nvfp4Role(rht=True)
    weight: Nvfp4Role = Nvfp4Role(block_2d=True)
    gradient: Nvfp4Role = Nvfp4Role(rht=True, stochastic_rounding=True)
    rht_sign_mask: Optional[int] = None
    amax_reduction_group: Any = field(**_GROUP)
    scaling = "nvfp4_per_tensor"
    name = "nvfp4_per_tensor"
    _takes_block_2d = True
    _takes_four_over_six = True
    _takes_amax_estimation = True

    def _check(self):
        super()._check()
        self._group()

    @classmethod
    def four_over_six(cls, error: str = "mae", scale_max: float = 448.0, **knobs) -> "Nvfp4PerTensor":
        """4over6 on x (1D blocks) and W (16x16 tiles), dy with stochastic rounding; no RHT
        (4over6 does not take it, and wgrad needs x and dy alike). knobs: the recipe's others
        (rht_sign_mask, amax_reduction_group)."""
        fos = dict(four_over_six=True, four_over_six_error=error, four_over_six_scale_max=scale_max)
        return cls(input=Nvfp4Role(**fos), weight=Nvfp4Role(block_2d=True, **fos),
                   gradient=Nvfp4Role(stochastic_rounding=True), **knobs)


@dataclass(frozen=True, init=False)
class _Nvfp4PerRow(_Nvfp4):
    """One outer amax per row of each copy; every knob opts in per role."""

    input: Nvfp4Role = Nvfp4Role()
    weight: Nvfp4Role = Nvfp4Role()
    gradient: Nvfp4Role = Nvfp4Role()
    rht_sign_mask: Optional[int] = None


@dataclass(frozen=True, init=False)
class Nvfp4PerToken(_Nvfp4PerRow):
    """NVFP4 per-token: one outer amax per row of each copy (per token, per output channel, and
    per column for the columnwise copies); RHT and stochastic rounding opt in per role."""

    scaling = "nvfp4_per_token"
    name = "nvfp4_per_token"


@dataclass(frozen=True, init=False)
class Nvfp4RowScaled(_Nvfp4PerRow):
    """NVFP4 row-scaled: per-token's amaxes with the per-tensor math row by row (numerics §5b);
    RHT, stochastic rounding and 4over6 opt in per role."""

    scaling = "nvfp4_row_scaled"
    name = "nvfp4_row_scaled"
    _takes_four_over_six = True


_BY_NAME = {cls.name: cls for cls in (Fp8Delayed, Fp8Current, Fp8PerToken, Nvfp4PerTensor, Nvfp4PerToken,
                                      Nvfp4RowScaled)}
NAMES = tuple(_BY_NAME) + ("nvfp4_four_over_six",)


def by_name(name: str, **knobs) -> Recipe:
    """The recipe of a name in NAMES with its defaults (knobs override them):
    "nvfp4_four_over_six" is Nvfp4PerTensor.four_over_six()."""
    if name == "nvfp4_four_over_six":
        return Nvfp4PerTensor.four_over_six(**knobs)
    cls = _BY_NAME.get(name)
    if cls is None:
        raise ValueError(f"recipe: {name!r} is not one of {', '.join(map(repr, NAMES))}")
    return cls(**knobs)


__all__ = ["Recipe", "Fp8Delayed", "Fp8Current", "Fp8PerToken", "Nvfp4Role", "Nvfp4PerTensor", "Nvfp4PerToken",
           "Nvfp4RowScaled", "NAMES", "by_name"]
