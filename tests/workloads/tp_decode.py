#!/usr/bin/env python3
"""tp_decode: a tensor-parallel MLP decoder under torchrun, one process per
GPU, the multi-GPU test workload of lp.

Each layer is a Megatron-style MLP split over the ranks: fc1 by columns,
fc2 by rows, then an NCCL all-reduce of the layer's output.  Stages are the
same default-domain NVTX ranges as torch_decoder ("LLM@prefill",
"LLM@decode_all", one "LLM@decode_step" per token), pushed on every rank.

--straggle-rank R makes rank R slow on purpose, to test that lp names it:
--straggle-ms sleeps that long on its host before each decode step, and
--straggle-matmuls runs that many extra hidden x hidden matrix products on
its GPU in each step.  --overlap-matmuls K starts each all-reduce
asynchronously and runs K hidden x hidden products beside it, so that
communication overlaps compute (lp's overlap.tsv measures how much).

  torchrun --nproc-per-node 2 tests/workloads/tp_decode.py
"""
import argparse
import os
import sys
import time

# NVLink multicast stays off (see the device notes): a program that uses it
# can take a shared host's GPUs out of service.
os.environ.setdefault("NCCL_NVLS_ENABLE", "0")
os.environ.setdefault("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1")
os.environ.setdefault("NVSHMEM_DISABLE_NVLS", "1")

import torch
import torch.distributed as dist
import torch.nn.functional as F


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--hidden", type=int, default=4096)
    p.add_argument("--ffn", type=int, default=16384)
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--prompt", type=int, default=64)
    p.add_argument("--tokens", type=int, default=16)
    p.add_argument("--warmup", type=int, default=1)
    p.add_argument("--straggle-rank", type=int, default=-1)
    p.add_argument("--straggle-ms", type=float, default=0.0)
    p.add_argument("--straggle-matmuls", type=int, default=0)
    p.add_argument("--overlap-matmuls", type=int, default=0)
    args = p.parse_args()
    if "RANK" not in os.environ:
        sys.exit("tp_decode: run me under torchrun (RANK is not set)")
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    local = int(os.environ.get("LOCAL_RANK", rank))
    torch.cuda.set_device(local)
    dev = torch.device("cuda", local)
    dist.init_process_group("nccl", device_id=dev)
    if args.ffn % world:
        sys.exit("tp_decode: --ffn must divide by the number of ranks")
    torch.manual_seed(1234 + rank)
    d, f = args.hidden, args.ffn // world
    w1 = [torch.randn(d, f, device=dev, dtype=torch.half) * d ** -0.5 for _ in range(args.layers)]
    w2 = [torch.randn(f, d, device=dev, dtype=torch.half) * f ** -0.5 for _ in range(args.layers)]
    extra = torch.randn(d, d, device=dev, dtype=torch.half) * d ** -0.5
    slow = rank == args.straggle_rank

    def forward(x):
        for a, b in zip(w1, w2):
            y = F.gelu(x @ a, approximate="tanh") @ b
            if args.overlap_matmuls:
                work = dist.all_reduce(y, async_op=True)
                z = x[..., :d].reshape(-1, d)
                for _ in range(args.overlap_matmuls):
                    z = z @ extra
                work.wait()
                x = x + y + 0 * z.reshape(x.shape)
            else:
                dist.all_reduce(y)
                x = x + y
        return x

    def generate(ranges):
        push = torch.cuda.nvtx.range_push if ranges else (lambda name: None)
        pop = torch.cuda.nvtx.range_pop if ranges else (lambda: None)
        g = torch.Generator(device="cpu").manual_seed(0)
        x = torch.randn(args.batch, args.prompt, d, generator=g).to(dev, torch.half)
        push("LLM@prefill")
        h = forward(x)[:, -1:]
        torch.cuda.synchronize()
        pop()
        push("LLM@decode_all")
        for _ in range(args.tokens):
            push("LLM@decode_step")
            if slow and args.straggle_ms > 0:
                time.sleep(args.straggle_ms / 1e3)
            h = forward(h)
            if slow:
                z = h[:, 0]
                for _ in range(args.straggle_matmuls):
                    z = z @ extra
                h = h + 0 * z[:, None]
            float(h.float().norm().item())
            pop()
        pop()

    with torch.inference_mode():
        for _ in range(args.warmup):
            generate(False)
        torch.cuda.synchronize()
        dist.barrier()
        t0 = time.perf_counter()
        generate(True)
        dt = time.perf_counter() - t0
    print(f"tp_decode: rank={rank}/{world} layers={args.layers} hidden={d} ffn={args.ffn} "
          f"prompt={args.prompt} tokens={args.tokens} straggler={args.straggle_rank} "
          f"time={dt * 1e3:.1f}ms", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
