import Foundation
@testable import ListStore
import TestSupport
import XCTest

/// One open store per SQLite file: a second (a second server on the same file, which would never
/// see the first one's commits) refuses to open, naming the file, until the first closes. A
/// backup still reads the held store. (`flock` locks belong to an open file description, so two
/// stores in one process conflict as two servers do.)
final class SQLiteStoreLockTests: FolderTestCase {
    func testASecondStoreOnTheSameFileIsRefusedUntilTheFirstCloses() throws {
        let path = folder.appendingPathComponent("held.sqlite").path
        let store = try SQLiteStore(path: path)
        _ = try store.commit([.upsert(collection: "c", id: "a", json: Array("{}".utf8))])

        let link = folder.appendingPathComponent("link.sqlite").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: path)
        for name in [path, link] {
            do {
                let second = try SQLiteStore(path: name)
                second.close()
                XCTFail("a second store opened \(name) while the first held it")
            } catch {
                XCTAssertEqual(error.cause, .inUse, error.description)
                XCTAssertNil(error.fault, "not a passing fault: the server does not start")
                XCTAssertTrue(error.description.contains("\(name) is in use by another server (pid \(getpid()), holding \(path).lock)"),
                              error.description)
            }
        }

        // The held store is untouched by the refusals, and a backup still reads it.
        _ = try store.commit([.upsert(collection: "c", id: "b", json: Array("{}".utf8))])
        let summary = try SQLiteBackup.copy(from: path, to: folder.appendingPathComponent("copy.sqlite").path)
        XCTAssertEqual(summary.sequence, 2)

        store.close()
        let reopened = try SQLiteStore(path: path)
        defer { reopened.close() }
        XCTAssertEqual(try reopened.allRecords(in: "c").map(\.id), ["a", "b"])
    }

    /// A hard link is a second name the lock file (kept by name) does not see, and SQLite keeps
    /// the log by name: a second server through it started beside the first, each blind to the
    /// other's log, and a backup through it copied the file without the log's writes. A
    /// database with more than one name is refused by both, the first server untouched.
    func testADatabaseWithASecondNameIsRefusedByAStoreAndABackup() throws {
        let path = folder.appendingPathComponent("held.sqlite").path
        let store = try SQLiteStore(path: path)
        _ = try store.commit([.upsert(collection: "c", id: "a", json: Array("{}".utf8))])
        let link = folder.appendingPathComponent("hard.sqlite").path
        XCTAssertEqual(Glibc.link(path, link), 0)
        do {
            let second = try SQLiteStore(path: link)
            second.close()
            XCTFail("a second store opened the database by its second name")
        } catch {
            XCTAssertEqual(error.cause, .fileSystem, error.description)
            XCTAssertTrue(error.description.contains("\(link) has 2 names (hard links)"), error.description)
        }
        XCTAssertThrowsError(try SQLiteBackup.copy(from: link, to: folder.appendingPathComponent("copy.sqlite").path)) { error in
            XCTAssertTrue("\(error)".contains("has 2 names"), "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.appendingPathComponent("copy.sqlite").path))
        _ = try store.commit([.upsert(collection: "c", id: "b", json: Array("{}".utf8))])
        store.close()
        try FileManager.default.removeItem(atPath: link)
        let reopened = try SQLiteStore(path: path)
        defer { reopened.close() }
        XCTAssertEqual(try reopened.allRecords(in: "c").map(\.id), ["a", "b"], "one name again: it opens, nothing lost")
    }

    /// A symbolic link to a file not there yet names the file it leads to (SQLite creates and
    /// opens that one): a store opened by the link and one by the file share one lock. The
    /// lock went by the link's own name, and two servers served one file.
    func testAStoreOpenedByALinkToAFileNotThereYetHoldsThatFilesLock() throws {
        let real = folder.appendingPathComponent("real.sqlite").path
        let link = folder.appendingPathComponent("link.sqlite").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "real.sqlite")
        let store = try SQLiteStore(path: link)
        defer { store.close() }
        XCTAssertTrue(FileManager.default.fileExists(atPath: real), "SQLite made the file the link leads to")
        XCTAssertThrowsError(try SQLiteStore(path: real)) { error in
            XCTAssertEqual((error as? StoreError)?.cause, .inUse, "\(error)")
            XCTAssertTrue("\(error)".contains("holding \(real).lock"), "\(error)")
        }
    }
}
