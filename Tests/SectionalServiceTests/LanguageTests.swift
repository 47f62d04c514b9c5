import Foundation
import TestSupport
import ListModel
import SectionalService
import XCTest

/// Lists in several languages: `Accept-Language` picks the language, strings fall back per
/// string, and `number`, `currency` and `date` write as the language does.
final class LanguageTests: XCTestCase {
    static let config = """
    {
      "lists": {
        "shop": {
          "title": { "en": "Shop", "de": "Laden", "fr": "Boutique" },
          "languages": ["en", "de", "fr", "es", "ja"],
          "sections": [
            { "key": "top", "title": { "en": "Popular", "de": "Beliebt" },
              "header": { "title": { "en": "Today", "ja": "今日" } },
              "rows": [ { "id": "help", "title": { "en": "Help", "fr": "Aide", "es": "Ayuda" } } ] },
            { "key": "items", "source": "items", "title": "Items",
              "row": { "type": "item", "title": "{name}", "subtitle": "{qty|number}",
                       "detail": "{price|currency:EUR}", "badge": "{when|date:EEEE d MMMM yyyy, MMM}" } }
          ]
        }
      }
    }
    """

    private func rows(_ app: TestApp, language: String?) throws -> (answer: HTTPTestClient.Answer, rows: [[String: Any]]) {
        let answer = try app.request("GET", "/v1/lists/shop/rows", headers: language.map { [("Accept-Language", $0)] } ?? [])
        let sections: [[String: Any]] = try answer.json.value("sections")
        return (answer, try sections.flatMap { try $0.value("rows", as: [[String: Any]].self) })
    }

    private func item(_ app: TestApp, _ language: String) throws -> [String: Any] {
        let found = try rows(app, language: language).rows.first { ($0["id"] as? String) == "p1" }
        return try XCTUnwrap(found, "no row p1 in \(language)")
    }

