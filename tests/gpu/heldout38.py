"""A decoder lp's code was not written against (issue 38's acceptance):
Llama-shaped, grouped-query attention, RMSNorm, SwiGLU, bf16, batch 4,
its own KV cache and its own clock.  Pushes LLM@prefill, LLM@decode_all,
LLM@decode_step in the default NVTX domain; --mode graph replays one
torch.cuda.CUDAGraph a decode step.  Prints decode_step_med (ms): the
median of its steps, each timed with perf_counter around the step and
the token's copy to the host."""
import argparse, time, torch

p = argparse.ArgumentParser()
p.add_argument("--mode", choices=("eager", "graph"), default="eager")
p.add_argument("--layers", type=int, default=12)
a = p.parse_args()
torch.manual_seed(0)
dev, dt = "cuda", torch.bfloat16
B, P, T, D, H, KV, F, V = 4, 128, 48, 1024, 16, 4, 2816, 32000
hd = D // H
W = [dict(qkv=torch.randn(D, (H + 2 * KV) * hd, device=dev, dtype=dt) * 0.02,
          o=torch.randn(D, D, device=dev, dtype=dt) * 0.02,
          gu=torch.randn(D, 2 * F, device=dev, dtype=dt) * 0.02,
          dn=torch.randn(F, D, device=dev, dtype=dt) * 0.02) for _ in range(a.layers)]
emb = torch.randn(V, D, device=dev, dtype=dt) * 0.02
L = P + T + 1
kc = torch.zeros(a.layers, B, KV, L, hd, device=dev, dtype=dt)
vc = torch.zeros_like(kc)

def rms(x):
    return x * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + 1e-6).to(x.dtype)

def fwd(tok, pos, n):
    """tok [B, n] at positions pos..pos+n-1 (pos a 0-dim tensor)"""
    x = emb[tok]
    idx = pos + torch.arange(n, device=dev)
    mask = torch.arange(L, device=dev)[None, :] <= idx[:, None]
    for i, w in enumerate(W):
        h = rms(x) @ w["qkv"]
        q, k, v = h.split([H * hd, KV * hd, KV * hd], -1)
        q = q.view(B, n, H, hd).transpose(1, 2)
        kc[i].index_copy_(2, idx, k.view(B, n, KV, hd).transpose(1, 2))
        vc[i].index_copy_(2, idx, v.view(B, n, KV, hd).transpose(1, 2))
        kk = kc[i].repeat_interleave(H // KV, 1)
        vv = vc[i].repeat_interleave(H // KV, 1)
        att = torch.nn.functional.scaled_dot_product_attention(q, kk, vv, attn_mask=mask)
        x = x + att.transpose(1, 2).reshape(B, n, D) @ w["o"]
        g, u = (rms(x) @ w["gu"]).split(F, -1)
        x = x + (torch.nn.functional.silu(g) * u) @ w["dn"]
    return (rms(x[:, -1]) @ emb.T).argmax(-1)

steps = []
with torch.no_grad():
    prompt = torch.randint(0, V, (B, P), device=dev)
    pos = torch.zeros((), dtype=torch.long, device=dev)
    fwd(prompt, pos, P); torch.cuda.synchronize()       # warm-up
    torch.cuda.nvtx.range_push("LLM@prefill")
    tok = fwd(prompt, pos, P); tok.cpu()
    torch.cuda.nvtx.range_pop()
    cur = tok.view(B, 1).clone()
    pos.fill_(P)
    if a.mode == "graph":
        s = torch.cuda.Stream(); s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            fwd(cur, pos, 1)
        torch.cuda.current_stream().wait_stream(s)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            out = fwd(cur, pos, 1)
    torch.cuda.nvtx.range_push("LLM@decode_all")
    for t in range(T):
        t0 = time.perf_counter()
        torch.cuda.nvtx.range_push("LLM@decode_step")
        if a.mode == "graph":
            g.replay(); nxt = out
        else:
            nxt = fwd(cur, pos, 1)
        host = nxt.cpu()
        cur.copy_(nxt.view(B, 1)); pos.add_(1)
        torch.cuda.nvtx.range_pop()
        steps.append(time.perf_counter() - t0)
    torch.cuda.nvtx.range_pop()
st = sorted(steps)
print(f"heldout: mode={a.mode} layers={a.layers} decode_step_med={st[len(st) // 2] * 1e3:.3f}ms "
      f"decode_step_min={st[0] * 1e3:.3f}ms last={host.tolist()}")
