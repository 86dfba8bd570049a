"""lowp for PyTorch training: ``Linear`` (a drop-in ``nn.Linear`` whose three GEMMs run lowp),
``convert`` / ``unconvert`` (swap a model's ``nn.Linear`` layers in place), and lowp's ops as
registered operators (``torch.ops.lowp.*``, lowp/_torch_ops.py).

    import lowp.torch, lowp.recipes
    lowp.torch.convert(model, lowp.recipes.Nvfp4PerTensor())

How to train with it: docs/training.md. With torch.distributed (amax reduction, FSDP2's
quantized all-gather): lowp.torch.distributed, docs/distributed.md.
"""
from .._torch_ops import SCHEMAS  # registers torch.ops.lowp before anything runs
from .convert import convert, unconvert
from .linear import Linear

__all__ = ["Linear", "convert", "unconvert", "SCHEMAS"]
