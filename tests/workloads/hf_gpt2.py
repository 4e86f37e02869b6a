#!/usr/bin/env python3
"""hf_gpt2: Hugging Face transformers' GPT-2 (random weights from a config,
nothing downloaded) generating greedily with a KV cache, in fp16.

It stands for "a PyTorch LLM that lp's developers never tuned for": lp only
relies on its NVTX ranges, the same default-domain names as torch_decoder
("LLM@prefill", "LLM@decode_all", "LLM@decode_step").
"""
import argparse
import sys

import torch
from transformers import GPT2Config, GPT2LMHeadModel


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--layers", type=int, default=12)
    p.add_argument("--hidden", type=int, default=768)
    p.add_argument("--heads", type=int, default=12)
    p.add_argument("--prompt", type=int, default=64)
    p.add_argument("--tokens", type=int, default=16)
    args = p.parse_args()
    if not torch.cuda.is_available():
        sys.exit("hf_gpt2: no CUDA device")
    torch.manual_seed(0)
    cfg = GPT2Config(n_layer=args.layers, n_embd=args.hidden, n_head=args.heads,
                     n_positions=args.prompt + args.tokens + 8)
    model = GPT2LMHeadModel(cfg).cuda().half().eval()
    ids = torch.randint(0, cfg.vocab_size, (1, args.prompt), device="cuda")

    def run(ranges):
        push = torch.cuda.nvtx.range_push if ranges else (lambda name: None)
        pop = torch.cuda.nvtx.range_pop if ranges else (lambda: None)
        push("LLM@prefill")
        out = model(input_ids=ids, use_cache=True)
        past, tok = out.past_key_values, out.logits[:, -1].argmax(-1, keepdim=True)
        torch.cuda.synchronize()
        pop()
        push("LLM@decode_all")
        for _ in range(args.tokens):
            push("LLM@decode_step")
            out = model(input_ids=tok, past_key_values=past, use_cache=True)
            past, tok = out.past_key_values, out.logits[:, -1].argmax(-1, keepdim=True)
            int(tok[0, 0].item())
            pop()
        pop()

    with torch.inference_mode():
        run(False)
        run(True)
    n = sum(q.numel() for q in model.parameters())
    print(f"hf_gpt2: layers={args.layers} hidden={args.hidden} params={n} "
          f"prompt={args.prompt} tokens={args.tokens}")


if __name__ == "__main__":
    main()
