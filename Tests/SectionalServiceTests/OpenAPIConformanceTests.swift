import Foundation
import TestSupport
import XCTest

/// The served OpenAPI document describes what the server really sends and accepts, where
/// schemathesis (`make check`) cannot judge it alone: the event stream, event by event, the
/// exact body of `PUT …/views/{view}/sections/{index}`, and the answers to `minVersion` and a
/// read's `If-Match` (which schemathesis is told to send as `0` and `*`).
final class OpenAPIConformanceTests: XCTestCase {
    func testEveryEventOfTheStreamMatchesTheDocumentedEventSchema() throws {
        let app = try TestApp()
        try app.seed([("p1", "Ada", "Design")])
        let schemas = try XCTUnwrap(try documentSchemas(app))
        let media = try XCTUnwrap(try operation(app, "/v1/lists/{list}/events", "get")?["responses"]
            .flatMap { ($0 as? [String: Any])?["200"] as? [String: Any] }?["content"] as? [String: Any])
        let schemaRef = try XCTUnwrap((media["text/event-stream"] as? [String: Any])?["schema"] as? [String: Any])
        XCTAssertEqual(schemaRef["$ref"] as? String, "#/components/schemas/VersionEvent", "each event is described, not the stream as one string")
        let schema = try XCTUnwrap(schemas["VersionEvent"] as? [String: Any])

        let client = try HTTPTestClient(port: app.port, timeoutSeconds: 5)
        try client.send("GET /v1/lists/people/events HTTP/1.1\r\nHost: x\r\n\r\n")
        var received = try client.readUntil("}\n\n")
        XCTAssertEqual(try app.put("people", "p2", #"{"name":"Grace","team":"Ops"}"#).status, 201)
        received += try client.readUntil("\"version\":\(try app.version())}\n\n")
        let events = serverSentEvents(inChunkedBody: received)
        XCTAssertEqual(events.count, 2, "the current version at once, then the write's: \(received)")
        for event in events {
            try assertConforms(event, to: schema)
        }
    }

    func testTheSectionVisibilityBodyIsDocumentedAsExactlyWhatIsAccepted() throws {
        let app = try TestApp()
        try app.seed([("p1", "Ada", "Design")])
        let schema = try XCTUnwrap(try documentSchemas(app)?["SectionVisibility"] as? [String: Any])
        XCTAssertEqual(schema["required"] as? [String], ["hidden"])
        XCTAssertEqual(Set((schema["properties"] as? [String: Any] ?? [:]).keys), ["hidden", "key"])
        XCTAssertEqual(schema["additionalProperties"] as? Bool, false, "the server refuses any other member")
        let view = try app.createView()
        let target = "/v1/lists/people/views/\(view)/sections/1"
        XCTAssertEqual(try app.request("PUT", target, json: #"{"hidden":true}"#).status, 200)
        XCTAssertEqual(try app.request("PUT", target, json: #"{"hidden":true,"key":"Design"}"#).status, 200)
        XCTAssertEqual(try app.request("PUT", target, json: #"{"hidden":false,"note":"x"}"#).slug, "invalid-request")
        XCTAssertEqual(try app.request("PUT", target, json: #"{}"#).slug, "invalid-request")
        // Every 412 of this route carries the list's version, as its schema says: If-Match's too.
        let tagged = try app.request("PUT", target, json: #"{"hidden":false}"#, headers: [("If-Match", #""x""#)])
        XCTAssertEqual(tagged.status, 412)
        XCTAssertEqual(try tagged.problem.value("version", as: Int.self), try app.version())
    }

    /// Only an answer that would be a 2xx is conditional: a read refused for another reason says
    /// why, whatever `If-Match` names (the records' list and the list index answered 412).
    func testAReadRefusedForAnotherReasonIsNot412() throws {
        let app = try TestApp(token: "secret")
        let tagged = [("If-Match", #""nope""#), ("Authorization", "Bearer secret")]
        for (target, slug) in [("/v1/collections/people/records?pageSize=-1", "invalid-page-size"),
                               ("/v1/collections/people/records?pageToken=nope", "invalid-page-token"),
                               ("/v1/lists?user=", "invalid-request")] {
            let answer = try app.request("GET", target, headers: tagged)
            XCTAssertEqual(answer.status, 400, "\(target): \(answer.text)")
            XCTAssertEqual(answer.slug, slug, target)
        }
        XCTAssertEqual(try app.request("GET", "/v1/collections/people/records", headers: tagged).status, 412, "a read that succeeds is conditional")
        XCTAssertEqual(try app.request("GET", "/v1/lists", headers: tagged).status, 412)
    }

    func testEveryReadDocumentsWhatMinVersionAndIfMatchAnswer() throws {
        let app = try TestApp()
        try app.seed([("p1", "Ada", "Design")])
        let view = try app.createView()
        let document = try document(app)
        let paths = try XCTUnwrap(document["paths"] as? [String: [String: Any]])
        func documented(_ operation: [String: Any], _ status: Int, _ slug: String) -> Bool {
            guard let responses = operation["responses"] as? [String: [String: Any]], var answer = responses[String(status)] else { return false }
            if let ref = answer["$ref"] as? String {
                let name = String(ref.split(separator: "/").last ?? "")
                answer = ((document["components"] as? [String: Any])?["responses"] as? [String: [String: Any]])?[name] ?? [:]
            }
            return (answer["description"] as? String)?.contains("`/problems/\(slug)`") == true
        }
        func filled(_ template: String) -> String {
            [("{list}", "people"), ("{index}", "0"), ("{tag}", "0"), ("{rowId}", "p1"), ("{view}", view), ("{c}", "people"), ("{id}", "p1")]
                .reduce(template) { $0.replacingOccurrences(of: $1.0, with: $1.1) }
        }
        var asked = 0
        for (path, methods) in paths {
            for (method, value) in methods {
                guard let operation = value as? [String: Any],
                      let parameters = operation["parameters"] as? [[String: Any]] else { continue }
                let refs = parameters.compactMap { $0["$ref"] as? String }
                guard refs.contains("#/components/parameters/minVersion") else { continue }
                asked += 1
                let answer = try app.request(method.uppercased(), filled(path) + "?minVersion=abc", json: method == "put" ? #"{"hidden":true}"# : nil)
                XCTAssertEqual(answer.slug, "invalid-version", "\(method) \(path)")
                XCTAssertTrue(documented(operation, 400, "invalid-version"), "\(method) \(path) documents its 400 invalid-version")
                XCTAssertTrue(documented(operation, 503, "not-caught-up"), "\(method) \(path) documents its 503 not-caught-up")
                guard method == "get", refs.contains("#/components/parameters/ifNoneMatch") else { continue }
                XCTAssertTrue(refs.contains("#/components/parameters/readIfMatch"), "\(method) \(path) documents If-Match")
                let target = filled(path) + (path.hasSuffix("/sections") ? "?type=team" : path.hasSuffix("/index-path") ? "?sectionType=team&rowType=person" : "")
                XCTAssertEqual(try app.request("GET", target, headers: [("If-Match", #""nope""#)]).status, 412, target)
                XCTAssertTrue(documented(operation, 412, "precondition-failed"), "\(method) \(path) documents its 412")
            }
        }
        XCTAssertGreaterThanOrEqual(asked, 17, "every list read, the list index, views, a record and a definition")
        let ahead = try app.get("/v1/lists/people/rows?minVersion=\(try app.version() + 1_000_000)")
        XCTAssertEqual(ahead.slug, "not-caught-up")
        XCTAssertEqual(ahead.header("Retry-After"), "1")
    }

    /// Every record write documents both conditional headers the server honours (`DELETE` took
    /// `If-None-Match` but listed only `If-Match`), and a batch's `expectedVersions` says which
    /// numbers it takes: plain digits (`1.0` and `1e3` are integers to JSON Schema, refused here).
    func testRecordWriteConditionsAreDocumentedAsHonoured() throws {
        let app = try TestApp()
        try app.seed([("p1", "Ada", "Design")])
        let document = try document(app)
        let record = try XCTUnwrap((document["paths"] as? [String: Any])?["/v1/collections/{c}/records/{id}"] as? [String: [String: Any]])
        for method in ["put", "patch", "delete"] {
            let refs = (record[method]?["parameters"] as? [[String: Any]] ?? []).compactMap { $0["$ref"] as? String }
            XCTAssertTrue(refs.contains("#/components/parameters/ifMatch"), "\(method) documents If-Match")
            XCTAssertTrue(refs.contains("#/components/parameters/recordIfNoneMatch"), "\(method) documents If-None-Match")
        }
        let etag = try XCTUnwrap(try app.get("/v1/collections/people/records/p1").header("ETag"))
        XCTAssertEqual(try app.request("DELETE", "/v1/collections/people/records/p1", headers: [("If-None-Match", etag)]).status, 412)
        XCTAssertEqual(try app.request("DELETE", "/v1/collections/people/records/p1", headers: [("If-None-Match", "*")]).status, 412)
        XCTAssertEqual(try app.request("DELETE", "/v1/collections/people/records/nope", headers: [("If-None-Match", "*")]).status, 404)

        let schemas = try XCTUnwrap((document["components"] as? [String: Any])?["schemas"] as? [String: Any])
        let expected = try XCTUnwrap(((schemas["BatchRequest"] as? [String: Any])?["properties"] as? [String: Any])?["expectedVersions"] as? [String: Any])
        let choices = try XCTUnwrap((expected["additionalProperties"] as? [String: Any])?["oneOf"] as? [[String: Any]])
        let integer = try XCTUnwrap(choices.first { $0["type"] as? String == "integer" })
        XCTAssertEqual(integer["minimum"] as? Int, 0)
        XCTAssertEqual((integer["maximum"] as? NSNumber)?.int64Value, Int64.max)
        XCTAssertTrue((integer["description"] as? String)?.contains("`1.0`") == true, "the integer choice says plain digits only")
        let version = try XCTUnwrap(Int(etag.trimmingCharacters(in: CharacterSet(charactersIn: "\""))))
        for refused in ["1.0", "1e3", "-1", "9223372036854775808", "\"1\""] {
            let answer = try app.request("POST", "/v1/collections/people/batch", json: #"{"expectedVersions":{"p1":\#(refused)}}"#)
            XCTAssertEqual(answer.status, 400, refused)
        }
        for accepted in ["\(version)", "\"*\""] {
            let answer = try app.request("POST", "/v1/collections/people/batch", json: #"{"expectedVersions":{"p1":\#(accepted),"new":0}}"#)
            XCTAssertEqual(answer.status, 200, accepted)
        }
    }

    // MARK: Helpers

    private func document(_ app: TestApp) throws -> [String: Any] {
        let answer = try app.get("/openapi.json")
        XCTAssertEqual(answer.status, 200)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any])
    }

    private func documentSchemas(_ app: TestApp) throws -> [String: Any]? {
        (try document(app)["components"] as? [String: Any])?["schemas"] as? [String: Any]
    }

    private func operation(_ app: TestApp, _ path: String, _ method: String) throws -> [String: Any]? {
        ((try document(app)["paths"] as? [String: Any])?[path] as? [String: Any])?[method] as? [String: Any]
    }

    /// An SSE event as a parser sees it: its fields, blocks without `data` and comments left out.
    private func serverSentEvents(inChunkedBody raw: String) -> [[String: String]] {
        // The body after the head, de-chunked (byte offsets: "\r\n" is one Character).
        var rest = Array(raw.utf8)
        guard let headEnd = find([13, 10, 13, 10], in: rest) else { return [] }
        rest.removeFirst(headEnd + 4)
        var bytes: [UInt8] = []
        while let lineEnd = find([13, 10], in: rest), let size = Int(String(decoding: rest[..<lineEnd], as: UTF8.self), radix: 16),
              size > 0, lineEnd + 2 + size <= rest.count {
            bytes += rest[(lineEnd + 2)..<(lineEnd + 2 + size)]
            rest.removeFirst(min(rest.count, lineEnd + 2 + size + 2))
        }
        let body = String(decoding: bytes, as: UTF8.self)
        return body.components(separatedBy: "\n\n").compactMap { block in
            var event: [String: String] = [:]
            for line in block.split(separator: "\n") where !line.hasPrefix(":") {
                let parts = line.split(separator: ":", maxSplits: 1)
                event[String(parts[0])] = parts.count > 1 ? String(parts[1].dropFirst(parts[1].hasPrefix(" ") ? 1 : 0)) : ""
            }
            return event["data"] == nil ? nil : event
        }
    }

    private func find(_ pattern: [UInt8], in bytes: [UInt8]) -> Int? {
        guard bytes.count >= pattern.count else { return nil }
        return (0...(bytes.count - pattern.count)).first { bytes[$0..<($0 + pattern.count)].elementsEqual(pattern) }
    }

    private func assertConforms(_ event: [String: String], to schema: [String: Any], file: StaticString = #filePath, line: UInt = #line) throws {
        let properties = try XCTUnwrap(schema["properties"] as? [String: [String: Any]], file: file, line: line)
        for name in try XCTUnwrap(schema["required"] as? [String]) {
            XCTAssertNotNil(event[name], "\(name) is required: \(event)", file: file, line: line)
        }
        for (name, value) in event {
            let property = try XCTUnwrap(properties[name], "\(name) is not documented: \(event)", file: file, line: line)
            if let constant = property["const"] as? String {
                XCTAssertEqual(value, constant, file: file, line: line)
            }
            if let pattern = property["pattern"] as? String {
                let expression = try NSRegularExpression(pattern: pattern)
                XCTAssertNotNil(expression.firstMatch(in: value, range: NSRange(value.startIndex..., in: value)),
                                "\(name) \(value) does not match \(pattern)", file: file, line: line)
            }
        }
    }
}
