# usage: LOSS=hf_shift|hf|half|half_autocast LOOP=script|trainer python cap_sim.py B S V [I]
# For a meta trace: the roomy reserved peak (no cap) and the smallest cap under which two steps run
# without an OOM (the allocator releases whole free segments before it fails): what the run needs.
import os, sys
sys.path.insert(0, '.')
import meta_trace, cca_sim
class OOM(Exception): pass
class Capped(cca_sim.Sim):
    def malloc(self, key, n):
        n2 = cca_sim.round_size(n); small = n2 <= cca_sim.MB
        p = self.pools[small]; i = self._bl(p, n2)
        if i >= len(p) and self.cap is not None:
            s = cca_sim.seg_size(n2)
            if self.reserved + s > self.cap:
                self._release_cached()
                if self.reserved + s > self.cap: raise OOM()
        saved, self.cap = self.cap, None
        try: super().malloc(key, n)
        finally: self.cap = saved
def runs(ev, cap, iters=3):
    s = Capped(cap=cap)
    try:
        for it in range(iters):
            s.max_res = s.reserved; s.max_alloc = s.allocated
            for e in ev:
                if e[0] == 'a': s.malloc((it, e[1]), e[2])
                else: s.free((it, e[1]))
    except OOM:
        return None
    return s
B, S, V = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
I = int(sys.argv[4]) if len(sys.argv) > 4 else 11008
tr = meta_trace.main('lora', B, S, [32, 4096, I, 32, V, 4096])
roomy = runs(tr.ev, None)
lo, hi = roomy.max_alloc, roomy.max_res
while hi - lo > 16 * cca_sim.MB:
    mid = (lo + hi) // 2
    if runs(tr.ev, mid) is None: lo = mid
    else: hi = mid
G = 2**30; T = B * S
print(f"{os.environ.get('LOOP','script'):7} {os.environ.get('LOSS','hf_shift'):13} V={V:6} T={T:6} alloc {roomy.max_alloc/G:6.3f} roomy_res {roomy.max_res/G:6.3f} needed {hi/G:6.3f}  needed-alloc {(hi-roomy.max_alloc)/G:6.3f} ({(hi-roomy.max_alloc)/roomy.max_alloc*100:4.1f} %)  releasable {(roomy.max_res-hi)/G:6.3f} = {(roomy.max_res-hi)/(T*V):4.2f} B/logit")
