import Foundation
import ListModel
import Locking
import SectionalService
import TestSupport
import XCTest

/// A real Sectional server in this process, on 127.0.0.1 port 0, with a config built from JSON.
/// The folder it makes for itself is removed when it goes away.
final class TestApp {
    let server: SectionalServer
    let folder: URL
    private let ownsFolder: Bool
    static let teamsConfig = """
    {
      "lists": {
        "people": {
          "title": "People",
          "sections": [
            { "key": "pinned", "type": "pinned", "title": "Pinned", "header": { "title": "Pinned", "height": 28 },
              "rows": [ { "id": "me", "type": "profile", "title": "Me", "tagLength": 3 } ] },
            { "source": "people", "groupBy": "team", "type": "team", "title": "{$key} ({$count})",
              "hiddenByDefault": ["Archived"], "sortBy": [ { "field": "name" } ],
              "row": { "type": "person", "title": "{name}", "subtitle": "{email}", "tagLength": 2, "height": 56 },
              "typeField": "kind", "rowTypes": { "bot": { "title": "{name} (bot)", "tagLength": 1 } },
              "accessibility": { "identifier": "cell", "options": ["section", "row"] } }
          ]
        }
      }
    }
    """

    /// Starts a server, storing in memory, in SQLite inside `folder` (`sqlite`), or in the
    /// PostgreSQL database at `postgres` (a URL). `userTokenSecret` is the value of the variable
    /// `auth.users.hs256SecretEnv` names; `webhookSecrets` the values of the variables webhooks'
    /// `secretEnv` name.
    init(config: String = TestApp.teamsConfig, folder: URL? = nil, sqlite: Bool = false, postgres: String? = nil, token: String? = nil,
         userTokenSecret: String? = nil, maxBodyBytes: Int? = nil, maxResidentRows: Int? = nil,
         webhookSecrets: [String: String] = [:]) throws {
        self.folder = folder ?? temporaryFolder()
        ownsFolder = folder == nil
        try FileManager.default.createDirectory(at: self.folder, withIntermediateDirectories: true)
        var configuration = try Configuration.parse(try JSONParser.parse(config), folder: self.folder.path)
        configuration.server.host = "127.0.0.1"
        configuration.server.port = 0
        configuration.server.threads = 4
        if let maxBodyBytes { configuration.server.maxBodyBytes = maxBodyBytes }
        if let maxResidentRows { configuration.maxResidentRows = maxResidentRows }
        configuration.storage = postgres.map { .postgres(url: $0) }
            ?? (sqlite ? .sqlite(path: self.folder.appendingPathComponent("test.sqlite").path) : .memory)
        configuration.apiToken = token
        configuration.userTokenSecret = userTokenSecret
        configuration.webhookSecrets = webhookSecrets
        server = SectionalServer(configuration: configuration, log: Log(level: .error))
        try server.start()
    }

    deinit {
        server.stop(gracePeriod: 1)
        if ownsFolder { try? FileManager.default.removeItem(at: folder) }
    }

    var port: Int { server.port }

    func client() throws -> HTTPTestClient { try HTTPTestClient(port: port) }

    /// One request on a new connection; JSON bodies are sent as `application/json`.
    @discardableResult
    func request(_ method: String, _ target: String, json: String? = nil, headers: [(String, String)] = []) throws -> HTTPTestClient.Answer {
        var all = headers
        if json != nil { all.append(("Content-Type", "application/json")) }
        return try client().request(method, target, headers: all, body: json.map { Array($0.utf8) })
    }

    func get(_ target: String) throws -> HTTPTestClient.Answer { try request("GET", target) }

    func put(_ collection: String, _ id: String, _ json: String, headers: [(String, String)] = []) throws -> HTTPTestClient.Answer {
        try request("PUT", "/v1/collections/\(collection)/records/\(id)", json: json, headers: headers)
    }

    /// Seeds people: `(id, name, team)`, bots when the name starts with "bot".
    func seed(_ people: [(String, String, String)]) throws {
        let records = people.map { id, name, team in
            "{\"id\":\"\(id)\",\"name\":\"\(name)\",\"team\":\"\(team)\",\"email\":\"\(id)@example.com\"\(name.hasPrefix("bot") ? ",\"kind\":\"bot\"" : "")}"
        }
        try request("POST", "/v1/collections/people/batch", json: "{\"upsert\":[\(records.joined(separator: ","))]}").expect(200)
    }

    /// The current version of a list, read from its outline.
    func version(of list: String = "people") throws -> Int {
        try get("/v1/lists/\(list)").json.value("version")
    }

    /// Re-reads the lists of the config file at `file`, as `SIGHUP` does, and waits for it (30 s
    /// at most); returns whether its lists are served.
    func reload(_ file: URL) -> Bool {
        let reloaded = DispatchSemaphore(value: 0)
        let served = Locked(false)
        server.reloadLists(configPath: file.path) { done in
            served.withLock { $0 = done }
            reloaded.signal()
        }
        return reloaded.wait(timeout: .now() + 30) == .success && served.withLock { $0 }
    }

    /// Creates a view and returns its id.
    func createView(_ json: String? = nil, list: String = "people") throws -> String {
        try request("POST", "/v1/lists/\(list)/views", json: json).expect(201).json.value("view")
    }
}

