import XCTest

/// A test case with a fresh PostgreSQL database of its own (``PostgresTestDatabase``) for each
/// test, made before it and dropped after it.
open class PostgresDatabaseTestCase: XCTestCase {
    /// This test's database; nil only outside a test.
    public private(set) var database: PostgresTestDatabase?

    override open func setUpWithError() throws {
        try super.setUpWithError()
        database = try PostgresTestDatabase(cluster: try PostgresTestDatabase.clusterURL())
    }

    override open func tearDown() {
        database?.drop()
        database = nil
        super.tearDown()
    }
}
