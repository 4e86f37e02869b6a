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

--mode picks how decode runs, as inference code ships it:
  eager       every kernel launched from Python (the default);
  graph       one torch.cuda.CUDAGraph per decode step, captured after the
              warm-up (outside every range) and replayed inside
              LLM@decode_step; the token goes to the host every step;
  compile     torch.compile(model) (Inductor's Triton kernels);
  compile-ro  torch.compile(model, mode="reduce-overhead") (Inductor's
              kernels replayed from CUDA graphs: give --warmup 2, since
              its CUDA graphs record a shape on its second call);
  spawn       the model in a child process (multiprocessing "spawn"), as an
              engine core runs it; --ranges-in parent pushes the stage
              ranges in the parent instead (a front end that annotates
              requests while another process launches the kernels);
  fork        the same with multiprocessing "fork" (no exec: the child
              touches CUDA first), as engines that fork their core do.
--child-mode picks how the child decodes (spawn and fork).

--profiler-api decode opens a capture window around the decode with the
CUDA profiler API (torch.cuda.profiler.start/stop: cudaProfilerStart and
cudaProfilerStop), after a synchronisation, as engines' profiling
endpoints do; --ranges none pushes no NVTX range at all (an engine with
no annotations: the window is all that marks the decode).
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


class WithCache(nn.Module):
    """The decoder with its KV caches as buffers: static addresses, so that
    torch.compile's CUDA graphs (reduce-overhead) may write them."""

    def __init__(self, dec, caches):
        super().__init__()
        self.dec, self.n = dec, len(caches)
        for i, (kc, vc) in enumerate(caches):
            self.register_buffer(f"k{i}", kc)
            self.register_buffer(f"v{i}", vc)

    def forward(self, ids, pos):
        caches = [(getattr(self, f"k{i}"), getattr(self, f"v{i}")) for i in range(self.n)]
        return self.dec(ids, caches, pos)


def nvtx(ranges):
    if ranges:
        return torch.cuda.nvtx.range_push, torch.cuda.nvtx.range_pop
    return (lambda name: None), (lambda: None)


# The last generation's decode steps, each timed by the workload's own
# clock (the token's copy to the host ends a step, so no extra sync).
STEPS = []


def generate(model, args, ranges, graphs=None, tok_buf=None, window=False):
    """One generation.  ranges: (push, pop), or a bool for NVTX or none.
    graphs: a CUDA graph per decode step, each reading and writing
    tok_buf.  window: the measured generation, whose decode
    --profiler-api decode brackets."""
    push, pop = ranges if isinstance(ranges, tuple) else nvtx(ranges)
    g = torch.Generator(device="cpu").manual_seed(0)
    ids = torch.randint(0, args.vocab, (args.batch, args.prompt), generator=g).cuda()
    push("LLM@prefill")
    logits = model(ids, 0)
    tok = logits.argmax(-1, keepdim=True)
    torch.cuda.synchronize()
    pop()
    out = []
    if window and args.profiler_api == "decode":
        torch.cuda.synchronize()
        torch.cuda.profiler.start()
    push("LLM@decode_all")
    if graphs is not None:
        tok_buf.copy_(tok)
    STEPS.clear()
    for s in range(args.tokens):
        t0 = time.perf_counter()
        push("LLM@decode_step")
        if graphs is not None:
            graphs[s].replay()
            tok = tok_buf
        else:
            logits = model(tok, args.prompt + s)
            tok = logits.argmax(-1, keepdim=True)
        out.append(int(tok[0, 0].item()))
        pop()
        STEPS.append(time.perf_counter() - t0)
    pop()
    if window and args.profiler_api == "decode":
        torch.cuda.synchronize()
        torch.cuda.profiler.stop()
    return out


def capture_graphs(model, args):
    """A CUDA graph per decode step (its position is baked in), all in one
    memory pool; each reads the token from tok_buf and writes the next one
    back into it, so a step is one replay and one copy to the host."""
    tok_buf = torch.zeros(args.batch, 1, dtype=torch.long, device="cuda")
    graphs, pool = [], None
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):  # the side-stream warm-up capture asks for
        model(tok_buf, args.prompt)
    torch.cuda.current_stream().wait_stream(s)
    for step in range(args.tokens):
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g, pool=pool):
            logits = model(tok_buf, args.prompt + step)
            tok_buf.copy_(logits.argmax(-1, keepdim=True))
        pool = g.pool()
        graphs.append(g)
    torch.cuda.synchronize()
    return graphs, tok_buf


def build(args):
    torch.manual_seed(0)
    ctx = args.prompt + args.tokens
    model = Decoder(args.layers, args.hidden, args.heads, args.vocab, ctx).cuda().half().eval()
    hd = args.hidden // args.heads
    caches = [(torch.zeros(args.batch, args.heads, ctx, hd, device="cuda", dtype=torch.half),
               torch.zeros(args.batch, args.heads, ctx, hd, device="cuda", dtype=torch.half))
              for _ in range(args.layers)]
    model = WithCache(model, caches)
    if args.mode == "compile":
        model = torch.compile(model)
    elif args.mode == "compile-ro":
        model = torch.compile(model, mode="reduce-overhead")
    return model


