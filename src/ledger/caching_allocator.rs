//! PyTorch's CUDA caching allocator, replayed: what a sequence of allocations and frees leaves
//! reserved. Where a forward's tensors grow from layer to layer (a cache concatenated layer after
//! layer), the blocks they free rarely hold the next request, and the reserved memory runs far
//! beyond the live tensors; a share of the live bytes does not describe it, a replay does.
//!
//! The rules are `c10/cuda/CUDACachingAllocator.cpp`'s without `PYTORCH_CUDA_ALLOC_CONF`:
//! - a request is rounded up to 512 B (`kMinBlockSize`);
//! - requests up to 1 MiB (`kSmallSize`) come from the small pool, whose segments are 2 MiB
//!   (`kSmallBuffer`); larger ones from the large pool, whose segments are 20 MiB (`kLargeBuffer`)
//!   below 10 MiB (`kMinLargeAlloc`) and the request rounded up to 2 MiB (`kRoundLarge`) above;
//! - a request takes the smallest cached free block of its pool that holds it (`get_free_block`,
//!   a set ordered by size, then address), and a new segment only when none does;
//! - the block is split when what remains is at least 512 B in the small pool, more than 1 MiB
//!   in the large (`should_split`);
//! - a freed block merges with free neighbours of its segment (`free_block`);
//! - when a new segment would pass the card, the cached segments with nothing allocated in them
//!   are given back first (`release_cached_blocks`, the retry after `cudaMalloc` fails).

const MIN_BLOCK: u64 = 512;
const SMALL_SIZE: u64 = 1 << 20;
const SMALL_BUFFER: u64 = 2 << 20;
const LARGE_BUFFER: u64 = 20 << 20;
const MIN_LARGE_ALLOC: u64 = 10 << 20;
const ROUND_LARGE: u64 = 2 << 20;
const NONE: usize = usize::MAX;

/// One block of a segment: its pool, where it starts, its size, whether it is free, and its
/// neighbours in the segment (`NONE` at an end).
#[derive(Clone, Copy, Debug)]
struct Block {
    small: bool,
    segment: usize,
    offset: u64,
    size: u64,
    free: bool,
    previous: usize,
    next: usize,
}

/// A handle to an allocated block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Allocation(usize);

/// The allocator's state: every block ever made (merged ones stay, unused), the cached free
/// blocks the allocator searches, and the totals it reports.
#[derive(Clone, Debug, Default)]
pub struct CachingAllocator {
    blocks: Vec<Block>,
    /// Each pool's free blocks (the small pool's, the large pool's), sorted as `get_free_block`
    /// searches them: (size, segment, offset, index).
    cached: [Vec<(u64, usize, u64, usize)>; 2],
    /// Each segment's bytes (0 once given back).
    segments: Vec<u64>,
    capacity: u64,
    allocated: u64,
    reserved: u64,
    peak_allocated: u64,
    peak_reserved: u64,
}

impl CachingAllocator {
    /// An allocator on a card with `capacity` bytes for the process's tensors.
    pub fn new(capacity: u64) -> Self {
        Self { capacity, ..Self::default() }
    }

    /// The most bytes allocated at once (`torch.cuda.max_memory_allocated`).
    pub fn peak_allocated(&self) -> u64 {
        self.peak_allocated
    }

    /// The most bytes reserved at once (`torch.cuda.max_memory_reserved`).
    pub fn peak_reserved(&self) -> u64 {
        self.peak_reserved
    }

    fn key(&self, index: usize) -> (u64, usize, u64, usize) {
        let b = &self.blocks[index];
        (b.size, b.segment, b.offset, index)
    }

    fn cache(&mut self, index: usize) {
        let key = self.key(index);
        let pool = &mut self.cached[usize::from(!self.blocks[index].small)];
        let at = pool.partition_point(|c| *c < key);
        pool.insert(at, key);
    }

    fn uncache(&mut self, index: usize) {
        let key = self.key(index);
        let pool = &mut self.cached[usize::from(!self.blocks[index].small)];
        if let Ok(at) = pool.binary_search(&key) {
            pool.remove(at);
        }
    }

