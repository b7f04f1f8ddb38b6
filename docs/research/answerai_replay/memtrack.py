# Live-storage tracker: every tensor produced by an aten op (forward, backward, optimizer, collectives)
# and every tensor reachable from Python at start() has its UntypedStorage registered through a weakref.
# The live total is recomputed after each op from the storages' *current* nbytes (so FSDP's
# storage.resize_(0)/resize_(n) of the unsharded flat parameter is seen). At each new peak the live
# set is summarised by (creating op, context, dtype, shape).
import gc, weakref, collections, torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_leaves

CTX = ["-"]          # set by module hooks in the driver


class Tracker(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.live = {}          # id(storage) -> (weakref, info)
        self.peak = 0; self.peak_ctx = None; self.peak_summary = None
        self.samples = []       # (label, bytes)
        self.total = 0
        self.enabled = True

    def _reg(self, t, info):
        if not isinstance(t, torch.Tensor) or t.device.type == "meta":
            return
        try:
            st = t.untyped_storage()
        except Exception:
            return
        k = id(st)
        if k in self.live and self.live[k][0]() is st:
            return
        self.live[k] = (weakref.ref(st, lambda r, k=k: self.live.pop(k, None)), info)

    def scan_gc(self):
        for o in gc.get_objects():
            try:
                if isinstance(o, torch.Tensor):
                    self._reg(o, ("pre-existing", "-", str(o.dtype), tuple(o.shape)))
            except Exception:
                pass

    def current(self):
        tot = 0; seen = set()
        for k, (r, info) in list(self.live.items()):
            st = r()
            if st is None:
                continue
            try:
                p = st.data_ptr(); n = st.nbytes()
            except Exception:
                continue
            if n == 0 or p in seen:
                continue
            seen.add(p); tot += n
        return tot

    def summary(self):
        agg = collections.Counter(); seen = set()
        for k, (r, info) in list(self.live.items()):
            st = r()
            if st is None: continue
            p, n = st.data_ptr(), st.nbytes()
            if n == 0 or p in seen: continue
            seen.add(p); agg[info] += n
        return agg

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if self.enabled:
            bwd = torch._C._current_graph_task_id() != -1
            info = (str(func.overloadpacket.__name__), ("B:" if bwd else "F:") + CTX[0])
            for t in tree_leaves(out):
                if isinstance(t, torch.Tensor):
                    self._reg(t, info + (str(t.dtype).replace("torch.", ""), tuple(t.shape)))
            cur = self.current()
            if cur > self.peak:
                self.peak = cur; self.peak_ctx = info[1] + " after " + info[0]
                self.peak_summary = self.summary()
        return out

    def mark(self, label):
        self.samples.append((label, self.current()))