    /// After a restart with the list's definition edited, a page token of any language is told to
    /// reload, as after a change at run time: tokens are bound to the definition as served in its
    /// first language (the one fingerprint a start knows of the definition before) and their language.
    func testAPageTokenOfAnyLanguageReloadsAfterARestartWithAnEditedDefinition() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var tokens: [String: String] = [:]
        do {
            let app = try TestApp(config: Self.config, folder: folder, sqlite: true)
            for n in 1...3 { try app.put("items", "p\(n)", #"{"name":"Item \#(n)","qty":1,"price":2,"when":"2026-01-01T00:00:00Z"}"#).expect(201) }
            for language in ["en", "de"] {
                let page = try app.request("GET", "/v1/lists/shop/rows?pageSize=2", headers: [("Accept-Language", language)]).expect(200)
                tokens[language] = try page.json.value("nextPageToken", as: String.self)
            }
            app.server.stop()
        }
        let edited = Self.config.replacingOccurrences(of: #""title": "Items""#, with: #""title": "All items""#)
        XCTAssertNotEqual(edited, Self.config)
        let app = try TestApp(config: edited, folder: folder, sqlite: true)
        for language in ["en", "de"] {
            let token = try XCTUnwrap(tokens[language])
            let answer = try app.request("GET", "/v1/lists/shop/rows?pageSize=2&pageToken=\(token)", headers: [("Accept-Language", language)])
            XCTAssertEqual(answer.slug, "invalid-page-token", "\(language): \(answer.text)")
            XCTAssertEqual(try answer.problem.value("reload", as: Bool.self), true, "\(language): \(answer.text)")
        }
    }

    /// Month names are the Gregorian months' in every language, also where the locale's own
    /// calendar is another (Persian for `fa`, Islamic for `ar-SA`): March is March.
    func testMonthNamesAreGregorianInEveryLanguage() throws {
        let config = """
        {"lists":{"days":{"languages":["en","fa","ar-SA"],"sections":[{"key":"all","source":"days",
          "row":{"title":"{when|date:MMMM}"}}]}}}
        """
        let app = try TestApp(config: config)
        try app.put("days", "d1", #"{"when":"2026-03-15T12:00:00Z"}"#).expect(201)
        for (language, march) in [("en", "March"), ("fa", "\u{645}\u{627}\u{631}\u{633}"), ("ar-SA", "\u{645}\u{627}\u{631}\u{633}")] {
            let page = try app.request("GET", "/v1/lists/days/rows", headers: [("Accept-Language", language)]).expect(200)
            let sections: [[String: Any]] = try page.json.value("sections")
            let rows = try sections.flatMap { try $0.value("rows", as: [[String: Any]].self) }
            XCTAssertEqual(rows.first?["title"] as? String, march, language)
        }
    }

    func testCurrenciesWrittenWithoutDecimalsHaveTheirSymbolInEveryLanguage() throws {
        let app = try TestApp(config: """
        { "lists": { "prices": { "languages": ["en", "de", "ja"],
          "sections": [ { "key": "all", "source": "items", "title": "All",
                          "row": { "type": "item", "title": "{price|currency:JPY} {price|currency:KRW} {price|currency:EUR}" } } ] } } }
        """)
        try app.put("items", "p1", #"{"price":1234}"#).expect(201)
        // (French writes the yen as "JPY" in the locale data itself.)
        for language in ["en", "de", "ja"] {
            let answer = try app.request("GET", "/v1/lists/prices/rows", headers: [("Accept-Language", language)])
            let sections: [[String: Any]] = try answer.json.value("sections")
            let rows: [[String: Any]] = try sections[0].value("rows")
            let title = try XCTUnwrap(rows.first?["title"] as? String)
            XCTAssertFalse(title.contains("JPY") || title.contains("KRW"), "a code instead of a symbol in \(language): \(title)")
            XCTAssertTrue(title.contains("\u{A5}") || title.contains("\u{FFE5}"), "no yen sign in \(language): \(title)")
            XCTAssertTrue(title.contains("\u{20A9}") || title.contains("\u{FFE6}"), "no won sign in \(language): \(title)")
        }
    }

    func testNumbersCurrenciesAndDatesInEachLanguage() throws {
        let app = try TestApp(config: Self.config)
        try app.put("items", "p1", #"{"name":"Tea","qty":1234567.891,"price":1234.5,"when":"2024-03-05T10:00:00Z"}"#).expect(201)
        let nbsp = "\u{A0}", narrow = "\u{202F}"
        let expected: [String: (number: String, currency: String, date: String)] = [
            "en": ("1,234,567.891", "€1,234.50", "Tuesday 5 March 2024, Mar"),
            "de": ("1.234.567,891", "1.234,50\(nbsp)€", "Dienstag 5 März 2024, März"),
            "fr": ("1\(narrow)234\(narrow)567,891", "1\(narrow)234,50\(nbsp)€", "mardi 5 mars 2024, mars"),
            "es": ("1.234.567,891", "1234,50\(nbsp)€", "martes 5 marzo 2024, mar"),
            "ja": ("1,234,567.891", "€1,234.50", "火曜日 5 3月 2024, 3月"),
        ]
        for (language, want) in expected.sorted(by: { $0.key < $1.key }) {
            let row = try item(app, language)
            XCTAssertEqual(row["subtitle"] as? String, want.number, "number in \(language)")
            XCTAssertEqual(row["detail"] as? String, want.currency, "currency in \(language)")
            XCTAssertEqual(row["badge"] as? String, want.date, "date in \(language)")
            XCTAssertEqual(try rows(app, language: language).answer.header("Content-Language"), language)
        }
        // Kept current: a write reaches every language already materialized.
        try app.put("items", "p1", #"{"name":"Tea","qty":2,"price":99999.25,"when":"2024-12-25T10:00:00Z"}"#).expect(200)
        XCTAssertEqual(try item(app, "de")["detail"] as? String, "99.999,25\(nbsp)€")
        XCTAssertEqual(try item(app, "fr")["badge"] as? String, "mercredi 25 décembre 2024, déc.")
        let metrics = try app.get("/metrics").text
        XCTAssertTrue(metrics.contains("sectional_language_materializations_total{language=\"de\"} 1"), metrics)
    }

    func testAcceptLanguagePicksByLookupAndStringsFallBackOneByOne() throws {
        let app = try TestApp(config: Self.config)
        for (header, language) in [("de-CH, fr;q=0.5", "de"), ("fr-CA", "fr"), ("it, es;q=0.1", "es"), ("it", "en"), ("*", "en"),
                                   ("de;q=0, fr", "fr"), ("ES", "es"), ("zh-Hant-TW, ja-JP;q=0.9", "ja")] {
            let outline = try app.request("GET", "/v1/lists/shop", headers: [("Accept-Language", header)])
            XCTAssertEqual(outline.header("Content-Language"), language, header)
        }
        XCTAssertEqual(try app.get("/v1/lists/shop").header("Content-Language"), "en", "no header: the first language")

        func outline(_ language: String) throws -> [String: Any] {
            try app.request("GET", "/v1/lists/shop", headers: [("Accept-Language", language)]).json
        }
        func top(_ language: String) throws -> [String: Any] {
            try outline(language).value("sections", as: [[String: Any]].self)[0]
        }
        XCTAssertEqual(try outline("de").value("title", as: String.self), "Laden")
        XCTAssertEqual(try outline("es").value("title", as: String.self), "Shop", "no Spanish title: the English one")
        XCTAssertEqual(try top("de").value("title", as: String.self), "Beliebt")
        XCTAssertEqual(try top("fr").value("title", as: String.self), "Popular", "per string: French falls back here…")
        XCTAssertEqual(try top("ja").value("header", as: [String: Any].self).value("title", as: String.self), "今日")
        XCTAssertEqual(try top("de").value("header", as: [String: Any].self).value("title", as: String.self), "Today")
        let help = { (language: String) throws -> String? in try self.rows(app, language: language).rows.first?["title"] as? String }
        XCTAssertEqual(try help("fr"), "Aide", "…but not here")
        XCTAssertEqual(try help("es"), "Ayuda")
        XCTAssertEqual(try help("de"), "Help")
    }

    /// Found by schemathesis: `Accept-Language: ;` crashed the server (an item with no range).
    func testMalformedAcceptLanguageFallsBackToTheFirstLanguage() throws {
        let app = try TestApp(config: Self.config)
        for header in [";", " ; ", ",;,", ";q=1", "de;", ";;de", "=,;q=", "de;q=x"] {
            let outline = try app.request("GET", "/v1/lists/shop", headers: [("Accept-Language", header)])
            XCTAssertEqual(outline.status, 200, header)
            XCTAssertEqual(outline.header("Content-Language"), header.hasPrefix("de;") && header != "de;q=x" ? "de" : "en", header)
        }
        XCTAssertEqual(try app.get("/healthz").status, 200, "still serving")
    }

    /// A view's section write answers the section in the chosen language, and says so as a
    /// read does; it stays a write's answer (`no-store`).
    func testViewSectionWritesSayTheirLanguage() throws {
        let app = try TestApp(config: Self.config)
        let view = try app.createView(list: "shop")
        for (method, target, json) in [("PUT", "/v1/lists/shop/views/\(view)/sections/0", #"{"hidden":true}"#),
                                       ("POST", "/v1/lists/shop/views/\(view)/sections/0/toggle", nil)] {
            let answer = try app.request(method, target, json: json, headers: [("Accept-Language", "de")])
            XCTAssertEqual(answer.status, 200, answer.text)
            let section: [String: Any] = try answer.json.value("section")
            XCTAssertEqual(section["title"] as? String, "Beliebt", target)
            XCTAssertEqual(answer.header("Content-Language"), "de", "\(target) \(answer.headers)")
            XCTAssertTrue(answer.headers.contains { $0.0 == "Vary" && $0.1.contains("Accept-Language") }, "\(target) \(answer.headers)")
            XCTAssertEqual(answer.header("Cache-Control"), "no-store", target)
        }
    }

    func testAnswersVaryByLanguageWithAnEntityTagPerLanguage() throws {
        let app = try TestApp(config: Self.config)
        try app.put("items", "p1", #"{"name":"Tea","qty":1,"price":1,"when":"2024-03-05T10:00:00Z"}"#).expect(201)
        var tags: [String: String] = [:]
        for language in ["en", "de", "fr"] {
            for target in ["/v1/lists/shop", "/v1/lists/shop/rows", "/v1/lists/shop/rows/p1"] {
                let answer = try app.request("GET", target, headers: [("Accept-Language", language)])
                XCTAssertTrue(answer.headers.contains { $0.0 == "Vary" && $0.1.contains("Accept-Language") }, "\(target) \(answer.headers)")
                let tag = try XCTUnwrap(answer.header("ETag"))
                if target == "/v1/lists/shop" { tags[language] = tag }
                let again = try app.request("GET", target, headers: [("Accept-Language", language), ("If-None-Match", tag)])
                XCTAssertEqual(again.status, 304, "\(target) in \(language)")
            }
        }
        XCTAssertEqual(Set(tags.values).count, 3, "one entity tag per language: \(tags)")
        let cross = try app.request("GET", "/v1/lists/shop", headers: [("Accept-Language", "fr"), ("If-None-Match", tags["de"] ?? "")])
        XCTAssertEqual(cross.status, 200, "German's tag does not validate French")
        // The German rows' versions and changes follow the list's.
        let version = try app.version(of: "shop")
        try app.put("items", "p2", #"{"name":"Cake","qty":1,"price":2,"when":"2024-03-06T10:00:00Z"}"#).expect(201)
        let changes = try app.request("GET", "/v1/lists/shop/changes?since=\(version)", headers: [("Accept-Language", "de")]).json
        XCTAssertEqual(try changes.value("reload", as: Bool.self), false)
        XCTAssertEqual(try changes.value("to", as: Int.self), try app.version(of: "shop"))
    }

    func testLanguageMapsAreValidatedWithTheirPaths() throws {
        let app = try TestApp()
        let bad = """
        { "languages": ["en", "de", "de", "x"], "title": { "de": "Nur Deutsch" }, "sections": [
            { "key": "a", "title": { "en": "A", "it": "A" }, "rows": [ { "id": "r", "title": { "en": 1 } } ] },
            { "key": "b", "source": "people", "row": { "title": { "en": "{name}", "de": "{name|nope}" } } } ] }
        """
        let answer = try app.request("PUT", "/v1/lists/people/definition", json: bad)
        XCTAssertEqual(answer.slug, "invalid-definition")
        let errors: [[String: Any]] = try answer.problem.value("errors")
        let paths = Set(try errors.map { try $0.value("path", as: String.self) })
        XCTAssertEqual(paths, ["$.languages[2]", "$.languages[3]", "$.title", "$.sections[0].title.it", "$.sections[0].rows[0].title.en",
                               "$.sections[1].row.title"], "\(errors)")
    }

    func testTheConfigCheckReportsBadLanguageMapsWithTheirPaths() throws {
        let config = """
        { "lists": { "shop": { "languages": ["en", "fr"], "sections": [
            { "key": "a", "title": { "fr": "Sans anglais" }, "footer": { "title": { "en": "x", "de": "y" } } } ] } } }
        """
        XCTAssertThrowsError(try Configuration.parse(try JSONParser.parse(config), folder: "/")) { error in
            let paths = (error as? ConfigError)?.issues.map(\.path) ?? []
            XCTAssertEqual(Set(paths), ["lists.shop.sections[0].title", "lists.shop.sections[0].footer.title.de"], "\(error)")
        }
        let demo = try Configuration.load(path: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../config/sectional.json").standardized.path, environment: [:])
        let directory = try XCTUnwrap(demo.lists.first { $0.name == "directory" }, "the demo config has a list in several languages")
        XCTAssertEqual(directory.languages, ["en", "de", "fr"])
    }

    /// A per-user list in several languages: each user's German rows are their own partition's,
    /// materialized on first read and kept current by writes.
    func testAPartitionIsServedInEachLanguage() throws {
        let config = """
        { "lists": { "orders": { "scope": { "field": "owner" }, "languages": ["en", "de"],
            "title": { "en": "Orders", "de": "Bestellungen" },
            "sections": [ { "key": "all", "source": "orders", "title": { "en": "All", "de": "Alle" },
                            "row": { "type": "order", "title": "{title}", "detail": "{total|currency:EUR}" } } ] } } }
        """
        let app = try TestApp(config: config, token: "t")
        let service = [("Authorization", "Bearer t")]
        for (id, owner, total) in [("o1", "ann", "12.5"), ("o2", "bob", "99"), ("o3", "ann", "1500")] {
            try app.request("PUT", "/v1/collections/orders/records/\(id)", json: "{\"title\":\"\(id)\",\"owner\":\"\(owner)\",\"total\":\(total)}",
                            headers: service).expect(201)
        }
        func details(_ user: String, _ language: String) throws -> [String] {
            let page = try app.request("GET", "/v1/lists/orders/rows?user=\(user)", headers: service + [("Accept-Language", language)])
            XCTAssertEqual(page.header("Content-Language"), language)
            let sections: [[String: Any]] = try page.json.value("sections")
            return try sections.flatMap { try $0.value("rows", as: [[String: Any]].self) }.map { try $0.value("detail") }
        }
        XCTAssertEqual(try details("ann", "de"), ["12,50\u{A0}€", "1.500,00\u{A0}€"])
        XCTAssertEqual(try details("ann", "en"), ["€12.50", "€1,500.00"])
        XCTAssertEqual(try details("bob", "de"), ["99,00\u{A0}€"])
        let before = try app.request("GET", "/v1/lists/orders?user=ann", headers: service + [("Accept-Language", "de")]).json
        XCTAssertEqual(try before.value("title", as: String.self), "Bestellungen")
        try app.request("PUT", "/v1/collections/orders/records/o2", json: #"{"title":"o2","owner":"ann","total":7}"#, headers: service).expect(200)
        XCTAssertEqual(try details("ann", "de"), ["12,50\u{A0}€", "7,00\u{A0}€", "1.500,00\u{A0}€"], "a record moving in reaches ann's German rows")
        XCTAssertEqual(try details("bob", "de"), [], "and leaves bob's")
        let after = try app.request("GET", "/v1/lists/orders?user=ann", headers: service + [("Accept-Language", "de")]).json
        XCTAssertGreaterThan(try after.value("version", as: Int.self), try before.value("version", as: Int.self))
    }

    /// The languages a read chooses among are the definition's in force: after `PUT …/definition`
    /// drops German and adds French, `Accept-Language: de` gets English and `fr` French, with
    /// French rows; German rows read before are not served again.
    func testTheChoiceFollowsADefinitionChangeOfLanguages() throws {
        let app = try TestApp(config: Self.config, token: "t")
        try app.put("items", "p1", #"{"name":"Tea","qty":1,"price":1234.5,"when":"2024-03-05T10:00:00Z"}"#,
                    headers: [("Authorization", "Bearer t")]).expect(201)
        XCTAssertEqual(try item(app, "de")["detail"] as? String, "1.234,50\u{A0}€")
        let definition = """
        { "title": { "en": "Shop", "fr": "Boutique" }, "languages": ["en", "fr"],
          "sections": [ { "key": "items", "source": "items", "title": "Items",
                          "row": { "type": "item", "title": "{name}", "detail": "{price|currency:EUR}" } } ] }
        """
        try app.request("PUT", "/v1/lists/shop/definition", json: definition, headers: [("Authorization", "Bearer t")]).expect(200)
        for (header, language, title) in [("de", "en", "Shop"), ("de, fr;q=0.5", "fr", "Boutique"), ("fr-CA", "fr", "Boutique")] {
            let outline = try app.request("GET", "/v1/lists/shop", headers: [("Accept-Language", header)])
            XCTAssertEqual(outline.header("Content-Language"), language, header)
            XCTAssertEqual(try outline.json.value("title", as: String.self), title, header)
        }
        XCTAssertEqual(try item(app, "de")["detail"] as? String, "€1,234.50", "German is no longer served")
        XCTAssertEqual(try item(app, "fr")["detail"] as? String, "1\u{202F}234,50\u{A0}€")
    }
}
