# Simplified model of PyTorch's CUDACachingAllocator (default config: no expandable segments,
# max_split_size unlimited, no roundup_power2_divisions), one stream.
import bisect, math
kMinBlockSize=512; kSmallSize=1<<20; kSmallBuffer=2<<20; kLargeBuffer=20<<20; kMinLargeAlloc=10<<20; kRoundLarge=2<<20
def round_size(s): return kMinBlockSize if s<kMinBlockSize else kMinBlockSize*((s+kMinBlockSize-1)//kMinBlockSize)
def alloc_size(s):
    if s<=kSmallSize: return kSmallBuffer
    if s<kMinLargeAlloc: return kLargeBuffer
    return kRoundLarge*((s+kRoundLarge-1)//kRoundLarge)
class Block:
    __slots__=("seg","ptr","size","alloc","prev","next","small")
class Alloc:
    def __init__(self, capacity=None):
        self.free={True:[],False:[]}   # sorted lists of (size,ptr,id) per pool (small?)
        self.blocks={}; self.nid=0; self.nextptr=0
        self.reserved=0; self.peak_reserved=0; self.allocated=0; self.peak_alloc=0
        self.capacity=capacity; self.segs={}
    def _key(self,b): return (b.size,b.ptr,id(b))
    def _ins(self,b): bisect.insort(self.free[b.small],(b.size,b.ptr,b))
    def _rem(self,b):
        L=self.free[b.small]; i=bisect.bisect_left(L,(b.size,b.ptr)); 
        while L[i][2] is not b: i+=1
        L.pop(i)
    def malloc(self,nbytes):
        s=round_size(nbytes); small = s<=kSmallSize
        L=self.free[small]; i=bisect.bisect_left(L,(s,-1))
        if i<len(L):
            b=L[i][2]; L.pop(i)
        else:
            a=alloc_size(s)
            if self.capacity is not None and self.reserved+a>self.capacity:
                self.empty_cache()
                if self.reserved+a>self.capacity: raise MemoryError("OOM %.2f GiB"%(a/2**30))
            b=Block(); b.seg=self.nextptr; b.ptr=self.nextptr; self.nextptr+=a+(1<<30); b.size=a; b.alloc=False; b.prev=b.next=None; b.small=small
            self.reserved+=a; self.peak_reserved=max(self.peak_reserved,self.reserved); self.segs[b.seg]=a
        rem=b.size-s
        if (rem>=kMinBlockSize) if b.small else (rem>kSmallSize):
            r=Block(); r.seg=b.seg; r.ptr=b.ptr+s; r.size=rem; r.alloc=False; r.small=b.small
            r.prev=b; r.next=b.next
            if b.next: b.next.prev=r
            b.next=r; b.size=s; self._ins(r)
        b.alloc=True; self.allocated+=b.size; self.peak_alloc=max(self.peak_alloc,self.allocated)
        return b
    def release(self,b):
        b.alloc=False; self.allocated-=b.size
        for nb in (b.prev,b.next):
            if nb is not None and not nb.alloc:
                self._rem(nb)
                if nb is b.prev:
                    b.ptr=nb.ptr; b.size+=nb.size; b.prev=nb.prev
                    if nb.prev: nb.prev.next=b
                else:
                    b.size+=nb.size; b.next=nb.next
                    if nb.next: nb.next.prev=b
        self._ins(b)
    def empty_cache(self):
        for small in (True,False):
            keep=[]
            for t in self.free[small]:
                b=t[2]
                if b.prev is None and b.next is None:
                    self.reserved-=b.size; del self.segs[b.seg]
                else: keep.append(t)
            self.free[small]=keep
