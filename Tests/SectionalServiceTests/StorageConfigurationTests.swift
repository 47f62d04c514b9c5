import Foundation
import SectionalService
import TestSupport
import XCTest

/// `storage.kind: "postgres"`: its URL from the file, `SECTIONAL_DATABASE_URL` or `--database-url`.
final class StorageConfigurationTests: FolderTestCase {
    private func configFile(_ text: String) throws -> String {
        let path = folder.appendingPathComponent("sectional.json").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func testPostgresTakesItsURLFromTheFileTheEnvironmentOrTheFlagInThatOrder() throws {
        let path = try configFile(#"{ "storage": { "kind": "postgres", "url": "postgresql://file@db/sectional" }, "lists": {} }"#)
        XCTAssertEqual(try Configuration.load(path: path, environment: [:]).storage, .postgres(url: "postgresql://file@db/sectional"))
        let environment = ["SECTIONAL_DATABASE_URL": "postgresql://env@db/sectional"]
        XCTAssertEqual(try Configuration.load(path: path, environment: environment).storage, .postgres(url: "postgresql://env@db/sectional"))
        let flag = try Configuration.load(path: path, environment: environment,
                                          overrides: ConfigurationOverrides(databaseURL: "postgresql://flag@db/sectional"))
        XCTAssertEqual(flag.storage, .postgres(url: "postgresql://flag@db/sectional"))
        XCTAssertEqual(try Configuration.load(path: path, environment: environment, overrides: ConfigurationOverrides(memory: true)).storage,
                       .memory, "--memory wins over SECTIONAL_DATABASE_URL")

        let sqlite = try configFile(#"{ "lists": {} }"#)
        XCTAssertEqual(try Configuration.load(path: sqlite, environment: environment).storage, .postgres(url: "postgresql://env@db/sectional"),
                       "the variable alone chooses PostgreSQL")
    }

    /// A relative `--data` ending in `/` keeps it once resolved, so the store refuses it as a
    /// folder (the resolved URL dropped the `/`, and a file named like the folder was made).
    func testARelativeDataPathEndingInASlashStaysAFolder() throws {
        let path = try configFile(#"{ "lists": {} }"#)
        let storage = try Configuration.load(path: path, environment: [:], overrides: ConfigurationOverrides(dataPath: "newdir/")).storage
        let here = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)  // a flag's path is the shell's
        XCTAssertEqual(storage, .sqlite(path: here.appendingPathComponent("newdir").standardizedFileURL.path + "/"))
        let file = try Configuration.load(path: path, environment: [:], overrides: ConfigurationOverrides(dataPath: "d/s.sqlite")).storage
        XCTAssertEqual(file, .sqlite(path: here.appendingPathComponent("d/s.sqlite").standardizedFileURL.path))
    }

    func testPostgresWithoutAURLIsAnErrorNamingTheKey() throws {
        let path = try configFile(#"{ "storage": { "kind": "postgres" }, "lists": {} }"#)
        XCTAssertThrowsError(try Configuration.load(path: path, environment: [:])) { error in
            XCTAssertEqual((error as? ConfigError)?.description,
                           #"storage.url: is needed for kind "postgres" (or SECTIONAL_DATABASE_URL, or --database-url)"#)
        }
        XCTAssertEqual(try Configuration.load(path: path, environment: ["SECTIONAL_DATABASE_URL": "postgresql:///x"]).storage,
                       .postgres(url: "postgresql:///x"))
        let unknown = try configFile(#"{ "storage": { "kind": "oracle" }, "lists": {} }"#)
        XCTAssertThrowsError(try Configuration.load(path: unknown, environment: [:])) { error in
            XCTAssertEqual((error as? ConfigError)?.description, #"storage.kind: must be "sqlite", "postgres" or "memory""#)
        }
    }
}
