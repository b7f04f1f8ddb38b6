# Record the activation alloc/free trace of one steady-state train.py step (LoRA/QLoRA, bf16, reentrant
# checkpoint per decoder layer, HF-4.38 loss, output kept through backward) on the meta device at full
# model dimensions, then replay it through cca_sim (PyTorch 2.2 caching allocator) -> allocated vs reserved.
# usage: ATTN_EMU=1 python meta_trace.py lora|qlora B S [L H I nh V max_pos]
import os, sys, json, functools, weakref, torch
os.environ.setdefault("ATTN_EMU", "1")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_leaves
from llama438 import Cfg, LlamaForCausalLM, LlamaDecoderLayer, inject_lora
import cca_sim


class Trace(TorchDispatchMode):
    def __init__(self):
        super().__init__(); self.ev = []; self.known = {}; self.n = 0; self.cur = 0; self.peak = 0; self.peak_i = 0
    def preregister(self):
        import gc
        for o in gc.get_objects():
            try:
                if isinstance(o, torch.Tensor):
                    st = o.untyped_storage(); self.known[id(st)] = (weakref.ref(st), None)
            except Exception:
                pass
    def _reg(self, t):
        st = t.untyped_storage(); k = id(st)
        if k in self.known and self.known[k][0]() is st: return
        self.n += 1; key = self.n; nb = st.nbytes()
        def fin(r, key=key, k=k, nb=nb):
            self.ev.append(('f', key)); self.known.pop(k, None); self.cur -= nb
        self.known[k] = (weakref.ref(st, fin), key)
        self.ev.append(('a', key, nb)); self.cur += nb
        if self.cur > self.peak: self.peak = self.cur; self.peak_i = len(self.ev)
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        for t in tree_leaves(out):
            if isinstance(t, torch.Tensor): self._reg(t)
        return out


def main(train, B, S, dims):
    c = Cfg(*dims)
    with torch.device("meta"):
        m = LlamaForCausalLM(c).to(torch.bfloat16)
        inject_lora(m, ["k_proj", "q_proj", "v_proj", "up_proj", "down_proj", "gate_proj"], 64, 16, 0.1, qlora=(train == "qlora"))
    from torch.distributed.algorithms._checkpoint.checkpoint_wrapper import apply_activation_checkpointing, checkpoint_wrapper, CheckpointImpl
    m.enable_input_require_grads()
    apply_activation_checkpointing(m, checkpoint_wrapper_fn=functools.partial(checkpoint_wrapper, checkpoint_impl=CheckpointImpl.REENTRANT, preserve_rng_state=False),
                                   check_fn=lambda s: isinstance(s, LlamaDecoderLayer))
    opt = torch.optim.AdamW([p for p in m.parameters() if p.requires_grad], lr=1e-5, betas=(0.9, 0.95), eps=1e-5, weight_decay=0.1, foreach=False)
    ids = torch.zeros(B, S, dtype=torch.long, device="meta")
    traces = []
    for it in range(2):
        tr = Trace(); tr.preregister()
        with tr:
            output = m(ids, labels=ids); loss = output.loss
            if os.environ.get("LOOP") == "trainer":   # the Trainer drops the outputs before backward
                output = None
            loss.backward()
            opt.step(); opt.zero_grad(set_to_none=True)
            output = None; loss = None
        traces.append(tr)
    tr = traces[1]
    return tr


if __name__ == "__main__":
    train, B, S = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    dims = [int(x) for x in sys.argv[4:10]] if len(sys.argv) > 4 else [32, 4096, 11008, 32, 32000, 4096]
    tr = main(train, B, S, dims)
    (pa, pr), = cca_sim.replay(tr.ev, iters=1)[0][:1]
    res2, sim = cca_sim.replay(tr.ev, iters=2)
    G = 2 ** 30
    print(f"{train} B={B} S={S} dims={dims}: exact live peak {tr.peak/G:.3f} GiB; sim alloc {res2[1][0]/G:.3f} reserved {res2[1][1]/G:.3f} GiB (iter2), segments reserved end {sim.reserved/G:.3f}")
