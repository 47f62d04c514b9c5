@testable import SectionalService
import TestSupport
import XCTest

/// A write route cannot forget the service-token check: every route under `/v1` that is not a
/// read is registered inside the service-token group, except the routes of a reader's own views
/// (reader state, checked against the list's read access inside the handler), which are named
/// here so that adding another unguarded write is a decision this test makes visible.
final class RouteGuardTests: XCTestCase {
    static let readerStateRoutes: Set<String> = [
        "POST /v1/lists/{list}/views",
        "DELETE /v1/lists/{list}/views/{view}",
        "PUT /v1/lists/{list}/views/{view}/sections/{index}",
        "POST /v1/lists/{list}/views/{view}/sections/{index}/toggle",
    ]

    func testEveryWriteRouteUnderV1IsInTheServiceTokenGroup() throws {
        let app = try TestApp(token: "route-guard-test-token")
        let writes = app.server.routes.filter { $0.template.hasPrefix("/v1/") && !$0.method.isRead }
        XCTAssertGreaterThanOrEqual(writes.count, 3 + Self.readerStateRoutes.count, "the writes: \(writes)")
        let unguarded = writes.filter { !$0.guards.contains(ServiceTokenGuard.name) }.map { "\($0.method) \($0.template)" }
        XCTAssertEqual(Set(unguarded), Self.readerStateRoutes,
                       "a write under /v1 outside the service-token group (register it in RecordRoutes' guarded group)")

        // The group's guard is the real check: each guarded write is refused without the token.
        for route in writes where route.guards.contains(ServiceTokenGuard.name) {
            let target = route.template.split(separator: "/").map { $0.hasPrefix("{") ? "x" : String($0) }.joined(separator: "/")
            let answer = try app.request(route.method.rawValue, "/" + target, json: "{}")
            XCTAssertEqual(answer.status, 401, "\(route.method) \(route.template) without the service token: \(answer.text)")
        }
    }
}
