import Foundation
import HTTPServer
import ListModel

/// The whole configuration of a Sectional server, after environment and command-line
/// overrides. Relative paths are already resolved against the config file's folder.
public struct Configuration: Sendable {
    public enum Storage: Sendable, Equatable {
        case sqlite(path: String)
        case memory
        /// PostgreSQL at a `postgresql://` URL, shared by several instances.
        case postgres(url: String)
    }

    public var server = ServerConfiguration()
    /// Most event streams open at once (`server.maxEventStreams`); nil means half of
    /// `server.connectionLimit`, so streams can never take every connection.
    public var maxEventStreams: Int?
    /// The event stream limit in force.
    public var eventStreamLimit: Int { maxEventStreams ?? max(1, server.connectionLimit / 2) }
    public var corsOrigins: [String] = ["*"]
    public var storage: Storage = .sqlite(path: "data/sectional.sqlite")
    /// The environment variable holding the API token, the only one read for it (when it is unset
    /// there is no token, whatever else is set); the token itself is in ``apiToken``.
    public var tokenEnvironmentVariable = "SECTIONAL_API_TOKEN"
    /// When set, record writes need `Authorization: Bearer <token>`.
    public var apiToken: String?
    /// `auth.users`: how user tokens are verified; nil when user tokens are not accepted.
    public var users: UserTokenSettings?
    /// The `HS256` secret, read from the variable `auth.users.hs256SecretEnv` names.
    public var userTokenSecret: String?
    /// Most rows of per-user partitions kept in memory at once (`scopes.maxResidentRows`); past
    /// it the least recently read partitions are evicted.
    public var maxResidentRows = 2_000_000
    public var viewTTLSeconds = 2_592_000
    /// Most views kept; past it the least recently used are evicted.
    public var maxViews = 1_000_000
    /// Collection name → seed file (absolute path), loaded into empty collections at start-up.
    public var seeds: [(collection: String, path: String)] = []
    /// The validated list definitions, in the config file's order.
    public var lists: [ListDefinition] = []
    /// Lowest level logged: `debug`, `info`, `warn`, `error`.
    public var logLevel = Log.Level.info
    /// `webhooks`: receivers told of the version changes of lists, in the config file's order.
    public var webhooks: [WebhookSettings] = []
    /// The webhooks' secrets by environment variable name (read from the environment).
    public var webhookSecrets: [String: String] = [:]

    public init() {}
}

/// What the command line may override.
public struct ConfigurationOverrides: Sendable {
    public var host: String?
    public var port: Int?
    public var dataPath: String?
    public var memory = false
    /// `--database-url`: PostgreSQL at this URL.
    public var databaseURL: String?

    public init(host: String? = nil, port: Int? = nil, dataPath: String? = nil, memory: Bool = false, databaseURL: String? = nil) {
        self.host = host
        self.port = port
        self.dataPath = dataPath
        self.memory = memory
        self.databaseURL = databaseURL
    }
}

