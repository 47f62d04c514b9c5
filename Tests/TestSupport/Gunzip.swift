import CZlib

/// Decompresses one gzip member with zlib, checking its header, CRC-32 and length trailer; bytes
/// after the member, a truncated member or a bad checksum throw.
public func gunzip(_ compressed: [UInt8]) throws -> [UInt8] {
    struct Failure: Error, CustomStringConvertible { let description: String }
    var stream = z_stream()
    // 15 + 16: a 32 KiB window, gzip wrapping only (zlib checks the trailer itself).
    guard inflateInit2_(&stream, 15 + 16, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
        throw Failure(description: "inflateInit2 failed")
    }
    defer { inflateEnd(&stream) }
    var input = compressed
    var output: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    let result: Int32 = input.withUnsafeMutableBufferPointer { source in
        stream.next_in = source.baseAddress
        stream.avail_in = UInt32(source.count)
        var status = Z_OK
        while status == Z_OK {
            status = chunk.withUnsafeMutableBufferPointer { target in
                stream.next_out = target.baseAddress
                stream.avail_out = UInt32(target.count)
                let status = inflate(&stream, Z_NO_FLUSH)
                output += target[..<(target.count - Int(stream.avail_out))]
                return status
            }
            if status == Z_BUF_ERROR && stream.avail_in == 0 { break }   // input ended inside the member
        }
        return status
    }
    guard result == Z_STREAM_END else {
        let message = stream.msg.map { String(cString: $0) } ?? "no message"
        throw Failure(description: "not a complete gzip member: zlib status \(result) (\(message))")
    }
    guard stream.avail_in == 0 else { throw Failure(description: "\(stream.avail_in) bytes after the gzip member") }
    return output
}
