import ListStore
import XCTest

/// Database URLs are logged without their passwords.
final class PostgresURLTests: XCTestCase {
    func testPasswordsAreRedactedForLogs() {
        XCTAssertEqual(PostgresStore.redacting("postgresql://app:s3cret@db:5432/sectional"), "postgresql://app:***@db:5432/sectional")
        XCTAssertEqual(PostgresStore.redacting("postgresql://app@db/sectional?password=s3cret&sslmode=require"),
                       "postgresql://app@db/sectional?password=***&sslmode=require")
        XCTAssertEqual(PostgresStore.redacting("host=db password=s3cret dbname=x"), "host=db password=*** dbname=x")
        XCTAssertEqual(PostgresStore.redacting("postgresql://app@db/sectional"), "postgresql://app@db/sectional")
    }
}
