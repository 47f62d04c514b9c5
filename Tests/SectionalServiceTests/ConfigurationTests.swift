import Foundation
import ListModel
import SectionalService
import TestSupport
import XCTest

/// The configuration file, `SECTIONAL_*` variables and command-line flags: which wins, and what
/// each mistake is called.
final class ConfigurationTests: FolderTestCase {
    /// Writes `text` as the config file and returns its path.
    private func configFile(_ text: String) throws -> String {
        let path = folder.appendingPathComponent("sectional.json").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    private var cwd: String { FileManager.default.currentDirectoryPath }

    func testTheEnvironmentWinsOverTheFileAndFlagsWinOverBoth() throws {
        let path = try configFile("""
        { "server": { "host": "127.0.0.2", "port": 1111 }, "storage": { "path": "file.sqlite" },
          "auth": { "tokenEnv": "MY_TOKEN" }, "lists": {} }
        """)
        let file = try Configuration.load(path: path, environment: [:])
        XCTAssertEqual(file.server.host, "127.0.0.2")
        XCTAssertEqual(file.server.port, 1111)
        XCTAssertEqual(file.storage, .sqlite(path: folder.appendingPathComponent("file.sqlite").path), "relative to the config file")
        XCTAssertEqual(file.logLevel, .info)
        XCTAssertNil(file.apiToken)

        let environment = ["SECTIONAL_HOST": "127.0.0.3", "SECTIONAL_PORT": "2222", "SECTIONAL_DATA": "env.sqlite",
                           "SECTIONAL_LOG_LEVEL": "debug", "MY_TOKEN": "from-my-token", "SECTIONAL_API_TOKEN": "from-default"]
        let env = try Configuration.load(path: path, environment: environment)
        XCTAssertEqual(env.server.host, "127.0.0.3")
        XCTAssertEqual(env.server.port, 2222)
        XCTAssertEqual(env.storage, .sqlite(path: URL(fileURLWithPath: cwd).appendingPathComponent("env.sqlite").path),
                       "relative to the working directory")
        XCTAssertEqual(env.logLevel, .debug)
        XCTAssertEqual(env.apiToken, "from-my-token", "auth.tokenEnv names the variable")

        let empty = try Configuration.load(path: path, environment: ["SECTIONAL_HOST": "", "SECTIONAL_PORT": ""])
        XCTAssertEqual(empty.server.host, "127.0.0.2", "an empty variable is unset")
        XCTAssertEqual(empty.server.port, 1111)

        let flags = try Configuration.load(path: path, environment: environment,
                                           overrides: ConfigurationOverrides(host: "127.0.0.4", port: 3333, dataPath: "/data/flag.sqlite"))
        XCTAssertEqual(flags.server.host, "127.0.0.4")
        XCTAssertEqual(flags.server.port, 3333)
        XCTAssertEqual(flags.storage, .sqlite(path: "/data/flag.sqlite"))
        XCTAssertEqual(flags.logLevel, .debug, "no flag for it: the environment stays")
        let memory = try Configuration.load(path: path, environment: environment, overrides: ConfigurationOverrides(memory: true))
        XCTAssertEqual(memory.storage, .memory, "--memory wins over SECTIONAL_DATA")
        // A flag wins over a variable that is not even valid.
        let broken = ["SECTIONAL_HOST": "not a host", "SECTIONAL_PORT": "abc"]
        let winning = try Configuration.load(path: path, environment: broken, overrides: ConfigurationOverrides(host: "127.0.0.4", port: 3333))
        XCTAssertEqual(winning.server.port, 3333)
        XCTAssertEqual(winning.server.host, "127.0.0.4")
        XCTAssertThrowsError(try Configuration.load(path: path, environment: broken), "without the flags the variables are read")
    }

    /// Settings that would silently do nothing are errors: a service token in a variable with no
    /// name, a seed with no file.
    func testAnEmptyTokenVariableAndANullSeedAreErrors() throws {
        XCTAssertThrowsError(try Configuration.load(path: configFile(#"{ "auth": { "tokenEnv": "" }, "lists": {} }"#), environment: [:])) {
            XCTAssertTrue("\($0)".contains("auth.tokenEnv"), "\($0)")
        }
        XCTAssertThrowsError(try Configuration.load(path: configFile(#"{ "seed": { "people": null }, "lists": {} }"#), environment: [:])) {
            XCTAssertTrue("\($0)".contains("seed.people"), "\($0)")
        }
    }

    /// A service token no request can send (a trailing newline, read from a file) is an error,
    /// not a server whose every write is refused; a NUL in a setting (the system cuts a path
    /// there: a database path ending in one made its lock file the database, emptied) is one too.
    func testATokenNoRequestCanSendAndANulInASettingAreErrors() throws {
        let path = try configFile(#"{ "lists": {} }"#)
        for token in ["secret\n", " secret", "secret\t", "sec\u{7F}ret"] {
            XCTAssertThrowsError(try Configuration.load(path: path, environment: ["SECTIONAL_API_TOKEN": token]), token.debugDescription) {
                XCTAssertTrue("\($0)".contains("SECTIONAL_API_TOKEN"), "\($0)")
            }
        }
        XCTAssertEqual(try Configuration.load(path: path, environment: ["SECTIONAL_API_TOKEN": "s3cr3t-token_~+/="]).apiToken, "s3cr3t-token_~+/=")
        XCTAssertEqual(try Configuration.load(path: path, environment: ["SECTIONAL_API_TOKEN": "correct horse battery"]).apiToken,
                       "correct horse battery", "inner spaces: a request sends them")
        XCTAssertThrowsError(try Configuration.load(path: configFile(#"{ "storage": { "path": "/tmp/x.sqlite\u0000" }, "lists": {} }"#),
                                                    environment: [:])) {
            XCTAssertTrue("\($0)".contains("storage.path"), "\($0)")
        }
    }

    /// A CORS origin is compared with the browser's `Origin` byte for byte: one in another form
    /// (a trailing slash, upper case, a pattern) never matched, silently.
    func testACorsOriginNoBrowserSendsIsAnError() throws {
        for bad in ["https://app.example.com/", "https://App.example.com", "*.example.com", "app.example.com", "https://*.example.com",
                    "https://app.example.com:443", "http://x:80", "http://x:", "https://app.example.com?x"] {
            XCTAssertThrowsError(try Configuration.load(path: configFile(#"{ "server": { "corsOrigins": ["\#(bad)"] }, "lists": {} }"#),
                                                        environment: [:]), bad) {
                XCTAssertTrue("\($0)".contains("server.corsOrigins"), "\($0)")
            }
        }
        let good = try configFile(#"{ "server": { "corsOrigins": ["https://app.example.com", "http://localhost:3000", "http://[::1]:8081", "*", "null", "http://127.0.0.1:8765"] }, "lists": {} }"#)
        XCTAssertEqual(try Configuration.load(path: good, environment: [:]).corsOrigins.count, 6)
    }

    /// Worker threads are pinned to cores unless the file says not to.
    func testThreadPinningIsOnUnlessTurnedOff() throws {
        XCTAssertTrue(try Configuration.load(path: configFile(#"{ "lists": {} }"#), environment: [:]).server.pinThreads)
        let off = try configFile(#"{ "server": { "threads": 2, "pinThreads": false }, "lists": {} }"#)
        XCTAssertFalse(try Configuration.load(path: off, environment: [:]).server.pinThreads)
    }

    func testABadVariableIsAnErrorNamingIt() throws {
        let path = try configFile(#"{ "lists": {} }"#)
        for value in ["eighty", "65536", "-1"] {
            XCTAssertThrowsError(try Configuration.load(path: path, environment: ["SECTIONAL_PORT": value])) { error in
                XCTAssertEqual((error as? ConfigError)?.description, "SECTIONAL_PORT: must be a port number, not '\(value)'")
            }
        }
        XCTAssertThrowsError(try Configuration.load(path: path, environment: ["SECTIONAL_LOG_LEVEL": "loud"])) { error in
            XCTAssertEqual((error as? ConfigError)?.description, "SECTIONAL_LOG_LEVEL: must be debug, info, warn or error, not 'loud'")
        }
        XCTAssertEqual(try Configuration.load(path: path, environment: ["SECTIONAL_LOG_LEVEL": "WARN"]).logLevel, .warn, "in any case")
    }

    /// A host to listen on is an IP address or a host name, whether from the file, the
    /// environment or `--host`: `check` refuses what `serve` could never listen on.
    func testTheHostIsAnAddressOrAHostName() throws {
        for good in ["127.0.0.1", "0.0.0.0", "::1", "::", "localhost", "api.example.com", "my-host", "host.", "10.0.0.1"] {
            let path = try configFile(#"{"server":{"host":"\#(good)"}}"#)
            XCTAssertEqual(try Configuration.load(path: path, environment: [:]).server.host, good)
        }
        for bad in ["not a host!", "", "-bad", "bad-", "a..b", "[::1]", "host/path", String(repeating: "a", count: 64)] {
            let path = try configFile(#"{"server":{"host":"\#(bad)"}}"#)
            XCTAssertThrowsError(try Configuration.load(path: path, environment: [:]), bad) { error in
                XCTAssertEqual((error as? ConfigError)?.description, "server.host: must be an IP address or a host name, not '\(bad)'")
            }
        }
        let path = try configFile("{}")
        XCTAssertThrowsError(try Configuration.load(path: path, environment: ["SECTIONAL_HOST": "no way"])) { error in
            XCTAssertEqual((error as? ConfigError)?.description, "SECTIONAL_HOST: must be an IP address or a host name, not 'no way'")
        }
        XCTAssertThrowsError(try Configuration.load(path: path, environment: [:], overrides: ConfigurationOverrides(host: "x y"))) { error in
            XCTAssertEqual((error as? ConfigError)?.description, "--host: must be an IP address or a host name, not 'x y'")
        }
    }

    func testUnreadableFilesAreErrors() throws {
        let missing = folder.appendingPathComponent("missing.json").path
        XCTAssertThrowsError(try Configuration.load(path: missing, environment: [:])) { error in
            XCTAssertEqual((error as? ConfigError)?.description, "cannot read config file \(missing): No such file or directory")
        }
        XCTAssertThrowsError(try Configuration.load(path: folder.path, environment: [:])) { error in
            XCTAssertEqual((error as? ConfigError)?.description, "cannot read config file \(folder.path): it is a folder")
        }
        let broken = try configFile(#"{ "lists": "#)
        XCTAssertThrowsError(try Configuration.load(path: broken, environment: [:])) { error in
            XCTAssertTrue((error as? ConfigError)?.description.hasPrefix("\(broken) is not valid JSON: ") == true, "\(error)")
        }
    }

    /// Every mistake is reported at once, each with its JSON path and message.
    func testEveryParseErrorIsReportedWithItsPath() throws {
        let json = try JSONParser.parse("""
        { "server": { "host": 1, "port": 70000, "threads": -1, "pinThreads": "yes", "maxBodyBytes": 0, "connectionLimit": 0,
                      "perClientConnectionLimit": -1, "connectionTimeoutSeconds": 0, "corsOrigins": [1], "tls": true },
          "storage": { "kind": "disk" },
          "auth": { "tokenEnv": ["X"] },
          "views": { "ttlSeconds": 59 },
          "seed": { "bad name": "a.json", "people": 3 },
          "typo": 1,
          "lists": { "l": { "sections": [ { "type": "x", "rows": [] } ] } } }
        """)
        XCTAssertThrowsError(try Configuration.parse(json, folder: folder.path)) { error in
            guard let issues = (error as? ConfigError)?.issues else { return XCTFail("\(error)") }
            let expected = [
                "server.host: must be a string",
                "server.port: must be an integer from 0 to 65535",
                "server.threads: must be an integer from 0 to 256",
                "server.pinThreads: must be true or false",
                "server.maxBodyBytes: must be an integer from 1 to 1073741824",
                "server.connectionLimit: must be an integer from 1 to 100000",
                "server.perClientConnectionLimit: must be an integer from 0 to 100000",
                "server.connectionTimeoutSeconds: must be an integer from 1 to 86400",
                "server.corsOrigins: must be an array of strings",
                "server.tls: unknown key",
                "storage.kind: must be \"sqlite\", \"postgres\" or \"memory\"",
                "auth.tokenEnv: must be a string",
                "views.ttlSeconds: must be an integer from 60 to 315360000",
                "seed.bad name: is not a valid collection name",
                "seed.people: must be a string",
                "typo: unknown key",
            ]
            let descriptions = issues.map(\.description)
            for line in expected { XCTAssertTrue(descriptions.contains(line), "missing \(line) in \(descriptions)") }
            let others = descriptions.filter { !expected.contains($0) }
            XCTAssertFalse(others.isEmpty, "the list's own error is reported too")
            XCTAssertTrue(others.allSatisfy { $0.hasPrefix("lists.l.sections[0]") }, "\(others)")
        }

        for (text, message) in [("[]", "must be an object"), (#"{"server": 1}"#, "server: must be an object"),
                                (#"{"storage": {"kind": "memory", "path": 2}}"#, "storage.path: must be a string")] {
            XCTAssertThrowsError(try Configuration.parse(try JSONParser.parse(text), folder: folder.path), text) { error in
                XCTAssertEqual((error as? ConfigError)?.description, message, text)
            }
        }
        let defaults = try Configuration.parse(try JSONParser.parse("{}"), folder: folder.path)
        XCTAssertEqual(defaults.storage, .sqlite(path: folder.appendingPathComponent("data/sectional.sqlite").path))
        XCTAssertTrue(defaults.lists.isEmpty)
    }

    /// Without an API token only this machine may be listened on: loopback literals in any
    /// spelling pass, a name that merely starts with `127.` does not (it may resolve anywhere).
    func testOnlyLoopbackAddressesNeedNoToken() throws {
        var configuration = try Configuration.parse(try JSONParser.parse(#"{"lists": {}}"#), folder: folder.path)
        for host in ["localhost", "127.0.0.1", "127.1.2.3", "::1", "0:0:0:0:0:0:0:1"] {
            configuration.server.host = host
            XCTAssertNoThrow(try SectionalServer.checkBindSafety(configuration, allowUnauthenticatedWrites: false), host)
        }
        for host in ["0.0.0.0", "127.example.com", "::", "10.0.0.1", "::ffff:10.0.0.1"] {
            configuration.server.host = host
            XCTAssertThrowsError(try SectionalServer.checkBindSafety(configuration, allowUnauthenticatedWrites: false), host)
            XCTAssertNoThrow(try SectionalServer.checkBindSafety(configuration, allowUnauthenticatedWrites: true), host)
        }
    }

    /// `auth.tokenEnv` names the one variable the service token is read from: when it is unset,
    /// a `SECTIONAL_API_TOKEN` that happens to be set is not taken instead — there is no token,
    /// so an exposed address is refused, naming the variable to set.
    func testAnUnsetTokenVariableIsNotReplacedBySECTIONAL_API_TOKEN() throws {
        let path = try configFile(#"{ "server": { "host": "0.0.0.0" }, "auth": { "tokenEnv": "MY_TOKEN" }, "lists": {} }"#)
        let configuration = try Configuration.load(path: path, environment: ["SECTIONAL_API_TOKEN": "stray"])
        XCTAssertNil(configuration.apiToken)
        XCTAssertThrowsError(try SectionalServer.checkBindSafety(configuration, allowUnauthenticatedWrites: false)) {
            XCTAssertTrue("\($0)".contains("Set MY_TOKEN,"), "\($0)")
        }
        let defaultPath = try configFile(#"{ "lists": {} }"#)
        XCTAssertEqual(try Configuration.load(path: defaultPath, environment: ["SECTIONAL_API_TOKEN": "set"]).apiToken, "set",
                       "without auth.tokenEnv, SECTIONAL_API_TOKEN is the variable")
    }
}
