# Simulated torch.cuda.max_memory_allocated for LitGPT LoRA / QLoRA fine-tuning.
# Runs LitGPT's own model code (from a git archive of a given commit) on CPU, but:
#  - every matmul / SDPA is replaced by an uninitialised output of the right shape (no compute),
#  - every tensor storage created is counted while it is alive (weakref finalize on the storage),
#  - bitsandbytes 0.42 Linear4bit/MatMul4Bit is replaced by a fake with the same memory behaviour
#    (packed uint8 weight n/2 B + fp32 absmax n/64*4 B; forward/backward dequantise to the quant_state
#    dtype (fp16, because Lightning quantises w.to(torch.half)) then .to(bf16); ctx keeps (A, B)).
#  - Fabric wrapper behaviour: convert_output casts outputs to torch.get_default_dtype() (fp32).
# Nothing here is LitGPT's code; it imports it from src_<commit>.
import argparse, sys, weakref, math, collections, contextlib
import torch
import torch.nn.functional as F
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_map, tree_flatten

aten = torch.ops.aten
EXPENSIVE = {aten.mm.default, aten.addmm.default, aten.bmm.default, aten.baddbmm.default}


class Tracker(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.live = {}
        self.cur = 0
        self.peak = 0
        self.phase = "init"
        self.peak_phase = None
        self.peak_snapshot = None
        self.phase_peaks = collections.OrderedDict()
        self.snap = True

    def track(self, t, label):
        if not isinstance(t, torch.Tensor) or t.device.type != "cpu":
            return
        s = t.untyped_storage()
        k = id(s)
        if k in self.live:
            return
        n = s.nbytes()
        self.live[k] = (n, label)
        self.cur += n
        weakref.finalize(s, self._free, k)
        if self.cur > self.phase_peaks.get(self.phase, 0):
            self.phase_peaks[self.phase] = self.cur
        if self.cur > self.peak:
            self.peak = self.cur
            self.peak_phase = self.phase
            if self.snap:
                agg = collections.Counter()
                for nb, lab in self.live.values():
                    agg[lab] += nb
                self.peak_snapshot = agg

    def _free(self, k):
        n, _ = self.live.pop(k)
        self.cur -= n

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func in EXPENSIVE:
            margs = tree_map(lambda x: x.to("meta") if isinstance(x, torch.Tensor) else x, args)
            mk = tree_map(lambda x: x.to("meta") if isinstance(x, torch.Tensor) else x, kwargs)
            mo = func(*margs, **mk)
            out = torch.empty_strided(mo.shape, mo.stride(), dtype=mo.dtype, device="cpu")
        else:
            out = func(*args, **kwargs)
        lab = f"{self.phase}|{func.__name__}"
        for t in tree_flatten(out)[0]:
            self.track(t, lab)
        return out


TR = None


def set_phase(p):
    TR.phase = p


# ---------------- fake bitsandbytes 0.42 NF4 ----------------
class FakeQS:
    def __init__(self, shape):
        self.shape = shape
        self.dtype = torch.float16  # Lightning: w = weight.contiguous().to(device, dtype=torch.half)


ABL = set()


def fake_dequant(qs):
    if "no_dequant" in ABL:
        return torch.empty(1, 1, dtype=qs.dtype).expand(qs.shape)
    w16 = torch.empty(qs.shape, dtype=qs.dtype)  # F.dequantize_4bit -> out dtype = quant_state.dtype
    return w16


class FakeMatMul4Bit(torch.autograd.Function):
    @staticmethod
    def forward(ctx, A, B, qs, name):
        w = fake_dequant(qs)
        w = w[:1, :1].to(A.dtype).expand(qs.shape) if "no_dequant" in ABL else w.to(A.dtype)
        out = F.linear(A, w)
        del w
        ctx.qs = qs
        ctx.name = name
        if "bnb_new" in ABL:
            ctx.tensors = (None, B)  # bnb >= 0.43.2
        elif any(ctx.needs_input_grad[:2]):
            ctx.tensors = (A, B)  # bnb < 0.43.2 keeps A
        else:
            ctx.tensors = (None, None)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        old = TR.phase
        TR.phase = "bwd:" + ctx.name
        A, B = ctx.tensors
        grad_A = None
        if ctx.needs_input_grad[0]:
            w = fake_dequant(ctx.qs)
            w = w[:1, :1].to(grad_output.dtype).expand(ctx.qs.shape) if "no_dequant" in ABL else w.to(grad_output.dtype)
            grad_A = torch.matmul(grad_output, w)
        TR.phase = old
        return grad_A, None, None, None


class FakeNF4Linear(torch.nn.Module):
    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        n = in_features * out_features
        # nn.Linear.__init__ under init_module: bf16 weight on device + kaiming init, then Lightning's
        # quantize_(): fp16 copy -> quantize_4bit -> replace data.  Simulate the transients:
        w = torch.empty(out_features, in_features, dtype=torch.get_default_dtype())
        w16 = w.to(torch.float16)
        self.register_buffer("weight", torch.empty(((n + 1) // 2, 1), dtype=torch.uint8))
        self.register_buffer("absmax", torch.empty((math.ceil(n / 64),), dtype=torch.float32))
        del w, w16
        self.bias = None
        if bias:
            self.bias = torch.nn.Parameter(torch.empty(out_features), requires_grad=False)
        self.qs = FakeQS((out_features, in_features))
        self.name = "?"

    def forward(self, x):
        if (x.numel() == x.shape[-1]) and not torch.is_grad_enabled():
            # matmul_4bit inference path (gemv_4bit): no dequantised copy
            out = torch.empty(*x.shape[:-1], self.out_features, dtype=x.dtype)
        else:
            out = FakeMatMul4Bit.apply(x, self.weight, self.qs, self.name)
        if self.bias is not None:
            out = out + self.bias.to(x.dtype)
        return out


class FakeFlash(torch.autograd.Function):
    """CUDA flash-attention memory behaviour: saves q, k, v, out, logsumexp(fp32); backward dq_accum fp32."""

    @staticmethod
    def forward(ctx, q, k, v):
        B, H, T, D = q.shape
        out = torch.empty_like(q)
        lse = torch.empty(B, H, T, dtype=torch.float32)
        ctx.save_for_backward(q, k, v, out, lse)
        return out

    @staticmethod
    def backward(ctx, g):
        q, k, v, out, lse = ctx.saved_tensors
        dq_accum = torch.empty(q.shape, dtype=torch.float32)
        softmax_d = torch.empty(lse.shape, dtype=torch.float32)
        dq, dk, dv = torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)
        del dq_accum, softmax_d
        return dq, dk, dv


class CudaLikeDropout(torch.autograd.Function):
    """CUDA aten::native_dropout: returns output (input dtype) and a bool mask (1 B/elem) saved for backward.
    (CPU dropout would keep a mask in the input dtype, 2 B/elem for bf16.)"""

    @staticmethod
    def forward(ctx, x, p):
        out = torch.empty_like(x)
        mask = torch.empty(x.shape, dtype=torch.bool)
        ctx.save_for_backward(mask)
        return out

    @staticmethod
    def backward(ctx, g):
        (mask,) = ctx.saved_tensors
        return torch.empty_like(g), None


def dropout_forward(self, x):
    if self.training and self.p > 0 and torch.is_grad_enabled():
        return CudaLikeDropout.apply(x, self.p)
    return x


def fake_sdpa(self, q, k, v, mask=None):
    if mask is not None or not torch.is_grad_enabled():
        B, H, T, D = q.shape
        y = torch.empty(B, H, T, D, dtype=q.dtype)
    else:
        y = FakeFlash.apply(q, k, v)
    return y.transpose(1, 2)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--src", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--mode", choices=["lora", "qlora"], required=True)
    ap.add_argument("--batch", type=int, default=2)
    ap.add_argument("--T", type=int, default=512)
    ap.add_argument("--n_layer", type=int, default=None)
    ap.add_argument("--r", type=int, default=8)
    ap.add_argument("--alpha", type=int, default=16)
    ap.add_argument("--dropout", type=float, default=0.05)
    ap.add_argument("--targets", default="q,v")  # q,k,v,proj,mlp,head
    ap.add_argument("--accum", type=int, default=4)
    ap.add_argument("--iters", type=int, default=6)
    ap.add_argument("--val_T", type=int, default=None)
    ap.add_argument("--prompt_T", type=int, default=40)
    ap.add_argument("--no_val", action="store_true")
    ap.add_argument("--top", type=int, default=14)
    ap.add_argument("--abl", default="")
    ap.add_argument("--legacy", action="store_true")
    ap.add_argument("--T2", type=int, default=None)
    a = ap.parse_args()
    sys.path.insert(0, a.src)
    if a.legacy:
        import lit_gpt.lora as LL
        import lit_gpt.model as LM
        from lit_gpt.utils import chunked_cross_entropy as _cce
        def chunked_cross_entropy(logits, targets, chunk_size=128):
            return _cce(logits, targets, chunk_size=chunk_size)
    else:
        import litgpt.lora as LL
        import litgpt.model as LM
        from litgpt.utils import chunked_cross_entropy

    global TR
    TR = Tracker()
    ABL.update([x for x in a.abl.split(",") if x])
    tg = set(a.targets.split(",")) if a.targets else set()
    kw = dict(lora_r=a.r, lora_alpha=a.alpha, lora_dropout=a.dropout, lora_query="q" in tg, lora_key="k" in tg,
              lora_value="v" in tg, lora_projection="proj" in tg, lora_mlp="mlp" in tg, lora_head="head" in tg)
    if a.legacy:
        kw = dict(r=a.r, alpha=a.alpha, dropout=a.dropout, to_query="q" in tg, to_key="k" in tg, to_value="v" in tg,
                  to_projection="proj" in tg, to_mlp="mlp" in tg, to_head="head" in tg)
    cfg = LL.Config.from_name(a.model, **kw)
    if a.n_layer:
        cfg.n_layer = a.n_layer
    LM.CausalSelfAttention.scaled_dot_product_attention = fake_sdpa
    torch.nn.Dropout.forward = dropout_forward
    if hasattr(LL, "CausalSelfAttention"):
        LL.CausalSelfAttention.scaled_dot_product_attention = fake_sdpa

    with TR:
        # ---- fabric.init_module(): default dtype bf16 (+ Linear class replacement for bnb) ----
        set_phase("init")
        torch.set_default_dtype(torch.bfloat16)
        orig_linear = torch.nn.Linear
        if a.mode == "qlora":
            torch.nn.Linear = FakeNF4Linear
        try:
            model = LL.GPT(cfg)
        finally:
            torch.nn.Linear = orig_linear
            torch.set_default_dtype(torch.float32)
        for n, m in model.named_modules():
            if isinstance(m, FakeNF4Linear):
                m.name = n
        LL.mark_only_lora_as_trainable(model)
        ntrain = sum(p.numel() for p in model.parameters() if p.requires_grad)
        # ---- load_checkpoint: lazy_load on CPU, quantize hook does weight.to(cuda, half) per layer ----
        set_phase("load")
        if a.mode == "qlora":
            for m in model.modules():
                if isinstance(m, FakeNF4Linear):
                    t = torch.empty(m.qs.shape, dtype=torch.float16)
                    del t
        weights_bytes = TR.cur
        print(f"after init+load: {TR.cur/1e9:.3f} GB  trainable params {ntrain:,}  phase peaks {dict((k, round(v/1e9,3)) for k,v in TR.phase_peaks.items())}")

        def fwd(idx, **kw):
            # _FabricModule.forward: forward_context (default dtype bf16) then convert_output -> fp32
            torch.set_default_dtype(torch.bfloat16)
            try:
                out = model(idx, **kw)
            finally:
                torch.set_default_dtype(torch.float32)
            dt = torch.bfloat16 if "bf16_out" in ABL else torch.get_default_dtype()
            if isinstance(out, list):
                return [o.to(dt) for o in out]
            return out.to(dt)

        V = cfg.padded_vocab_size
        model.max_seq_length = a.T if a.val_T is None else max(a.T, a.val_T)
        # ---- sanity-check validate(): no_grad, full (unchunked) logits ----
        if not a.no_val:
            set_phase("validate")
            model.eval()
            vT = a.val_T or a.T
            with torch.no_grad():
                for _ in range(2):
                    idx = torch.zeros(a.batch, vT, dtype=torch.long)
                    tgt = torch.zeros(a.batch, vT, dtype=torch.long)
                    logits = fwd(idx)
                    loss = chunked_cross_entropy(logits[..., :-1, :], tgt[..., 1:], chunk_size=0)
                    del logits, loss
            # ---- generate example: kv cache batch 1 at model.max_seq_length ----
            set_phase("generate")
            with torch.inference_mode():
                torch.set_default_dtype(torch.bfloat16)
                model.set_kv_cache(batch_size=1)
                torch.set_default_dtype(torch.float32)
                P = a.prompt_T
                out = fwd(torch.zeros(1, P, dtype=torch.long), input_pos=torch.arange(P))
                del out
                for i in range(3):
                    out = fwd(torch.zeros(1, 1, dtype=torch.long), input_pos=torch.tensor([P + i]))
                    del out
                model.clear_kv_cache()
            model.train()
        # ---- training loop (litgpt/finetune/lora.py fit) ----
        params = [p for p in model.parameters() if p.requires_grad]
        opt_state = []
        logits = None
        for it in range(1, a.iters + 1):
            set_phase(f"fwd{it}")
            Ti = a.T if (it == 1 or a.T2 is None) else a.T2
            idx = torch.zeros(a.batch, Ti, dtype=torch.long)
            tgt = torch.zeros(a.batch, Ti, dtype=torch.long)
            if "free_prev" in ABL:
                logits = loss = None
            logits = fwd(idx, lm_head_chunk_size=128)  # previous `logits` alive until this assignment
            logits[-1] = logits[-1][..., :-1, :]
            loss = chunked_cross_entropy(logits, tgt[..., 1:])
            set_phase(f"bwd{it}")
            (loss / a.accum).backward()
            if it % a.accum == 0:
                set_phase(f"opt{it}")
                if not opt_state:
                    for p in params:
                        if a.mode == "lora":  # torch.optim.AdamW: exp_avg, exp_avg_sq like param (bf16)
                            opt_state.append((torch.zeros_like(p), torch.zeros_like(p)))
                        elif p.numel() < 1e5:  # bnb PagedAdamW: fp32 state, paged (cudaMallocManaged) if numel>=1e5
                            opt_state.append((torch.zeros_like(p, dtype=torch.float32),
                                              torch.zeros_like(p, dtype=torch.float32)))
                if a.mode == "lora":  # foreach AdamW temporaries (roughly one param-sized set)
                    tmp = [torch.empty_like(p) for p in params]
                    del tmp
                for p in params:
                    p.grad = None
        print(f"trainable param bytes {sum(p.numel()*p.element_size() for p in params)/1e9:.3f} GB")
        print(f"weights+buffers at start: {weights_bytes/1e9:.3f} GB")
        print(f"PEAK {TR.peak/1e9:.3f} GB in phase {TR.peak_phase}")
        print("phase peaks:", {k: round(v / 1e9, 3) for k, v in TR.phase_peaks.items()})
        agg = collections.Counter()
        for lab, nb in TR.peak_snapshot.items():
            ph, fn = lab.split("|")
            key = ("init/load" if ph in ("init", "load") else ph) + "|" + fn
            agg[key] += nb
        print("top live-at-peak groups (GB):")
        for k, v in agg.most_common(a.top):
            print(f"   {v/1e9:8.3f}  {k}")


if __name__ == "__main__":
    main()
