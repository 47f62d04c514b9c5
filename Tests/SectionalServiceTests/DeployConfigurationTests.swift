import Foundation
import ListModel
import SectionalService
import XCTest

/// `deploy/sectional.json` is the demo's config (`config/sectional.json`) for several instances:
/// the same lists, on PostgreSQL, listening on all interfaces. The README's examples are run
/// against the demo; this keeps the deployment's copy of its lists from drifting away from them.
final class DeployConfigurationTests: XCTestCase {
    private static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The parsed JSON of a file in the repository.
    private func json(_ path: String) throws -> JSONValue {
        try JSONParser.parse(Array(try Data(contentsOf: Self.repository.appendingPathComponent(path))))
    }

    func testTheDeploymentServesTheDemosListsInTheSameOrder() throws {
        let demo = try XCTUnwrap(try json("config/sectional.json")["lists"]?.objectValue, "the demo config has lists")
        let deploy = try XCTUnwrap(try json("deploy/sectional.json")["lists"]?.objectValue, "the deploy config has lists")
        // `GET /v1/lists` answers them in the file's order, so the order is part of the contract.
        XCTAssertEqual(deploy.members.map(\.key), demo.members.map(\.key), "the same lists, in the same order")
        for (name, definition) in demo.members {
            XCTAssertEqual(deploy[name], definition, "list \(name) in deploy/sectional.json differs from config/sectional.json")
        }
    }

    func testTheDeploymentIsOnPostgreSQLListeningOnAllInterfaces() throws {
        let deploy = try json("deploy/sectional.json")
        XCTAssertEqual(deploy["storage"]?["kind"]?.stringValue, "postgres")
        XCTAssertEqual(deploy["server"]?["host"]?.stringValue, "0.0.0.0")
    }
}
