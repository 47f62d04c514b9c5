import CMicroHTTPD
import Glibc

/// What a request may take of libmicrohttpd's per-connection memory (its pool, 16 KiB by
/// default), which holds the request head and then the answer's header fields: whether an answer
/// fits after the request, and the query libmicrohttpd is left to parse.
extension Server {
    /// Leaves libmicrohttpd an empty query to parse. The server reads the query from its own copy
    /// of the target (``Request/rawURI``), and libmicrohttpd, which parses the query right after
    /// this callback, keeps a record of each parameter in the connection's 16 KiB of memory: past
    /// about 220 parameters it ran out, sent no answer and left the client waiting for the idle
    /// timeout (30 s). `uri` is the request line in libmicrohttpd's read buffer (its own, writable
    /// memory), and libmicrohttpd (0.9.75, and every release since 0.9.x) has found the `?` before
    /// calling back and parses what follows it: ending that text at once leaves it nothing to
    /// parse. Pinned by `LimitTests.testManyQueryParametersAreAnswered`.
    static func hideQuery(_ uri: UnsafePointer<CChar>) {
        guard let mark = strchr(uri, Int32(UInt8(ascii: "?"))) else { return }
        (mark + 1).pointee = 0
    }

    /// The bytes `headers` take in the answer's head, or nil when one holds a NUL byte (a C
    /// string would cut the value short).
    static func headerBytes(of headers: HTTPHeaders) -> Int? {
        var bytes = 0
        for (name, value) in headers {
            if holdsNUL(name) || holdsNUL(value) { return nil }
            bytes += name.utf8.count + value.utf8.count + 4
        }
        return bytes
    }

    /// Whether an answer whose fields take `headerBytes` fits in the connection's memory, which
    /// still holds the request head and its fields (an estimate of 64 bytes per field, 1 KiB for
    /// the status line, `Date`, `Content-Length` and `Connection`; none per query parameter,
    /// which libmicrohttpd is left no query to parse for: ``hideQuery(_:)``).
    func fits(_ headerBytes: Int, on connection: OpaquePointer, for exchange: Exchange) -> Bool {
        let bytes = 1024 + sectional_mhd_head_size(connection) + 64 * (exchange.headers.count + 1) + headerBytes
        return bytes <= configuration.connectionMemoryBytes
    }

    /// Whether an answer whose fields take `headerBytes` would fit after a minimal request head:
    /// when it does not fit after this one, the request took the room, not the answer.
    func fitsAlone(_ headerBytes: Int) -> Bool {
        1024 + 256 + headerBytes <= configuration.connectionMemoryBytes
    }

    /// Whether `text` holds a NUL byte: `memchr` over its contiguous UTF-8, read in place (the
    /// generic `utf8.contains` walked it byte by byte through the view's iterator, and a mutable
    /// copy for `withUTF8` cost 900 instructions for an answer's six fields, callgrind).
    private static func holdsNUL(_ text: String) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { $0.isEmpty ? false : memchr($0.baseAddress!, 0, $0.count) != nil }
            ?? text.utf8.contains(0)
    }
}
