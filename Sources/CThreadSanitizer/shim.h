#ifndef SECTIONAL_CTHREADSANITIZER_SHIM_H
#define SECTIONAL_CTHREADSANITIZER_SHIM_H
// ThreadSanitizer's annotations of a happens-before edge, as compiler-rt's
// <sanitizer/tsan_interface.h> declares them: a release on an address orders everything the
// releasing thread did before it before everything a thread does after a later acquire on the
// same address. Defined by TSan's runtime, so called only by builds that link it: `make tsan`
// compiles with SECTIONAL_TSAN (scripts/sanitize.sh), and `Locked` calls these only then.
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
#endif
