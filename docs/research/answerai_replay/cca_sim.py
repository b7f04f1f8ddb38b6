# Simplified PyTorch 2.2 CUDA caching allocator (c10/cuda/CUDACachingAllocator.cpp, expandable_segments off,
# one stream, no max_split_size, no GC threshold) replaying an alloc/free trace.
#   round_size: <512 -> 512, else multiple of 512
#   small pool: size <= 1 MiB, segments of 2 MiB; large pool: size < 10 MiB -> 20 MiB segment,
#   else the size rounded up to 2 MiB; best fit (smallest free block >= size) within the pool;
#   split if remainder >= 512 (small) / > 1 MiB (large); free blocks coalesce with free neighbours.
#   cap: when a new segment would push reserved above cap, free all unused segments first
#   (release_cached_blocks) and retry, as the allocator does after a failed cudaMalloc.
import bisect

MB = 1 << 20


def round_size(n):
    return 512 if n < 512 else (n + 511) // 512 * 512


def seg_size(n):
    if n <= MB: return 2 * MB
    if n < 10 * MB: return 20 * MB
    return (n + 2 * MB - 1) // (2 * MB) * (2 * MB)


class Block:
    __slots__ = ("seg", "off", "size", "free", "prev", "next")
    def __init__(s, seg, off, size):
        s.seg, s.off, s.size, s.free, s.prev, s.next = seg, off, size, True, None, None


class Sim:
    def __init__(self, cap=None):
        self.pools = {True: [], False: []}      # small?: sorted list of (size, id, block)
        self.reserved = 0; self.allocated = 0; self.max_res = 0; self.max_alloc = 0
        self.live = {}; self.cap = cap; self.nseg = 0; self.segs = {}; self.flushes = 0

    def _pool_add(self, b):
        bisect.insort(self.pools[b.seg[1]], (b.size, id(b), b))

    def _pool_rm(self, b):
        p = self.pools[b.seg[1]]; i = bisect.bisect_left(p, (b.size, id(b), b)); assert p[i][2] is b; p.pop(i)

    def _release_cached(self):
        for small in (True, False):
            keep = []
            for (sz, i, b) in self.pools[small]:
                if b.prev is None and b.next is None:      # whole segment free
                    self.reserved -= b.size; self.segs.pop(id(b.seg), None)
                else:
                    keep.append((sz, i, b))
            self.pools[small] = keep
        self.flushes += 1

    def malloc(self, key, n):
        n = round_size(n); small = n <= MB
        p = self.pools[small]
        i = self._bl(p, n)                      # best fit
        if i < len(p):
            b = p[i][2]; p.pop(i)
        else:
            s = seg_size(n)
            if self.cap is not None and self.reserved + s > self.cap:
                self._release_cached()
            seg = [s, small]; self.segs[id(seg)] = seg
            b = Block(seg, 0, s); self.reserved += s; self.max_res = max(self.max_res, self.reserved)
        rem = b.size - n
        if (small and rem >= 512) or ((not small) and rem > MB):
            r = Block(b.seg, b.off + n, rem); r.prev, r.next = b, b.next
            if b.next: b.next.prev = r
            b.next = r; b.size = n; self._pool_add(r)
        b.free = False
        self.live[key] = b; self.allocated += b.size; self.max_alloc = max(self.max_alloc, self.allocated)

    @staticmethod
    def _bl(p, n):
        lo, hi = 0, len(p)
        while lo < hi:
            mid = (lo + hi) // 2
            if p[mid][0] < n: lo = mid + 1
            else: hi = mid
        return lo

    def free(self, key):
        b = self.live.pop(key, None)
        if b is None: return
        self.allocated -= b.size; b.free = True
        for nb in (b.prev, b.next):
            if nb is not None and nb.free:
                self._pool_rm(nb)
                if nb is b.prev:
                    nb.size += b.size; nb.next = b.next
                    if b.next: b.next.prev = nb
                    b = nb
                else:
                    b.size += nb.size; b.next = nb.next
                    if nb.next: nb.next.prev = b
        self._pool_add(b)


def replay(events, persistent=0, cap=None, iters=1):
    """events: list of ('a', key, nbytes) / ('f', key). persistent: bytes held outside (exact segments)."""
    s = Sim(cap=None if cap is None else cap - persistent)
    out = []
    for it in range(iters):
        s.max_res = s.reserved; s.max_alloc = s.allocated      # reset_peak_memory_stats
        for e in events:
            if e[0] == 'a': s.malloc((it, e[1]), e[2])
            else: s.free((it, e[1]))
        out.append((s.max_alloc + persistent, s.max_res + persistent))
    return out, s
