//! The test binary's global allocator: the system allocator, counting per thread the
//! allocations made (for `alloc_free`) and the live heap bytes with their peak (for
//! `embed_memory`). Per thread, so the other tests of this binary, running in parallel
//! threads, do not disturb a measurement. One allocator for both modules: a binary has
//! at most one `#[global_allocator]`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

struct Counting;

thread_local! {
    static ALLOCS: Cell<u64> = const { Cell::new(0) };
    static LIVE: Cell<i64> = const { Cell::new(0) };
    static PEAK: Cell<i64> = const { Cell::new(0) };
}

/// One allocation (`alloc`, `alloc_zeroed`, `realloc`) of this thread.
fn bump() {
    // `try_with`: thread-local storage may already be gone while a thread exits
    let _ = ALLOCS.try_with(|c| c.set(c.get() + 1));
}

/// This thread's live heap bytes changed by `by`.
fn grow(by: i64) {
    let _ = LIVE.try_with(|l| {
        let now = l.get() + by;
        l.set(now);
        let _ = PEAK.try_with(|p| p.set(p.get().max(now)));
    });
}

// SAFETY: forwards every call to the system allocator unchanged; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        bump();
        grow(layout.size() as i64);
        System.alloc(layout)
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        bump();
        grow(layout.size() as i64);
        System.alloc_zeroed(layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        bump();
        grow(new_size as i64 - layout.size() as i64);
        System.realloc(ptr, layout, new_size)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        grow(-(layout.size() as i64));
        System.dealloc(ptr, layout)
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// The allocations this thread has made so far.
pub fn allocs() -> u64 {
    ALLOCS.with(Cell::get)
}

/// The most heap this thread held above its level at the start, while `f` ran.
pub fn peak_above_start<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let start = LIVE.with(Cell::get);
    PEAK.with(|p| p.set(start));
    let out = f();
    (out, (PEAK.with(Cell::get) - start) as usize)
}
