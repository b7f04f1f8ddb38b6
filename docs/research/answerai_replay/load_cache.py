# Load-time cache + training step, rank 0 of Answer.AI fsdp_qlora train.py (50efa1e, 2024-03-26) for
# Llama-2-7B QLoRA, low_memory=True, FSDP1 FULL_SHARD over 2 GPUs, bf16, reentrant checkpointing, batch B.
# See LOAD_CACHE.md.  usage: python3 load_cache.py [S ...]   (env: B=1, WORKERS=8)
#
# Pools (PyTorch 2.2 CUDACachingAllocator keeps blocks per stream):
#   default stream : loading (bf16 W, 4-bit out, absmax) -> empty_cache -> PEFT (rank 0: quant_state to CPU)
#                    -> FSDP init per unit (move to GPU, sync_module_states broadcast buckets, flatten cat,
#                    shard clone, free full + originals) -> lazy init (_full_param_padded empty+free)
#                    -> step activations (meta trace, LoRA grads freed at once by the post-backward hook)
#                    -> AdamW (foreach) states + sqrt temporaries on the LoRA shards
#   unshard stream : all-gathered flat params (root kept through fwd+bwd, <=2 decoder units, LoRA leaves)
#   post-backward  : reduce-scattered LoRA grad shards (kept until zero_grad)
import os, sys, functools
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("ATTN_EMU", "1")
import torch, torch.nn as nn
import cca_sim
from cca_sim import Sim, MB
G = 2 ** 30
H, I, L, V, MAXPOS, HD = 4096, 11008, 32, 32000, 4096, 128
R = 64
BF = 2
LIN = [("q", H, H), ("k", H, H), ("v", H, H), ("o", H, H), ("gate", I, H), ("up", I, H), ("down", H, I)]   # (name, out, in)
TARGETS = ["q", "k", "v", "gate", "up", "down"]


class Ev:
    """Event list builder with unique keys."""
    def __init__(self): self.ev = []; self.n = 0
    def a(self, nbytes, tag=None):
        self.n += 1; k = ("L", self.n); self.ev.append(('a', k, int(nbytes), tag)); return k
    def f(self, k): self.ev.append(('f', k))


