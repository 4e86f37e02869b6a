#!/usr/bin/env python3
"""hf_llama: a Llama-shaped decoder from Hugging Face transformers (random
weights from a TinyLlama-1.1B-like LlamaConfig, nothing downloaded)
generating greedily with a KV cache, in bf16.

It stands for "a real bf16 LLM served eagerly": grouped-query attention
(32 query heads, 4 KV heads), RMSNorm, SwiGLU MLP, rotary embeddings,
a 32000-token vocabulary.  lp only relies on its NVTX ranges, the same
default-domain names as torch_decoder and hf_gpt2 ("LLM@prefill",
"LLM@decode_all", one "LLM@decode_step" per generated token).

By default nothing runs before the ranged generation (--warmup 0), as in
a first request: the prefill and the first decode step carry the lazy
CUDA module loading and cuBLAS initialisation, the later steps are the
steady state.  --warmup N runs N unranged generations first.
"""
import argparse
import sys
import time

import torch
from transformers import LlamaConfig, LlamaForCausalLM


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--layers", type=int, default=22)
    p.add_argument("--hidden", type=int, default=2048)
    p.add_argument("--intermediate", type=int, default=5632)
    p.add_argument("--heads", type=int, default=32)
    p.add_argument("--kv-heads", type=int, default=4)
    p.add_argument("--vocab", type=int, default=32000)
    p.add_argument("--batch", type=int, default=4)
    p.add_argument("--prompt", type=int, default=256)
    p.add_argument("--tokens", type=int, default=16)
    p.add_argument("--warmup", type=int, default=0)
    args = p.parse_args()
    if not torch.cuda.is_available():
        sys.exit("hf_llama: no CUDA device")
    torch.manual_seed(0)
    cfg = LlamaConfig(vocab_size=args.vocab, hidden_size=args.hidden,
                      intermediate_size=args.intermediate,
                      num_hidden_layers=args.layers,
                      num_attention_heads=args.heads,
                      num_key_value_heads=args.kv_heads,
                      max_position_embeddings=2048, rms_norm_eps=1e-5,
                      tie_word_embeddings=False)
    # Initialised on the GPU (fast), then cast: as a checkpoint loaded in bf16.
    with torch.device("cuda"):
        model = LlamaForCausalLM(cfg)
    model = model.to(torch.bfloat16).eval()
    ids = torch.randint(0, args.vocab, (args.batch, args.prompt), device="cuda")

    def run(ranges):
        push = torch.cuda.nvtx.range_push if ranges else (lambda name: None)
        pop = torch.cuda.nvtx.range_pop if ranges else (lambda: None)
        push("LLM@prefill")
        out = model(input_ids=ids, use_cache=True)
        past, tok = out.past_key_values, out.logits[:, -1].argmax(-1, keepdim=True)
        torch.cuda.synchronize()
        pop()
        last = -1
        push("LLM@decode_all")
        for _ in range(args.tokens):
            push("LLM@decode_step")
            out = model(input_ids=tok, past_key_values=past, use_cache=True)
            past, tok = out.past_key_values, out.logits[:, -1].argmax(-1, keepdim=True)
            last = int(tok[0, 0].item())
            pop()
        pop()
        return last

    with torch.inference_mode():
        for _ in range(args.warmup):
            run(False)
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        last = run(True)
        dt = time.perf_counter() - t0
    n = sum(q.numel() for q in model.parameters())
    print(f"hf_llama: layers={args.layers} hidden={args.hidden} "
          f"heads={args.heads}/{args.kv_heads} vocab={args.vocab} params={n} "
          f"batch={args.batch} prompt={args.prompt} tokens={args.tokens} "
          f"warmup={args.warmup} time={dt * 1e3:.1f}ms last_token={last}")


if __name__ == "__main__":
    main()
