//! The caching allocator's replay (`src/ledger/caching_allocator.rs`): each expected figure is hand
//! arithmetic from the rules of PyTorch's `c10/cuda/CUDACachingAllocator.cpp` the module names
//! (512 B rounding, 2 MiB small segments, 20 MiB large segments below 10 MiB, 2 MiB rounding above,
//! best fit, splitting, merging, giving cached segments back when the card is full).

use vram_ledger::ledger::caching_allocator::CachingAllocator;

const MIB: u64 = 1 << 20;
const CARD: u64 = 80 << 30;

/// A block that grows, each larger one asked for before the last is freed (a cache concatenated
/// layer after layer): no freed block holds the next, so each takes a segment of its own.
/// 30 + 60 + 90 MiB reserved; at most 60 + 90 MiB live at once.
#[test]
fn a_growing_block_reserves_every_size_it_passed_through() {
    let mut a = CachingAllocator::new(CARD);
    let first = a.malloc(30 * MIB);
    let second = a.malloc(60 * MIB);
    a.free(first);
    let third = a.malloc(90 * MIB);
    a.free(second);
    a.free(third);
    assert_eq!(a.peak_reserved(), 180 * MIB);
    assert_eq!(a.peak_allocated(), 150 * MIB);
}

/// A freed block is split for a smaller request (what remains, 40 MiB, is more than 1 MiB), and
/// freed neighbours merge again: two 40 MiB blocks and the 20 MiB rest of one 100 MiB segment
/// become one block that holds 100 MiB without a new segment.
#[test]
fn freed_blocks_split_and_merge_within_their_segment() {
    let mut a = CachingAllocator::new(CARD);
    let whole = a.malloc(100 * MIB);
    a.free(whole);
    let left = a.malloc(40 * MIB);
    let middle = a.malloc(40 * MIB);
    assert_eq!(a.peak_reserved(), 100 * MIB, "both came out of the cached segment");
    a.free(left);
    a.free(middle);
    let again = a.malloc(100 * MIB);
    a.free(again);
    assert_eq!(a.peak_reserved(), 100 * MIB);
    assert_eq!(a.peak_allocated(), 100 * MIB);
}

/// A block whose rest would be 1 MiB or less is not split: 101 MiB asked of a cached 102 MiB
/// block takes all of it (allocated counts the block).
#[test]
fn a_block_is_not_split_for_a_rest_of_a_mebibyte() {
    let mut a = CachingAllocator::new(CARD);
    let first = a.malloc(102 * MIB);
    a.free(first);
    let _second = a.malloc(101 * MIB);
    assert_eq!(a.peak_allocated(), 102 * MIB);
    assert_eq!(a.peak_reserved(), 102 * MIB);
}

/// Segment sizes: up to 1 MiB a 2 MiB small segment (a second small request shares it); below
/// 10 MiB a 20 MiB segment, whose 15 MiB rest then holds an 11 MiB request; above 10 MiB with no
/// cached block that holds it, the request rounded up to 2 MiB (17 MiB + 1 B → 18 MiB).
#[test]
fn segments_are_sized_by_pool() {
    let mut a = CachingAllocator::new(CARD);
    let _tiny = a.malloc(1000);
    let _tiny_too = a.malloc(1000);
    assert_eq!(a.peak_reserved(), 2 * MIB);
    let _medium = a.malloc(5 * MIB);
    assert_eq!(a.peak_reserved(), 22 * MIB);
    let _from_the_rest = a.malloc(11 * MIB + 1);
    assert_eq!(a.peak_reserved(), 22 * MIB);
    let _large = a.malloc(17 * MIB + 1);
    assert_eq!(a.peak_reserved(), 40 * MIB);
    // 512 B rounding: 1,000 B is a 1,024 B block, 11 MiB + 1 B takes 512 B more; 17 MiB + 512 B
    // leaves 1 MiB − 512 B of its 18 MiB segment, too little to split, so the block is all of it.
    assert_eq!(a.peak_allocated(), 2 * 1024 + 5 * MIB + 11 * MIB + 512 + 18 * MIB);
}

/// On a full card the cached segments with nothing in them are given back before a new one is
/// made: 100 MiB freed, then 120 MiB asked on a 150 MiB card → 120 MiB reserved, never 220.
#[test]
fn a_full_card_gives_cached_segments_back() {
    let mut a = CachingAllocator::new(150 * MIB);
    let first = a.malloc(100 * MIB);
    a.free(first);
    let _second = a.malloc(120 * MIB);
    assert_eq!(a.peak_reserved(), 120 * MIB);
}
