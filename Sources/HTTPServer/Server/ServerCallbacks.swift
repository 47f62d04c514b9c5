import CMicroHTTPD

// C trampolines: a C callback cannot capture context, so the server travels through `cls`.
// The daemon holds the server unretained and is stopped before the server is freed (`stop`, or
// `deinit`), so each callback borrows it (`_withUnsafeGuaranteedRef`) rather than retaining it:
// the server is referenced weakly and unowned elsewhere, which puts its count in a side table,
// and a retain and release there took the slow path on every callback, four pairs a request.
// Reference counting on a warm first page (`perf`, `wrk -t1 -c32`): 6.7% of the server's
// samples before, 4.6% after.

/// Lends the server behind `cls` to `body` without retaining it.
@inline(__always)
private func withServer<R>(_ cls: UnsafeMutableRawPointer, _ body: (Server) -> R) -> R {
    Unmanaged<Server>.fromOpaque(cls)._withUnsafeGuaranteedRef(body)
}

let uriLogger: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, OpaquePointer?) -> UnsafeMutableRawPointer? = {
    cls, uri, _ in
    guard let cls, let uri else { return nil }
    return withServer(cls) { $0.begin(uri: uri) }
}

let accessHandler: MHD_AccessHandlerCallback = { cls, connection, _, method, version, upload, uploadSize, context in
    guard let cls, let connection, let method, let uploadSize, let context else { return MHD_Result.NO }
    return withServer(cls) {
        $0.access(connection, method: method, version: version, upload: upload, uploadSize: uploadSize, context: context)
    }
}

let completedHandler: MHD_RequestCompletedCallback = { cls, connection, context, _ in
    guard let cls, let context else { return }
    withServer(cls) { $0.complete(connection, context) }
}

let messageHandler: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?) -> Void = { cls, message in
    guard let cls, let message else { return }
    withServer(cls) { $0.libraryMessage(message) }
}

let acceptPolicy: MHD_AcceptPolicyCallback = { cls, address, _ in
    guard let cls, let address else { return MHD_Result.NO }
    return withServer(cls) { $0.gate.admit(address) } ? MHD_Result.YES : MHD_Result.NO
}

/// Runs on the worker thread that takes the connection, for its start and its close (which comes
/// before libmicrohttpd closes the socket). The connection's ``ConnectionWatch`` is retained in
/// its `socket_context` from start to close.
let connectionNotice: MHD_NotifyConnectionCallback = { cls, connection, socketContext, event in
    guard let cls, let connection, let socketContext else { return }
    switch event.rawValue {
    case 0 /* MHD_CONNECTION_NOTIFY_STARTED */:
        withServer(cls) { server in
            server.pinning?.pinCallingThreadOnce()
            let watch = server.deadlines.watch(socket: sectional_mhd_connection_fd(connection))
            socketContext.pointee = Unmanaged.passRetained(watch).toOpaque()
        }
    case 1 /* MHD_CONNECTION_NOTIFY_CLOSED */:
        withServer(cls) { server in
            server.gate.release(sectional_mhd_client_address(connection))
            if let raw = socketContext.pointee {
                socketContext.pointee = nil
                let watch = Unmanaged<ConnectionWatch>.fromOpaque(raw).takeRetainedValue()
                server.deadlines.forget(watch)
            }
        }
    default: break
    }
}

/// The watch of `connection` (``RequestDeadlines``), unretained: the connection holds it until
/// it closes, after its last request completes.
@inline(__always)
func watch(of connection: OpaquePointer) -> Unmanaged<ConnectionWatch>? {
    sectional_mhd_socket_context(connection).map { Unmanaged<ConnectionWatch>.fromOpaque($0) }
}

let releaseBody: MHD_ContentReaderFreeCallback = { cls in
    guard let cls else { return }
    Unmanaged<ResponseBody>.fromOpaque(cls).release()
}

/// What the stream callbacks need: the stream, and the server to tell when it ends.
final class StreamContext {
    let stream: StreamBody
    unowned let server: Server
    init(stream: StreamBody, server: Server) {
        self.stream = stream
        self.server = server
    }
}

let readStream: MHD_ContentReaderCallback = { cls, _, buffer, max in
    guard let cls, let buffer else { return -1 }
    return Unmanaged<StreamContext>.fromOpaque(cls).takeUnretainedValue().stream.read(into: buffer, max: max)
}

let releaseStream: MHD_ContentReaderFreeCallback = { cls in
    guard let cls else { return }
    let context = Unmanaged<StreamContext>.fromOpaque(cls).takeRetainedValue()
    context.server.streamEnded(context.stream)
}
