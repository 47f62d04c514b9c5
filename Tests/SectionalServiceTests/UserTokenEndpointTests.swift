import Foundation
import Identity
import ListModel
import SectionalService
import TestKeys
import TestSupport
import XCTest

/// User tokens over HTTP, against a real server with keys generated for the run: a list with
/// `access: users` is read with an HS256, RS256 or ES256 user token or the service token; every
/// refused token is `401` with `WWW-Authenticate: Bearer error="invalid_token"`; a user token may
/// not write records (`403 forbidden`).
final class UserTokenEndpointTests: FolderTestCase {
    static let serviceToken = "service-token-for-the-tests"
    static let secret = String(decoding: Tokens.secret, as: UTF8.self)
    static let config = """
    {
      "auth": { "users": { "hs256SecretEnv": "TEST_JWT_SECRET", "jwksFile": "keys/jwks.json",
                           "issuer": "https://id.example.com", "audience": "sectional", "leewaySeconds": 60 } },
      "lists": {
        "news": { "title": "News", "sections": [ { "key": "top", "title": "Top", "rows": [ { "id": "n1", "title": "Hello" } ] } ] },
        "inbox": { "title": "Inbox", "access": "users",
                   "sections": [ { "key": "all", "source": "messages", "sortBy": [ { "field": "id" } ], "row": { "title": "{subject}" } } ] }
      }
    }
    """

    private func makeApp(serviceToken: String? = UserTokenEndpointTests.serviceToken) throws -> TestApp {
        let keys = folder.appendingPathComponent("keys")
        try FileManager.default.createDirectory(at: keys, withIntermediateDirectories: true)
        try Data(Tokens.jwks([(TestKey.rsa, "rsa-1"), (TestKey.ec, "ec-1")])).write(to: keys.appendingPathComponent("jwks.json"))
        return try TestApp(config: Self.config, folder: folder, token: serviceToken, userTokenSecret: Self.secret)
    }

    /// Claims valid now (the server's clock): `sub` alice, an hour left, the configured issuer and audience.
    private func claims(_ changes: [String: Any] = [:], removing: [String] = []) -> [String: Any] {
        let now = Date().timeIntervalSince1970
        return Tokens.claims(["exp": now + 3600, "iat": now].merging(changes) { _, new in new }, removing: removing)
    }

    private func bearer(_ token: String) -> [(String, String)] { [("Authorization", "Bearer \(token)")] }

    private func read(_ app: TestApp, _ target: String = "/v1/lists/inbox", token: String?) throws -> HTTPTestClient.Answer {
        try app.request("GET", target, headers: token.map(bearer) ?? [])
    }