    /// Allocates `bytes` (0 is a 512 B block, as PyTorch's).
    pub fn malloc(&mut self, bytes: u64) -> Allocation {
        let size = bytes.div_ceil(MIN_BLOCK).max(1).saturating_mul(MIN_BLOCK);
        let small = size <= SMALL_SIZE;
        let pool = &mut self.cached[usize::from(!small)];
        let at = pool.partition_point(|c| c.0 < size);
        let index = if at < pool.len() { pool.remove(at).3 } else { self.new_segment(size, small) };
        let block = self.blocks[index];
        let rest = block.size - size;
        let split = if small { rest >= MIN_BLOCK } else { rest > SMALL_SIZE };
        if split {
            let new = self.blocks.len();
            self.blocks.push(Block { offset: block.offset + size, size: rest, free: true, previous: index, ..block });
            if block.next != NONE {
                self.blocks[block.next].previous = new;
            }
            self.blocks[index].next = new;
            self.blocks[index].size = size;
            self.cache(new);
        }
        self.blocks[index].free = false;
        self.allocated = self.allocated.saturating_add(self.blocks[index].size);
        self.peak_allocated = self.peak_allocated.max(self.allocated);
        Allocation(index)
    }

    /// Frees an allocation: its block merges with its segment's free neighbours and is cached.
    pub fn free(&mut self, a: Allocation) {
        let mut index = a.0;
        if self.blocks[index].free {
            return;
        }
        self.blocks[index].free = true;
        self.allocated = self.allocated.saturating_sub(self.blocks[index].size);
        let next = self.blocks[index].next;
        if next != NONE && self.blocks[next].free {
            self.uncache(next);
            self.absorb(index, next);
        }
        let previous = self.blocks[index].previous;
        if previous != NONE && self.blocks[previous].free {
            self.uncache(previous);
            self.absorb(previous, index);
            index = previous;
        }
        self.cache(index);
    }

    /// Merges block `b` into the block `a` before it.
    fn absorb(&mut self, a: usize, b: usize) {
        let after = self.blocks[b].next;
        self.blocks[a].size = self.blocks[a].size.saturating_add(self.blocks[b].size);
        self.blocks[a].next = after;
        if after != NONE {
            self.blocks[after].previous = a;
        }
        self.blocks[b] = Block { size: 0, free: false, previous: NONE, next: NONE, ..self.blocks[b] };
    }

    /// A new segment holding `size` (its one block, handed to the caller, not cached), after
    /// giving back the cached segments with nothing allocated when it would not fit the card beside
    /// what is reserved.
    fn new_segment(&mut self, size: u64, small: bool) -> usize {
        let bytes = match () {
            _ if small => SMALL_BUFFER,
            _ if size < MIN_LARGE_ALLOC => LARGE_BUFFER,
            _ => size.div_ceil(ROUND_LARGE).saturating_mul(ROUND_LARGE),
        };
        if self.reserved.saturating_add(bytes) > self.capacity {
            self.release_cached();
        }
        let segment = self.segments.len();
        self.segments.push(bytes);
        self.blocks.push(Block { small, segment, offset: 0, size: bytes, free: true, previous: NONE, next: NONE });
        self.reserved = self.reserved.saturating_add(bytes);
        self.peak_reserved = self.peak_reserved.max(self.reserved);
        self.blocks.len() - 1
    }

    /// Gives back every segment that is one free block.
    fn release_cached(&mut self) {
        let blocks = &self.blocks;
        let whole: Vec<usize> = self
            .cached
            .iter()
            .flatten()
            .filter(|c| c.2 == 0 && blocks[c.3].next == NONE && self.segments[c.1] == c.0)
            .map(|c| c.3)
            .collect();
        for index in whole {
            self.uncache(index);
            let segment = self.blocks[index].segment;
            self.reserved = self.reserved.saturating_sub(self.segments[segment]);
            self.segments[segment] = 0;
            self.blocks[index].size = 0;
            self.blocks[index].free = false;
        }
    }
}
