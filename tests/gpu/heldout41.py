#!/usr/bin/env python3
"""heldout41: a tensor-parallel Llama-shaped decoder under torchrun, one
process a GPU, that lp's code was not written against (issue 41's
acceptance): RMSNorm, grouped-query attention with a KV cache sharded by
heads, SwiGLU MLP, two NCCL all-reduces a layer (after the attention's
output projection and after the MLP's down projection), bf16.  It times
itself: the wall clock around its decode steps (after a synchronize and a
barrier), printed as own_decode_step_med_ms, outside any profiler.

  torchrun --nproc-per-node 4 tests/gpu/heldout41.py
"""
import argparse
import os
import sys
import time

os.environ.setdefault("NCCL_NVLS_ENABLE", "0")
os.environ.setdefault("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1")
os.environ.setdefault("NVSHMEM_DISABLE_NVLS", "1")

import torch
import torch.distributed as dist
import torch.nn.functional as F


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--layers", type=int, default=16)
    p.add_argument("--hidden", type=int, default=4096)
    p.add_argument("--heads", type=int, default=32)
    p.add_argument("--kv-heads", type=int, default=8)
    p.add_argument("--ffn", type=int, default=14336)
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--prompt", type=int, default=512)
    p.add_argument("--tokens", type=int, default=32)
    p.add_argument("--slow-rank", type=int, default=-1)
    p.add_argument("--slow-ms", type=float, default=0.0)
    a = p.parse_args()
    if "RANK" not in os.environ:
        sys.exit("heldout41: run me under torchrun")
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    local = int(os.environ.get("LOCAL_RANK", rank))
    torch.cuda.set_device(local)
    dev = torch.device("cuda", local)
    dist.init_process_group("nccl", device_id=dev)
    dt = torch.bfloat16
    d, hd = a.hidden, a.hidden // a.heads
    qh, kvh, f = a.heads // world, a.kv_heads // world, a.ffn // world
    torch.manual_seed(7 + rank)

    def w(*s):
        return torch.randn(*s, device=dev, dtype=dt) * s[0] ** -0.5

    L = [dict(n1=torch.ones(d, device=dev, dtype=dt), n2=torch.ones(d, device=dev, dtype=dt),
              qkv=w(d, (qh + 2 * kvh) * hd), o=w(qh * hd, d), gu=w(d, 2 * f), dn=w(f, d))
         for _ in range(a.layers)]
    T = a.prompt + a.tokens
    kc = [torch.zeros(a.batch, kvh, T, hd, device=dev, dtype=dt) for _ in L]
    vc = [torch.zeros(a.batch, kvh, T, hd, device=dev, dtype=dt) for _ in L]

    def rms(x, g):
        return x * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + 1e-5).to(dt) * g

    def layer(i, x, pos):
        l = L[i]
        b, s, _ = x.shape
        qkv = rms(x, l["n1"]) @ l["qkv"]
        q, k, v = qkv.split([qh * hd, kvh * hd, kvh * hd], -1)
        q = q.view(b, s, qh, hd).transpose(1, 2)
        kc[i][:, :, pos:pos + s] = k.view(b, s, kvh, hd).transpose(1, 2)
        vc[i][:, :, pos:pos + s] = v.view(b, s, kvh, hd).transpose(1, 2)
        kk, vv = kc[i][:, :, :pos + s], vc[i][:, :, :pos + s]
        att = F.scaled_dot_product_attention(q, kk, vv, is_causal=s > 1, enable_gqa=True)
        y = att.transpose(1, 2).reshape(b, s, qh * hd) @ l["o"]
        dist.all_reduce(y)
        x = x + y
        g, u = (rms(x, l["n2"]) @ l["gu"]).chunk(2, -1)
        y = (F.silu(g) * u) @ l["dn"]
        dist.all_reduce(y)
        return x + y

    def run(ranges, steps):
        push = torch.cuda.nvtx.range_push if ranges else (lambda n: None)
        pop = torch.cuda.nvtx.range_pop if ranges else (lambda: None)
        gen = torch.Generator(device="cpu").manual_seed(0)
        x = torch.randn(a.batch, a.prompt, d, generator=gen).to(dev, dt)
        push("LLM@prefill")
        for i in range(a.layers):
            x = layer(i, x, 0)
        h = x[:, -1:]
        torch.cuda.synchronize()
        pop()
        push("LLM@decode_all")
        for t in range(a.tokens):
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            push("LLM@decode_step")
            if rank == a.slow_rank and a.slow_ms > 0:
                time.sleep(a.slow_ms / 1e3)
            for i in range(a.layers):
                h = layer(i, h, a.prompt + t)
            float(h.float().norm().item())
            pop()
            steps.append(time.perf_counter() - t0)
        pop()

    with torch.inference_mode():
        run(False, [])
        torch.cuda.synchronize()
        dist.barrier()
        steps = []
        run(True, steps)
    steps.sort()
    med = steps[len(steps) // 2] * 1e3
    print(f"heldout41: rank={rank}/{world} layers={a.layers} batch={a.batch} prompt={a.prompt} "
          f"tokens={a.tokens} own_decode_step_med_ms={med:.3f}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
