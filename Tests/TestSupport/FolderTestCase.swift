import Foundation
import XCTest

/// A new, unique folder path under the temporary directory (not yet created).
public func temporaryFolder() -> URL {
    FileManager.default.temporaryDirectory.appendingPathComponent("sectional-\(UUID().uuidString)")
}

/// A test case with a fresh, created folder per test (`folder`), removed after the test.
open class FolderTestCase: XCTestCase {
    public private(set) var folder: URL!

    override open func setUpWithError() throws {
        folder = temporaryFolder()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override open func tearDown() {
        try? FileManager.default.removeItem(at: folder)
    }
}
