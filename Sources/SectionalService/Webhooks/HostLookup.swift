#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Foundation
import Synchronization

/// One address of a webhook's host, copied out of `getaddrinfo`'s list.
struct HostAddress: Sendable {
    let family: Int32
    let socketType: Int32
    let socketProtocol: Int32
    /// The `sockaddr` itself.
    let bytes: [UInt8]
}

/// Name resolution for webhook deliveries, bounded like the rest of an exchange.
///
/// `getaddrinfo` takes as long as the system's resolver does (with a DNS server that never
/// answers: its timeout times its attempts, for each search domain — tens of seconds) and
/// cannot be interrupted. So the lookup runs on a thread of its own, and a delivery waits for it
/// only until its deadline or the server's stop; a lookup given up finishes on its own thread
/// later. One lookup of a host and port runs at a time: a delivery that finds one still running
/// (an earlier delivery's, given up) waits for that one instead of starting another, so
/// deliveries retried every few seconds to a host whose name server never answers hold one
/// thread, not one more per attempt until the first lookups end.
final class HostLookup: Sendable {
    /// A blocking lookup of `host`'s addresses for `port`.
    typealias Lookup = @Sendable (_ host: String, _ port: Int) -> Result<[HostAddress], HTTPPoster.Failure>

    /// The system's resolver, shared by every delivery.
    static let system = HostLookup(systemLookup)

    private let lookup: Lookup
    /// The lookups running, by host and port.
    private let running = Mutex<[String: Answer]>([:])

    /// Lookups made with `lookup` (tests give one that hangs).
    init(_ lookup: @escaping Lookup) { self.lookup = lookup }

    /// `host`'s addresses for `port` (from the lookup running for them, or a new one), or a failure
    /// once `deadline` passes or the server stops first.
    func addresses(of host: String, port: Int, until deadline: HTTPPoster.Deadline) -> Result<[HostAddress], HTTPPoster.Failure> {
        let key = "\(host):\(port)"
        let (answer, started) = running.withLock { running -> (Answer, Bool) in
            if let answer = running[key] { return (answer, false) }
            let answer = Answer()
            running[key] = answer
            return (answer, true)
        }
        if started {
            let thread = Thread { [self] in
                let result = lookup(host, port)
                running.withLock { _ = $0.removeValue(forKey: key) }
                answer.finish(result)
            }
            thread.name = "sectional.webhook.lookup"
            thread.start()
        }
        while !deadline.stopping() {
            let milliseconds = deadline.millisecondsLeft
            guard milliseconds > 0 else { break }
            if answer.done.wait(timeout: .now() + .milliseconds(Int(min(milliseconds, HTTPPoster.stopCheckMilliseconds)))) == .success,
               let result = answer.result.withLock({ $0 }) {
                return result
            }
        }
        return .failure(deadline.failure("timed out resolving \(host)"))
    }

    /// A lookup's answer, shared with its thread (which may outlive the waits for it) and with
    /// every delivery waiting for it.
    private final class Answer: Sendable {
        let result = Mutex<Result<[HostAddress], HTTPPoster.Failure>?>(nil)
        /// Left once the result is in: every waiter's wait then ends.
        let done = DispatchGroup()

        init() { done.enter() }

        func finish(_ result: Result<[HostAddress], HTTPPoster.Failure>) {
            self.result.withLock { $0 = result }
            done.leave()
        }
    }

    /// The system's resolver (`getaddrinfo`: `/etc/hosts`, DNS, …), blocking.
    static func systemLookup(host: String, port: Int) -> Result<[HostAddress], HTTPPoster.Failure> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let resolved = getaddrinfo(host, String(port), &hints, &list)
        guard resolved == 0, let first = list else {
            return .failure(HTTPPoster.Failure(description: "cannot resolve \(host): \(String(cString: gai_strerror(resolved)))"))
        }
        defer { freeaddrinfo(first) }
        var addresses: [HostAddress] = []
        var next: UnsafeMutablePointer<addrinfo>? = first
        while let entry = next {
            next = entry.pointee.ai_next
            guard let address = entry.pointee.ai_addr else { continue }
            let bytes = Array(UnsafeRawBufferPointer(start: address, count: Int(entry.pointee.ai_addrlen)))
            addresses.append(HostAddress(family: entry.pointee.ai_family, socketType: entry.pointee.ai_socktype,
                                         socketProtocol: entry.pointee.ai_protocol, bytes: bytes))
        }
        return .success(addresses)
    }
}
