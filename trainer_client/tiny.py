"""A tiny byte-level tokenizer and a random-weight Qwen2 model, built locally (nothing downloaded).

For CPU tests and smoke runs of the training path: the tokenizer is a real Hugging Face fast
tokenizer (byte-level BPE with no merges, ChatML special tokens, a Qwen-style chat template with
tools), the model a real ``Qwen2ForCausalLM`` with a few thousand parameters.
"""

from __future__ import annotations

from typing import Any

from trainer_client.chat import CHATML_TOOLS_TEMPLATE

SPECIAL_TOKENS = ("<|endoftext|>", "<|im_start|>", "<|im_end|>")


def byte_tokenizer() -> Any:
    """A ``PreTrainedTokenizerFast`` over the 256 bytes plus ChatML's special tokens (259 ids)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    alphabet = sorted(pre_tokenizers.ByteLevel.alphabet())
    vocab = {ch: i for i, ch in enumerate(alphabet)}
    for tok in SPECIAL_TOKENS:
        vocab[tok] = len(vocab)
    core = Tokenizer(models.BPE(vocab=vocab, merges=[]))
    core.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    core.decoder = decoders.ByteLevel()
    core.add_special_tokens(list(SPECIAL_TOKENS))
    fast = PreTrainedTokenizerFast(tokenizer_object=core, eos_token="<|im_end|>", pad_token="<|endoftext|>")
    fast.chat_template = CHATML_TOOLS_TEMPLATE
    return fast


def tiny_qwen2(vocab_size: int, *, hidden_size: int = 64, layers: int = 2, seed: int = 0) -> Any:
    """A random-weight ``Qwen2ForCausalLM`` (float32, eval-free: the caller sets train/eval)."""
    import torch
    from transformers import Qwen2Config, Qwen2ForCausalLM

    torch.manual_seed(seed)
    config = Qwen2Config(
        vocab_size=vocab_size,
        hidden_size=hidden_size,
        intermediate_size=hidden_size * 2,
        num_hidden_layers=layers,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=8192,
        tie_word_embeddings=True,
    )
    config._attn_implementation = "sdpa"
    return Qwen2ForCausalLM(config)
