import Foundation
import TestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// A small tmpfs mounted for one test, so SQLite meets a real full disk (`ENOSPC`), then grown
/// in place (`mount -o remount,size=…`) to clear the fault.
///
/// Mounting needs root (tests run as root, here and in CI). Where it is not permitted the test
/// fails with the reason: it is part of the suite and never skips.
final class SmallDisk {
    let path: URL
    private var mounted = false

    /// Mounts a tmpfs of `size` (e.g. `"2m"`) at `path` (created if missing) and registers its
    /// unmounting with `test`, so it is unmounted on every way out of the test.
    init(at path: URL, size: String, for test: XCTestCase) throws {
        self.path = path
        try FileManager.default.createDirectory(at: path, withIntermediateDirectories: true)
        let refusal: String?
        if getuid() != 0 {
            refusal = "mounting a tmpfs needs root (uid \(getuid()))"
        } else {
            let result = try Self.mount(["-t", "tmpfs", "-o", "size=\(size),mode=0700", "tmpfs", path.path])
            refusal = result.status == 0 ? nil : "mount -t tmpfs failed (\(result.status)): \(result.errors)"
        }
        if let refusal {
            // The disk-full test is part of the suite: it fails (never skips) where it cannot run.
            throw UnexpectedAnswer(description: "the disk-full test needs a tmpfs it can mount, but \(refusal)")
        }
        mounted = true
        test.addTeardownBlock { [self] in unmount() }
    }

    /// Grows (or shrinks) the mounted tmpfs to `size`, keeping its files.
    func resize(_ size: String) throws {
        let result = try Self.mount(["-o", "remount,size=\(size)", path.path])
        guard result.status == 0 else { throw UnexpectedAnswer(description: "remount to \(size) failed: \(result.errors)") }
    }

    /// Unmounts (lazily when something still holds a file open); safe to call twice.
    func unmount() {
        guard mounted else { return }
        mounted = false
        let umount = URL(fileURLWithPath: "/bin/umount")
        if (try? ChildProcess.run(umount, [path.path]))?.status != 0 {
            _ = try? ChildProcess.run(umount, ["-l", path.path])
        }
    }

    private static func mount(_ arguments: [String]) throws -> ChildProcess.Result {
        try ChildProcess.run(URL(fileURLWithPath: "/bin/mount"), arguments)
    }
}
