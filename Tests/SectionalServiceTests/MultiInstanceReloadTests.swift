import Foundation
import Locking
@testable import SectionalService
import TestSupport
import XCTest

/// A config file re-read (`SIGHUP`) on every instance of one PostgreSQL database: the lists it
/// changes are served by all of them at one version, the one the first reload gave them, so an
/// `ETag` or a `since` from one instance holds on another. Each instance took a change number of
/// its own, and a list of literal rows stayed at three versions until a restart.
final class MultiInstanceReloadTests: PostgresDatabaseTestCase {
    /// `MultiInstance.config` with a list of literal rows added, titled `title`.
    private static func config(title: String) -> String {
        MultiInstance.config.replacingOccurrences(of: #""lists": {"#, with: """
            "lists": {
                "settings": { "title": "\(title)", "sections": [ { "key": "a", "title": "A", "rows": [ { "id": "r", "title": "R" } ] } ] },
            """)
    }

    func testOneFileReloadedOnEveryInstanceServesItsListsAtOneVersion() throws {
        let url = try XCTUnwrap(database).url
        let apps = try (0..<3).map { _ in try TestApp(config: Self.config(title: "Settings"), postgres: url, token: MultiInstance.token) }
        let ports = apps.map(\.port)
        try MultiInstance.request(ports[0], "PUT", "/v1/collections/people/records/p1", json: #"{"name":"Ada","team":"Sales"}"#).expect(201)
        let file = apps[0].folder.appendingPathComponent("edited.json")
        try Data(Self.config(title: "Settings, edited").replacingOccurrences(of: #""title": "Pinned""#, with: #""title": "Pinned, edited""#)
            .utf8).write(to: file)
        for app in apps { XCTAssertTrue(app.reload(file)) }

        for list in ["settings", "people"] {
            let answers = try ports.map { try MultiInstance.request($0, "GET", "/v1/lists/\(list)").expect(200) }
            XCTAssertEqual(Set(answers.map { $0.header("ETag") ?? "" }).count, 1, "\(list): \(answers.map { $0.header("ETag") ?? "" })")
            XCTAssertEqual(Set(answers.map(\.body)).count, 1, list)
            XCTAssertTrue(answers[0].text.contains("edited"), answers[0].text)
            let version = try answers[0].json.value("version", as: Int.self)
            for port in ports {
                let changes = try MultiInstance.request(port, "GET", "/v1/lists/\(list)/changes?since=\(version)").expect(200).json
                XCTAssertEqual(try changes.value("to", as: Int.self), version, "\(list) on \(port)")
            }
        }
        // Meeting again at the next write, as before.
        let written = MultiInstance.version(of: try MultiInstance.request(ports[1], "PUT", "/v1/collections/people/records/p2",
                                                                          json: #"{"name":"Bea","team":"Sales"}"#).expect(201))
        for port in ports { XCTAssertTrue(MultiInstance.catchUp(port, to: written)) }
        let pages = try ports.map { try MultiInstance.request($0, "GET", "/v1/lists/people/rows").expect(200).body }
        XCTAssertEqual(Set(pages).count, 1)
    }

    /// A reload that changes a per-user list too takes a number of its own for every list (one
    /// it cannot adopt makes it catch up to that number, which would move an adopted list's old
    /// state past the read it was built from): with another instance writing all the while,
    /// every record is still in the list on both instances once they meet at the next write.
    func testAReloadThatCannotAdoptEveryListLosesNoWrite() throws {
        let url = try XCTUnwrap(database).url
        let apps = try (0..<2).map { _ in try TestApp(config: Self.config(title: "Settings"), postgres: url, token: MultiInstance.token) }
        let (a, b) = (apps[0].port, apps[1].port)
        let file = apps[0].folder.appendingPathComponent("edited.json")
        try Data(Self.config(title: "Settings").replacingOccurrences(of: #""title": "Pinned""#, with: #""title": "Pinned, edited""#)
            .replacingOccurrences(of: #""type": "order", "title": "{title}""#, with: #""type": "order", "title": "Order {title}""#)
            .utf8).write(to: file)
        XCTAssertTrue(apps[0].reload(file))
        let stop = Locked(false)
        let written = Locked(0)
        let writer = Thread {
            var n = 0
            while !stop.withLock({ $0 }) {
                n += 1
                if (try? MultiInstance.request(a, "PUT", "/v1/collections/people/records/w\(n)", json: #"{"name":"W\#(n)","team":"Sales"}"#))?
                    .status == 201 { written.withLock { $0 = n } }
            }
        }
        writer.start()
        XCTAssertTrue(eventually { written.withLock { $0 } >= 5 })
        XCTAssertTrue(apps[1].reload(file))
        XCTAssertTrue(eventually { written.withLock { $0 } >= 20 })
        stop.withLock { $0 = true }
        XCTAssertTrue(eventually { writer.isFinished })
        let last = MultiInstance.version(of: try MultiInstance.request(a, "PUT", "/v1/collections/people/records/last",
                                                                       json: #"{"name":"Last","team":"Sales"}"#).expect(201))
        for port in [a, b] {
            XCTAssertTrue(MultiInstance.catchUp(port, to: last))
            let outline = try MultiInstance.request(port, "GET", "/v1/lists/people").expect(200).json
            XCTAssertEqual(try outline.value("totalRowCount", as: Int.self), written.withLock { $0 } + 2, "port \(port): every record, and the pinned row")
        }
        XCTAssertEqual(try MultiInstance.request(a, "GET", "/v1/lists/people/rows?pageSize=500").body,
                       try MultiInstance.request(b, "GET", "/v1/lists/people/rows?pageSize=500").body)
    }
}
