import Locking
#if canImport(Glibc)
import Glibc
#endif

/// What the server tells about its connections, for metrics.
public struct ConnectionStatistics: Sendable, Equatable {
    /// Connections open now.
    public var open = 0
    /// Connections closed at once because `connectionLimit` were already open.
    public var refusedAtLimit: UInt64 = 0
    /// Connections closed at once because their client address already had `perClientConnectionLimit` open.
    public var refusedPerClient: UInt64 = 0
    /// Connections closed because a request's head or body arrived too slowly (``RequestDeadlines``).
    public var closedTooSlow: UInt64 = 0

    public init() {}
}

/// Admits or refuses each new connection: at most `limit` open at once, at most `perClient`
/// (0: no limit) from one client address. A refused connection is closed before anything is read.
///
/// libmicrohttpd asks ``admit(_:)`` (its accept policy) right after `accept()` and reports each
/// admitted connection's end to ``release(_:)``; the slot is taken in `admit`, so two threads
/// accepting at once cannot both take the last one. Counting here rather than with
/// libmicrohttpd's own limits is what lets refusals show in metrics; libmicrohttpd's limit would
/// also leave excess connections waiting in the listen backlog instead of refusing them.
final class ConnectionGate: Sendable {
    private struct State {
        var statistics = ConnectionStatistics()
        var byClient: [ClientKey: Int] = [:]
    }

    let limit: Int
    let perClient: Int
    private let state = Locked(State())

    init(limit: Int, perClient: Int) {
        self.limit = limit
        self.perClient = perClient
    }

    /// Takes a slot for a connection from `address`; false when it must be refused.
    func admit(_ address: UnsafePointer<sockaddr>) -> Bool {
        let key = ClientKey(address)
        return state.withLock { state in
            if state.statistics.open >= limit {
                state.statistics.refusedAtLimit += 1
                return false
            }
            if perClient > 0, let key {
                let count = state.byClient[key, default: 0]
                if count >= perClient {
                    state.statistics.refusedPerClient += 1
                    return false
                }
                state.byClient[key] = count + 1
            }
            state.statistics.open += 1
            return true
        }
    }

    /// Gives back the slot of a connection from `address` that has closed.
    func release(_ address: UnsafePointer<sockaddr>?) {
        let key = address.flatMap(ClientKey.init)
        state.withLock { state in
            state.statistics.open = max(0, state.statistics.open - 1)
            guard perClient > 0, let key, let count = state.byClient[key] else { return }
            if count > 1 { state.byClient[key] = count - 1 } else { state.byClient.removeValue(forKey: key) }
        }
    }

    var statistics: ConnectionStatistics { state.withLock { $0.statistics } }
}

/// A client's IP address as 128 bits (IPv4 as its IPv4-mapped IPv6 form), without the port.
struct ClientKey: Hashable {
    let high: UInt64
    let low: UInt64

    init?(_ address: UnsafePointer<sockaddr>) {
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            let ip = UnsafeRawPointer(address).assumingMemoryBound(to: sockaddr_in.self).pointee.sin_addr.s_addr
            high = 0
            low = 0xFFFF_0000_0000 | UInt64(UInt32(bigEndian: ip))
        case AF_INET6:
            let bytes = UnsafeRawPointer(address).assumingMemoryBound(to: sockaddr_in6.self).pointee.sin6_addr
            let words = withUnsafeBytes(of: bytes) { raw in
                (raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self), raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
            }
            (high, low) = (UInt64(bigEndian: words.0), UInt64(bigEndian: words.1))
        default:
            return nil
        }
    }
}
