# Which allocations open new allocator segments (activation pool) in the LoRA 7B b6 step, and the live bytes then.
import sys, torch, meta_trace, cca_sim
from torch.utils._pytree import tree_leaves
names = []
orig = meta_trace.Trace.__torch_dispatch__
def disp(self, func, types, args=(), kwargs=None):
    n0 = len(self.ev); out = orig(self, func, types, args, kwargs)
    for e in self.ev[n0:]:
        if e[0] == 'a': names.append((e[1], func.overloadpacket.__name__, None))
    return out
meta_trace.Trace.__torch_dispatch__ = disp
B = int(sys.argv[2]) if len(sys.argv) > 2 else 6
tr = meta_trace.main(sys.argv[1] if len(sys.argv) > 1 else "lora", B, 2048, [32, 4096, 11008, 32, 32000, 4096])
nm = {k: n for k, n, _ in names}
s = cca_sim.Sim(); G = 2**30
for it in range(2):
    s.max_res = s.reserved
    for e in tr.ev:
        if e[0] == 'a':
            r0 = s.reserved; s.malloc((it, e[1]), e[2])
            if it == 0 and s.reserved - r0 > 40 * 2**20:
                print(f"new segment {(s.reserved-r0)/2**20:8.1f} MiB for {nm.get(e[1])} {e[2]/2**20:.1f} MiB; allocated {s.allocated/G:.2f} reserved {s.reserved/G:.2f}")
        else: s.free((it, e[1]))
print("iter2 max reserved", s.max_res / G, "max alloc", s.max_alloc / G)
