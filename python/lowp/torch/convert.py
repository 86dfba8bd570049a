"""Swapping a model's nn.Linear layers for lowp.torch.Linear and back, in place."""
from __future__ import annotations

from typing import Callable, Optional, Union

from torch import nn

from .. import recipes
from .linear import Linear

RecipeChoice = Union[recipes.Recipe, Callable[[str, nn.Linear], Optional[recipes.Recipe]]]


def _swap(model: nn.Module, pick: Callable[[str, nn.Module], Optional[nn.Module]]) -> nn.Module:
    """Replaces each child c (at qualified name n) for which pick(n, c) gives a module."""
    if (new := pick("", model)) is not None:
        return new
    for parent_name, parent in list(model.named_modules()):
        for name, child in list(parent.named_children()):
            full = f"{parent_name}.{name}" if parent_name else name
            new = pick(full, child)
            if new is not None:
                setattr(parent, name, new)
    return model


def _moved(old: nn.Linear, new: nn.Linear) -> nn.Linear:
    """new takes old's parameters (the same Parameter objects: an optimizer built on them still
    holds them), mode and hooks-free identity."""
    new.weight = old.weight
    new.bias = old.bias
    new.train(old.training)
    return new


def convert(model: nn.Module, recipe: RecipeChoice,
            module_filter_fn: Optional[Callable[[str, nn.Module], bool]] = None, *,
            fuse_wgrad_accumulation: bool = False) -> nn.Module:
    """Swaps every torch.nn.Linear of model (model itself included) for lowp.torch.Linear in
    place, keeping its parameters (not copied), and returns model (or the new module when model
    is itself an nn.Linear).

    recipe: a lowp.recipes recipe, or fn(name, module) -> recipe or None (None: keep that layer
      in high precision), to pick a recipe per layer.
    module_filter_fn(name, module) -> bool: False keeps the layer as it is. The NVFP4 training
      recipe keeps the last layers in high precision, e.g.
      ``module_filter_fn=lambda name, mod: name != "lm_head"``.
    Layers already converted get the new recipe. Forward hooks and pre-hooks registered on an
    nn.Linear do not move to its replacement. lowp.torch.unconvert reverses this.
    """
    if isinstance(recipe, recipes.Recipe):
        fixed = recipe
        recipe = lambda name, module: fixed  # noqa: E731
    elif not callable(recipe):
        raise ValueError(f"recipe: expected a lowp.recipes recipe or a function, got {type(recipe).__name__}")

    def pick(name, module):
        if not isinstance(module, nn.Linear):
            return None
        if module_filter_fn is not None and not module_filter_fn(name, module):
            return None
        chosen = recipe(name, module)
        if chosen is None:
            return None
        if isinstance(module, Linear):
            module.recipe = chosen
            return None
        if type(module) is not nn.Linear:
            return None  # a subclass of nn.Linear with behaviour of its own: left alone
        new = Linear(module.in_features, module.out_features, module.bias is not None, device="meta",
                     dtype=module.weight.dtype, recipe=chosen, fuse_wgrad_accumulation=fuse_wgrad_accumulation)
        _moved(module, new)
        new.recipe = chosen  # the recipe state on the parameters' device
        return new

    return _swap(model, pick)


def unconvert(model: nn.Module) -> nn.Module:
    """Swaps every lowp.torch.Linear of model back for a torch.nn.Linear with the same
    parameters (for export); recipe state is dropped. Returns model (or the new module)."""

    def pick(name, module):
        if not isinstance(module, Linear):
            return None
        new = nn.Linear(module.in_features, module.out_features, module.bias is not None, device="meta",
                        dtype=module.weight.dtype)
        return _moved(module, new)

    return _swap(model, pick)
