#ifndef SECTIONAL_CMALLOC_SHIM_H
#define SECTIONAL_CMALLOC_SHIM_H
// glibc's allocator controls (malloc_trim), which Swift's Glibc module does not bring in.
#include <malloc.h>
#endif