def quantize_seq(n):
    """One Params4bit quantized on rank 0 by load_and_quantize (bnb 0.43 quantize_4bit, blocksize 64,
    compress_statistics, quant_storage bf16), then its 4-bit data moved to CPU. Returns (events, persistent keys)
    as a list of thunks so workers can interleave."""
    st = {}
    def s1(e): st['W'] = e.a(2 * n, 'W bf16')                        # value.to(device, bf16)
    def s2(e): st['absmax'] = e.a(n // 64 * 4, 'absmax fp32')        # torch.zeros(blocks, fp32)
    def s3(e): st['out'] = e.a(n // 2, '4bit out')                   # torch.zeros((n+1)//4, 1, bf16)
    def s4(e): st['code'] = e.a(64, 'nf4 code')                      # get_4bit_type(..., device)
    def s5(e): st['offset'] = e.a(4, 'offset')                       # absmax.mean()
    def s6(e): st['absmax2'] = e.a(n // 64 // 256 * 4, 'state2.absmax')
    def s7(e): st['qabsmax'] = e.a(n // 64, 'qabsmax u8')
    def s8(e): e.f(st['absmax'])                                     # del absmax
    def s9(e): e.f(st['W'])                                          # _quantize returns: bf16 W dropped
    def s10(e): e.f(st['out'])                                       # value.data.to('cpu')
    return [s1, s2, s3, s4, s5, s6, s7, s8, s9, s10], st


def load_phase(e, workers):
    """safetensors: each linear weight through load_and_quantize, `workers` threads interleaved round robin."""
    jobs = []
    for layer in range(L):
        for nm, o, i in LIN:
            jobs.append((layer, nm, o * i))
    qs = {}            # (layer, name) -> state dict (persistent quant_state keys)
    if 'dynamic' not in qs:
        qs['dynamic'] = e.a(256 * 4, 'name2qmap dynamic')
    active = []
    it = iter(jobs)
    while True:
        while len(active) < workers:
            j = next(it, None)
            if j is None: break
            steps, st = quantize_seq(j[2]); qs[(j[0], j[1])] = st; active.append([steps, 0])
        if not active: break
        for w in list(active):
            w[0][w[1]](e); w[1] += 1
            if w[1] == len(w[0]): active.remove(w)
    return qs


def fsdp_init(e, sim_release, qs, nccl_delay=True):
    """Rank 0 FSDP1 init (torch 2.2 _init_param_handle_from_module per unit, post-order auto wrap).
    nccl_delay: ProcessGroupNCCL record_stream()s every broadcast tensor on its NCCL stream, and
    WorkNCCL.wait() does not block the CPU, so a freed broadcast buffer (a bucket's cat, or a single-tensor
    bucket's own tensor) only returns to the pool once the broadcast has finished; here: after the next
    unit's first (synchronous, pageable) host-to-device copy."""
    persist = []; pending = []
    # PEFT update_layer: self.to(weight.device='cpu', bf16) moves the targets' quant_state to CPU (rank 0)
    for layer in range(L):
        for nm in TARGETS:
            st = qs[(layer, nm)]
            for k in ('qabsmax', 'offset', 'absmax2'):
                e.f(st[k])
    def unit(param_sizes, buf_buckets, bf16_bucket_sizes, requant=()):
        """move (quant_state first, then data), sync broadcast (cat only for >1 tensor per bucket),
        flatten cat, shard clone, free full, free originals."""
        orig = []; first = [True]
        def flush():
            if first[0]:
                first[0] = False
                while pending: e.f(pending.pop())
        for n in requant:                               # Params4bit.to(cuda): quant_state.to first
            persist.append(e.a(n // 64, 'qabsmax u8')); persist.append(e.a(4, 'offset'))
            persist.append(e.a(n // 64 // 256 * 4, 'state2.absmax')); persist.append(e.a(1024, 'state2.code'))
            flush()
        for p in param_sizes: orig.append(e.a(p, 'orig param')); flush()
        for b in buf_buckets:
            for x in b: persist.append(e.a(x, 'buffer'))
        # _broadcast_coalesced: buckets of <=250 MiB per dtype, 2 in flight; a bucket of one tensor is a view
        buckets = [b for b in buf_buckets] + bf16_bucket_sizes
        inflight = []
        single = set()
        for b in buckets:
            if len(inflight) >= 2:
                k = inflight.pop(0)
                if k: (pending.append(k) if nccl_delay else e.f(k))
            inflight.append(e.a(sum(b), 'bcast flat') if len(b) > 1 else None)
            if len(b) == 1: single.add(b[0])
        for k in inflight:
            if k: (pending.append(k) if nccl_delay else e.f(k))
        tot = sum(param_sizes)
        full = e.a(tot, 'flat full')                    # torch.cat
        shard = e.a((tot + 1) // 2, 'flat shard')       # clone of the local chunk (rank 0: no pad)
        persist.append(shard)
        e.f(full)                                       # orig_storage._resize_(0)
        for k, p in zip(orig, param_sizes):             # managed_params released on return
            (pending.append(k) if (nccl_delay and p in single) else e.f(k))
        return tot
    units = []
    for layer in range(L):
        for nm, o, i in LIN:
            if nm in TARGETS:
                for p in (R * i * BF, o * R * BF):      # lora_A.default (r x in), lora_B.default (out x r)
                    unit([p], [], [[p]]); units.append(('lora', p))
        # decoder unit: 7 Linear4bit data (n/4 bf16 elements), 2 RMSNorm; buffers inv_freq, _cos_cached, _sin_cached
        lin = [o * i // 2 for _, o, i in LIN]
        params = lin + [H * BF, H * BF]
        bufs = [[HD // 2 * 4, MAXPOS * HD * 4, MAXPOS * HD * 4]]
        requant = [o * i for nm, o, i in LIN if nm in TARGETS]
        tot = unit(params, bufs, [params], requant)
        units.append(('dec', tot))
    # root: embed_tokens, norm, lm_head (bf16); buffer causal_mask (bool 4096^2)
    emb = V * H * BF
    params = [emb, H * BF, emb]
    tot = unit(params, [[MAXPOS * MAXPOS]], [[emb], [H * BF, emb]])
    units.append(('root', tot))
    while pending: e.f(pending.pop())
    return units, persist


def step_trace(B, S):
    """meta trace of one steady-state step (llama438 + meta_trace machinery), QLoRA, with o_proj 4-bit as
    well; returns (events before the optimizer, frees after it, LoRA grad keys, lora shapes)."""
    import meta_trace
    from llama438 import Cfg, LlamaForCausalLM, LlamaDecoderLayer, inject_lora, Fake4bitLinear
    from torch.distributed.algorithms._checkpoint.checkpoint_wrapper import apply_activation_checkpointing, checkpoint_wrapper, CheckpointImpl
    c = Cfg(L, H, I, 32, V, MAXPOS)
    with torch.device("meta"):
        m = LlamaForCausalLM(c).to(torch.bfloat16)
        inject_lora(m, ["k_proj", "q_proj", "v_proj", "up_proj", "down_proj", "gate_proj"], R, 16, 0.1, qlora=True)
        for lyr in m.model.layers:
            lyr.self_attn.o_proj = Fake4bitLinear(lyr.self_attn.o_proj)
        for n, p in m.named_parameters():
            p.requires_grad = ("lora_A" in n) or ("lora_B" in n)
    m.enable_input_require_grads()
    apply_activation_checkpointing(m, checkpoint_wrapper_fn=functools.partial(checkpoint_wrapper, checkpoint_impl=CheckpointImpl.REENTRANT, preserve_rng_state=False),
                                   check_fn=lambda s: isinstance(s, LlamaDecoderLayer))
    lora = [p for p in m.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(lora, lr=1e-5, betas=(0.9, 0.95), eps=1e-5, weight_decay=0.1, foreach=False)
    ids = torch.zeros(B, S, dtype=torch.long, device="meta")
    for it in range(2):
        tr = meta_trace.Trace(); tr.preregister()
        with tr:
            output = m(ids, labels=ids); loss = output.loss
            loss.backward()
            bw_end = len(tr.ev)
            gkeys = set()
            for p in lora:
                st = p.grad.untyped_storage(); ent = tr.known.get(id(st))
                if ent is not None and ent[1] is not None: gkeys.add(ent[1])
            opt.step(); opt.zero_grad(set_to_none=True)
            output = None; loss = None
    ev = tr.ev
    alloc_before = {x[1] for x in ev[:bw_end] if x[0] == 'a'}
    pre = []
    for x in ev[:bw_end]:
        if x[0] == 'f' and x[1] in gkeys: continue
        pre.append(x)
        if x[0] == 'a' and x[1] in gkeys: pre.append(('f', x[1]))     # FSDP post-backward: reduce-scatter, free
    post = [x for x in ev[bw_end:] if x[0] == 'f' and x[1] in alloc_before and x[1] not in gkeys]
    return pre, post, [p.numel() * BF for p in lora], tr.peak


def replay(S, B=1, workers=8, steps=3, verbose=True, nccl_delay=True):
    e = Ev()
    qs = load_phase(e, workers)
    d = Sim()
    def run(evs):
        for x in evs:
            if x[0] == 'a': d.malloc(x[1], x[2])
            else: d.free(x[1])
    run(e.ev); load_res = d.max_res
    d._release_cached()                                   # torch.cuda.empty_cache()
    created = (d.allocated, d.reserved)
    e.ev = []
    units, persist = fsdp_init(e, None, qs, nccl_delay)
    run(e.ev)
    wrapped = (d.allocated, d.reserved)
    # lazy init: _full_param_padded = torch.empty(unsharded numel) then _free_storage, per handle (default stream)
    for kind, tot in units:
        k = ('lazy', id(kind), tot, len(d.live)); d.malloc(k, tot); d.free(k)
    d.malloc(('cublas_ws',), 4096 * 1024 * 2 + 16 * 1024 * 8)   # cuBLAS workspace (non-Hopper default)
    pre, post, lora_sizes, act_peak = step_trace(B, S)
    d.max_res = d.reserved; d.max_alloc = d.allocated       # torch.cuda.reset_peak_memory_stats
    peaks = []
    for it in range(steps):
        m0 = d.max_res
        d.max_res = d.reserved
        for x in pre:
            if x[0] == 'a': d.malloc((it, x[1]), x[2])
            else: d.free((it, x[1]))
        if it == 0:                                         # AdamW _init_group: exp_avg, exp_avg_sq per flat shard
            for j, p in enumerate(lora_sizes):
                d.malloc(('m', j), p // 2); d.malloc(('v', j), p // 2)
        for j, p in enumerate(lora_sizes):                  # _foreach_sqrt temporaries
            d.malloc(('sq', it, j), p // 2)
        for j, p in enumerate(lora_sizes): d.free(('sq', it, j))
        for x in post: d.free((it, x[1]))
        peaks.append(d.max_res); d.max_res = max(d.max_res, m0)
    # unshard-stream pool: root kept; forward one decoder at a time; backward current + BACKWARD_PRE prefetch
    u = Sim(); dec = [t for k, t in units if k == 'dec'][0]; root = units[-1][1]
    leaves = [t for k, t in units if k == 'lora'][:12]
    for it in range(steps):
        u.malloc(('root', it), root)
        prev = None
        for i in range(L):
            u.malloc(('d', it, i), dec)
            for j, t in enumerate(leaves): u.malloc(('l', it, i, j), t); u.free(('l', it, i, j))
            u.free(('d', it, i))
        u.malloc(('bd', it, L - 1), dec)
        for i in reversed(range(L)):
            if i > 0: u.malloc(('bd', it, i - 1), dec)
            for rep in range(2):
                for j, t in enumerate(leaves): u.malloc(('bl', it, i, j, rep), t)
                for j, t in enumerate(leaves): u.free(('bl', it, i, j, rep))
            u.free(('bd', it, i))
        u.free(('root', it))
    # post-backward pool: LoRA grad shards, kept until zero_grad
    pb = Sim()
    for j, p in enumerate(lora_sizes): pb.malloc(('g', j), p // 2)
    extra = u.max_res + pb.max_res
    out = dict(S=S, B=B, workers=workers, load_peak=load_res / G, created_alloc=created[0] / G, created_res=created[1] / G,
               wrap_alloc=wrapped[0] / G, wrap_res=wrapped[1] / G, step_default_peaks=[p / G for p in peaks],
               unshard_pool=u.max_res / G, postbw_pool=pb.max_res / G, act_peak=act_peak / G,
               reserved_peak=(max(peaks) + extra) / G, alloc_peak=(d.max_alloc + u.max_alloc + pb.max_alloc) / G)
    if verbose:
        print(f"S={S} B={B} W={workers}: loading peak reserved {out['load_peak']:.3f}; after empty_cache alloc {out['created_alloc']:.3f} res {out['created_res']:.3f}; "
              f"after wrap alloc {out['wrap_alloc']:.3f} res {out['wrap_res']:.3f}; default-stream step peaks {[round(p,3) for p in out['step_default_peaks']]}; "
              f"unshard pool {out['unshard_pool']:.3f}; post-bw pool {out['postbw_pool']:.3f} -> RESERVED PEAK {out['reserved_peak']:.3f} GiB "
              f"(alloc peak <= {out['alloc_peak']:.3f}; step activation live peak {out['act_peak']:.3f})", flush=True)
    return out, d


def free_blocks(d, top=12):
    fb = sorted([b.size for small in (False,) for (_, _, b) in d.pools[small]], reverse=True)
    return [round(x / MB, 1) for x in fb[:top]], sum(fb) / G


if __name__ == "__main__":
    B = int(os.environ.get("B", 1)); W = int(os.environ.get("WORKERS", 8)); ND = os.environ.get("NCCL_DELAY", "1") == "1"
    for S in [int(x) for x in sys.argv[1:]] or [512, 2048]:
        out, d = replay(S, B, W, nccl_delay=ND)