def run(args, ranges=True):
    """Warm up, then the generation inside the stage ranges; returns the
    tokens and the seconds the ranged generation took."""
    model = build(args)
    graphs = tok_buf = None
    with torch.inference_mode():
        for _ in range(args.warmup):
            generate(model, args, ranges=False)
        if args.mode == "graph":
            graphs, tok_buf = capture_graphs(model, args)
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        out = generate(model, args, ranges=ranges, graphs=graphs, tok_buf=tok_buf, window=True)
        dt = time.perf_counter() - t0
    nparams = sum(q.numel() for q in model.parameters())
    return out, dt, nparams


def child(args, conn):
    """The engine core: the model runs here.  With --ranges-in parent it
    asks the parent to push and pop each stage range, and waits until it
    has, so the parent's ranges are open around the child's kernels."""
    def rpc(msg):
        conn.send(msg)
        conn.recv()
    ranges = args.ranges != "none"
    if args.ranges_in == "parent":
        ranges = (lambda name: rpc(("push", name)), lambda: rpc(("pop",)))
    try:
        out, dt, nparams = run(args, ranges)
        conn.send(("done", out, dt, nparams, list(STEPS)))
    except BaseException as e:  # the parent reports it and fails
        conn.send(("error", repr(e)))
        raise


def spawn(args, how):
    """The front end: starts the engine core in a child process (how:
    "spawn" or "fork") and waits for its tokens, pushing and popping the
    stage ranges the child asks for (--ranges-in parent)."""
    import multiprocessing as mp
    ctx = mp.get_context(how)
    mine, theirs = ctx.Pipe()
    proc = ctx.Process(target=child, args=(args, theirs), name="engine-core")
    proc.start()
    while True:
        try:
            msg = mine.recv()
        except EOFError:
            msg = ("error", "it closed its pipe")
        if msg[0] == "push":
            torch.cuda.nvtx.range_push(msg[1])
        elif msg[0] == "pop":
            torch.cuda.nvtx.range_pop()
        else:
            break
        mine.send("ok")
    proc.join()
    if msg[0] != "done" or proc.exitcode != 0:
        why = msg[1] if msg[0] == "error" else "exit code %s" % proc.exitcode
        sys.exit(f"torch_decoder: the engine-core process failed ({why})")
    STEPS[:] = msg[4]
    return msg[1], msg[2], msg[3]


def step_stats():
    """ decode_step_med=...ms decode_step_min=...ms: the workload's own
    step times (the child's, through the pipe, with --mode spawn)."""
    if not STEPS:
        return ""
    t = sorted(STEPS)
    return f" decode_step_med={t[len(t) // 2] * 1e3:.3f}ms decode_step_min={t[0] * 1e3:.3f}ms"


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
    p.add_argument("--mode", choices=("eager", "graph", "compile", "compile-ro", "spawn", "fork"),
                   default="eager", help="how decode runs (see the module's docstring)")
    p.add_argument("--child-mode", "--spawn-mode", choices=("eager", "graph", "compile", "compile-ro"),
                   default="eager", help="with --mode spawn or fork: how the child decodes")
    p.add_argument("--ranges-in", choices=("self", "parent"), default="self",
                   help="with --mode spawn or fork: which process pushes the stage ranges")
    p.add_argument("--ranges", choices=("nvtx", "none"), default="nvtx",
                   help="none: push no NVTX range (the profiler API window alone marks the decode)")
    p.add_argument("--profiler-api", choices=("off", "decode"), default="off",
                   help="decode: cudaProfilerStart/Stop around the measured decode")
    p.add_argument("--fail", type=int, default=0,
                   help="exit with this code after decoding (tests lp's error path)")
    args = p.parse_args()
    child = args.mode in ("spawn", "fork")
    if "graph" in (args.mode, args.child_mode if child else "") and args.warmup < 1:
        sys.exit("torch_decoder: --mode graph captures after a warm-up generation: give --warmup 1 or more")
    if args.ranges == "none" and args.ranges_in != "self":
        sys.exit("torch_decoder: --ranges none pushes no range, in either process")
    if child:
        mode, args.mode = args.mode, args.child_mode
        out, dt, nparams = spawn(args, mode)
        args.mode = mode
    else:
        if args.ranges_in != "self":
            sys.exit("torch_decoder: --ranges-in parent needs --mode spawn or fork")
        if not torch.cuda.is_available():
            sys.exit("torch_decoder: no CUDA device")
        out, dt, nparams = run(args, args.ranges != "none")
    print(f"torch_decoder: mode={args.mode} layers={args.layers} hidden={args.hidden} heads={args.heads} "
          f"vocab={args.vocab} params={nparams} prompt={args.prompt} tokens={args.tokens} "
          f"time={dt * 1e3:.1f}ms last_token={out[-1]}{step_stats()}")
    if args.fail:
        print(f"torch_decoder: failing on purpose with exit code {args.fail}", file=sys.stderr)
        sys.exit(args.fail)


if __name__ == "__main__":
    main()
