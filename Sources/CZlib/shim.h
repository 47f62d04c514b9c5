#ifndef SECTIONAL_CZLIB_SHIM_H
#define SECTIONAL_CZLIB_SHIM_H
#include <string.h>
#include <zlib.h>

/// gzip-compresses `input` into `output` (at most `capacity` bytes) in one call.
/// Returns the compressed size, or 0 when it did not fit or zlib failed.
/// deflateInit2 is a macro, so Swift cannot call it directly.
static inline size_t sectional_gzip(const unsigned char *input, size_t length, unsigned char *output, size_t capacity, int level) {
    z_stream stream;
    memset(&stream, 0, sizeof stream);
    if (deflateInit2(&stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) return 0;
    stream.next_in = (unsigned char *)input;
    stream.avail_in = (uInt)length;
    stream.next_out = output;
    stream.avail_out = (uInt)capacity;
    int result = deflate(&stream, Z_FINISH);
    size_t written = capacity - stream.avail_out;
    deflateEnd(&stream);
    return result == Z_STREAM_END ? written : 0;
}

static inline size_t sectional_gzip_bound(size_t length) {
    return length + length / 1000 + 64;
}
#endif
