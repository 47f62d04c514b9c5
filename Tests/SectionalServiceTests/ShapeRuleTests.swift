import Foundation
import TestSupport
import XCTest

/// One shape rule for every answer: an optional member is absent, never `null`. Records are the
/// callers' own data and are served as written, so a record's body (and a row's raw `data`) may
/// hold `null`; nothing Sectional adds around them does.
final class ShapeRuleTests: XCTestCase {
    func testNoAnswerHoldsANullMember() throws {
        let app = try TestApp()
        try app.seed([("p1", "Ada", "Design"), ("p2", "bot Grace", "Ops"), ("p3", "Linus", "Archived")])
        let before = try app.version()
        try app.put("people", "p4", #"{"name":"Zoe","team":"Design","email":null}"#).expect(201)
        let view = try app.createView()
        let token = try app.get("/v1/lists/people/rows?pageSize=1").json.value("nextPageToken", as: String.self)
        let targets = [
            "/v1/lists", "/v1/lists/people", "/v1/lists/people/rows?pageSize=2", "/v1/lists/people/rows?pageSize=1&pageToken=\(token)",
            "/v1/lists/people/sections", "/v1/lists/people/sections/1/rows?start=0&count=2",
            "/v1/lists/people/index-path?sectionType=team&rowType=bot", "/v1/lists/people/tags/3", "/v1/lists/people/rows/p1",
            "/v1/lists/people/changes?since=\(before)", "/v1/lists/people/views/\(view)", "/v1/lists/people/rows?view=\(view)",
            "/v1/lists/people/definition", "/v1/lists/people/rows/nobody", "/v1/lists/nothing", "/healthz", "/readyz",
        ]
        var answers: [(String, HTTPTestClient.Answer)] = try targets.map { ($0, try app.get($0)) }
        answers.append(("toggle", try app.request("POST", "/v1/lists/people/views/\(view)/sections/1/toggle")))
        answers.append(("put", try app.put("people", "p5", #"{"name":"Max","team":"Ops"}"#)))
        answers.append(("batch", try app.request("POST", "/v1/collections/people/batch", json: #"{"upsert":[{"id":"p6","name":"Ida"}],"delete":["p5"]}"#)))
        answers.append(("bad batch", try app.request("POST", "/v1/collections/people/batch", json: #"{"upsert":5}"#)))
        for (target, answer) in answers {
            XCTAssertFalse(answer.body.isEmpty, target)
            let value = try JSONSerialization.jsonObject(with: Data(answer.body), options: [.fragmentsAllowed])
            XCTAssertEqual(nullMembers(in: value, at: "$"), [], "\(target) (\(answer.status)): \(answer.text)")
        }
        // The record itself keeps its own null, as written.
        XCTAssertTrue(try app.get("/v1/collections/people/records/p4").text.contains(#""email":null"#))
    }

    /// Paths of `null` values, outside rows' raw `data`.
    private func nullMembers(in value: Any, at path: String) -> [String] {
        switch value {
        case is NSNull: return [path]
        case let object as [String: Any]:
            return object.sorted { $0.key < $1.key }.flatMap { key, member in key == "data" ? [] : nullMembers(in: member, at: "\(path).\(key)") }
        case let array as [Any]:
            return array.enumerated().flatMap { nullMembers(in: $1, at: "\(path)[\($0)]") }
        default: return []
        }
    }
}
