// Hand-offs of an mbuf between cores that ThreadSanitizer cannot see: DPDK's
// rings synchronise with barriers and volatile accesses, partly inside
// uninstrumented libraries (tsan.supp). The side that lets go of a buffer
// declares a release on its address, the side that takes it an acquire, so
// the accesses in nanopu's own code before and after stay checked.
// No-ops outside TSan builds.
//
// Not covered: a buffer freed into DPDK's mempool on one thread and taken
// again on another (the mempool's ring is uninstrumented, and GCC 12's
// libtsan ignores AnnotateNewMemory: tried). In-process tests whose hosts
// run on several threads therefore stay out of the TSan run.
#pragma once

#if defined(__SANITIZE_THREAD__)
#include <sanitizer/tsan_interface.h>
#define NANOPU_TSAN_RELEASE(p) __tsan_release(p)
#define NANOPU_TSAN_ACQUIRE(p) __tsan_acquire(p)
#else
#define NANOPU_TSAN_RELEASE(p) ((void)(p))
#define NANOPU_TSAN_ACQUIRE(p) ((void)(p))
#endif
