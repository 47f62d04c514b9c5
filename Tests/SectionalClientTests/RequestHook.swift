import Foundation
import SectionalClient

/// A token provider that runs an action just before a chosen later request of its client: a write
/// that lands between two requests of one mirror operation, the same way every run.
final class RequestHook: @unchecked Sendable {
    private let lock = NSLock()
    private var countdown = 0
    private var action: (@Sendable () async throws -> Void)?
    private var ran = false
    private let token: String?

    /// A hook whose requests carry `token`.
    init(token: String? = nil) { self.token = token }

    /// The provider to give the client.
    var provider: SectionalClient.TokenProvider {
        { [self] in
            if let action = take() { try await action() }
            return token
        }
    }

    /// Runs `action` before the `n`th request from now (1: the next one).
    func arm(before n: Int, _ action: @escaping @Sendable () async throws -> Void) {
        lock.withLock {
            countdown = n
            self.action = action
            ran = false
        }
    }

    /// Whether the armed action ran.
    var fired: Bool { lock.withLock { ran } }

    private func take() -> (@Sendable () async throws -> Void)? {
        lock.withLock {
            guard action != nil else { return nil }
            countdown -= 1
            guard countdown == 0 else { return nil }
            defer { action = nil }
            ran = true
            return action
        }
    }
}
