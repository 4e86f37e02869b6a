#!/usr/bin/env python3
"""torch_decoder: a small GPT-style decoder in eager PyTorch (fp16), the
second test workload of lp.

Stages are NVTX ranges in the default domain, pushed the way PyTorch code
usually does it: torch.cuda.nvtx.range_push("LLM@prefill"), "LLM@decode_all"
and one "LLM@decode_step" per generated token.  Nsight Systems shows them as
":LLM@prefill"; Nsight Compute needs the '@' escaped ("LLM\\@prefill/").

A warm-up generation runs first, outside every range, so that library
initialisation and autotuning stay out of the measured stages.  Weights are
random; the kernel mix and launch pattern are those of a real eager decoder.
"""
import argparse
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, d, heads, ctx):
        super().__init__()
        self.heads, self.hd = heads, d // heads
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.fc1, self.fc2 = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)
        self.ctx = ctx

    def forward(self, x, kc, vc, pos):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
        q, k, v = (z.view(b, t, self.heads, self.hd).transpose(1, 2) for z in (q, k, v))
        kc[:, :, pos:pos + t] = k
        vc[:, :, pos:pos + t] = v
        keys, vals = kc[:, :, :pos + t], vc[:, :, :pos + t]
        a = F.scaled_dot_product_attention(q, keys, vals, is_causal=(t > 1))
        x = x + self.proj(a.transpose(1, 2).reshape(b, t, d))
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x)), approximate="tanh"))


class Decoder(nn.Module):
    def __init__(self, layers, d, heads, vocab, ctx):
        super().__init__()
        self.emb, self.pos = nn.Embedding(vocab, d), nn.Embedding(ctx, d)
        self.blocks = nn.ModuleList(Block(d, heads, ctx) for _ in range(layers))
        self.lnf, self.head = nn.LayerNorm(d), nn.Linear(d, vocab, bias=False)

    def forward(self, ids, caches, pos):
        t = ids.shape[1]
        x = self.emb(ids) + self.pos(torch.arange(pos, pos + t, device=ids.device))
        for blk, (kc, vc) in zip(self.blocks, caches):
            x = blk(x, kc, vc, pos)
        return self.head(self.lnf(x[:, -1]))


def generate(model, args, caches, ranges):
    def push(name):
        if ranges:
            torch.cuda.nvtx.range_push(name)

    def pop():
        if ranges:
            torch.cuda.nvtx.range_pop()

    g = torch.Generator(device="cpu").manual_seed(0)
    ids = torch.randint(0, args.vocab, (args.batch, args.prompt), generator=g).cuda()
    push("LLM@prefill")
    logits = model(ids, caches, 0)
    tok = logits.argmax(-1, keepdim=True)
    torch.cuda.synchronize()
    pop()
    out = []
    push("LLM@decode_all")
    for s in range(args.tokens):
        push("LLM@decode_step")
        logits = model(tok, caches, args.prompt + s)
        tok = logits.argmax(-1, keepdim=True)
        out.append(int(tok[0, 0].item()))
        pop()
    pop()
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--layers", type=int, default=6)
    p.add_argument("--hidden", type=int, default=768)
    p.add_argument("--heads", type=int, default=12)
    p.add_argument("--vocab", type=int, default=32000)
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--prompt", type=int, default=128)
    p.add_argument("--tokens", type=int, default=32)
    p.add_argument("--warmup", type=int, default=1)
    p.add_argument("--fail", type=int, default=0,
                   help="exit with this code after decoding (tests lp's error path)")
    args = p.parse_args()
    if not torch.cuda.is_available():
        sys.exit("torch_decoder: no CUDA device")
    torch.manual_seed(0)
    ctx = args.prompt + args.tokens
    model = Decoder(args.layers, args.hidden, args.heads, args.vocab, ctx).cuda().half().eval()
    hd = args.hidden // args.heads
    caches = [(torch.zeros(args.batch, args.heads, ctx, hd, device="cuda", dtype=torch.half),
               torch.zeros(args.batch, args.heads, ctx, hd, device="cuda", dtype=torch.half))
              for _ in range(args.layers)]
    with torch.inference_mode():
        for _ in range(args.warmup):
            generate(model, args, caches, ranges=False)
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        out = generate(model, args, caches, ranges=True)
        dt = time.perf_counter() - t0
    nparams = sum(q.numel() for q in model.parameters())
    print(f"torch_decoder: layers={args.layers} hidden={args.hidden} heads={args.heads} "
          f"vocab={args.vocab} params={nparams} prompt={args.prompt} tokens={args.tokens} "
          f"time={dt * 1e3:.1f}ms last_token={out[-1]}")
    if args.fail:
        print(f"torch_decoder: failing on purpose with exit code {args.fail}", file=sys.stderr)
        sys.exit(args.fail)


if __name__ == "__main__":
    main()
