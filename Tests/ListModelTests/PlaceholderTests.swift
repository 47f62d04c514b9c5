import XCTest
@testable import ListModel
final class PlaceholderTests: XCTestCase { func testNothing() {} }
