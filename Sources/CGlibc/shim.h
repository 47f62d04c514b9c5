#ifndef SECTIONAL_CGLIBC_SHIM_H
#define SECTIONAL_CGLIBC_SHIM_H
// What glibc has and Swift's Glibc module does not bring in: the allocator's controls
// (malloc_trim) and, behind _GNU_SOURCE, a thread's CPU affinity and `sync_file_range`.
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

/// Keeps the calling thread on CPU `cpu` alone (a macro-built `cpu_set_t`, which Swift cannot
/// make): 0, or an errno value (`EINVAL` for a CPU outside the process's mask or past `CPU_SETSIZE`).
static inline int sectional_pin_calling_thread(int cpu) {
    if (cpu < 0 || cpu >= CPU_SETSIZE) return EINVAL;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

/// Lets the calling thread run wherever the process's main thread may (whose mask is the one
/// `taskset` or a container gave the process): 0, or an errno value.
static inline int sectional_free_calling_thread(void) {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(getpid(), sizeof set, &set) != 0) return errno;
    return pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

/// Asks the kernel to start writing bytes `offset ..< offset + count` of `fd` to its disk, and
/// returns without waiting for them (`sync_file_range` with `SYNC_FILE_RANGE_WRITE`: nothing is
/// made durable, metadata untouched): 0, or an errno value.
static inline int sectional_start_writeback(int fd, off_t offset, off_t count) {
    return sync_file_range(fd, offset, count, SYNC_FILE_RANGE_WRITE) == 0 ? 0 : errno;
}
#endif
