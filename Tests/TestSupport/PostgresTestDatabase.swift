import Foundation

/// A fresh PostgreSQL database for one test, made in the cluster `scripts/with-postgres.sh` runs
/// (`SECTIONAL_TEST_DATABASE_URL`) and dropped by ``drop()``. Without that variable
/// ``clusterURL()`` throws, so the test fails rather than skip: the cluster is part of the suite.
public final class PostgresTestDatabase {
    /// The URL of the new database.
    public let url: String
    public let name: String
    private let adminURL: String

    /// Why a PostgreSQL test cannot run here.
    public static let missing = "SECTIONAL_TEST_DATABASE_URL is not set: run the tests through scripts/with-postgres.sh (make test does)"

    /// The cluster's URL; an error (the test fails, it never skips) when there is none.
    public static func clusterURL() throws -> String {
        guard let url = ProcessInfo.processInfo.environment["SECTIONAL_TEST_DATABASE_URL"], !url.isEmpty else {
            throw PostgresTestDatabaseError(message: missing)
        }
        return url
    }

    /// Creates a new database in the cluster at `admin`.
    public init(cluster admin: String) throws {
        guard var components = URLComponents(string: admin) else {
            throw PostgresTestDatabaseError(message: "SECTIONAL_TEST_DATABASE_URL is not a URL: \(admin)")
        }
        adminURL = admin
        name = "test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        components.path = "/" + name
        guard let url = components.string else { throw PostgresTestDatabaseError(message: "cannot build a URL from \(admin)") }
        self.url = url
        try Self.run("CREATE DATABASE \(name)", url: admin)
    }

    /// Drops the database, ending any connection still open to it.
    public func drop() {
        try? Self.run("DROP DATABASE IF EXISTS \(name) WITH (FORCE)", url: adminURL)
    }

    /// Runs statements in the test database and returns the last one's rows, values as text.
    @discardableResult
    public func query(_ sql: String) throws -> [[String?]] { try Self.run(sql, url: url) }

    @discardableResult
    private static func run(_ sql: String, url: String) throws -> [[String?]] {
        try PostgresTestSession(url: url).query(sql)
    }
}

public struct PostgresTestDatabaseError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}