    /// Asserts the answer is `401 unauthorized` with `WWW-Authenticate: Bearer error="invalid_token"`.
    private func assertInvalidToken(_ answer: HTTPTestClient.Answer, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(answer.status, 401, "\(what): \(answer.text.prefix(300))", file: file, line: line)
        XCTAssertEqual(answer.slug, "unauthorized", what, file: file, line: line)
        XCTAssertEqual(answer.header("WWW-Authenticate"), #"Bearer error="invalid_token""#, what, file: file, line: line)
    }

    func testHS256RS256AndES256TokensReadAUsersList() throws {
        let app = try makeApp()
        for (name, token) in [("HS256", Tokens.hs256(claims: claims())),
                              ("RS256", Tokens.signed(by: .rsa, kid: "rsa-1", claims: claims())),
                              ("ES256", Tokens.signed(by: .ec, kid: "ec-1", claims: claims()))] {
            let answer = try read(app, token: token)
            XCTAssertEqual(answer.status, 200, "\(name): \(answer.text.prefix(300))")
            XCTAssertEqual(try answer.json.value("list", as: String.self), "inbox", name)
        }
    }

    func testTheServiceTokenReadsAUsersList() throws {
        let app = try makeApp()
        XCTAssertEqual(try read(app, token: Self.serviceToken).status, 200)
        XCTAssertEqual(try read(app, "/v1/lists/inbox/rows", token: Self.serviceToken).status, 200)
    }

    func testAUsersListReadWithoutATokenIsAskedForOne() throws {
        let app = try makeApp()
        for target in ["/v1/lists/inbox", "/v1/lists/inbox/rows", "/v1/lists/inbox/changes?since=0"] {
            let answer = try read(app, target, token: nil)
            XCTAssertEqual(answer.status, 401, "\(target): \(answer.text.prefix(300))")
            XCTAssertEqual(answer.slug, "unauthorized", target)
            let challenge = answer.header("WWW-Authenticate") ?? ""
            XCTAssertTrue(challenge.hasPrefix("Bearer"), "\(target): \(challenge)")
            XCTAssertFalse(challenge.contains("error="), "no token is not an invalid token: \(challenge)")
        }
        // A view's section change is asked for a token before its body is looked at, as every
        // list route asks (it answered `400` to a body it would refuse anyway, and `415` without one).
        for body in [#"{}"#, nil] {
            let change = try app.request("PUT", "/v1/lists/inbox/views/v/sections/0", json: body)
            XCTAssertEqual(change.status, 401, "body \(body ?? "none"): \(change.text.prefix(300))")
            XCTAssertEqual(change.slug, "unauthorized")
        }
        XCTAssertEqual(try read(app, "/v1/lists/news", token: nil).status, 200, "a public list needs no token")
        // Nor looks at one: a token that is not valid reads it as no token does, while the index
        // of lists, which lists what the caller may read, checks the one it is given.
        XCTAssertEqual(try read(app, "/v1/lists/news", token: "not-a-token").status, 200)
        XCTAssertEqual(try read(app, "/v1/lists/news/rows", token: "not-a-token").status, 200)
        assertInvalidToken(try read(app, "/v1/lists", token: "not-a-token"), "the index of lists")
        // Another scheme is no bearer token either (RFC 6750, section 3.1: no error code).
        let basic = try app.request("GET", "/v1/lists/inbox", headers: [("Authorization", "Basic YWxpY2U6c2VjcmV0")])
        XCTAssertEqual(basic.status, 401)
        XCTAssertEqual(basic.header("WWW-Authenticate"), #"Bearer realm="sectional""#)
    }

    /// RFC 6750: one or more spaces after `Bearer`; a missing token, or two `Authorization`
    /// fields, is a malformed request (`400`, `error="invalid_request"`), never the first one's
    /// caller (a proxy that reads the last would disagree on who is calling).
    func testAMalformedAuthorizationIsABadRequest() throws {
        let app = try makeApp()
        let alice = Tokens.hs256(claims: claims())
        XCTAssertEqual(try app.request("GET", "/v1/lists/inbox", headers: [("Authorization", "Bearer   \(alice)")]).status, 200,
                       "several spaces after the scheme")
        XCTAssertEqual(try app.request("GET", "/v1/lists/inbox", headers: [("Authorization", "Bearer \(alice) \t ")]).status, 200,
                       "whitespace after the value is not part of it (RFC 9110 §5.5)")
        XCTAssertEqual(try app.request("GET", "/v1/lists/inbox?minVersion=0", headers: [("Authorization", "Bearer \(alice)"),
                                                                                      ("Sectional-Min-Version", "0 \t")]).status, 200)
        let malformed: [(String, [(String, String)])] = [
            ("an empty bearer token", [("Authorization", "Bearer ")]),
            ("spaces only", [("Authorization", "Bearer    ")]),
            ("the scheme alone", [("Authorization", "Bearer")]),
            ("two tokens", [("Authorization", "Bearer \(alice)"), ("Authorization", "Bearer \(UserTokenEndpointTests.serviceToken)")]),
            ("the same token twice", [("Authorization", "Bearer \(alice)"), ("Authorization", "Bearer \(alice)")]),
        ]
        for (what, headers) in malformed {
            let answer = try app.request("GET", "/v1/lists/inbox", headers: headers)
            XCTAssertEqual(answer.status, 400, "\(what): \(answer.text.prefix(300))")
            XCTAssertEqual(answer.slug, "invalid-request", what)
            XCTAssertEqual(answer.header("WWW-Authenticate"), #"Bearer error="invalid_request""#, what)
        }
    }

    /// Every token the verifier must refuse, by why.
    private func refusedTokens() -> [(String, String)] {
        let valid = Tokens.hs256(claims: claims())
        let parts = valid.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        let bobsPayload = Base64URL.encode(Tokens.json(claims(["sub": "bob"])))
        let now = Date().timeIntervalSince1970
        let rsaDER = TestKey.rsa.publicKeyDER
        return [
            ("alg none", Tokens.token(header: ["alg": "none", "typ": "JWT"], claims: claims()) { _ in [] }),
            ("alg none, MACed", Tokens.token(header: ["alg": "none"], claims: claims(), sign: Tokens.macWithSecret)),
            ("an algorithm not accepted", Tokens.token(header: ["alg": "HS512"], claims: claims(), sign: Tokens.macWithSecret)),
            ("HS256 MACed with the RSA public key, naming its kid",
             Tokens.token(header: ["alg": "HS256", "kid": "rsa-1"], claims: claims()) { Tokens.hmacSHA256(key: rsaDER, message: $0) }),
            ("HS256 MACed with the RSA public key",
             Tokens.token(header: ["alg": "HS256"], claims: claims()) { Tokens.hmacSHA256(key: rsaDER, message: $0) }),
            ("a payload swapped under a kept signature", [parts[0], bobsPayload, parts[2]].joined(separator: ".")),
            ("a bad signature", Tokens.tamperedSignature(valid)),
            ("RS256 signed by another key", Tokens.signed(by: .otherRSA, kid: "rsa-1", claims: claims())),
            ("ES256 signed by another key", Tokens.signed(by: .otherEC, kid: "ec-1", claims: claims())),
            ("an unknown kid", Tokens.signed(by: .rsa, kid: "rsa-2", claims: claims())),
            ("expired beyond the leeway", Tokens.hs256(claims: claims(["exp": now - 120]))),
            ("not valid until beyond the leeway", Tokens.hs256(claims: claims(["nbf": now + 120]))),
            ("no expiry", Tokens.hs256(claims: claims(removing: ["exp"]))),
            ("another issuer", Tokens.hs256(claims: claims(["iss": "https://evil.example.com"]))),
            ("another audience", Tokens.hs256(claims: claims(["aud": "someone-else"]))),
            ("a number sub", Tokens.hs256(claims: claims(["sub": 42]))),
            ("no sub", Tokens.hs256(claims: claims(removing: ["sub"]))),
            ("over 8 KiB", Tokens.hs256(claims: claims(["pad": String(repeating: "x", count: 8200)]))),
            ("malformed base64url", "eyJhbGciOiJIUzI1NiJ9.!!!.abc"),
            ("padded base64url", parts[0] + "=." + parts[1] + "." + parts[2]),
            ("a header that is not JSON",
             Tokens.token(encodedHeader: Base64URL.encode(Array("not json".utf8)), encodedPayload: parts[1], sign: Tokens.macWithSecret)),
            ("a payload that is not JSON",
             Tokens.token(encodedHeader: parts[0], encodedPayload: Base64URL.encode(Array("{\"sub\":".utf8)), sign: Tokens.macWithSecret)),
            ("two parts", parts[0] + "." + parts[1]),
            ("not a JWT", "just-some-words"),
            // Foundation's decoder took the first of two `alg`s; RFC 7515 asks for refusal (or the last).
            ("a header with alg twice",
             Tokens.token(encodedHeader: Base64URL.encode(Array(#"{"alg":"HS256","alg":"none"}"#.utf8)), encodedPayload: parts[1],
                          sign: Tokens.macWithSecret)),
        ]
    }

    /// A payload with a member twice (which `sub`?) is refused, and the answer says why.
    func testAPayloadWithARepeatedMemberIsRefusedAsInvalidJSON() throws {
        let app = try makeApp()
        // The valid claims (alice's), with a second `sub` in front.
        let payload = Base64URL.encode(Array(#"{"sub":"bob","#.utf8) + Tokens.json(claims()).dropFirst())
        let header = Base64URL.encode(Tokens.json(["alg": "HS256", "typ": "JWT"]))
        let answer = try read(app, token: Tokens.token(encodedHeader: header, encodedPayload: payload, sign: Tokens.macWithSecret))
        assertInvalidToken(answer, "a repeated member")
        XCTAssertTrue(answer.text.contains("not valid JSON") && answer.text.contains("duplicate member name"), answer.text)
    }

    /// Depends on list reads asking the ``Authenticator`` for the caller.
    func testEveryRefusedTokenReadingAUsersListIsAnInvalidToken() throws {
        let app = try makeApp()
        for (why, token) in refusedTokens() {
            assertInvalidToken(try read(app, token: token), why)
        }
    }

    func testEveryRefusedTokenOnARecordWriteIsAnInvalidToken() throws {
        let app = try makeApp()
        for (why, token) in refusedTokens() {
            assertInvalidToken(try app.put("messages", "m1", #"{"subject":"Hi"}"#, headers: bearer(token)), why)
        }
        XCTAssertEqual(try read(app, "/v1/collections/messages/records/m1", token: Self.serviceToken).status, 404, "nothing was written")
    }

    /// Depends on list reads asking the ``Authenticator`` for the caller.
    func testTimeClaimsAreAcceptedWithinTheLeeway() throws {
        let app = try makeApp()
        let now = Date().timeIntervalSince1970
        for (why, changes) in [("expired 30 s ago", ["exp": now - 30]), ("valid from 30 s on", ["nbf": now + 30])] {
            XCTAssertEqual(try read(app, token: Tokens.hs256(claims: claims(changes))).status, 200, why)
        }
        assertInvalidToken(try read(app, token: Tokens.hs256(claims: claims(["exp": now - 90]))), "expired 90 s ago")
        assertInvalidToken(try read(app, token: Tokens.hs256(claims: claims(["nbf": now + 90]))), "valid from 90 s on")
    }

    func testAUserTokenMayNotWriteRecords() throws {
        let app = try makeApp()
        for token in [Tokens.hs256(claims: claims()), Tokens.signed(by: .ec, kid: "ec-1", claims: claims())] {
            let writes = [
                try app.put("messages", "m1", #"{"subject":"Hi"}"#, headers: bearer(token)),
                try app.request("DELETE", "/v1/collections/messages/records/m1", headers: bearer(token)),
                try app.request("POST", "/v1/collections/messages/batch", json: #"{"upsert":[{"id":"m2"}]}"#, headers: bearer(token)),
            ]
            for answer in writes {
                XCTAssertEqual(answer.status, 403, answer.text)
                XCTAssertEqual(answer.slug, "forbidden")
            }
        }
        XCTAssertEqual(try read(app, "/v1/collections/messages/records/m2", token: Self.serviceToken).status, 404, "nothing was written")
        XCTAssertEqual(try app.put("messages", "m1", #"{"subject":"Hi"}"#, headers: bearer(Self.serviceToken)).status, 201)
        let missing = try app.put("messages", "m1", #"{"subject":"Hi"}"#)
        XCTAssertEqual(missing.status, 401)
        XCTAssertEqual(missing.header("WWW-Authenticate"), #"Bearer realm="sectional""#)
    }

    func testAUserTokenWriteIsRefusedBefore100Continue() throws {
        let app = try makeApp()
        let body = #"{"subject":"Hi"}"#
        let client = try app.client()
        try client.send("PUT /v1/collections/messages/records/m1 HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                        + "Authorization: Bearer \(Tokens.hs256(claims: claims()))\r\n"
                        + "Expect: 100-continue\r\nContent-Length: \(body.utf8.count)\r\n\r\n")
        let head = try client.readUntil("\r\n\r\n")
        XCTAssertTrue(head.hasPrefix("HTTP/1.1 403 "), "403 without 100 Continue first: \(head)")
    }

    func testRecordsOfAPrivateCollectionAreReadWithTheServiceTokenOnly() throws {
        let app = try makeApp()
        try app.put("messages", "m1", #"{"subject":"Hi"}"#, headers: bearer(Self.serviceToken)).expect(201)
        try app.put("news", "n1", #"{"subject":"Hi"}"#, headers: bearer(Self.serviceToken)).expect(201)
        for target in ["/v1/collections/messages/records/m1", "/v1/collections/messages/records"] {
            XCTAssertEqual(try read(app, target, token: nil).status, 401, target)
            XCTAssertEqual(try read(app, target, token: Tokens.hs256(claims: claims())).slug, "forbidden", target)
            XCTAssertEqual(try read(app, target, token: Self.serviceToken).status, 200, target)
        }
        XCTAssertEqual(try read(app, "/v1/collections/news/records/n1", token: nil).status, 200, "no users list reads it: open")
    }

    func testWithoutAServiceTokenWritesStayOpen() throws {
        let app = try makeApp(serviceToken: nil)
        XCTAssertEqual(try app.put("messages", "m1", #"{"subject":"Hi"}"#).status, 201)
        XCTAssertEqual(try app.put("messages", "m2", #"{"subject":"Hi"}"#, headers: bearer(Tokens.hs256(claims: claims()))).status, 201)
    }

    /// Depends on `GET /v1/lists` filtering by caller.
    func testTheIndexShowsTheListsTheCallerMayRead() throws {
        let app = try makeApp()
        func names(_ token: String?) throws -> [String] {
            let lists: [[String: Any]] = try read(app, "/v1/lists", token: token).json.value("lists")
            return try lists.map { try $0.value("name", as: String.self) }.sorted()
        }
        XCTAssertEqual(try names(nil), ["news"])
        XCTAssertEqual(try names(Tokens.hs256(claims: claims())), ["inbox", "news"])
        XCTAssertEqual(try names(Self.serviceToken), ["inbox", "news"])
    }

    /// A stream opened with a user token ends once the token is no longer accepted (its `exp`
    /// plus the leeway): a user whose token ran out hears no more of a private list's versions,
    /// and opening the stream again with that token is refused.
    func testAnEventStreamEndsWhenItsTokenIsNoLongerAccepted() throws {
        let app = try makeApp()
        // Expired 56 s ago: accepted for 4 s more within the 60 s leeway.
        let token = Tokens.hs256(claims: claims(["exp": Date().timeIntervalSince1970 - 56]))
        // The end of the chunked body (the stream's end) comes at the first keep-alive tick (every
        // 15 s) after those 4 s; polled for 25 s.
        let client = try HTTPTestClient(port: app.port, timeoutSeconds: 1)
        try client.send("GET /v1/lists/inbox/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\n\r\n")
        XCTAssertTrue(try client.readUntil("event: version").hasPrefix("HTTP/1.1 200"))
        let deadline = Date() + 25
        var ending: String?
        while ending == nil, Date() < deadline { ending = try? client.readUntil("\r\n0\r\n\r\n") }
        XCTAssertTrue(ending?.contains(": token expired") == true, "the stream ended when the token ran out: \(ending ?? "no end")")
        assertInvalidToken(try read(app, "/v1/lists/inbox/events", token: token), "the stream opened again with the token")
        // The service token's stream does not run out.
        let service = try HTTPTestClient(port: app.port, timeoutSeconds: 5)
        try service.send("GET /v1/lists/inbox/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(Self.serviceToken)\r\n\r\n")
        XCTAssertTrue(try service.readUntil("event: version").hasPrefix("HTTP/1.1 200"))
        XCTAssertFalse(service.isClosedByPeer(within: 1000))
    }
}