extension Configuration {
    /// Why the file at `path` could not be read: the system's word for it (`No such file or
    /// directory`, `Permission denied`), or that it is a folder.
    private static func unreadable(_ path: String) -> String {
        var folder: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &folder), folder.boolValue { return "it is a folder" }
        guard access(path, R_OK) != 0 else { return "it could not be read" }
        return String(cString: strerror(errno))
    }

    /// Loads and validates the config file at `path`, then applies the environment and the
    /// command-line overrides (flags win over the environment, which wins over the file).
    /// Throws ``ConfigError`` with every problem found.
    public static func load(path: String, environment: [String: String] = ProcessInfo.processInfo.environment,
                            overrides: ConfigurationOverrides = ConfigurationOverrides()) throws(ConfigError) -> Configuration {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigError(path: "", "cannot read config file \(path): \(unreadable(path))")
        }
        let json: JSONValue
        do {
            json = try JSONParser.parse(Array(data))
        } catch {
            throw ConfigError(path: "", "\(path) is not valid JSON: \(error)")
        }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        var configuration = try parse(json, folder: folder)
        try configuration.apply(environment: environment, overrides: overrides, folder: FileManager.default.currentDirectoryPath)
        return configuration
    }

    /// Validates a parsed config document; relative paths resolve against `folder`.
    public static func parse(_ json: JSONValue, folder: String) throws(ConfigError) -> Configuration {
        var configuration = Configuration()
        var root = ObjectReader(json, path: "")
        var issues: [ConfigIssue] = []

        var server = root.object("server")
        if let host = server.string("host") {
            if let problem = ListenHost.problem(host) { server.issue("host", problem) } else { configuration.server.host = host }
        }
        if let port = server.int("port", in: 0...65535) { configuration.server.port = port }
        if let threads = server.int("threads", in: 0...256) { configuration.server.threads = threads }
        if let pin = server.bool("pinThreads") { configuration.server.pinThreads = pin }
        if let bytes = server.int("maxBodyBytes", in: 1...(1 << 30)) { configuration.server.maxBodyBytes = bytes }
        if let limit = server.int("connectionLimit", in: 1...100_000) { configuration.server.connectionLimit = limit }
        if let limit = server.int("perClientConnectionLimit", in: 0...100_000) { configuration.server.perClientConnectionLimit = limit }
        if let seconds = server.int("connectionTimeoutSeconds", in: 1...86_400) { configuration.server.connectionTimeoutSeconds = seconds }
        if let limit = server.int("maxEventStreams", in: 1...100_000) { configuration.maxEventStreams = limit }
        if let origins = server.strings("corsOrigins") {
            // Compared with a browser's `Origin` byte for byte: an entry in another form never matches.
            for origin in origins where !Self.isOrigin(origin) {
                server.issue("corsOrigins", "'\(origin)' is not \"*\" nor an origin as browsers send it: scheme://host[:port], in lower case, with no path (not even \"/\")")
            }
            configuration.corsOrigins = origins
        }
        issues += server.finish()

        var storage = root.object("storage")
        switch storage.string("kind") ?? "sqlite" {
        case "sqlite": configuration.storage = .sqlite(path: resolve(storage.string("path") ?? "data/sectional.sqlite", against: folder))
        case "memory":
            _ = storage.string("path")
            configuration.storage = .memory
        case "postgres":
            // The URL may come from SECTIONAL_DATABASE_URL or --database-url instead: checked after those.
            configuration.storage = .postgres(url: storage.string("url") ?? "")
        default: storage.issue("kind", "must be \"sqlite\", \"postgres\" or \"memory\"")
        }
        issues += storage.finish()

        var auth = root.object("auth")
        if let name = auth.string("tokenEnv") {
            // No variable has an empty name: writes would be open with no token, silently.
            if name.isEmpty { auth.issue("tokenEnv", "must name an environment variable") } else { configuration.tokenEnvironmentVariable = name }
        }
        let usersGiven = auth.object["users"] != nil
        var users = auth.object("users")
        if usersGiven { configuration.users = UserTokenSettings.parse(&users, folder: folder) }
        issues += users.finish()
        issues += auth.finish()

        var scopes = root.object("scopes")
        if let rows = scopes.int("maxResidentRows", in: 1...1_000_000_000) { configuration.maxResidentRows = rows }
        issues += scopes.finish()

        var views = root.object("views")
        if let ttl = views.int("ttlSeconds", in: 60...(10 * 365 * 86_400)) { configuration.viewTTLSeconds = ttl }
        if let limit = views.int("maxViews", in: 1...100_000_000) { configuration.maxViews = limit }
        issues += views.finish()

        var seed = root.object("seed")
        for member in seed.object {
            if member.value.isNull { seed.issue(member.key, "must be a file name (a JSON array of records)") }
            if let file = seed.string(member.key) {
                if !Names.isValid(member.key) { seed.issue(member.key, "is not a valid collection name") }
                configuration.seeds.append((member.key, resolve(file, against: folder)))
            }
        }
        issues += seed.finish()

        let lists = root.raw("lists")
        configuration.webhooks = WebhookSettings.parseAll(root.raw("webhooks"), lists: lists, issues: &issues)
        issues += root.finish()
        do {
            configuration.lists = try ListDefinitions.decode(lists ?? .object(JSONObject()), path: "lists", zones: TimeZones.offsets)
        } catch {
            issues += error.errors.map { ConfigIssue(path: $0.path, message: $0.message) }
        }
        guard issues.isEmpty else { throw ConfigError(issues) }
        return configuration
    }

    /// Applies `SECTIONAL_*` variables, then command-line flags.
    mutating func apply(environment: [String: String], overrides: ConfigurationOverrides, folder: String) throws(ConfigError) {
        func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        // A variable a flag overrides is not read (a bad one does not stop the flag that wins).
        if overrides.host == nil, let host = value("SECTIONAL_HOST") {
            if let problem = ListenHost.problem(host) { throw ConfigError(path: "SECTIONAL_HOST", problem) }
            server.host = host
        }
        if overrides.port == nil, let text = value("SECTIONAL_PORT") {
            guard let port = Int(text), (0...65535).contains(port) else {
                throw ConfigError(path: "SECTIONAL_PORT", "must be a port number, not '\(text)'")
            }
            server.port = port
        }
        if let data = value("SECTIONAL_DATA") { storage = .sqlite(path: Self.resolve(data, against: folder)) }
        if let url = value("SECTIONAL_DATABASE_URL") { storage = .postgres(url: url) }
        if let level = value("SECTIONAL_LOG_LEVEL") {
            guard let parsed = Log.Level(name: level) else {
                throw ConfigError(path: "SECTIONAL_LOG_LEVEL", "must be debug, info, warn or error, not '\(level)'")
            }
            logLevel = parsed
        }
        apiToken = value(tokenEnvironmentVariable)
        // A token a request cannot carry (a header value's white space at either end is trimmed;
        // no control byte but a tab passes) would refuse every write, and still count as set for
        // the bind check.
        if let token = apiToken, Self.cannotBeSent(token) {
            throw ConfigError(path: tokenEnvironmentVariable,
                              "must not start or end with white space nor hold control characters (a trailing newline from a file?): no request could send it")
        }
        userTokenSecret = users?.secretEnvironmentVariable.flatMap(value)
        for webhook in webhooks {
            webhookSecrets[webhook.secretEnvironmentVariable] = value(webhook.secretEnvironmentVariable)
        }

        if let host = overrides.host {
            if let problem = ListenHost.problem(host) { throw ConfigError(path: "--host", problem) }
            server.host = host
        }
        if let port = overrides.port { server.port = port }
        if let data = overrides.dataPath { storage = .sqlite(path: Self.resolve(data, against: folder)) }
        if overrides.memory { storage = .memory }
        if let url = overrides.databaseURL { storage = .postgres(url: url) }
        if storage == .postgres(url: "") {
            throw ConfigError(path: "storage.url", "is needed for kind \"postgres\" (or SECTIONAL_DATABASE_URL, or --database-url)")
        }
    }

    /// Whether no `Authorization` field could carry `token`: white space at either end (trimmed
    /// from a field's value), or a control byte other than a tab.
    static func cannotBeSent(_ token: String) -> Bool {
        let bytes = Array(token.utf8)
        let blank: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 }
        return bytes.first.map(blank) == true || bytes.last.map(blank) == true
            || bytes.contains { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }
    }

    /// Whether `text` is `*`, `null`, or an origin as a browser's `Origin` header writes it (RFC
    /// 6454): a lower-case scheme, `://`, a lower-case host name or a bracketed IPv6 address, a
    /// port only when it is not the scheme's default (browsers leave 80 and 443 out), nothing after.
    static func isOrigin(_ text: String) -> Bool {
        if text == "*" || text == "null" { return true }
        guard let separator = text.range(of: "://") else { return false }
        let scheme = text[..<separator.lowerBound], authority = text[separator.upperBound...]
        guard let first = scheme.utf8.first, first >= 0x61 && first <= 0x7A,
              scheme.utf8.allSatisfy({ ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2B || $0 == 0x2D || $0 == 0x2E })
        else { return false }
        var host = authority, port: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return false }
            host = authority[...close]
            let rest = authority[authority.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { return false }
                port = rest.dropFirst()
            }
            guard host.dropFirst().dropLast().utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) || $0 == 0x3A || $0 == 0x2E }) else {
                return false
            }
        } else {
            if let colon = authority.lastIndex(of: ":") {
                host = authority[..<colon]
                port = authority[authority.index(after: colon)...]
            }
            guard !host.isEmpty, host.utf8.allSatisfy({ ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D || $0 == 0x2E }) else {
                return false
            }
        }
        guard let port else { return true }
        guard !port.isEmpty, port.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let number = Int(port), number <= 65535 else { return false }
        return !((scheme == "http" && number == 80) || (scheme == "https" && number == 443))
    }

    static func resolve(_ path: String, against folder: String) -> String {
        guard !path.hasPrefix("/") else { return path }
        let resolved = URL(fileURLWithPath: folder).appendingPathComponent(path).standardizedFileURL.path
        // A path ending in `/` names a folder, which the store refuses as such: the URL drops the `/`.
        return path.hasSuffix("/") && !resolved.hasSuffix("/") ? resolved + "/" : resolved
    }
}
