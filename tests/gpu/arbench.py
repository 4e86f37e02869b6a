#!/usr/bin/env python3
"""arbench: the all-reduce bus bandwidth and latency between the GPUs of
this machine through PyTorch and NCCL, as nccl-tests measures them
(busbw = bytes / time x 2(n-1)/n), one process a GPU, for checking lp's
link probe:  torchrun --nproc-per-node N tests/gpu/arbench.py"""
import os
os.environ.setdefault("NCCL_NVLS_ENABLE", "0")
os.environ.setdefault("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1")
os.environ.setdefault("NVSHMEM_DISABLE_NVLS", "1")
import torch
import torch.distributed as dist

rank, n = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
torch.cuda.set_device(rank)
dev = torch.device("cuda", rank)
dist.init_process_group("nccl", device_id=dev)
for size in [8, 1024, 8192, 65536, 1 << 20, 16 << 20, 256 << 20, 1 << 30]:
    x = torch.ones(size // 2, device=dev, dtype=torch.bfloat16)
    for _ in range(5):
        dist.all_reduce(x)
    it = 50 if size <= 16 << 20 else 10
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda.synchronize(); dist.barrier()
    s.record()
    for _ in range(it):
        dist.all_reduce(x)
    e.record(); torch.cuda.synchronize()
    t = s.elapsed_time(e) / it / 1e3
    if rank == 0:
        print(f"arbench\tn={n}\tbytes={size}\tus={t * 1e6:.2f}\tbusbw_GBps={size / t * 2 * (n - 1) / n / 1e9:.1f}", flush=True)
dist.destroy_process_group()
