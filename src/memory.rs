//! How the service uses glibc's allocator on a small host. tiny_http runs a thread
//! per connection, and glibc's defaults (an arena per thread, up to eight per core; a
//! cache of freed blocks in each thread; freed memory kept) make a long-running
//! process's size follow its busiest moment ever. Measured under 200 clients in
//! `tests/stress.rs`; the figures are in `tests/RELIABILITY.md`. Elsewhere than glibc
//! these do nothing.

/// glibc keeps a small cache of freed blocks in every thread (tcache). tiny_http runs
/// a thread per connection, and under 200 clients those caches held ~4 MB that never
/// went back (RSS 24 MB with them, 20 MB without, at the same throughput). They can
/// only be turned off before the process starts, by GLIBC_TUNABLES: so the service
/// starts itself again, once, with the tunable added. A tunable already set by the
/// person running it is kept; if the restart fails, the service runs as it is.
pub fn without_thread_caches() {
    #[cfg(target_env = "gnu")]
    {
        use std::os::unix::process::CommandExt;
        const TUNABLE: &str = "glibc.malloc.tcache_count=0";
        let current = std::env::var("GLIBC_TUNABLES").unwrap_or_default();
        if current.contains("glibc.malloc.tcache_count") {
            return;
        }
        let tunables = match current.as_str() {
            "" => TUNABLE.to_string(),
            other => format!("{other}:{TUNABLE}"),
        };
        let Ok(exe) = std::env::current_exe() else {
            return;
        };
        let e = std::process::Command::new(exe)
            .args(std::env::args_os().skip(1))
            .env("GLIBC_TUNABLES", tunables)
            .exec();
        log::warn!("running with glibc's thread caches: restarting without them failed: {e}");
    }
}

/// glibc gives each thread that allocates its own arena, up to eight per core, and
/// each keeps the memory it once held: with a thread per connection, the service's
/// memory would grow with the peak number of clients rather than with its work. Two
/// arenas are plenty for a service whose threads mostly wait (what MALLOC_ARENA_MAX=2
/// does). An explicit MALLOC_ARENA_MAX in the environment wins.
pub fn limit_malloc_arenas() {
    #[cfg(target_env = "gnu")]
    if std::env::var_os("MALLOC_ARENA_MAX").is_none() {
        // SAFETY: mallopt only sets an allocator parameter; called before the threads.
        unsafe {
            libc::mallopt(libc::M_ARENA_MAX, 2);
        }
    }
}

/// Freed memory stays with glibc's heaps, so the process's size would follow its
/// busiest moment ever rather than what it holds now. The maintenance thread hands
/// free pages back every ten seconds; it costs one walk of the heaps.
pub fn return_free_memory() {
    #[cfg(target_env = "gnu")]
    // SAFETY: malloc_trim only releases memory the allocator holds free.
    unsafe {
        libc::malloc_trim(0);
    }
}
