/// The wake-up call of an instance that follows the change log: a dedicated libpq connection that
/// `LISTEN`s on ``channel``, on which every commit sends `NOTIFY` with its last version (sent in
/// the commit's transaction, so it arrives only once the commit is visible).
///
/// Notifications are a hint, not the record: one missed while the connection was down is made
/// up for by the follower's periodic read of the change log. A connection found broken is closed;
/// the next ``wait(upTo:)`` connects afresh and listens again. The `LISTEN` is the connection's
/// session set-up, so a session the server ended while it idled (`pg_terminate_backend`,
/// `idle_session_timeout`), which the connection resets on its own, listens again too: it
/// listened to nothing after that, and the instance heard of other instances' commits only by
/// its once-a-second read. Used by one thread at a time.
public final class PostgresChangeListener: @unchecked Sendable {
    /// The channel commits notify on.
    static let channel = "sectional_changes"

    private let url: String
    private var connection: PostgresConnection?

    public init(url: String) { self.url = url }

    /// Waits up to `seconds` for a commit's notification; returns the highest version announced
    /// (0 when the payload says none), or nil on time-out. Throws when the database cannot be
    /// reached; call again to reconnect (the caller decides how long to back off).
    public func wait(upTo seconds: Double) throws(StoreError) -> Int64? {
        do {
            let connection = try listening()
            let payloads = try connection.notifications(waitingUpTo: seconds)
            guard !payloads.isEmpty else { return nil }
            return payloads.map { Int64($0) ?? 0 }.max() ?? 0
        } catch {
            connection?.close()
            connection = nil
            throw error.storeError
        }
    }

    /// Whether the listening connection is up (it may still be broken without knowing it yet).
    public var isConnected: Bool { connection != nil }

    /// The listening connection, made (and `LISTEN` sent) when there is none.
    private func listening() throws(PostgresError) -> PostgresConnection {
        if let connection { return connection }
        let fresh = try PostgresConnection(url: url, sessionSetup: "LISTEN \(Self.channel)")
        connection = fresh
        return fresh
    }

    public func close() {
        connection?.close()
        connection = nil
    }
}
