"""The few pieces of flash-attn that OpenRLHF 0.11.2 imports at module level, in plain PyTorch.

``openrlhf/models/ring_attn_utils.py`` (imported by the actor, the critic and the DeepSpeed strategy) starts
with ``from flash_attn.bert_padding import index_first_axis, pad_input, rearrange, unpad_input`` and ``from
flash_attn.utils.distributed import all_gather``, so without flash-attn no training process starts, although
attention itself runs through PyTorch's SDPA (``--ds.attn_implementation sdpa``). flash-attn 2.8.3 is a source
package on the registry whose build takes hours of nvcc. ``openrlhf_run`` serves these functions under those
module names only when flash-attn is not installed (``trainer_client.openrlhf_run``): a real flash-attn is always used
when present. The stand-in has no
package metadata, so transformers (which checks the ``flash-attn`` distribution) never takes it for flash-attn,
and ``flash_attn.ops`` is absent, so OpenRLHF's optional Triton cross-entropy falls back to its PyTorch path.

Packed samples (``--ds.packing_samples``) and ring attention need the real kernels; everything else runs.
"""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F


def rearrange(tensor: Any, pattern: str, **axes: Any) -> Any:
    """einops' ``rearrange`` (flash-attn re-exports it); einops comes with OpenRLHF."""
    from einops import rearrange as einops_rearrange

    return einops_rearrange(tensor, pattern, **axes)


class IndexFirstAxis(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, values: torch.Tensor, indices: torch.Tensor) -> torch.Tensor:  # type: ignore[override]
        ctx.save_for_backward(indices)
        ctx.first_axis_dim, other_shape = values.shape[0], values.shape[1:]
        flat = values.reshape(values.shape[0], -1)
        picked = torch.gather(flat, 0, indices.unsqueeze(-1).expand(-1, flat.shape[1]))
        return picked.reshape(-1, *other_shape)

    @staticmethod
    def backward(ctx: Any, grad_output: torch.Tensor) -> tuple[torch.Tensor, None]:  # type: ignore[override]
        (indices,) = ctx.saved_tensors
        other_shape = grad_output.shape[1:]
        flat = grad_output.reshape(grad_output.shape[0], -1)
        grad = torch.zeros((ctx.first_axis_dim, flat.shape[1]), device=flat.device, dtype=flat.dtype)
        grad.scatter_(0, indices.unsqueeze(-1).expand(-1, flat.shape[1]), flat)
        return grad.reshape(ctx.first_axis_dim, *other_shape), None


class IndexPutFirstAxis(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, values: torch.Tensor, indices: torch.Tensor, first_axis_dim: int) -> torch.Tensor:  # type: ignore[override]
        ctx.save_for_backward(indices)
        out = torch.zeros((first_axis_dim, *values.shape[1:]), device=values.device, dtype=values.dtype)
        out[indices] = values
        return out

    @staticmethod
    def backward(ctx: Any, grad_output: torch.Tensor) -> tuple[torch.Tensor, None, None]:  # type: ignore[override]
        (indices,) = ctx.saved_tensors
        return grad_output[indices], None, None


index_first_axis = IndexFirstAxis.apply
index_put_first_axis = IndexPutFirstAxis.apply


def unpad_input(
    hidden_states: torch.Tensor, attention_mask: torch.Tensor, unused_mask: torch.Tensor | None = None
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, int, torch.Tensor]:
    """(tokens of every sequence back to back, their flat indices, cumulative lengths, the longest length,
    the used lengths), as flash-attn 2.8's ``bert_padding.unpad_input``."""
    masks = attention_mask + unused_mask if unused_mask is not None else attention_mask
    seqlens = masks.sum(dim=-1, dtype=torch.int32)
    used = attention_mask.sum(dim=-1, dtype=torch.int32)
    indices = torch.nonzero(masks.flatten(), as_tuple=False).flatten()
    cu_seqlens = F.pad(torch.cumsum(seqlens, dim=0, dtype=torch.int32), (1, 0))
    flat = hidden_states.reshape(hidden_states.shape[0] * hidden_states.shape[1], *hidden_states.shape[2:])
    return index_first_axis(flat, indices), indices, cu_seqlens, int(seqlens.max().item()), used


def pad_input(hidden_states: torch.Tensor, indices: torch.Tensor, batch: int, seqlen: int) -> torch.Tensor:
    """The inverse of ``unpad_input``: (batch, seqlen, ...) with zeros where there was padding."""
    out = index_put_first_axis(hidden_states, indices, batch * seqlen)
    return out.reshape(batch, seqlen, *out.shape[1:])


class AllGather(torch.autograd.Function):
    """Gather along the first axis over a process group; the gradient is reduce-scattered back."""

    @staticmethod
    def forward(ctx: Any, tensor: torch.Tensor, group: Any) -> torch.Tensor:  # type: ignore[override]
        import torch.distributed as dist

        ctx.group = group
        size = dist.get_world_size(group)
        out = torch.empty((size * tensor.shape[0], *tensor.shape[1:]), dtype=tensor.dtype, device=tensor.device)
        dist.all_gather_into_tensor(out, tensor.contiguous(), group=group)
        return out

    @staticmethod
    def backward(ctx: Any, grad_output: torch.Tensor) -> tuple[torch.Tensor, None]:  # type: ignore[override]
        import torch.distributed as dist

        size = dist.get_world_size(ctx.group)
        grad = torch.empty(
            (grad_output.shape[0] // size, *grad_output.shape[1:]), dtype=grad_output.dtype, device=grad_output.device
        )
        dist.reduce_scatter_tensor(grad, grad_output.contiguous(), group=ctx.group)
        return grad, None


all_gather = AllGather.apply


BERT_PADDING = ("index_first_axis", "index_put_first_axis", "pad_input", "unpad_input", "rearrange")
