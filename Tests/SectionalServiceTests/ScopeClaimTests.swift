import Foundation
import TestKeys
import TestSupport
import XCTest

/// A list split by a claim other than `sub` (here `org`): `?user=` names a partition by that
/// claim's value, for a user token (its own value, whatever its `sub`) and for the service
/// token alike, and views belong to the partition, so the service token reading as an org sees
/// the views its users made.
final class ScopeClaimTests: FolderTestCase {
    static let serviceToken = "service-token-for-the-tests"
    static let config = """
    {
      "auth": { "users": { "hs256SecretEnv": "TEST_JWT_SECRET", "issuer": "https://id.example.com", "audience": "sectional" } },
      "lists": {
        "team": { "title": "Team", "scope": { "field": "org", "claim": "org" },
                  "sections": [ { "source": "tasks", "groupBy": "state", "sortBy": [ { "field": "id" } ], "row": { "title": "{title}" } } ] }
      }
    }
    """

    private var app: TestApp!
    private var service: [(String, String)] { [("Authorization", "Bearer \(Self.serviceToken)")] }

    override func setUpWithError() throws {
        try super.setUpWithError()
        app = try TestApp(config: Self.config, folder: folder, token: Self.serviceToken,
                          userTokenSecret: String(decoding: Tokens.secret, as: UTF8.self))
        for (id, org, state) in [("t1", #""acme""#, "open"), ("t2", #""acme""#, "done"), ("t3", #""other""#, "open"), ("t4", "5", "open")] {
            try app.request("PUT", "/v1/collections/tasks/records/\(id)", json: #"{"org":\#(org),"state":"\#(state)","title":"\#(id)"}"#,
                            headers: service).expect(200...201)
        }
    }

    /// A user token for `sub` with `org`, valid now.
    private func user(_ sub: String, org: Any) -> [(String, String)] {
        let now = Date().timeIntervalSince1970
        return [("Authorization", "Bearer \(Tokens.hs256(claims: Tokens.claims(["sub": sub, "org": org, "exp": now + 3600, "iat": now])))")]
    }

    private func rowIDs(_ answer: HTTPTestClient.Answer) throws -> [String] {
        let sections: [[String: Any]] = try answer.expect(200...200).json.value("sections")
        return try sections.flatMap { section -> [String] in
            let rows: [[String: Any]] = try section.value("rows")
            return try rows.map { try $0.value("id") }
        }
    }

    func testAUserNamesTheirOwnPartitionByTheClaimNotBySub() throws {
        let ann = user("ann", org: "acme")
        XCTAssertEqual(try rowIDs(app.request("GET", "/v1/lists/team/rows", headers: ann)), ["t2", "t1"])
        XCTAssertEqual(try rowIDs(app.request("GET", "/v1/lists/team/rows?user=acme", headers: ann)), ["t2", "t1"])
        XCTAssertEqual(try app.request("GET", "/v1/lists/team/rows?user=ann", headers: ann).slug, "forbidden")
        XCTAssertEqual(try app.request("GET", "/v1/lists/team/rows?user=other", headers: ann).slug, "forbidden")
        // A number claim is named by its JSON text.
        XCTAssertEqual(try rowIDs(app.request("GET", "/v1/lists/team/rows?user=5", headers: user("bo", org: 5))), ["t4"])
        XCTAssertEqual(try rowIDs(app.request("GET", "/v1/lists/team/rows?user=acme", headers: service)), ["t2", "t1"])
    }

    /// A user token without the list's claim (or with one that is no scalar) reads the list as
    /// `403`; the index of lists, which lists what the caller may read, leaves it out (it listed
    /// it, with its literal sections' counts).
    func testAUserTokenWithoutTheClaimIsNotListedTheList() throws {
        let now = Int(Date().timeIntervalSince1970)
        let noOrg = [("Authorization", "Bearer \(Tokens.hs256(claims: Tokens.claims(["sub": "u", "exp": now + 3600, "iat": now])))")]
        for headers in [noOrg, user("u", org: ["a", "b"])] {
            XCTAssertEqual(try app.request("GET", "/v1/lists/team", headers: headers).status, 403)
            let names = try (app.request("GET", "/v1/lists", headers: headers).json.value("lists", as: [[String: Any]].self))
                .map { try $0.value("name", as: String.self) }
            XCTAssertFalse(names.contains("team"), "\(names)")
        }
        let names = try (app.request("GET", "/v1/lists", headers: user("u", org: "acme")).json.value("lists", as: [[String: Any]].self))
            .map { try $0.value("name", as: String.self) }
        XCTAssertTrue(names.contains("team"), "with the claim: \(names)")
    }

    func testViewsBelongToThePartition() throws {
        let created = try app.request("POST", "/v1/lists/team/views", json: #"{"hidden":["done"]}"#, headers: user("ann", org: "acme"))
        let view: String = try created.expect(201...201).json.value("view")
        XCTAssertEqual(try app.request("GET", "/v1/lists/team/views/\(view)?user=acme", headers: service).status, 200)
        XCTAssertEqual(try app.request("GET", "/v1/lists/team/views/\(view)", headers: user("cy", org: "acme")).status, 200)
        XCTAssertEqual(try app.request("GET", "/v1/lists/team/views/\(view)?user=ann", headers: service).slug, "view-not-found")
        XCTAssertEqual(try app.request("GET", "/v1/lists/team/views/\(view)", headers: user("ann", org: "other")).slug, "view-not-found")
    }

    /// A string claim that reads like another type's canonical text (`"n:5"`, `"b:true"`) owns
    /// views apart from that value's: the string `"n:5"` could read, change and delete the views
    /// of the number `5`'s partition, though their records are apart (static review).
    func testAStringClaimNeverOwnsTheViewsOfANumberOrBoolean() throws {
        for (claim, lookalike) in [(5, "n:5"), (true, "b:true")] as [(Any, String)] {
            let created = try app.request("POST", "/v1/lists/team/views", json: #"{"hidden":["open"]}"#, headers: user("u", org: claim))
            let view: String = try created.expect(201...201).json.value("view")
            let other = user("mallory", org: lookalike)
            XCTAssertEqual(try app.request("GET", "/v1/lists/team/views/\(view)", headers: other).slug, "view-not-found", lookalike)
            XCTAssertEqual(try app.request("DELETE", "/v1/lists/team/views/\(view)", headers: other).slug, "view-not-found", lookalike)
            XCTAssertEqual(try app.request("GET", "/v1/lists/team/views/\(view)?user=\(lookalike)", headers: service).slug, "view-not-found")
            XCTAssertEqual(try app.request("GET", "/v1/lists/team/views/\(view)", headers: user("v", org: claim)).status, 200, "its own partition's")
        }
        // A plain string keeps its own views, as it always did.
        let created = try app.request("POST", "/v1/lists/team/views", json: "{}", headers: user("ann", org: "acme"))
        let view: String = try created.expect(201...201).json.value("view")
        XCTAssertEqual(try app.request("GET", "/v1/lists/team/views/\(view)?user=acme", headers: service).status, 200)
    }
}
