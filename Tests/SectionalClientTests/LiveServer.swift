import Foundation
import ListModel
import SectionalService

/// A real Sectional server in this process on 127.0.0.1 (port 0 unless told), SQLite in a folder
/// of its own, removed when the last server on it goes away. Kept apart from the client's imports
/// (ListModel and SectionalClient both have rows and sections).
final class LiveServer: @unchecked Sendable {
    static let config = """
    {
      "lists": {
        "people": {
          "title": "People",
          "search": { "fields": ["name", "email"] },
          "filters": ["team"],
          "sections": [
            { "key": "pinned", "type": "pinned", "title": "Pinned", "header": { "title": "Pinned", "height": 28 },
              "rows": [ { "id": "me", "type": "profile", "title": "Me", "tagLength": 3 } ] },
            { "source": "people", "groupBy": "team", "type": "team", "title": "{$key} ({$count})",
              "hiddenByDefault": ["Archived"], "sortBy": [ { "field": "name" } ],
              "header": { "title": "{$key}" },
              "row": { "type": "person", "title": "{name}", "subtitle": "{email}", "tagLength": 2, "height": 56 },
              "typeField": "kind", "rowTypes": { "bot": { "title": "{name} (bot)", "tagLength": 1 } },
              "accessibility": { "identifier": "cell", "options": ["section", "row"] } }
          ]
        }
      }
    }
    """

    let server: SectionalServer
    let folder: URL
    let ownsFolder: Bool

    /// Starts a server; `folder` and `port` given: a restart of an earlier one on the same data.
    /// `maxEventStreams`: `server.maxEventStreams` (nil: the default). `postgres`: the database
    /// URL to store in instead of SQLite (several servers on one database are instances).
    init(token: String? = nil, folder: URL? = nil, port: Int = 0, maxEventStreams: Int? = nil, postgres: String? = nil) throws {
        self.folder = folder ?? FileManager.default.temporaryDirectory.appendingPathComponent("sectional-client-\(UUID().uuidString)")
        ownsFolder = folder == nil
        try FileManager.default.createDirectory(at: self.folder, withIntermediateDirectories: true)
        var configuration = try Configuration.parse(try JSONParser.parse(Self.config), folder: self.folder.path)
        configuration.server.host = "127.0.0.1"
        configuration.server.port = port
        configuration.server.threads = 4
        configuration.storage = postgres.map { .postgres(url: $0) } ?? .sqlite(path: self.folder.appendingPathComponent("test.sqlite").path)
        configuration.apiToken = token
        configuration.maxEventStreams = maxEventStreams
        server = SectionalServer(configuration: configuration, log: Log(level: .error))
        try server.start()
    }

    var port: Int { server.port }
    var url: URL { URL(string: "http://127.0.0.1:\(port)") ?? URL(fileURLWithPath: "/") }

    /// Stops it now (open event streams end).
    func stop() { server.stop(gracePeriod: 1) }

    deinit {
        server.stop(gracePeriod: 1)
        if ownsFolder { try? FileManager.default.removeItem(at: folder) }
    }
}
