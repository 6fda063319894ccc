/*
 * malloc_count.c - counts every heap allocation, per thread, by replacing
 * malloc, calloc, realloc, aligned_alloc, posix_memalign and memalign in the
 * executable.
 *
 * Because xlog-bench links xlog statically, these definitions serve the
 * library, glibc's own internal calls (fopen, vfprintf ...) and the bench
 * alike.  Each wrapper adds one to a thread-local counter and forwards to
 * glibc's allocator through its exported __libc_* entry points, so free() and
 * malloc_usable_size() keep working unchanged on every block.  The counter is
 * an initial-exec TLS variable: reading or bumping it never allocates.
 *
 * Under AddressSanitizer or ThreadSanitizer the sanitizer runtime replaces
 * malloc itself; the wrappers are left out and the count reads -1 ("not
 * counted").
 */
#include "malloc_count.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define MALLOC_OWNED_BY_SANITIZER 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define MALLOC_OWNED_BY_SANITIZER 1
#endif

#ifdef MALLOC_OWNED_BY_SANITIZER

int64_t malloc_calls_on_this_thread(void)
{
    return -1;
}

#else

#include <errno.h>
#include <stddef.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *block, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);

static __thread __attribute__((tls_model("initial-exec"))) int64_t allocation_calls;

int64_t malloc_calls_on_this_thread(void)
{
    return allocation_calls;
}

void *malloc(size_t size)
{
    allocation_calls++;
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size)
{
    allocation_calls++;
    return __libc_calloc(count, size);
}

void *realloc(void *block, size_t size)
{
    allocation_calls++;
    return __libc_realloc(block, size);
}

void *memalign(size_t alignment, size_t size)
{
    allocation_calls++;
    return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size)
{
    allocation_calls++;
    return __libc_memalign(alignment, size);
}

int posix_memalign(void **out, size_t alignment, size_t size)
{
    allocation_calls++;
    if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0)
        return EINVAL;
    void *block = __libc_memalign(alignment, size);
    if (block == NULL)
        return ENOMEM;
    *out = block;
    return 0;
}

#endif
